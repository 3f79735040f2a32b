#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Downloads and caches the kernels the VM tests boot:
#   kfunc     Debian sid's current cloud kernel (Linux >= 7.0: has the memcg kfuncs)
#   fallback  Debian trixie's cloud kernel (6.12: no memcg kfuncs; bpf-core)
#   bookworm  Debian 12's cloud kernel (6.1: no memcg kfuncs; bpf-core)
# and prints one line per kernel: "NAME VERSION /path/to/vmlinuz".
#
# MEMCG_BPF_VM_ARCH=arm64 fetches the arm64 cloud kernels instead (kfunc and
# fallback: make vmcheck-arm64), cached beside the others as NAME-arm64.
#
# The cache lives in $MEMCG_BPF_VM_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/vm). A cached kernel is used as is,
# without network; MEMCG_BPF_VM_REFRESH=1 asks the archive for the current
# version first and falls back to the cache when the network fails.
#
# The host's own apt configuration is never touched: scripts/private-apt.sh
# (private sources.list and lists; packages are only downloaded and unpacked).
set -eu

CACHE=${MEMCG_BPF_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/vm}
REFRESH=${MEMCG_BPF_VM_REFRESH:-0}
ARCH=${MEMCG_BPF_VM_ARCH:-amd64}
case $ARCH in
amd64) SUFFIX='' SPECS="kfunc:sid:7 fallback:trixie:6 bookworm:bookworm:6" ;;
arm64) SUFFIX=-arm64 SPECS="kfunc:sid:7 fallback:trixie:6" ;;
*) echo "fetch-kernels: MEMCG_BPF_VM_ARCH=$ARCH: amd64 or arm64" >&2; exit 1 ;;
esac

log() { echo "fetch-kernels: $*" >&2; }
die() { log "$*"; exit 1; }

mkdir -p "$CACHE"

# shellcheck disable=SC2034 # read by scripts/private-apt.sh
PRIVATE_APT_ARCH=$ARCH
# shellcheck source=../../scripts/private-apt.sh
. "$(dirname "$0")/../../scripts/private-apt.sh"
apt_dir() { echo "$CACHE/apt-$1$SUFFIX"; }

# pkg_depends SUITE PKG REGEX: the first direct dependency of PKG matching REGEX.
pkg_depends() {
	private_apt "$(apt_dir "$1")" apt-cache depends "$2" 2>/dev/null |
		sed -n 's/^ *Depends: *//p' | grep -E "$3" | head -n 1
}

# fetch NAME SUITE MINMAJOR: resolves, downloads and unpacks the suite's cloud kernel.
fetch() {
	name=$1 suite=$2 minmajor=$3
	dest=$CACHE/$name$SUFFIX
	private_apt_update "$(apt_dir "$suite")" "$suite" || { log "apt-get update for $suite failed (see $(apt_dir "$suite")/update.log)"; return 1; }
	image=$(pkg_depends "$suite" linux-image-cloud-$ARCH '^linux-image-[0-9]')
	test -n "$image" || { log "$suite: cannot resolve linux-image-cloud-$ARCH"; return 1; }
	version=${image#linux-image-}
	major=${version%%.*}
	test "$major" -ge "$minmajor" || { log "$suite: $image is older than $minmajor.0"; return 1; }
	if test -f "$dest/version" && test "$(cat "$dest/version")" = "$version" && test -f "$dest/vmlinuz"; then
		return 0
	fi
	# Since 7.x the image package may keep the kernel in a linux-binary-* dependency.
	pkgs=$image
	binary=$(pkg_depends "$suite" "$image" '^linux-binary-')
	test -z "$binary" || pkgs="$pkgs $binary"
	tmp=$dest.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp/root"
	# shellcheck disable=SC2086 # $pkgs: one or two package names
	private_apt_download "$(apt_dir "$suite")" "$tmp/debs" $pkgs ||
		{ log "$suite: download of $pkgs failed (see $tmp/debs/download.log)"; return 1; }
	for deb in "$tmp"/debs/*.deb; do
		dpkg-deb -x "$deb" "$tmp/root"
	done
	vmlinuz=$(find "$tmp/root" \( -path '*/boot/vmlinuz-*' -o -path '*/lib/modules/*/vmlinuz' \) -type f | head -n 1)
	test -n "$vmlinuz" || { log "$suite: no vmlinuz in $pkgs"; return 1; }
	rm -rf "$dest"
	mkdir -p "$dest"
	mv "$vmlinuz" "$dest/vmlinuz"
	cfg=$(find "$tmp/root" -path '*/boot/config-*' -type f | head -n 1)
	test -z "$cfg" || mv "$cfg" "$dest/config"
	echo "$version" > "$dest/version"
	rm -rf "$tmp"
	log "$suite: cached $version"
}

for spec in $SPECS; do
	name=${spec%%:*}
	rest=${spec#*:}
	suite=${rest%%:*}
	minmajor=${rest#*:}
	dest=$CACHE/$name$SUFFIX
	if test -f "$dest/vmlinuz" && test -f "$dest/version" && test "$REFRESH" != 1; then
		:
	elif ! fetch "$name" "$suite" "$minmajor"; then
		if test -f "$dest/vmlinuz" && test -f "$dest/version"; then
			log "$suite: using the cached kernel $(cat "$dest/version")"
		else
			die "$suite: no kernel and none cached"
		fi
	fi
	echo "$name $(cat "$dest/version") $dest/vmlinuz"
done
