# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# A private apt configuration, sourced by the scripts that fetch packages
# from other Debian suites than the host's (tests/vm/fetch-kernels.sh,
# tests/vm/build-profiling-kernel.sh, tests/sender/fetch-receivers.sh,
# tests/packaging/fetch-promtool.sh). Nothing is installed and the host's own
# apt configuration is never touched: a sources.list, lists and archives of
# its own under a directory of the cache, `apt-get download` and
# `dpkg-deb -x`.
#
#   private_apt_update DIR SUITE          writes DIR/sources.list for SUITE
#       (main, Debian's archive keyring, $MEMCG_BPF_VM_MIRROR) and updates
#       its lists; 1 when the archive can't be reached (DIR/update.log)
#   private_apt DIR apt-get|apt-cache ARGS...   runs one against DIR
#   private_apt_candidate DIR PKG         the version the archive has now
#   private_apt_download DIR TO PKG...    downloads PKG (or PKG=VERSION)
#       into TO; 1 when one fails (TO/download.log)
#
# PRIVATE_APT_ARCH (default: the host's) restricts lists and downloads to
# one architecture.

PRIVATE_APT_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
PRIVATE_APT_MIRROR=${MEMCG_BPF_VM_MIRROR:-http://deb.debian.org/debian}

private_apt_update() {
	pa_dir=$1 pa_suite=$2 pa_arch=${PRIVATE_APT_ARCH:-}
	mkdir -p "$pa_dir/lists/partial" "$pa_dir/archives/partial"
	if [ ! -r "$PRIVATE_APT_KEYRING" ]; then
		echo "$PRIVATE_APT_KEYRING missing (apt-get install debian-archive-keyring)" |
			tee "$pa_dir/update.log" >&2
		return 1
	fi
	echo "deb [${pa_arch:+arch=$pa_arch }signed-by=$PRIVATE_APT_KEYRING] $PRIVATE_APT_MIRROR $pa_suite main" \
		>"$pa_dir/sources.list"
	private_apt "$pa_dir" apt-get update >"$pa_dir/update.log" 2>&1
}

private_apt() {
	pa_dir=$1 pa_tool=$2
	shift 2
	if [ -n "${PRIVATE_APT_ARCH:-}" ]; then
		set -- -o APT::Architecture="$PRIVATE_APT_ARCH" -o APT::Architectures="$PRIVATE_APT_ARCH" "$@"
	fi
	"$pa_tool" -o Dir::Etc::sourcelist="$pa_dir/sources.list" -o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$pa_dir/lists" -o Dir::Cache::archives="$pa_dir/archives" \
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
		-o APT::Sandbox::User=root -o Debug::NoLocking=1 -q "$@"
}

private_apt_candidate() {
	private_apt "$1" apt-cache policy "$2" 2>/dev/null |
		sed -n 's/^ *Candidate: *//p' | sed '/^(none)$/d' | head -n 1
}

private_apt_download() {
	pa_dir=$1 pa_to=$2
	shift 2
	mkdir -p "$pa_to"
	for pa_pkg in "$@"; do
		(cd "$pa_to" && private_apt "$pa_dir" apt-get download "$pa_pkg") \
			>>"$pa_to/download.log" 2>&1 || return 1
	done
}
