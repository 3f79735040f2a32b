#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# A Debian 13 (trixie) root for make packagecheck (tests/packaging/run.sh):
# trixie's lintian checks the package, and apt installs it there next to
# trixie's collectd. Needs root and debootstrap (bookworm's knows trixie).
#
#   debian13-root.sh fetch        prints the path of the prepared root, made
#       once and cached: debootstrap --variant=minbase, then apt-get install
#       --no-install-recommends of $PACKAGES (lintian, collectd-core and the
#       libraries the .deb links, so that installing it needs no network),
#       apt's downloads cleaned, a policy-rc.d that keeps
#       services from starting. Never changed after that: run.sh works on an
#       overlay of it.
#   debian13-root.sh enter ROOT DIR   mounts an overlay of ROOT at DIR/root
#       (the changes go to DIR/upper), then proc, a read-only sysfs with the
#       host's cgroup tree bound read-only under it (the plugin reads it, the
#       test never writes to it), and /dev; prints DIR/root
#   debian13-root.sh leave DIR    unmounts all of DIR/root (safe to call twice)
#
# The cache: ${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/debian13/KEY, KEY =
# trixie-POINTRELEASE-ARCH-HASH (the Version: of trixie's Release file on the
# mirror, e.g. 13.2; HASH of $PACKAGES): a new point release or another
# package list makes a new root and removes the old ones. Without network
# the newest cached root serves. MEMCG_BPF_VM_MIRROR: the mirror
# (default http://deb.debian.org/debian), as for scripts/private-apt.sh.
set -eu
SUITE=trixie
# lintian, collectd, and the libraries the .deb links (readelf -d: NEEDED)
PACKAGES="lintian collectd-core libbpf1 libcurl4t64 libsnappy1v5 libzstd1 zlib1g"
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/debian13
MIRROR=${MEMCG_BPF_VM_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

log() { echo "debian13-root: $*" >&2; }
die() { log "$*"; exit 1; }

# mounted_under DIR: the mount points at or below DIR, deepest first
mounted_under() {
	awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print length($5), $5 }' /proc/self/mountinfo |
		sort -rn | cut -d' ' -f2-
}

# leave DIR: unmounts DIR/root and everything below it
leave() {
	for m in $(mounted_under "$1/root"); do
		umount "$m" 2>/dev/null || umount -l "$m" || log "cannot unmount $m"
	done
	[ -z "$(mounted_under "$1/root")" ] || die "still mounted under $1/root: $(mounted_under "$1/root" | tr '\n' ' ')"
}

# mount_api ROOT [cgroups]: proc, sysfs (read-only) and /dev in ROOT; with
# "cgroups", the host's cgroup tree bound read-only at ROOT/sys/fs/cgroup.
# Every bind is made a slave, so that no unmount here reaches the host.
mount_api() {
	mount -t proc proc "$1/proc"
	mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$1/sys"
	if [ "${2:-}" = cgroups ]; then
		mount --rbind /sys/fs/cgroup "$1/sys/fs/cgroup"
		mount --make-rslave "$1/sys/fs/cgroup"
		for m in $(mounted_under "$1/sys/fs/cgroup"); do
			mount -o remount,bind,ro "$m"
		done
	fi
	mount --bind /dev "$1/dev"
	mount --make-slave "$1/dev"
}

enter() {
	root=$1 dir=$2
	[ -x "$root/usr/bin/lintian" ] || die "$root is not a prepared root"
	mkdir -p "$dir/root" "$dir/upper" "$dir/overlay-work"
	mount -t overlay overlay -o "lowerdir=$root,upperdir=$dir/upper,workdir=$dir/overlay-work" "$dir/root"
	mount_api "$dir/root" cgroups || { leave "$dir"; die "cannot mount proc, sys or dev in $dir/root"; }
	echo "$dir/root"
}

