#!/bin/sh
# The test command of the README: installs the build dependencies, builds,
# downloads what the tests run (Debian's kernels, the receivers, promtool:
# cached), then runs every suite in two lanes side by side, since most of
# the host tests wait on daemons and the VMs keep the CPUs busy:
#   vm lane:   make vmcheck (real kernels under qemu: one per memcg layout
#              family, doc/testing.md)
#   host lane: make check (unit, host, collectd-daemon, sender and
#              reliability tests), the sanitizer pass (scripts/sanitize.sh
#              ci), make packagecheck (the .deb and the RPM built from the
#              make dist tarball, the .deb through apt into Prometheus, the
#              dashboard)
# What runs outside it, and when: doc/testing.md.
# Each suite's results follow in that order, then a table of where the time
# went (each step, each VM set, the total), and the last line sums them up:
# "tests: N passed, M failed".
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
begin=$(date +%s)
mkdir -p "$build"
timing=$build/timing.txt
: > "$timing"

# timed LANE NAME COMMAND...: runs COMMAND, records its wall time in $timing
# as "LANE|NAME|SECONDS"; returns its exit status.
timed() {
	t_lane=$1 t_name=$2
	shift 2
	t_start=$(date +%s)
	t_rc=0
	"$@" || t_rc=$?
	echo "$t_lane|$t_name|$(($(date +%s) - t_start))" >> "$timing"
	return $t_rc
}

timed - "deps (apt)" "$top/scripts/deps.sh"
timed - build env BUILD_DIR="$build" "$top/scripts/build.sh"
cd "$build"
# The lanes share these caches: fill them first, one at a time.
downloads() {
	"$top/tests/vm/fetch-kernels.sh" > /dev/null &&
		"$top/tests/sender/fetch-receivers.sh" > /dev/null &&
		"$top/tests/packaging/fetch-promtool.sh" > /dev/null
}
echo "=== downloads (kernels, receivers, promtool; cached)"
timed - downloads downloads || echo "downloads: incomplete (the tests that need them say what is missing)"

# The host lane: each suite's status in $build/lane-host.status as "NAME RC".
host_lane() {
	: > lane-host.status
	rc=0
	timed host "make check" make -j3 check > check.log 2>&1 || rc=$?
	echo "check $rc" >> lane-host.status
	rc=0
	timed host "sanitizers" "$top/scripts/sanitize.sh" ci > sanitize.log 2>&1 || rc=$?
	echo "sanitize $rc" >> lane-host.status
	rc=0
	timed host "make packagecheck" make packagecheck > packagecheck.log 2>&1 || rc=$?
	echo "packagecheck $rc" >> lane-host.status
}
echo "=== two lanes side by side: make vmcheck | make check, sanitizers, make packagecheck"
host_lane > lane-host.log 2>&1 &
host_pid=$!
vm_rc=0
timed vm "make vmcheck" make vmcheck > vmcheck.log 2>&1 || vm_rc=$?
wait $host_pid || true
lane_rc() { sed -n "s/^$1 //p" lane-host.status 2>/dev/null | tail -n 1; }
status=0

echo "=== make check (unit, host, collectd-daemon, sender and reliability tests)"
sed -n '/^Testsuite summary/,$p' check.log | grep '^#' || true
grep -E '^(PASS|FAIL|ERROR|SKIP|XPASS)' check.log || true
if [ "$(lane_rc check)" != 0 ]; then
	status=1
	# automake's .trs files say ":test-result: FAIL"; the failed checks
	# and the comments that explain them come first, then the log's end
	for log in $(grep -lE '^:test-result: (FAIL|ERROR)' tests/*/*.trs tests/*.trs 2>/dev/null | sed 's/\.trs$/.log/'); do
		echo "--- $log"
		grep -E '^(not ok|# )' "$log" | head -n 40
		echo "--- the end of $log"
		tail -n 20 "$log"
	done
	[ -n "$(sed -n 's/^# TOTAL: *//p' check.log)" ] || tail -n 40 check.log
fi
check_pass=$(sed -n 's/^# PASS: *//p' check.log)
check_fail=$(sed -n 's/^# FAIL: *//p' check.log)
check_error=$(sed -n 's/^# ERROR: *//p' check.log)

echo "=== make vmcheck (one kernel per memcg layout family, doc/testing.md)"
grep -E '^vm: (booting|comparator|summary)|^  VMTEST (ok|FAIL|SKIP) |^  [a-z0-9_.]+: kernel |^  VMTEST FAIL|^vm: [a-z0-9_.]+: ' vmcheck.log || true
[ $vm_rc -eq 0 ] || { status=1; grep -A 40 '^vm: summary' vmcheck.log | tail -n +2 || tail -n 40 vmcheck.log; }
vm=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' vmcheck.log | tail -n 1)
vm_pass=$(echo "$vm" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
vm_fail=$(echo "$vm" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')

echo "=== sanitizers: ASan + UBSan (unit, host and daemon tests), libFuzzer targets"
grep -E '^(ok|not ok|  stat::|  \|)' sanitize.log || true
[ "$(lane_rc sanitize)" = 0 ] || { status=1; tail -n 20 sanitize.log; }
san=$(tail -n 1 sanitize.log)
san_pass=$(echo "$san" | sed -n 's/^sanitize: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
san_fail=$(echo "$san" | sed -n 's/^sanitize: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')

echo "=== make packagecheck (the .deb through apt into Prometheus, the dashboard, the RPM)"
if [ "$(lane_rc packagecheck)" = 0 ]; then
	pkg_pass=1 pkg_fail=0
else
	status=1 pkg_pass=0 pkg_fail=1
	tail -n 40 packagecheck.log
fi
grep -E '^(packagecheck|  )' packagecheck.log | tail -n 20

# Where the time went: the steps, each VM set (run.sh's summary lines:
# "  NAME: kernel K: P passed, F failed, S skipped in Ns (timeout Ts): ..."), the total.
echo "=== where the time went (wall seconds; the vm and host lanes ran side by side)"
{
	printf '  %-34s %-5s %7s\n' step lane seconds
	while IFS='|' read -r lane name secs; do
		printf '  %-34s %-5s %7s\n' "$name" "$lane" "$secs"
		[ "$name" != "make vmcheck" ] || sed -n 's/^  \([a-z0-9_.-]*\): kernel \([^:]*\): .* in \([0-9]*\)s (timeout \([0-9]*\)s): .*/\1|\2|\3|\4/p' vmcheck.log |
			while IFS='|' read -r set kernel secs limit; do
				printf '    %-32s %-5s %7s  (%s, timeout %s s)\n' "$set" vm "$secs" "$kernel" "$limit"
			done
	done < "$timing"
	printf '  %-34s %-5s %7s\n' total "" "$(($(date +%s) - begin))"
} | tee timing-table.txt

pass=$((${check_pass:-0} + ${vm_pass:-0} + ${san_pass:-0} + pkg_pass))
fail=$((${check_fail:-0} + ${check_error:-0} + ${vm_fail:-1} + ${san_fail:-1} + pkg_fail))
[ $status -eq 0 ] || [ $fail -gt 0 ] || fail=1
echo "tests: $pass passed, $fail failed"
exit $status
