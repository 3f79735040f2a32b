#!/bin/sh
# Installs what memcg_bpf needs to build and test on Debian 12 (bookworm),
# from the machine's own apt sources. Kernels for the VM tests are fetched
# separately, into a cache, by tests/vm/fetch-kernels.sh (never installed).
set -eu
PACKAGES="build-essential autoconf automake libtool pkg-config
	clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev
	libcmocka-dev
	collectd-core collectd-dev
	protobuf-c-compiler libprotobuf-c-dev libcurl4-openssl-dev libsnappy-dev libzstd-dev
	qemu-system-x86 busybox-static cpio zstd
	python3 curl debian-archive-keyring ca-certificates
	dpkg-dev debhelper lintian rpm rpmlint openssl valgrind gnuplot-nox
	flex bison bc"
missing=
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi
