#!/bin/sh
# The test command of the README: installs the build dependencies, builds,
# and runs every test suite: unit, host and collectd-daemon tests (make
# check), the real-kernel VM tests on Debian's 7.x and 6.12 kernels (make
# vmcheck), the same host tests under ASan + UBSan with the libFuzzer targets
# (scripts/sanitize.sh), the package test (make packagecheck: builds the
# .deb, installs it with apt, ships into a local Prometheus, runs the
# dashboard's queries, purges it; builds the RPM) and make distcheck. The
# last line sums them up.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
"$top/scripts/deps.sh"
BUILD_DIR=$build "$top/scripts/build.sh"
cd "$build"
status=0
echo "=== make check (unit, host and collectd-daemon tests)"
make check >check.log 2>&1 || status=1
sed -n '/^Testsuite summary/,$p' check.log | grep '^#'
grep -E '^(PASS|FAIL|ERROR|SKIP|XPASS)' check.log
if [ $status -ne 0 ]; then
	# automake's .trs files say ":test-result: FAIL"; the failed checks
	# and the comments that explain them come first, then the log's end
	for log in $(grep -lE '^:test-result: (FAIL|ERROR)' tests/*/*.trs 2>/dev/null | sed 's/\.trs$/.log/'); do
		echo "--- $log"
		grep -E '^(not ok|# )' "$log" | head -n 40
		echo "--- the end of $log"
		tail -n 20 "$log"
	done
fi
check_pass=$(sed -n 's/^# PASS: *//p' check.log)
check_fail=$(sed -n 's/^# FAIL: *//p' check.log)
check_error=$(sed -n 's/^# ERROR: *//p' check.log)

echo "=== make vmcheck (Linux 7.x with the memcg kfuncs; 6.12 and 6.1 without: bpf-core)"
(make vmcheck 2>&1; echo "vmcheck exit $?") | tee vmcheck.log
grep -q '^vmcheck exit 0$' vmcheck.log || status=1
vm=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' vmcheck.log | tail -n 1)
vm_pass=$(echo "$vm" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
vm_fail=$(echo "$vm" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')

echo "=== ASan + UBSan: unit, host and collectd tests; libFuzzer targets"
if "$top/scripts/sanitize.sh" >sanitize.log 2>&1; then
	san_fail=0
else
	status=1 san_fail=1
fi
grep -E '^(ok|not ok|  stat::|  \|)' sanitize.log
san=$(tail -n 1 sanitize.log)
san_pass=$(echo "$san" | sed -n 's/^sanitize: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
san_fail=$(echo "$san" | sed -n 's/^sanitize: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')

echo "=== make packagecheck (the .deb through apt into Prometheus, the dashboard, the RPM)"
if make packagecheck >packagecheck.log 2>&1; then
	pkg_pass=1 pkg_fail=0
else
	status=1 pkg_pass=0 pkg_fail=1
	tail -n 40 packagecheck.log
fi
grep -E '^(packagecheck|  )' packagecheck.log | tail -n 20

echo "=== make distcheck"
if make distcheck >distcheck.log 2>&1; then
	echo "distcheck: ok ($(ls memcg_bpf-*.tar.gz))"
	dist_pass=1 dist_fail=0
else
	status=1 dist_pass=0 dist_fail=1
	tail -n 40 distcheck.log
fi

pass=$((${check_pass:-0} + ${vm_pass:-0} + ${san_pass:-0} + pkg_pass + dist_pass))
fail=$((${check_fail:-0} + ${check_error:-0} + ${vm_fail:-1} + ${san_fail:-1} + pkg_fail + dist_fail))
[ $status -eq 0 ] || [ $fail -gt 0 ] || fail=1
echo "tests: $pass passed, $fail failed"
exit $status
