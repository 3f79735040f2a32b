#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Downloads and caches the receivers the sender tests ship to, from Debian sid
# (run unpacked; nothing is installed), and prints one line per binary:
#   prometheus VERSION /path/to/prometheus
#   victoria-metrics VERSION /path/to/victoria-metrics
#   vmagent VERSION /path/to/vmagent
#
# Nothing is installed: scripts/private-apt.sh (a private sources.list and
# lists, `apt-get download`, `dpkg-deb -x`); the version is resolved from the
# archive at run time. The cache lives in $MEMCG_BPF_RECEIVER_CACHE
# (default ${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/receivers). A cached
# package is used without network; MEMCG_BPF_RECEIVER_REFRESH=1 asks the
# archive for the current version first (falls back to the cache).
set -eu

CACHE=${MEMCG_BPF_RECEIVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/receivers}
REFRESH=${MEMCG_BPF_RECEIVER_REFRESH:-0}
SUITE=sid
# shellcheck source=../../scripts/private-apt.sh
. "$(dirname "$0")/../../scripts/private-apt.sh"

log() { echo "fetch-receivers: $*" >&2; }
die() { log "$*"; exit 1; }

mkdir -p "$CACHE"
APTDIR=$CACHE/apt-$SUITE
updated=0

# fetch PKG: downloads and unpacks PKG into $CACHE/PKG
fetch() {
	pkg=$1 dest=$CACHE/$1
	if [ $updated = 0 ]; then
		private_apt_update "$APTDIR" $SUITE || { log "apt-get update for $SUITE failed (see $APTDIR/update.log)"; return 1; }
		updated=1
	fi
	version=$(private_apt_candidate "$APTDIR" "$pkg")
	test -n "$version" || { log "$SUITE has no $pkg"; return 1; }
	if test -f "$dest/version" && test "$(cat "$dest/version")" = "$version"; then
		return 0
	fi
	tmp=$CACHE/$pkg.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp/root"
	private_apt_download "$APTDIR" "$tmp/debs" "$pkg=$version" ||
		{ log "download of $pkg $version failed (see $tmp/debs/download.log)"; return 1; }
	for deb in "$tmp"/debs/*.deb; do
		dpkg-deb -x "$deb" "$tmp/root"
	done
	rm -rf "$dest"
	mv "$tmp/root" "$dest"
	echo "$version" > "$dest/version"
	rm -rf "$tmp"
	log "cached $pkg $version"
}

for pkg in prometheus victoria-metrics; do
	dest=$CACHE/$pkg
	if test -f "$dest/version" && test "$REFRESH" != 1; then
		:
	elif ! fetch "$pkg"; then
		test -f "$dest/version" || die "no $pkg and none cached"
		log "using the cached $pkg $(cat "$dest/version")"
	fi
done
v=$(cat "$CACHE/prometheus/version")
echo "prometheus $v $CACHE/prometheus/usr/bin/prometheus"
v=$(cat "$CACHE/victoria-metrics/version")
echo "victoria-metrics $v $CACHE/victoria-metrics/usr/bin/victoria-metrics"
echo "vmagent $v $CACHE/victoria-metrics/usr/bin/vmagent"
