#!/bin/sh
# Configures and builds memcg_bpf out of tree in ${BUILD_DIR:-build}.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
cd "$top"
[ -x configure ] || autoreconf -fi
mkdir -p "$build"
cd "$build"
[ -f Makefile ] || "$top/configure" "$@"
make -j"$(nproc)"
