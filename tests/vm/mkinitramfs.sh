#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# mkinitramfs.sh OUT.cpio.gz PROGRAM...
#
# Builds the initramfs of the VM tests (cpio newc, gzip):
#   /init, /vmtest/*.sh      the guest init and tests (tests/vm/guest)
#   /vmtest/bin/*            tests/vm/guest/*.c built with gcc -static
#   /bin/busybox             busybox-static; init installs its applets
#   /opt/memcg/bin/*         the PROGRAMs (a libtool wrapper script is
#                            replaced by the real program in .libs/)
#   /opt/memcg/lib/*         every shared library they need (ldd closure),
#                            the dynamic loader at its own absolute path
set -eu

die() { echo "mkinitramfs: $*" >&2; exit 1; }

test $# -ge 2 || die "usage: mkinitramfs.sh OUT.cpio.gz PROGRAM..."
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest
CC=${CC:-gcc}
BUSYBOX=${BUSYBOX:-/bin/busybox}

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
	$CC -static -O2 -Wall -Wextra -o "$stage/vmtest/bin/$name" "$src" ||
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

# copy_libs ELF LIBPATH: copies the ldd closure of ELF.
copy_libs() {
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
rm -f "$stage/ldd.out"

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 | gzip -1) > "$out.tmp"
mv "$out.tmp" "$out"
echo "mkinitramfs: $out ($(du -k "$out" | cut -f1) KiB)" >&2
