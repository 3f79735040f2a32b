#!/bin/sh
# Downloads and caches Debian's promtool (a package of its own in sid; not in
# bookworm) and prints its path. Nothing is installed:
# scripts/private-apt.sh, as tests/sender/fetch-receivers.sh does for
# Prometheus. The version is the archive's candidate at run time; a
# cached copy is used without network (MEMCG_BPF_RECEIVER_REFRESH=1 asks the
# archive first). Cache: $MEMCG_BPF_RECEIVER_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/receivers), next to Prometheus.
set -eu
CACHE=${MEMCG_BPF_RECEIVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/receivers}
APTDIR=$CACHE/apt-sid-promtool
dest=$CACHE/promtool
bin=$dest/usr/bin/promtool
# shellcheck source=../../scripts/private-apt.sh
. "$(dirname "$0")/../../scripts/private-apt.sh"

log() { echo "fetch-promtool: $*" >&2; }
if [ -x "$bin" ] && [ "${MEMCG_BPF_RECEIVER_REFRESH:-0}" != 1 ]; then
	echo "$bin"
	exit 0
fi
if private_apt_update "$APTDIR" sid; then
	version=$(private_apt_candidate "$APTDIR" promtool)
	if [ -n "$version" ] && ! { [ -f "$dest/version" ] && [ "$(cat "$dest/version")" = "$version" ]; }; then
		tmp=$CACHE/promtool.tmp
		rm -rf "$tmp" && mkdir -p "$tmp/root"
		private_apt_download "$APTDIR" "$tmp/debs" "promtool=$version" ||
			{ log "download of promtool $version failed (see $tmp/debs/download.log)"; exit 1; }
		dpkg-deb -x "$tmp"/debs/promtool_*.deb "$tmp/root"
		rm -rf "$dest" && mv "$tmp/root" "$dest" && echo "$version" >"$dest/version" && rm -rf "$tmp"
		log "cached promtool $version"
	fi
else
	log "apt-get update for sid failed (see $APTDIR/update.log)"
fi
[ -x "$bin" ] || { log "no promtool and none cached"; exit 1; }
echo "$bin"