# newest: the most recently prepared root in the cache (not one half made)
newest() {
	# shellcheck disable=SC2012,SC2045 # the cache's own names, no odd characters
	for d in $(ls -1td "$CACHE/$SUITE"-*/root 2>/dev/null); do
		case $d in *.tmp/root) continue ;; esac
		[ ! -x "$d/usr/bin/lintian" ] || { echo "$d"; return 0; }
	done
}

fetch() {
	mkdir -p "$CACHE"
	arch=$(dpkg --print-architecture)
	hash=$(echo "$PACKAGES" | sha256sum | cut -c1-8)
	release=$(curl -sf --max-time 30 "$MIRROR/dists/$SUITE/Release" | sed -n 's/^Version: *\([0-9.]*\)$/\1/p') || release=
	if [ -z "$release" ]; then
		root=$(newest)
		[ -n "$root" ] || die "$MIRROR/dists/$SUITE/Release unreachable and no root cached in $CACHE"
		log "mirror unreachable: using the cached $(basename "$(dirname "$root")")"
		echo "$root"
		return 0
	fi
	key=$SUITE-$release-$arch-$hash
	if [ -x "$CACHE/$key/root/usr/bin/lintian" ]; then
		echo "$CACHE/$key/root"
		return 0
	fi
	command -v debootstrap >/dev/null || die "debootstrap missing (apt-get install debootstrap)"
	[ -r "$KEYRING" ] || die "$KEYRING missing (apt-get install debian-archive-keyring)"
	tmp=$CACHE/$key.tmp
	leave "$tmp"
	rm -rf --one-file-system "$tmp"
	mkdir -p "$tmp"
	t0=$(date +%s)
	log "preparing $key (debootstrap, then apt-get install $PACKAGES)"
	# what debootstrap or this script mounted there goes at any exit
	trap 'leave "$tmp"' EXIT
	debootstrap --variant=minbase --arch="$arch" --keyring="$KEYRING" "$SUITE" "$tmp/root" "$MIRROR" \
		>"$tmp/debootstrap.log" 2>&1 || { tail -n 20 "$tmp/debootstrap.log" >&2; die "debootstrap $SUITE failed (log: $tmp/debootstrap.log)"; }
	# no service starts from a maintainer script in this root
	printf '#!/bin/sh\nexit 101\n' >"$tmp/root/usr/sbin/policy-rc.d"
	chmod 0755 "$tmp/root/usr/sbin/policy-rc.d"
	mount_api "$tmp/root"
	rc=0
	# shellcheck disable=SC2086 # $PACKAGES is a list
	{ chroot "$tmp/root" apt-get update -q &&
		DEBIAN_FRONTEND=noninteractive chroot "$tmp/root" apt-get install -y -q --no-install-recommends $PACKAGES &&
		chroot "$tmp/root" apt-get clean; } >"$tmp/apt.log" 2>&1 || rc=$?
	leave "$tmp"
	trap - EXIT
	[ $rc = 0 ] || { tail -n 20 "$tmp/apt.log" >&2; die "apt-get install in the $SUITE root failed (log: $tmp/apt.log)"; }
	chroot "$tmp/root" dpkg-query -W lintian collectd-core >"$tmp/versions"
	for old in "$CACHE/$SUITE"-*; do
		[ "$old" = "$tmp" ] || [ ! -d "$old" ] || { leave "$old"; rm -rf --one-file-system "$old"; }
	done
	mv "$tmp" "$CACHE/$key"
	log "prepared $key in $(($(date +%s) - t0)) s ($(du -sm "$CACHE/$key/root" | cut -f1) MB): $(tr '\t\n' '  ' <"$CACHE/$key/versions")"
	echo "$CACHE/$key/root"
}

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mount)"
case ${1:-} in
fetch) fetch ;;
enter) [ $# = 3 ] || die "usage: $0 enter ROOT DIR"; enter "$2" "$3" ;;
leave) [ $# = 2 ] || die "usage: $0 leave DIR"; leave "$2" ;;
*) die "usage: $0 fetch | enter ROOT DIR | leave DIR" ;;
esac
