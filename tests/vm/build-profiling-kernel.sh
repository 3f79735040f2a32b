#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Builds the kernel of the allocinfo VM tests: no Debian kernel package has
# CONFIG_MEM_ALLOC_PROFILING, so this one is built from Debian's
# linux-source-7.3 (trixie-backports), `make tinyconfig` plus
# tests/vm/profiling-kernel.config, and with it the test module
# tests/vm/allocmod (out of tree). Prints the bzImage's path as its last
# line; allocmod.ko lies next to it, and the file "version" there holds the
# source package's version.
#
# The cache: $MEMCG_BPF_VM_CACHE/profiling-<source version>/ (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/vm, as tests/vm/fetch-kernels.sh):
#   src/         the unpacked source (read only to the build)
#   build/       the build output (make O=): what an out-of-tree module
#                build needs (make -C build M=DIR modules)
#   bzImage, allocmod.ko, version
#   kernel.key, allocmod.key   what they were built from (source version and
#                the sha256 of the fragment's options; the module's sources and
#                the kernel's key)
#   kernel.log, allocmod.log   the builds' output
# The kernel is built again only when the source version or the fragment
# changed (in the kept build/: incremental), the module when its sources or
# the kernel changed. Without network a cached source is used as is;
# MEMCG_BPF_VM_REFRESH=1 asks the archive for the current version first.
#
# Environment: MEMCG_BPF_VM_CACHE, MEMCG_BPF_VM_REFRESH, MEMCG_BPF_VM_MIRROR
# (as fetch-kernels.sh), MEMCG_BPF_KBUILD_JOBS (make -j, default nproc), CC.
# Needs gcc, make, flex, bison, bc and libelf-dev (objtool): scripts/deps.sh.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
CACHE=${MEMCG_BPF_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/vm}
REFRESH=${MEMCG_BPF_VM_REFRESH:-0}
JOBS=${MEMCG_BPF_KBUILD_JOBS:-$(nproc)}
SUITE=trixie-backports
PACKAGE=linux-source-7.3
FRAGMENT=$here/profiling-kernel.config
MODSRC=$here/allocmod

log() { echo "build-profiling-kernel: $*" >&2; }
die() { log "$*"; exit 1; }

for tool in make gcc flex bison bc; do
	command -v $tool >/dev/null || die "$tool not found (scripts/deps.sh installs it)"
done
test -f "$FRAGMENT" || die "$FRAGMENT missing"
mkdir -p "$CACHE"

# The private apt configuration (the host's own is never touched).
# shellcheck source=../../scripts/private-apt.sh
. "$here/../../scripts/private-apt.sh"
APT=$CACHE/apt-$SUITE

# archive_version: the archive's version of $PACKAGE (nothing when offline).
archive_version() {
	private_apt_update "$APT" "$SUITE" || return 0
	private_apt "$APT" apt-cache show "$PACKAGE" 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n 1
}

# cached_version: the newest cached source.
cached_version() {
	for d in "$CACHE"/profiling-*/src/Makefile; do
		test -f "$d" || continue
		d=${d%/src/Makefile}
		echo "${d##*/profiling-}"
	done | sort -V | tail -n 1
}

version=
if [ "$REFRESH" != 1 ]; then
	version=$(cached_version)
fi
if [ -z "$version" ]; then
	version=$(archive_version)
	if [ -z "$version" ]; then
		version=$(cached_version)
		test -n "$version" || die "$SUITE: no $PACKAGE (see $APT/update.log) and none cached"
		log "$SUITE: archive not reachable, using the cached source $version"
	fi
fi
dir=$CACHE/profiling-$version

