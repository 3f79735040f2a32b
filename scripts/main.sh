#!/bin/sh
# The main job of the README: builds memcg_bpf and samples this host's
# memory cgroups every 10 seconds with the best backend the kernel allows.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
"$top/scripts/deps.sh"
BUILD_DIR=$build "$top/scripts/build.sh" >/dev/null
exec "$build/memcg-bpf-sample" --count "${COUNT:-0}" --interval "${INTERVAL:-10}" "$@"
