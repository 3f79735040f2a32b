# SPDX-License-Identifier: GPL-2.0-only
# Helpers of the guest tests (sourced by busybox sh).
#
# The protocol the host parses (tests/vm/run.sh), one line each, written to
# the second serial port and echoed on the console:
#   VMTEST KERNEL <uname -r>
#   VMTEST ok <kernel> <name>
#   VMTEST FAIL <kernel> <name>: <reason>
#   VMTEST SKIP <kernel> <name>: <reason>
#   VMTEST INFO <kernel> <name>: <details>
#   VMTEST DONE pass=N fail=M
# and, on the third serial port, data for checks the host makes with its own
# tools (tests/vm/check_json.py):
#   VMDATA BEGIN <name> / the data lines / VMDATA END <name>
CG=/sys/fs/cgroup
WORK=/tmp/vt
KERNEL=$(uname -r)
# arm64's -M virt has one UART: tests/vm/run.sh names two virtio consoles
PROTO=${VMTEST_PROTO:-/dev/ttyS1}
DATA=${VMTEST_DATA:-/dev/ttyS2}
PASS=0
FAILED=0
VMTEST_TIMEOUT=${VMTEST_TIMEOUT:-240}
mkdir -p "$WORK"

proto() {
	echo "VMTEST $*"
	if [ -c "$PROTO" ]; then echo "VMTEST $*" > "$PROTO"; fi
}

# export_data NAME FILE: FILE's lines to the host, framed as block NAME.
export_data() {
	[ -c "$DATA" ] || { why "no $DATA for the host's checks"; return 1; }
	{ echo "VMDATA BEGIN $1"; cat "$2"; echo "VMDATA END $1"; } > "$DATA"
}

# why TEXT: the reason a test gives for failing (or details for INFO).
why() { echo "$*" > "$WORK/reason"; }
# info TEXT: a detail line shown by the host (numbers compared, timings).
info() { echo "$*" >> "$WORK/info"; }

# run_test NAME FUNCTION: runs FUNCTION of run-tests.sh in its own session
# (process group); exit 0 = ok, 77 = skip, anything else = FAIL with the last
# why() as the reason. After $VMTEST_TIMEOUT seconds the whole group is
# killed and the test fails as hung.
run_test() {
	name=$1
	if [ -n "$VMTEST_ONLY" ] && ! echo ",$VMTEST_ONLY," | grep -q ",$name,"; then
		return 0
	fi
	rm -f "$WORK/reason" "$WORK/info"
	start=$(date +%s)
	rm -f "$WORK/timedout"
	setsid sh /vmtest/run-tests.sh --one "$2" > "$WORK/$name.log" 2>&1 &
	tpid=$!
	( sleep "$VMTEST_TIMEOUT" && : > "$WORK/timedout" && kill -KILL -- "-$tpid" 2>/dev/null ) &
	wpid=$!
	wait $tpid
	rc=$?
	kill $wpid 2>/dev/null
	if [ -f "$WORK/timedout" ]; then
		why "hung: killed after ${VMTEST_TIMEOUT}s"
		rc=124
	fi
	secs=$(( $(date +%s) - start ))
	if [ -f "$WORK/info" ]; then
		while IFS= read -r line; do proto "INFO $KERNEL $name: $line"; done < "$WORK/info"
	fi
	reason=$(cat "$WORK/reason" 2>/dev/null)
	if [ $rc -eq 0 ]; then
		PASS=$((PASS + 1))
		proto "ok $KERNEL $name (${secs}s)"
	elif [ $rc -eq 77 ]; then
		proto "SKIP $KERNEL $name: ${reason:-no reason given}"
	else
		FAILED=$((FAILED + 1))
		echo "---- $name log (last 40 lines)"
		tail -n 40 "$WORK/$name.log"
		echo "----"
		proto "FAIL $KERNEL $name: ${reason:-exit status $rc}"
	fi
}

done_tests() {
	proto "DONE pass=$PASS fail=$FAILED"
}

# sample ARGS...: runs memcg-bpf-sample with stdout to $WORK/out and stderr
# to $WORK/err, echoes both's sizes, returns its exit status.
sample() {
	memcg-bpf-sample "$@" > "$WORK/out" 2> "$WORK/err"
	rc=$?
	echo "memcg-bpf-sample $*: exit $rc, stdout $(wc -l < "$WORK/out") lines"
	# a failure's reason is at the end (a verifier log ends with it)
	if [ $rc -eq 0 ]; then head -n 5 "$WORK/err"; else tail -n 30 "$WORK/err"; fi
	return $rc
}

# first_line FILE: the first line of FILE, cut to 200 characters for a reason.
first_line() { head -n 1 "$1" | cut -c 1-200; }

# wait_ready FILE WHAT: waits up to 30 s for FILE (a memload's -r file); fails naming WHAT.
wait_ready() {
	t=0
	until [ -e "$1" ]; do
		t=$((t + 1))
		if [ $t -gt 300 ]; then why "$2 not ready after 30 s"; return 1; fi
		sleep 0.1
	done
}

# scratch_fs: the empty scratch disk tests/vm/run.sh attaches (NVMe) as an
# ext2 filesystem on $SCRATCH, made at the first call: files there have a
# real page cache (the guest's other filesystems are tmpfs: shmem pages).
SCRATCH=/mnt/scratch
scratch_fs() {
	grep -q " $SCRATCH " /proc/mounts && return 0
	t=0
	until [ -b /dev/nvme0n1 ]; do
		t=$((t + 1))
		[ $t -le 50 ] || { why "no /dev/nvme0n1 (tests/vm/run.sh attaches a scratch disk)"; return 1; }
		sleep 0.1
	done
	mke2fs -q /dev/nvme0n1 > "$WORK/mke2fs.log" 2>&1 || { why "mke2fs /dev/nvme0n1: $(first_line "$WORK/mke2fs.log")"; return 1; }
	mkdir -p "$SCRATCH"
	mount -t ext4 /dev/nvme0n1 "$SCRATCH" 2> "$WORK/mount.log" || { why "mount /dev/nvme0n1: $(first_line "$WORK/mount.log")"; return 1; }
}
