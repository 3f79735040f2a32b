#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# mkinitramfs.sh OUT.cpio.gz PROGRAM...
#
# Builds the initramfs of the VM tests (cpio newc, gzip) for MEMCG_BPF_VM_ARCH
# (amd64, or arm64 with an arm64 BUSYBOX):
#   /init, /vmtest/*.sh      the guest init and tests (tests/vm/guest)
#   /vmtest/bin/*            tests/vm/guest/*.c built with gcc -static
#   /bin/busybox             busybox-static; init installs its applets
#   /opt/memcg/bin/*         the PROGRAMs (a libtool wrapper script is
#                            replaced by the real program in .libs/)
#   /opt/memcg/lib/*         every shared library they need (ldd closure),
#                            the dynamic loader at its own absolute path
#
# A guest helper guest/NAME.c may come with guest/NAME.sources: more C files
# (paths relative to the top of the source tree, one per line) linked into
# it, with their directories on the include path.
#
# MEMCG_BPF_VM_FILES adds files at paths of their own: space-separated
# SRC=DEST pairs (DEST absolute in the guest; no spaces in either). Symlinks
# are copied as regular files. When SRC is a dynamically linked ELF program
# or shared object (collectd, its plugins), the ldd closure of SRC goes to
# /opt/memcg/lib too, so a dlopen()ed plugin finds its libraries through the
# guest's LD_LIBRARY_PATH. For arm64, MEMCG_BPF_VM_LIBDIRS names more
# directories (space-separated) than the multiarch ones that those libraries
# are taken from (packages unpacked, not installed: collectd's libcap2).
set -eu

die() { echo "mkinitramfs: $*" >&2; exit 1; }

test $# -ge 2 || die "usage: mkinitramfs.sh OUT.cpio.gz PROGRAM..."
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
guest=$here/guest
BUSYBOX=${BUSYBOX:-/bin/busybox}
# MEMCG_BPF_VM_ARCH arm64: the programs and BUSYBOX are arm64; the helpers
# are built with the cross compiler
case ${MEMCG_BPF_VM_ARCH:-amd64} in
amd64) MULTIARCH='' CC=${CC:-gcc} ;;
arm64) MULTIARCH=aarch64-linux-gnu CC=aarch64-linux-gnu-gcc ;;
*) die "MEMCG_BPF_VM_ARCH=$MEMCG_BPF_VM_ARCH: amd64 or arm64" ;;
esac

command -v cpio >/dev/null || die "cpio not found (apt-get install cpio)"
test -x "$BUSYBOX" || die "$BUSYBOX not found (apt-get install busybox-static)"
case $(file -b "$BUSYBOX" 2>/dev/null || echo unknown) in
*dynamically*) die "$BUSYBOX is dynamically linked: install busybox-static" ;;
esac

