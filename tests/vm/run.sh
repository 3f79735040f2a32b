#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Real-kernel tests: boots one kernel of each memcg layout family Debian
# ships (tests/vm/kernels.list, pinned: 7.3, 7.2 and 7.0 with the memcg
# kfuncs; 6.19, 6.12 and 6.1 without them: bpf-core) under qemu (TCG) with
# an initramfs holding the built CLI and the guest tests (tests/vm/guest),
# and collects the results.
#
#   MEMCG_BPF_BUILDDIR=/abs/builddir tests/vm/run.sh     (make vmcheck)
#
# Environment:
#   MEMCG_BPF_BUILDDIR     build dir with memcg-bpf-sample (required)
#   MEMCG_BPF_VM_CACHE     kernel cache (see fetch-kernels.sh)
#   MEMCG_BPF_VM_KERNELS   which kernels to boot: "kfunc kfunc:kfunc_oom
#                          kfunc:mixin fallback bookworm kfunc:psi_off bookworm:v1
#                          kfunc:numa 7.2:matrix 7.0:matrix 6.19:matrix"
#                          (default); KERNEL is a name or role of
#                          tests/vm/kernels.list; KERNEL:SET
#                          runs another guest set on KERNEL (tests/bench/run.sh
#                          uses kfunc:bench; psi_off boots with psi=0; v1
#                          mounts the memory controller as cgroup v1, which
#                          only bookworm's 6.1 has: the later Debian kernels
#                          are built without CONFIG_MEMCG_V1; the numa set
#                          boots with four NUMA nodes, fallback, bookworm,
#                          matrix and numa_* with two); KERNEL
#                          "profiling" is Linux 7.3 with allocation profiling,
#                          built here and cached by build-profiling-kernel.sh
#                          (minutes the first time), with its test module
#                          put at /vmtest/allocmod.ko: "profiling:allocinfo"
#                          (make allocinfo-check)
#   MEMCG_BPF_VM_PROGRAMS  more programs for the initramfs (space-separated)
#   MEMCG_BPF_VM_FILES     more files, SRC=/DEST pairs (see mkinitramfs.sh);
#                          a DEST given twice gets the later SRC (e.g.
#                          another rules file at /vmtest/memcg_bpf.rules.yml)
#   MEMCG_BPF_VM_RECEIVERS the receivers put into the initramfs, from
#                          tests/sender/fetch-receivers.sh (Debian sid,
#                          cached): "prometheus victoria-metrics" (default:
#                          the OOM alert and identity tests);
#                          packaging/dashboard/memcg_bpf.rules.yml always
#                          goes to /vmtest/memcg_bpf.rules.yml
#   MEMCG_BPF_VM_MEM       guest RAM in MiB (1024)
#   COLLECTD, COLLECTD_PLUGINS, TYPESDB  the collectd daemon, its plugin dir
#                          and types.db put into the guest at their Debian
#                          paths with the built .libs/memcg_bpf.so
#                          (/usr/sbin/collectd, /usr/lib/collectd,
#                          /usr/share/collectd/types.db), and
#                          tests/bench/bench_sink.c built with $CC (gcc;
#                          aarch64-linux-gnu-gcc for arm64); without them the
#                          guest's collectd tests skip, saying why
#   MEMCG_BPF_VM_TIMEOUT   seconds per VM before it counts as hung, for every
#                          set (default: set_timeout's, twice the longest the
#                          set took in the test command on this project's
#                          2-core machines with two busy loops beside it;
#                          the summary flags a set past half of its timeout)
#   MEMCG_BPF_VM_BOOT_DEADLINE  seconds a guest has to print its first protocol
#                          line, else it is booted once more (180)
#   MEMCG_BPF_VM_TEST_TIMEOUT  seconds per guest test before it counts as hung (480)
#   MEMCG_BPF_VM_ONLY      comma-separated test names to run (debugging)
#   MEMCG_BPF_VM_GUEST_ENV space-separated VMTEST_*=VALUE settings for the
#                          guest tests (e.g. VMTEST_SOAK_SECONDS=70), passed
#                          on the kernel command line
#   MEMCG_BPF_VM_LOGDIR    logs (default $MEMCG_BPF_BUILDDIR/vm-logs)
#   MEMCG_BPF_VM_ARCH      amd64 (default) or arm64: Debian's arm64 cloud
#                          kernels under qemu-system-aarch64 (-M virt), with
#                          the build dir a cross build (tests/vm/arm64.sh,
#                          make vmcheck-arm64); its sets: kfunc:arm64 and
#                          fallback:arm64_core (default); the receivers are
#                          sid's arm64 builds (fetch-receivers.sh with
#                          PRIVATE_APT_ARCH=arm64, cached in the receivers'
#                          cache + "-arm64"), victoria-metrics alone by
#                          default; COLLECTD and the rest must be arm64's
#                          (arm64.sh unpacks bookworm's)
#   QEMU                   qemu-system-x86_64 (qemu-system-aarch64 for arm64)
#
# Each guest gets an empty 64 MiB scratch disk (NVMe: its driver and ext4
# are built into Debian's cloud kernels, unlike virtio-blk): a filesystem
# with a real page cache (tmpfs pages are shmem, on the anon LRU lists).
#
# Each guest prints "VMTEST ..." lines (see guest/lib.sh) on a second serial
# port; the console goes to vm-logs/<kernel>.console.log. Fails when a test
# fails, when a guest never says DONE (crash, hang, timeout) or when no test
# ran. The last line is "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${MEMCG_BPF_BUILDDIR:?set MEMCG_BPF_BUILDDIR to the build directory}"
BUILDDIR=$MEMCG_BPF_BUILDDIR
ARCH=${MEMCG_BPF_VM_ARCH:-amd64}
case $ARCH in
amd64)
	KERNELS=${MEMCG_BPF_VM_KERNELS:-kfunc kfunc:kfunc_oom kfunc:mixin fallback bookworm kfunc:psi_off bookworm:v1 kfunc:numa 7.2:matrix 7.0:matrix 6.19:matrix}
	QEMU=${QEMU:-qemu-system-x86_64}
	CC=${CC:-gcc} RX_ARCH='' RX_CACHE=${MEMCG_BPF_RECEIVER_CACHE:-}
	MACHINE="-cpu max" CONSOLE=ttyS0
	# qemu_ports PROTO DATA: serial ports 2 and 3 (ttyS1, ttyS2) into those files
	qemu_ports() { echo "-serial file:$1 -serial file:$2"; } ;;