# The source: the package's tarball, unpacked once.
if [ ! -f "$dir/src/Makefile" ]; then
	tmp=$dir/fetch.tmp
	rm -rf "$tmp" "$dir/src"
	log "downloading $PACKAGE $version"
	private_apt_download "$APT" "$tmp/debs" "$PACKAGE=$version" ||
		die "download of $PACKAGE=$version failed (see $tmp/debs/download.log)"
	dpkg-deb -x "$tmp"/debs/*.deb "$tmp/root"
	tarball=$(find "$tmp/root/usr/src" -name 'linux-source-*.tar.*' | head -n 1)
	test -n "$tarball" || die "no linux-source tarball in $PACKAGE $version"
	log "unpacking $(basename "$tarball")"
	mkdir -p "$tmp/src"
	tar -xf "$tarball" -C "$tmp/src" --strip-components=1
	mv "$tmp/src" "$dir/src"
	rm -rf "$tmp"
fi

# The kernel: tinyconfig + the fragment, in build/.
# the key: the source version and the fragment's options (not its comments)
kkey="$version $(grep -E '^(CONFIG_|# CONFIG_[A-Za-z0-9_]+ is not set)' "$FRAGMENT" | LC_ALL=C sort | sha256sum | cut -d' ' -f1)"
if [ ! -f "$dir/bzImage" ] || [ "$(cat "$dir/kernel.key" 2>/dev/null)" != "$kkey" ]; then
	rm -f "$dir/bzImage" "$dir/kernel.key" "$dir/allocmod.ko" "$dir/allocmod.key"
	mkdir -p "$dir/build"
	log "building the kernel $version in $dir/build ($JOBS jobs; log in $dir/kernel.log)"
	start=$(date +%s)
	{
		make -C "$dir/src" O="$dir/build" tinyconfig &&
		"$dir/src/scripts/kconfig/merge_config.sh" -m -O "$dir/build" "$dir/build/.config" "$FRAGMENT" &&
		make -C "$dir/src" O="$dir/build" olddefconfig
	} > "$dir/kernel.log" 2>&1 || { tail -n 20 "$dir/kernel.log" >&2; die "configuration failed"; }
	# every option of the fragment as asked (Kconfig drops what it cannot have)
	missing=$(sed -n 's/^\(CONFIG_[A-Za-z0-9_]*=.*\)$/\1/p' "$FRAGMENT" | while IFS= read -r want; do
		grep -qx "$want" "$dir/build/.config" || echo "$want (has: $(grep "^${want%%=*}=" "$dir/build/.config" || echo 'not set'))"
	done)
	test -z "$missing" || die "the configuration lacks: $missing"
	make -C "$dir/src" O="$dir/build" -j"$JOBS" bzImage modules >> "$dir/kernel.log" 2>&1 ||
		{ tail -n 30 "$dir/kernel.log" >&2; die "kernel build failed (see $dir/kernel.log)"; }
	cp "$dir/build/arch/x86/boot/bzImage" "$dir/bzImage"
	echo "$version" > "$dir/version"
	echo "$kkey" > "$dir/kernel.key"
	log "kernel built in $(($(date +%s) - start)) s: $dir/bzImage ($(du -k "$dir/bzImage" | cut -f1) KiB)"
fi

# The test module, built in a copy of its sources (the tree stays clean).
mkey="$kkey $(cd "$MODSRC" && find . -type f ! -name '.*' | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1)"
if [ ! -f "$dir/allocmod.ko" ] || [ "$(cat "$dir/allocmod.key" 2>/dev/null)" != "$mkey" ]; then
	rm -rf "$dir/allocmod" "$dir/allocmod.ko" "$dir/allocmod.key"
	cp -R "$MODSRC" "$dir/allocmod"
	start=$(date +%s)
	make -C "$dir/build" M="$dir/allocmod" modules > "$dir/allocmod.log" 2>&1 ||
		{ tail -n 30 "$dir/allocmod.log" >&2; die "allocmod build failed (see $dir/allocmod.log)"; }
	cp "$dir/allocmod/allocmod.ko" "$dir/allocmod.ko"
	echo "$mkey" > "$dir/allocmod.key"
	log "allocmod built in $(($(date +%s) - start)) s: $dir/allocmod.ko"
fi

echo "$dir/bzImage"