stage=$(mktemp -d "${TMPDIR:-/tmp}/memcg-vm-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
chmod 755 "$stage" # the guest's /: uid 65534 must reach the programs
mkdir -p "$stage/bin" "$stage/dev" "$stage/proc" "$stage/sys" "$stage/tmp" \
	"$stage/etc" "$stage/vmtest/bin" "$stage/opt/memcg/bin" "$stage/opt/memcg/lib"

cp "$BUSYBOX" "$stage/bin/busybox"
cp "$guest/init" "$stage/init"
chmod 755 "$stage/init"
cp "$guest"/*.sh "$stage/vmtest/"
echo "root:x:0:0:root:/:/bin/sh" > "$stage/etc/passwd"
echo "nobody:x:65534:65534:nobody:/:/bin/sh" >> "$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$stage/etc/group"

for src in "$guest"/*.c; do
	name=$(basename "$src" .c)
	extra=
	if [ -f "$guest/$name.sources" ]; then
		for f in $(grep -v '^#' "$guest/$name.sources"); do
			test -f "$top/$f" || die "$guest/$name.sources: $top/$f not found"
			extra="$extra $top/$f -I$top/plugin -I$top"
		done
	fi
	# shellcheck disable=SC2086 # $extra is a list of words
	$CC -static -O2 -Wall -Wextra -o "$stage/vmtest/bin/$name" "$src" $extra ||
		die "cannot build $src statically (is libc6-dev installed?)"
done

# real_program PATH: the ELF behind PATH (PATH itself, or for a libtool
# wrapper script the program in .libs/).
real_program() {
	if head -c 4 "$1" | grep -q ELF; then
		echo "$1"
		return
	fi
	d=$(dirname "$1") b=$(basename "$1")
	for c in "$d/.libs/$b" "$d/.libs/lt-$b"; do
		if test -f "$c" && head -c 4 "$c" | grep -q ELF; then
			echo "$c"
			return
		fi
	done
	die "$1 is neither an ELF program nor a libtool wrapper with .libs/$b"
}

# needed ELF: the sonames ELF names as NEEDED.
needed() {
	LC_ALL=C readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'
}

# foreign_lib SONAME: copies SONAME of another architecture from its
# multiarch directories (Debian's libbpf-dev:arm64 and the like) or
# MEMCG_BPF_VM_LIBDIRS into the initramfs; 1 when none has it.
foreign_lib() {
	# shellcheck disable=SC2086 # a list of directories
	for dir in "/lib/$MULTIARCH" "/usr/lib/$MULTIARCH" ${MEMCG_BPF_VM_LIBDIRS:-}; do
		if [ -f "$dir/$1" ]; then
			cp -L "$dir/$1" "$stage/opt/memcg/lib/$1"
			return 0
		fi
	done
	return 1
}

# copy_needed ELF: for an ELF of another architecture (MEMCG_BPF_VM_ARCH
# arm64: ldd cannot run it), copies the sonames it names as NEEDED
# (foreign_lib), then theirs.
copy_needed() {
	for soname in $(needed "$1"); do
		[ -f "$stage/opt/memcg/lib/$soname" ] && continue
		foreign_lib "$soname" ||
			die "$1 needs $soname, which is in no /lib/$MULTIARCH, /usr/lib/$MULTIARCH or MEMCG_BPF_VM_LIBDIRS (apt-get install its :$MEMCG_BPF_VM_ARCH package)"
		copy_needed "$stage/opt/memcg/lib/$soname"
	done
}

# copy_libs_foreign ELF: copy_needed, libgcc_s (as copy_libs says), and the
# program interpreter ELF names.
copy_libs_foreign() {
	copy_needed "$1"
	if [ -f "$stage/opt/memcg/lib/libc.so.6" ] && [ ! -f "$stage/opt/memcg/lib/libgcc_s.so.1" ]; then
		foreign_lib libgcc_s.so.1 || die "libgcc_s.so.1 not found (apt-get install libgcc-s1:$MEMCG_BPF_VM_ARCH)"
	fi
	loader=$(LC_ALL=C readelf -l "$1" | sed -n 's/.*Requesting program interpreter: \(.*\)\]$/\1/p')
	[ -n "$loader" ] || return 0
	[ -f "$loader" ] || die "$1 asks for the program interpreter $loader, which is not here (apt-get install libc6:$MEMCG_BPF_VM_ARCH)"
	mkdir -p "$stage$(dirname "$loader")"
	cp -L "$loader" "$stage$loader"
}

# copy_libs ELF LIBPATH: copies the ldd closure of ELF (nothing for a static one).
copy_libs() {
	if [ -z "$(needed "$1")" ]; then
		return 0
	fi
	if [ -n "$MULTIARCH" ]; then
		copy_libs_foreign "$1"
		return
	fi
	LD_LIBRARY_PATH=$2${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ldd "$1" > "$stage/ldd.out" 2>&1 ||
		die "ldd $1 failed: $(cat "$stage/ldd.out")"
	if grep -q 'not found' "$stage/ldd.out"; then
		die "$1 needs libraries that ldd cannot find: $(grep 'not found' "$stage/ldd.out" | tr '\n' ' ')"
	fi
	# "libx.so.1 => /path/libx.so.1 (0x...)" and "/lib64/ld-linux-x86-64.so.2 (0x...)"
	sed -n 's/^[[:space:]]*\([^[:space:]]*\) => \(\/[^[:space:]]*\).*/\1 \2/p' "$stage/ldd.out" |
	while read -r soname path; do
		cp -L "$path" "$stage/opt/memcg/lib/$soname"
	done
	# glibc dlopen()s libgcc_s for pthread_exit() and pthread_cancel()
	# (collectd's threads end that way): ldd cannot see it.
	if grep -q 'libc\.so\.6 => ' "$stage/ldd.out" && [ ! -f "$stage/opt/memcg/lib/libgcc_s.so.1" ]; then
		gcc_s=$(ldconfig -p | sed -n 's/^[[:space:]]*libgcc_s\.so\.1 (libc6,x86-64) => //p' | head -n 1)
		test -n "$gcc_s" || die "libgcc_s.so.1 not found (ldconfig -p)"
		cp -L "$gcc_s" "$stage/opt/memcg/lib/libgcc_s.so.1"
	fi
	sed -n 's/^[[:space:]]*\(\/[^[:space:]]*\) (0x.*/\1/p' "$stage/ldd.out" |
	while read -r loader; do
		mkdir -p "$stage$(dirname "$loader")"
		cp -L "$loader" "$stage$loader"
	done
}

for prog in "$@"; do
	test -f "$prog" || die "$prog not found"
	elf=$(real_program "$prog")
	cp "$elf" "$stage/opt/memcg/bin/$(basename "$prog")"
	copy_libs "$elf" "$(cd "$(dirname "$prog")" && pwd)/.libs"
done

for pair in ${MEMCG_BPF_VM_FILES:-}; do
	src=${pair%%=*} dest=${pair#*=}
	case $pair in
	*=/*) ;;
	*) die "MEMCG_BPF_VM_FILES: '$pair' is not SRC=/DEST" ;;
	esac
	test -f "$src" || die "MEMCG_BPF_VM_FILES: $src not found"
	mkdir -p "$stage$(dirname "$dest")"
	cp -L "$src" "$stage$dest"
	chmod a+rX "$stage$dest"
	if head -c 4 "$src" | grep -q ELF; then
		copy_libs "$src" "$(cd "$(dirname "$src")" && pwd)"
	fi
done
rm -f "$stage/ldd.out"

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 | gzip -1) > "$out.tmp"
mv "$out.tmp" "$out"
echo "mkinitramfs: $out ($(du -k "$out" | cut -f1) KiB)" >&2
