#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Downloads and caches the receivers the sender tests ship to, from Debian sid
# (run unpacked; nothing is installed), and prints one line per binary:
#   prometheus VERSION /path/to/prometheus
#   victoria-metrics VERSION /path/to/victoria-metrics
#   vmagent VERSION /path/to/vmagent
#
# Same approach as tests/vm/fetch-kernels.sh: a private sources.list and
# private lists, `apt-get download`, `dpkg-deb -x`; the version is resolved
# from the archive at run time. The cache lives in $MEMCG_BPF_RECEIVER_CACHE
# (default ${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/receivers). A cached
# package is used without network; MEMCG_BPF_RECEIVER_REFRESH=1 asks the
# archive for the current version first (falls back to the cache).
set -eu

CACHE=${MEMCG_BPF_RECEIVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/receivers}
REFRESH=${MEMCG_BPF_RECEIVER_REFRESH:-0}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
MIRROR=${MEMCG_BPF_VM_MIRROR:-http://deb.debian.org/debian}
SUITE=sid

log() { echo "fetch-receivers: $*" >&2; }
die() { log "$*"; exit 1; }

mkdir -p "$CACHE"
APTDIR=$CACHE/apt-$SUITE
apt_opts() {
	echo "-o Dir::Etc::sourcelist=$APTDIR/sources.list -o Dir::Etc::sourceparts=- \
-o Dir::State::Lists=$APTDIR/lists -o Dir::Cache::archives=$APTDIR/archives \
-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
-o APT::Sandbox::User=root -o Debug::NoLocking=1 -q"
}

updated=0
apt_update() {
	[ $updated = 1 ] && return 0
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/archives/partial"
	test -r "$KEYRING" || die "$KEYRING missing (apt-get install debian-archive-keyring)"
	echo "deb [signed-by=$KEYRING] $MIRROR $SUITE main" > "$APTDIR/sources.list"
	# shellcheck disable=SC2046
	apt-get $(apt_opts) update >"$APTDIR/update.log" 2>&1 || return 1
	updated=1
}

# candidate PKG: the version the archive has now
candidate() {
	# shellcheck disable=SC2046
	apt-cache $(apt_opts) policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p' | head -n 1
}

# fetch PKG: downloads and unpacks PKG into $CACHE/PKG
fetch() {
	pkg=$1 dest=$CACHE/$1
	apt_update || { log "apt-get update for $SUITE failed (see $APTDIR/update.log)"; return 1; }
	version=$(candidate "$pkg")
	test -n "$version" && test "$version" != "(none)" || { log "$SUITE has no $pkg"; return 1; }
	if test -f "$dest/version" && test "$(cat "$dest/version")" = "$version"; then
		return 0
	fi
	tmp=$CACHE/$pkg.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp/debs" "$tmp/root"
	# shellcheck disable=SC2046
	(cd "$tmp/debs" && apt-get $(apt_opts) download "$pkg=$version") >"$tmp/download.log" 2>&1 ||
		{ log "download of $pkg $version failed (see $tmp/download.log)"; return 1; }
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