arm64)
	KERNELS=${MEMCG_BPF_VM_KERNELS:-kfunc:arm64 fallback:arm64_core}
	QEMU=${QEMU:-qemu-system-aarch64}
	# plain -cpu max emulates pointer authentication 6-7x slower (FACTS.md);
	MACHINE="-M virt -cpu max,pauth-impdef=on" CONSOLE=ttyAMA0
	# -M virt has one UART (the console): protocol and data go to two
	# virtio consoles, /dev/hvc0 and /dev/hvc1 in the guest
	qemu_ports() {
		echo "-device virtio-serial-pci -chardev file,id=proto,path=$1 -device virtconsole,chardev=proto" \
			"-chardev file,id=data,path=$2 -device virtconsole,chardev=data"
	}
	MEMCG_BPF_VM_GUEST_ENV="VMTEST_PROTO=/dev/hvc0 VMTEST_DATA=/dev/hvc1 ${MEMCG_BPF_VM_GUEST_ENV:-}"
	MEMCG_BPF_VM_RECEIVERS=${MEMCG_BPF_VM_RECEIVERS-victoria-metrics}
	CC=aarch64-linux-gnu-gcc RX_ARCH=arm64
	RX_CACHE=${MEMCG_BPF_RECEIVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/receivers}-arm64 ;;
*) echo "vm: MEMCG_BPF_VM_ARCH=$ARCH: amd64 or arm64" >&2; echo "0 passed, 1 failed"; exit 1 ;;
esac
export MEMCG_BPF_VM_ARCH=$ARCH
TEST_TIMEOUT=${MEMCG_BPF_VM_TEST_TIMEOUT:-480}

# boot_watch PID PROTO: stops the VM PID (timeout's, which passes the
# signal on) when no protocol line is in PROTO BOOT_DEADLINE seconds after
# it started, and says so in PROTO.hung.
BOOT_DEADLINE=${MEMCG_BPF_VM_BOOT_DEADLINE:-180}
boot_watch() {
	waited=0
	while [ $waited -lt "$BOOT_DEADLINE" ]; do
		sleep 5
		waited=$((waited + 5))
		grep -q '^VMTEST ' "$2" 2>/dev/null && return 0
		kill -0 "$1" 2>/dev/null || return 0
	done
	: > "$2.hung"
	kill "$1" 2>/dev/null
}

