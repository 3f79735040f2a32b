#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Downloads and caches the kernels the VM tests boot, as pinned in
# tests/vm/kernels.list (one per memcg layout family), and prints one line
# per kernel and per role: "NAME RELEASE /path/to/vmlinuz" (the roles kfunc,
# fallback and bookworm name the kernel their test sets boot).
#
#   fetch-kernels.sh [NAME...]   the kernels named (default: all of the
#                                architecture), and the roles that name them
#   fetch-kernels.sh --news      a kernel list like kernels.list with each
#                                pin moved to the newest build of its family
#                                in its suite or sid; "# newer: ..." lines say
#                                which moved (make kernel-news)
#
# MEMCG_BPF_VM_ARCH=arm64 takes the list's arm64 kernels, cached beside the
# others as NAME-arm64. MEMCG_BPF_VM_KERNEL_LIST reads another list (make
# kernel-news passes the one --news wrote).
#
# The cache lives in $MEMCG_BPF_VM_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/vm). A kernel cached at its
# pinned version is used as is, without network.
#
# The host's own apt configuration is never touched: scripts/private-apt.sh
# (private sources.list and lists; packages are only downloaded and unpacked).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
CACHE=${MEMCG_BPF_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/vm}
ARCH=${MEMCG_BPF_VM_ARCH:-amd64}
LIST=${MEMCG_BPF_VM_KERNEL_LIST:-$here/kernels.list}
case $ARCH in
amd64) SUFFIX='' ;;
arm64) SUFFIX=-arm64 ;;
*) echo "fetch-kernels: MEMCG_BPF_VM_ARCH=$ARCH: amd64 or arm64" >&2; exit 1 ;;
esac

log() { echo "fetch-kernels: $*" >&2; }
die() { log "$*"; exit 1; }

test -r "$LIST" || die "no kernel list $LIST"
mkdir -p "$CACHE"

# shellcheck disable=SC2034 # read by scripts/private-apt.sh
PRIVATE_APT_ARCH=$ARCH
# shellcheck source=../../scripts/private-apt.sh
. "$here/../../scripts/private-apt.sh"
apt_dir() { echo "$CACHE/apt-$1$SUFFIX"; }
updated=
# update SUITE: the suite's lists, once per run
update() {
	case " $updated " in *" $1 "*) return 0 ;; esac
	private_apt_update "$(apt_dir "$1")" "$1" || { log "apt-get update for $1 failed (see $(apt_dir "$1")/update.log)"; return 1; }
	updated="$updated $1"
}

# pins: the list's kernels of ARCH, "NAME SUITE PACKAGE=VERSION"
pins() { awk -v a="$ARCH" '!/^#/ && NF == 4 && $2 == a { print $1, $3, $4 }' "$LIST"; }
# roles: "ROLE NAME"
roles() { awk '!/^#/ && NF == 2 { print $1, $2 }' "$LIST"; }

# fetch NAME SUITE PACKAGE=VERSION: downloads and unpacks the pinned package
# unless the cache holds it; the kernel release goes to DEST/release.
fetch() {
	name=$1 suite=$2 pin=$3
	dest=$CACHE/$name$SUFFIX
	if test -f "$dest/pin" && test "$(cat "$dest/pin")" = "$pin" && test -f "$dest/vmlinuz"; then
		return 0
	fi
	update "$suite" || return 1
	tmp=$dest.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp/root"
	private_apt_download "$(apt_dir "$suite")" "$tmp/debs" "$pin" ||
		{ log "$suite: download of $pin failed (see $tmp/debs/download.log; a pin the archive dropped must move: tests/vm/kernels.list, make kernel-news)"; return 1; }
	for deb in "$tmp"/debs/*.deb; do
		dpkg-deb -x "$deb" "$tmp/root"
	done
	# 6.x images keep /boot/vmlinuz-RELEASE; 7.x linux-binary-* /usr/lib/modules/RELEASE/vmlinuz
	vmlinuz=$(find "$tmp/root" \( -path '*/boot/vmlinuz-*' -o -path '*/lib/modules/*/vmlinuz' \) -type f | head -n 1)
	test -n "$vmlinuz" || { log "$suite: no vmlinuz in $pin"; return 1; }
	case $vmlinuz in
	*/boot/vmlinuz-*) release=${vmlinuz##*/vmlinuz-} ;;
	*) release=$(basename "$(dirname "$vmlinuz")") ;;
	esac
	rm -rf "$dest"
	mkdir -p "$dest"
	mv "$vmlinuz" "$dest/vmlinuz"
	echo "$release" > "$dest/release"
	echo "$pin" > "$dest/pin"
	rm -rf "$tmp"
	log "$suite: cached $pin ($release)"
}

# news: the list with each pin of ARCH moved to the newest build of its
# family (same major.minor, same flavour) in its suite or in sid.
news() {
	moved=0
	while read -r name suite pin; do
		pkg=${pin%%=*} version=${pin#*=}
		# linux-binary-7.3.4+deb13-cloud-amd64 -> linux-binary-7.3.*-cloud-amd64
		prefix=$(echo "$pkg" | sed -n 's/^\(linux-[a-z]*-[0-9]*\.[0-9]*\)[.-].*$/\1/p')
		flavour=$(echo "$pkg" | sed -n 's/^.*\(-cloud-[a-z0-9]*\)$/\1/p')
		best_pkg=$pkg best_version=$version best_suite=$suite
		for s in $suite sid; do
			update "$s" || continue
			for cand in $(private_apt "$(apt_dir "$s")" apt-cache search -n "^$prefix[.-].*$flavour\$" 2>/dev/null |
				awk '{ print $1 }'); do
				v=$(private_apt_candidate "$(apt_dir "$s")" "$cand")
				test -n "$v" || continue
				if dpkg --compare-versions "$v" gt "$best_version"; then
					best_pkg=$cand best_version=$v best_suite=$s
				fi
			done
		done
		if [ "$best_pkg=$best_version" != "$pin" ]; then
			echo "# newer: $name $pin -> $best_pkg=$best_version ($best_suite)"
			moved=$((moved + 1))
		fi
		echo "$name $ARCH $best_suite $best_pkg=$best_version"
	done <<EOF
$(pins)
EOF
	roles
	echo "# $moved of $(pins | wc -l) families have a newer build"
}

if [ "${1:-}" = --news ]; then
	news
	exit 0
fi

want=${*:-$(pins | awk '{ print $1 }')}
for name in $want; do
	line=$(pins | awk -v n="$name" '$1 == n')
	if [ -z "$line" ]; then
		# a role names a kernel
		n=$(roles | awk -v r="$name" '$1 == r { print $2 }')
		line=$(pins | awk -v n="$n" '$1 == n')
		test -n "$line" || die "no $ARCH kernel or role $name in $LIST"
	fi
	# shellcheck disable=SC2086 # NAME SUITE PIN
	fetch $line || die "$(echo "$line" | cut -d' ' -f3): not downloaded and not cached"
done
# the kernels, then the roles that name one of them
pins | while read -r name suite pin; do
	dest=$CACHE/$name$SUFFIX
	test -f "$dest/vmlinuz" && test "$(cat "$dest/pin" 2>/dev/null)" = "$pin" || continue
	echo "$name $(cat "$dest/release") $dest/vmlinuz"
	roles | awk -v n="$name" '$2 == n { print $1 }' | while read -r role; do
		echo "$role $(cat "$dest/release") $dest/vmlinuz"
	done
done
