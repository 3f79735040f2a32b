#!/bin/sh
# Downloads and caches Debian's promtool (a package of its own in sid; not in
# bookworm) and prints its path. Nothing is installed: a private apt
# configuration (sources.list, lists, archives under the cache) and
# `apt-get download` + `dpkg-deb -x`, as tests/sender/fetch-receivers.sh does
# for Prometheus. The version is the archive's candidate at run time; a
# cached copy is used without network (MEMCG_BPF_RECEIVER_REFRESH=1 asks the
# archive first). Cache: $MEMCG_BPF_RECEIVER_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/receivers), next to Prometheus.
set -eu
CACHE=${MEMCG_BPF_RECEIVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/receivers}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
MIRROR=${MEMCG_BPF_VM_MIRROR:-http://deb.debian.org/debian}
APTDIR=$CACHE/apt-sid-promtool
dest=$CACHE/promtool
bin=$dest/usr/bin/promtool

log() { echo "fetch-promtool: $*" >&2; }
if [ -x "$bin" ] && [ "${MEMCG_BPF_RECEIVER_REFRESH:-0}" != 1 ]; then
	echo "$bin"
	exit 0
fi
mkdir -p "$APTDIR/lists/partial" "$APTDIR/archives/partial"
[ -r "$KEYRING" ] || { log "$KEYRING missing (apt-get install debian-archive-keyring)"; exit 1; }
echo "deb [signed-by=$KEYRING] $MIRROR sid main" >"$APTDIR/sources.list"
opts="-o Dir::Etc::sourcelist=$APTDIR/sources.list -o Dir::Etc::sourceparts=- \
-o Dir::State::Lists=$APTDIR/lists -o Dir::Cache::archives=$APTDIR/archives \
-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= -o APT::Sandbox::User=root -o Debug::NoLocking=1 -q"
# shellcheck disable=SC2086
if apt-get $opts update >"$APTDIR/update.log" 2>&1; then
	version=$(apt-cache $opts policy promtool 2>/dev/null | sed -n 's/^ *Candidate: *//p' | head -n 1)
	if [ -n "$version" ] && [ "$version" != "(none)" ] &&
		! { [ -f "$dest/version" ] && [ "$(cat "$dest/version")" = "$version" ]; }; then
		tmp=$CACHE/promtool.tmp
		rm -rf "$tmp" && mkdir -p "$tmp/debs" "$tmp/root"
		# shellcheck disable=SC2086
		(cd "$tmp/debs" && apt-get $opts download "promtool=$version") >"$tmp/download.log" 2>&1 ||
			{ log "download of promtool $version failed (see $tmp/download.log)"; exit 1; }
		dpkg-deb -x "$tmp"/debs/promtool_*.deb "$tmp/root"
		rm -rf "$dest" && mv "$tmp/root" "$dest" && echo "$version" >"$dest/version" && rm -rf "$tmp"
		log "cached promtool $version"
	fi
else
	log "apt-get update for sid failed (see $APTDIR/update.log)"
fi
[ -x "$bin" ] || { log "no promtool and none cached"; exit 1; }
echo "$bin"