# set_timeout SET: seconds its VM may run before it counts as hung. The two
# big 7.3 sets took up to 513 s in the test command with two busy loops
# beside it (doc/testing.md); the others at most 230.
set_timeout() {
	if [ -n "${MEMCG_BPF_VM_TIMEOUT:-}" ]; then
		echo "$MEMCG_BPF_VM_TIMEOUT"
		return
	fi
	case $1 in
	kfunc | kfunc_oom) echo 1200 ;;
	*) echo 900 ;;
	esac
}
LOGDIR=${MEMCG_BPF_VM_LOGDIR:-$BUILDDIR/vm-logs}
MEM=${MEMCG_BPF_VM_MEM:-1024}
COLLECTD=${COLLECTD:-/usr/sbin/collectd}
COLLECTD_PLUGINS=${COLLECTD_PLUGINS:-/usr/lib/collectd}
TYPESDB=${TYPESDB:-/usr/share/collectd/types.db}

die() { echo "vm: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

command -v "$QEMU" >/dev/null || die "$QEMU not found (apt-get install qemu-system-x86 qemu-system-arm)"
test -e "$BUILDDIR/memcg-bpf-sample" || die "$BUILDDIR/memcg-bpf-sample not built (make)"
mkdir -p "$LOGDIR"

# The comparator must be able to fail before any of its passes mean anything.
echo "vm: comparator self-test"
"$here/check-values-selftest.sh" || die "guest/check_values.c accepts wrong data or rejects right data"

# Debian's kernels (fetch-kernels.sh) and the profiling kernel
# (build-profiling-kernel.sh), each only when a set boots it.
want_debian=false want_profiling=false
for spec in $KERNELS; do
	case ${spec%%:*} in
	profiling) want_profiling=true ;;
	*) want_debian=true ;;
	esac
done
: > "$LOGDIR/kernels.txt"
if $want_debian; then
	echo "vm: fetching kernels"
	# shellcheck disable=SC2046 # the kernels the specs name
	"$here/fetch-kernels.sh" $(for spec in $KERNELS; do echo "${spec%%:*}"; done | grep -vx profiling | sort -u) \
		> "$LOGDIR/kernels.txt" || die "cannot get the kernels (see above)"
fi
profiling_files=
if $want_profiling; then
	echo "vm: the profiling kernel (tests/vm/build-profiling-kernel.sh; log in $LOGDIR/profiling-kernel.log)"
	"$here/build-profiling-kernel.sh" > "$LOGDIR/profiling-kernel.out" 2> "$LOGDIR/profiling-kernel.log" ||
		{ tail -n 20 "$LOGDIR/profiling-kernel.log"; die "cannot build the profiling kernel"; }
	sed 's/^/  /' "$LOGDIR/profiling-kernel.log"
	pk=$(tail -n 1 "$LOGDIR/profiling-kernel.out")
	pkdir=$(dirname "$pk")
	echo "profiling $(cat "$pkdir/version") $pk" >> "$LOGDIR/kernels.txt"
	profiling_files="$pkdir/allocmod.ko=/vmtest/allocmod.ko"
fi
cat "$LOGDIR/kernels.txt"

# The shipped rules (the OOM alert test loads them into Prometheus).
files="$here/../../packaging/dashboard/memcg_bpf.rules.yml=/vmtest/memcg_bpf.rules.yml"
# The kube_mixin test's: the kubernetes-mixin's rules and memory queries,
# rendered by jsonnet, and the shipped cAdvisor rules (tests/vm/kube-mixin.sh).
files="$files $("$here/kube-mixin.sh" "$LOGDIR/kube-mixin")"

# The receivers: Prometheus, VictoriaMetrics (Debian sid, unpacked, cached).
programs=${MEMCG_BPF_VM_PROGRAMS:-}
want=${MEMCG_BPF_VM_RECEIVERS-prometheus victoria-metrics}
if [ -n "$want" ]; then
	if receivers=$(PRIVATE_APT_ARCH=$RX_ARCH MEMCG_BPF_RECEIVER_CACHE=$RX_CACHE \
		"$here/../sender/fetch-receivers.sh" 2> "$LOGDIR/receivers.log"); then
		for r in $want; do
			p=$(echo "$receivers" | awk -v r="$r" '$1 == r { print $3 }')
			if [ -n "$p" ]; then
				programs="$programs $p"
			else
				echo "vm: tests/sender/fetch-receivers.sh offers no $r: the tests that need it will fail"
			fi
		done
	else
		echo "vm: no receivers (tests/sender/fetch-receivers.sh: $(tail -n 1 "$LOGDIR/receivers.log")): the tests that need $want will fail"
	fi
