#!/bin/sh
# The test command of the README: installs the build dependencies, builds,
# and runs every test suite: unit and host tests (make check), the real-kernel
# VM tests on Debian's 7.x and 6.12 kernels (make vmcheck) and make distcheck.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
"$top/scripts/deps.sh"
BUILD_DIR=$build "$top/scripts/build.sh"
cd "$build"
status=0
echo "=== make check (unit tests, host tests)"
make check || { status=1; cat tests/host/*.log tests/unit/*.log 2>/dev/null | tail -50; }
echo "=== make vmcheck (Linux 7.x with the memcg kfuncs, Linux 6.12 without)"
make vmcheck || status=1
echo "=== make distcheck"
make distcheck >distcheck.log 2>&1 || { status=1; tail -40 distcheck.log; }
[ $status -eq 0 ] && echo "all test suites passed" || echo "SOME TEST SUITES FAILED"
exit $status
