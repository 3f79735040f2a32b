#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tests/bench/netdata-files.sh: the benchmark's peer (tests/bench/run.sh). Fetches
# Debian 12 (bookworm)'s netdata, whose cgroups collector reads the same
# memory.stat files as the plugin, without installing it, and prints on
# stdout the SRC=/DEST pairs that put it into the VM's initramfs
# (MEMCG_BPF_VM_FILES of tests/vm/mkinitramfs.sh):
#   CACHE/guest/netdata=/usr/sbin/netdata
# tests/vm/guest/bench_netdata.sh runs it there.
#
# Only the daemon goes in: the cgroups collector is one of its threads.
# Its helpers stay out, and the guest's netdata.conf does not call them:
# cgroup-name.sh (netdata-plugins-bash) needs bash, and cgroup-network, run
# once per new cgroup, looks for the network interfaces of the cgroup's
# processes (the bench's cgroups have none).
#
# Shared libraries: mkinitramfs.sh copies the ldd closure of an ELF into the
# guest's /opt/memcg/lib (its LD_LIBRARY_PATH), looking first in the ELF's
# own directory. So CACHE/guest holds the program and, as symlinks, the
# libraries of those dependencies of netdata-core that the host lacks,
# downloaded and unpacked here as well.
#
# The packages come from the host's own apt sources (bookworm is the host's
# release): apt-get download and dpkg-deb -x, never apt-get install. CACHE is
# ${MEMCG_BPF_PEER_CACHE:-$HOME/.cache/memcg_bpf/peers}/netdata; an
# unpacked cache is reused without network. Errors go to stderr, and the
# exit status is 1 when netdata cannot be had.
set -eu

CACHE=${MEMCG_BPF_PEER_CACHE:-$HOME/.cache/memcg_bpf/peers}/netdata
PKG=netdata-core

log() { echo "netdata-files: $*" >&2; }
die() { log "$*"; exit 1; }

root=$CACHE/root
debs=$CACHE/debs
guest=$CACHE/guest

# installed PKG: PKG is installed on the host.
installed() {
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

# fetch PKG: downloads PKG's .deb into $debs and unpacks it below $root.
fetch() {
	(cd "$debs" && apt-get -q -o APT::Sandbox::User=root download "$1") > "$CACHE/apt.log" 2>&1 ||
		die "apt-get download $1 failed: $(grep -E '^(E|W):' "$CACHE/apt.log" | head -n 1)"
	set -- "$debs/$1"_*.deb
	[ -f "$1" ] || die "apt-get download left no $1"
	dpkg-deb -x "$1" "$root" || die "dpkg-deb -x $1 failed"
}

if [ ! -f "$CACHE/unpacked" ]; then
	for tool in apt-get dpkg-deb dpkg-query; do
		command -v $tool >/dev/null ||
			die "$tool not found: netdata comes from Debian bookworm's packages"
	done
	rm -rf "$debs" "$root"
	mkdir -p "$debs" "$root" || die "cannot create $CACHE"
	fetch $PKG
	# its direct dependencies that are libraries (Debian names those
	# packages lib* after their soname, and zlib1g) and that the host lacks;
	# of alternatives the first, without versions or architectures
	deps=$(dpkg-deb -f "$debs/$PKG"_*.deb Depends | tr ',' '\n' |
		sed 's/^[[:space:]]*//; s/[[:space:]:(|].*//' | grep -E '^(lib|zlib)')
	for dep in $deps; do
		installed "$dep" || { log "the host lacks $dep: fetching it"; fetch "$dep"; }
	done
	: > "$CACHE/unpacked"
fi
test -x "$root/usr/sbin/netdata" || die "$root/usr/sbin/netdata missing: remove $CACHE and run again"
log "$PKG $(dpkg-deb -f "$debs/$PKG"_*.deb Version) from $CACHE"

# The program and the unpacked libraries, side by side (rebuilt each time:
# what it holds depends on what the host has).
rm -rf "$guest"
mkdir -p "$guest"
ln -s "$root/usr/sbin/netdata" "$guest/netdata"
for lib in "$root"/lib/*-linux-gnu/*.so* "$root"/usr/lib/*-linux-gnu/*.so*; do
	[ -f "$lib" ] && ln -sf "$lib" "$guest/${lib##*/}"
done
if ! out=$(LD_LIBRARY_PATH=$guest ldd "$guest/netdata" 2>&1) || echo "$out" | grep -q 'not found'; then
	die "netdata's libraries are not all at hand: $(echo "$out" | grep 'not found' | tr -s ' \t\n' ' ')"
fi

echo "$guest/netdata=/usr/sbin/netdata"