fi

# The real collectd daemon with the built plugin, at the paths Debian uses.
plugin_so=$BUILDDIR/.libs/memcg_bpf.so
if [ ! -f "$plugin_so" ]; then
	echo "vm: $plugin_so not built (no collectd-dev?): the guest's collectd tests will skip"
elif [ ! -x "$COLLECTD" ] || [ ! -f "$TYPESDB" ] ||
	[ ! -f "$COLLECTD_PLUGINS/csv.so" ] || [ ! -f "$COLLECTD_PLUGINS/logfile.so" ]; then
	echo "vm: no $COLLECTD, $TYPESDB, csv.so or logfile.so in $COLLECTD_PLUGINS" \
		"(apt-get install collectd-core): the guest's collectd tests will skip"
else
	files="$files $COLLECTD=/usr/sbin/collectd $TYPESDB=/usr/share/collectd/types.db"
	files="$files $plugin_so=/usr/lib/collectd/memcg_bpf.so"
	for p in csv logfile; do
		files="$files $COLLECTD_PLUGINS/$p.so=/usr/lib/collectd/$p.so"
	done
	# tests/bench/bench_sink.c, a write plugin that only counts values: the churn
	# soak's collectd writer (no I/O for tens of thousands of churned cgroups).
	cflags=${COLLECTD_CPPFLAGS:-$(sed -n 's/^COLLECTD_CPPFLAGS = //p' "$BUILDDIR/Makefile" 2>/dev/null)}
	# shellcheck disable=SC2086 # $cflags is a list of words
	if $CC -shared -fPIC -O2 -Wall -Wextra $cflags -I"$here/../../plugin" -I"$here/../.." -o "$LOGDIR/bench_sink.so" \
		"$here/../../tests/bench/bench_sink.c" > "$LOGDIR/bench_sink.log" 2>&1; then
		files="$files $LOGDIR/bench_sink.so=/usr/lib/collectd/bench_sink.so"
	else
		echo "vm: cannot build tests/bench/bench_sink.c (the churn soak will fail):"
		sed 's/^/  /' "$LOGDIR/bench_sink.log"
	fi
fi
# the caller's files last: a DEST given twice gets the later SRC
files="$files $profiling_files ${MEMCG_BPF_VM_FILES:-}"

initrd=$LOGDIR/initramfs.cpio.gz
# shellcheck disable=SC2086
# the CLI built with a corrupted slot map (bpf-core's start-up check must catch it)
corrupt=$BUILDDIR/tests/vm/memcg-bpf-sample-corrupt
[ -x "$corrupt" ] || { echo "vm: $corrupt not built: core_corrupt will fail"; corrupt=; }
MEMCG_BPF_VM_FILES=$files "$here/mkinitramfs.sh" "$initrd" "$BUILDDIR/memcg-bpf-sample" $corrupt $programs ||
	die "cannot build the initramfs"

total_pass=0
total_fail=0
summary=

# numa_nodes SET: the NUMA nodes SET boots with (0: none)
numa_nodes() {
	case $1 in
	numa) echo 4 ;;
	numa_bench8) echo 8 ;;
	numa_* | fallback | bookworm | matrix) echo 2 ;;
	*) echo 0 ;;
	esac
}

# boot NAME VMLINUZ LOG: one VM run of test set NAME, its logs named LOG;
# adds to the totals.
boot() {
	name=$1 vmlinuz=$2 log=$3
	console=$LOGDIR/$log.console.log
	proto=$LOGDIR/$log.vmtest.log
	data=$LOGDIR/$log.data.log
	scratch=$LOGDIR/$log.scratch.img
	TIMEOUT=$(set_timeout "$name")
	rm -f "$console" "$proto" "$proto.clean" "$data"
	: > "$proto"
	cmdline="console=$CONSOLE quiet panic=-1 vmtest.set=$name"
	# the psi_off set: the 7.x kernel without pressure accounting
	[ "$name" = psi_off ] && cmdline="$cmdline psi=0"
	test -z "${MEMCG_BPF_VM_ONLY:-}" || cmdline="$cmdline vmtest.only=$MEMCG_BPF_VM_ONLY"
	cmdline="$cmdline vmtest.timeout=$TEST_TIMEOUT"
	nodes=$(numa_nodes "$name")
	guest_env=${MEMCG_BPF_VM_GUEST_ENV:-}
	[ "$nodes" = 0 ] || guest_env="$guest_env VMTEST_NUMA_NODES=$nodes"
	for kv in $guest_env; do
		case $kv in
		VMTEST_*=*) cmdline="$cmdline vmtest.env.$kv" ;;
		*) die "MEMCG_BPF_VM_GUEST_ENV: '$kv' is not VMTEST_NAME=VALUE" ;;
		esac
	done
	# NUMA nodes: the RAM split evenly; the two vCPUs on nodes 0 and 1, any
	# further node without a CPU (memload -n binds memory to any node)
	numa= k=0
	while [ $k -lt "$nodes" ]; do
		cpus=
		[ $k -ge 2 ] || cpus=",cpus=$k"
		numa="$numa -object memory-backend-ram,id=m$k,size=$((MEM / nodes))M -numa node,nodeid=$k$cpus,memdev=m$k"
		k=$((k + 1))
	done
	where=
	[ "$nodes" = 0 ] || where=", $nodes NUMA nodes"
	echo "vm: booting $name ($vmlinuz$where), console in $console"
	start=$(date +%s)
	# Under TCG the kernel now and then panics while it boots (seen: an int3
	# trap in sched_init_debug), before the guest has run anything of ours.
	# That gets one more boot; the first console is kept. So does a panic
	# whose first oops is such an int3 trap in kernel text at any time (seen
	# once in sched_clock_cpu from kthreadd, 18 s in, during the kfunc set):
	# the kernel patching its own code (static keys) while the other vCPU
	# runs it, which TCG can show; the whole set runs again. So does a
	# guest that gives no sign of life (not one protocol line) within
	# BOOT_DEADLINE seconds: seen once, in a busy CI run, a boot that
	# printed nothing at all for the set's whole 1,200 s (a boot takes
	# 5-20 s); it is stopped at the deadline and booted again. Any other
	# crash is a failure.
	for try in 1 2; do
		: > "$proto"
		: > "$data"
		rm -f "$scratch" "$proto.hung"
		truncate -s 64M "$scratch"
		# shellcheck disable=SC2086,SC2046 # $MACHINE, $numa and the ports are lists of words
		timeout --foreground -k 10 "$TIMEOUT" "$QEMU" -accel tcg $MACHINE -m "$MEM" -smp 2 $numa \
			-kernel "$vmlinuz" -initrd "$initrd" -append "$cmdline" \
			-display none -monitor none -no-reboot -nodefaults \
			-serial "file:$console" $(qemu_ports "$proto" "$data") \
			-drive "file=$scratch,if=none,id=scratch,format=raw" -device nvme,serial=vmtest,drive=scratch \
			</dev/null &
		qpid=$!
		# Show the protocol lines as they arrive.
		tail -n +1 -f --pid=$qpid "$proto" 2>/dev/null | tr -d '\r' | grep --line-buffered '^VMTEST ' | sed -u 's/^/  /' &
		tpid=$!
		boot_watch "$qpid" "$proto" &
		wpid=$!
		wait $qpid
		qrc=$?
		kill $wpid 2>/dev/null
		wait $tpid $wpid 2>/dev/null
		if [ -f "$proto.hung" ]; then
			[ $try = 1 ] || break
			[ ! -f "$console" ] || mv "$console" "$console.hung"
			echo "vm: $name: no sign of life from the guest in ${BOOT_DEADLINE}s, before any test ran (see $console.hung); booting again"
			continue
		fi
		[ $try = 1 ] && grep -aq 'Kernel panic' "$console" || break
		if ! grep -q '^VMTEST ' "$proto"; then
			mv "$console" "$console.panic"
			echo "vm: $name: the kernel panicked while booting, before any test ran (see $console.panic); booting again"
		elif ! grep -q '^VMTEST DONE ' "$proto" && [ "$(grep -a -m 1 -o 'Oops: [a-z0-9]*' "$console")" = "Oops: int3" ]; then
			mv "$console" "$console.panic"
			echo "vm: $name: the kernel panicked on an int3 trap in its own text (TCG; see $console.panic); the set runs again:"
			tr -d '\r' < "$proto" | grep '^VMTEST ' | sed 's/^/  (first boot) /'
		else
			break
		fi
	done
	secs=$(($(date +%s) - start))
	rm -f "$scratch"

	tr -d '\r' < "$proto" | grep '^VMTEST ' > "$proto.clean"
	kver=$(sed -n 's/^VMTEST KERNEL //p' "$proto.clean" | head -n 1)
	pass=$(grep -c '^VMTEST ok ' "$proto.clean")
	fail=$(grep -c '^VMTEST FAIL ' "$proto.clean")
	skip=$(grep -c '^VMTEST SKIP ' "$proto.clean")
	done_line=$(grep '^VMTEST DONE ' "$proto.clean" | tail -n 1)
	verdict=ok
	if [ -z "$done_line" ]; then
		if [ -f "$proto.hung" ]; then
			why="no sign of life from the guest in ${BOOT_DEADLINE}s, twice"
		elif [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
			why="no DONE: timed out after ${TIMEOUT}s"
		else
			why="no DONE: guest crashed or stopped (qemu exit $qrc)"
		fi
		echo "vm: $name: $why; console tail:"
		tail -n 30 "$console" | sed 's/^/  | /'
		fail=$((fail + 1))
		verdict="FAIL ($why)"
	else
		dpass=$(echo "$done_line" | sed -n 's/.*pass=\([0-9]*\).*/\1/p')
		dfail=$(echo "$done_line" | sed -n 's/.*fail=\([0-9]*\).*/\1/p')
		if [ "$dpass" != "$pass" ] || [ "$dfail" != "$fail" ]; then
			echo "vm: $name: DONE says pass=$dpass fail=$dfail, lines say $pass/$fail (lost lines?)"
			fail=$((fail + 1))
			verdict="FAIL (protocol lines lost)"
		fi
	fi
	# The guest's JSON through the host's strict parser (one more test).
	if grep -q '^VMDATA BEGIN json-' "$data"; then
		if python3 "$here/check_json.py" "$data" > "$LOGDIR/$name.check_json.log" 2>&1; then
			pass=$((pass + 1))
			sed 's/^/  /' "$LOGDIR/$name.check_json.log"
		else
			fail=$((fail + 1))
			echo "vm: $name: the CLI's JSON failed the strict parser:"
			sed 's/^/  | /' "$LOGDIR/$name.check_json.log"
		fi
	fi
	if [ $((pass + fail)) -eq 0 ]; then
		fail=1
		verdict="FAIL (no test ran)"
	elif [ $fail -gt 0 ] && [ "$verdict" = ok ]; then
		verdict=FAIL
	fi
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
	# headroom: a set past half its timeout passes, and says so
	[ $((secs * 2)) -le "$TIMEOUT" ] || verdict="$verdict (past half its timeout: split it)"
	summary="$summary
  $log: kernel ${kver:-unknown}: $pass passed, $fail failed, $skip skipped in ${secs}s (timeout ${TIMEOUT}s): $verdict"
}

# log_of SPEC: the name of its logs: the set's, or KERNEL-SET when another
# spec boots the same set (matrix on several kernels)
log_of() {
	n=0
	for other in $KERNELS; do [ "${other#*:}" != "${1#*:}" ] || n=$((n + 1)); done
	if [ $n -gt 1 ]; then echo "${1%%:*}-${1#*:}"; else echo "${1#*:}"; fi
}

for spec in $KERNELS; do
	kernel=${spec%%:*} name=${spec#*:}
	vmlinuz=$(awk -v n="$kernel" '$1 == n { print $3 }' "$LOGDIR/kernels.txt")
	if [ -z "$vmlinuz" ]; then
		total_fail=$((total_fail + 1))
		summary="$summary
  $kernel: no such kernel (tests/vm/kernels.list names $(awk '{ printf "%s ", $1 }' "$LOGDIR/kernels.txt")or profiling)"
		continue
	fi
	boot "$name" "$vmlinuz" "$(log_of "$spec")"
done

echo "vm: summary (logs in $LOGDIR):$summary"
for spec in $KERNELS; do
	grep -h '^VMTEST FAIL ' "$LOGDIR/$(log_of "$spec").vmtest.log.clean" 2>/dev/null | sed 's/^/  /'
done
echo "$total_pass passed, $total_fail failed"
test "$total_fail" -eq 0 && test "$total_pass" -gt 0
