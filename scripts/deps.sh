#!/bin/sh
# Installs what memcg_bpf needs to build and test on Debian 12 (bookworm),
# from the machine's own apt sources. Kernels for the VM tests are fetched
# separately, into a cache, by tests/vm/fetch-kernels.sh (never installed).
#
# arm64 (issue 35): the arm64 package and make vmcheck-arm64 cross-build
# through Debian's multiarch: arm64 becomes a foreign architecture of dpkg,
# and bookworm's arm64 libraries install beside the amd64 ones.
set -eu
ARM64_PACKAGES="crossbuild-essential-arm64 pkgconf:arm64 libbpf-dev:arm64 libelf-dev:arm64
	zlib1g-dev:arm64 libprotobuf-c-dev:arm64 libcurl4-openssl-dev:arm64 libsnappy-dev:arm64
	libzstd-dev:arm64 qemu-system-arm qemu-user"
PACKAGES="build-essential autoconf automake libtool pkg-config
	clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev
	libcmocka-dev
	collectd-core collectd-dev
	protobuf-c-compiler libprotobuf-c-dev libcurl4-openssl-dev libsnappy-dev libzstd-dev
	qemu-system-x86 busybox-static cpio zstd jsonnet
	python3 curl debian-archive-keyring ca-certificates
	dpkg-dev debhelper lintian debootstrap rpm rpmlint openssl valgrind gnuplot-nox
	flex bison bc"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	echo "deps: dpkg --add-architecture arm64"
	dpkg --add-architecture arm64
	apt-get update -q
fi
missing=
for p in $PACKAGES $ARM64_PACKAGES; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi
