# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# The benchmark's peer (sourced by bench.sh; t_bench_collectd runs it for a
# VMTEST_CD_RUNS entry SIZE:INTERVAL:netdata): Debian 12's netdata, whose
# cgroups collector reads the same memory.stat files as the plugin, over
# the tree t_bench_collectd built below $CG/cdbench, at the same interval.
# tests/bench/netdata-files.sh puts the daemon into the initramfs.

NETDATA=/usr/sbin/netdata
ND_ADDR=127.0.0.1:19999

# nd_get PATH: netdata's answer to GET PATH (its web API on the loopback).
# (busybox wget has no -T: timeout bounds it)
nd_get() { timeout 120 wget -q -O - "http://$ND_ADDR$1"; }

# nd_tree PID: a line "PID TICKS" for PID and each of its descendants, from
# /proc/N/stat: TICKS = the user and system time of the process (all its
# threads) and of its children it has reaped, in clock ticks.
nd_tree() {
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v root="$1" '
		{
			pid = $1
			sub(/^.*\) /, "")	# comm may hold spaces: fields after its ")"
			ppid[pid] = $2
			ticks[pid] = $12 + $13 + $14 + $15
		}
		END {
			tree[root] = 1
			for (more = 1; more; ) {
				more = 0
				for (p in ppid)
					if (!(p in tree) && (ppid[p] in tree)) { tree[p] = 1; more = 1 }
			}
			for (p in tree) if (p in ticks) print p, ticks[p]
		}'
}

# nd_ticks PID: the CPU time of PID's process tree so far, in clock ticks.
nd_ticks() { nd_tree "$1" | awk '{ s += $2 } END { print s + 0 }'; }

# nd_hwm PID: the sum of VmHWM (peak RSS, kB) over PID's process tree.
nd_hwm() {
	nd_tree "$1" | while read -r p _; do
		sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$p/status" 2>/dev/null
	done | awk '{ s += $1 } END { print s + 0 }'
}

# nd_collector_tid PID: the thread of the cgroups collector's loop (of the
# two threads named PLUGIN[cgroups], the first; the other is its discovery).
nd_collector_tid() {
	for t in /proc/"$1"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "PLUGIN[cgroups]" ] && echo "${t##*/}"
	done | sort -n | head -n 1
}

# nd_sleeps PID TID: the voluntary context switches of thread TID so far.
nd_sleeps() { sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' "/proc/$1/task/$2/status"; }

# nd_charts SINCE: how many cgroups of the tree have a memory.stat chart
# (cgroup_cdbench_cN.mem) that netdata updated at SINCE (epoch s) or later.
nd_charts() {
	nd_get "/api/v1/allmetrics?format=json&filter=cgroup_cdbench_c*.mem" > "$d/allmetrics.json" ||
		{ echo 0; return; }
	awk -v since="$1" '
		/^[[:space:]]*"cgroup_cdbench_c[0-9]+\.mem": \{/ { chart = 1; next }
		chart && /"last_updated":/ { v = $2; sub(/,.*/, "", v); if (v + 0 >= since) n++; chart = 0 }
		END { print n + 0 }' "$d/allmetrics.json"
}

# nd_conf DIR NCG INTERVAL: DIR/netdata.conf, netdata reduced to its cgroups
# collector: memory.stat (chart mem and those derived from it) and
# memory.current / memory.max of every cgroup below $CG, every INTERVAL s.
nd_conf() {
	mkdir -p "$1/etc" "$1/stock" "$1/log" "$1/cache" "$1/lib" "$1/plugins.d" "$1/web"
	# no anonymous statistics (also its script is not in the initramfs)
	: > "$1/etc/.opt-out-from-anonymous-statistics"
	cat > "$1/netdata.conf" <<EOF
[global]
	run as user = root
	hostname = vmtest
	# its default would be batch; collectd runs with the inherited policy too
	process scheduling policy = keep
[db]
	# alloc: the history in RAM as with ram, but one calloc per dimension:
	# ram mmap()s each dimension's history on its own (a page and a mapping
	# per dimension), and 10,000 cgroups have 220,000 dimensions, more than
	# vm.max_map_count
	mode = alloc
	retention = 60
	update every = $3
[directories]
	config = $1/etc
	stock config = $1/stock
	log = $1/log
	cache = $1/cache
	home = $1/cache
	lib = $1/lib
	lock = $1/lib/lock
	plugins = $1/plugins.d
	web = $1/web
	health config = $1/etc/health.d
	stock health config = $1/stock/health.d
[logs]
	debug = none
	access = none
	error = $1/error.log
[health]
	enabled = no
[statsd]
	enabled = no
[registry]
	enabled = no
[web]
	bind to = $ND_ADDR
	mode = static-threaded
	web server threads = 1
[plugins]
	# of the internal collectors only cgroups, no external plugin
	enable running new plugins = no
	cgroups = yes
	proc = no
	diskspace = no
	tc = no
	timex = no
	idlejitter = no
	netdata monitoring = no
	apps = no
	charts.d = no
	python.d = no
	go.d = no
	node.d = no
	ebpf = no
	perf = no
	slabinfo = no
	nfacct = no
	fping = no
	ioping = no
	cups = no
	freeipmi = no
[plugin:cgroups]
	update every = $3
	# discovery (a walk of the tree) every 10 intervals, netdata's default
	check for new cgroups every = $((10 * $3))
	# default 1000; netdata counts every directory it finds, the tree's root
	# included
	max cgroups to allow = $(($2 + 100))
	max cgroups depth to monitor = 0
	# every cgroup but the root (its default also excludes the root and
	# names of systemd, libvirt, lxc and k8s; none below $CG)
	enable by default cgroups matching = !/ *
	enable by default cgroups names matching = *
	search for cgroups in subpaths matching = *
	# netdata's defaults run cgroup-name.sh (bash) for every new cgroup and
	# enable none whose script could not run: no renaming
	run script to rename cgroups matching = !*
	# run once per new cgroup to find its processes' network interfaces
	# (there are no processes): not in the initramfs, so a failed spawn
	script to get cgroup network interfaces = $1/plugins.d/cgroup-network
	enable memory = yes
	# yes: memory.stat of every cgroup every interval (auto: an all-zero
	# memory.stat is read again only every 10 intervals)
	enable detailed memory = yes
	enable swap memory = no
	enable memory limits fail count = no
	enable cpuacct stat (total CPU) = no
	enable cpuacct usage (per core CPU) = no
	enable cpuacct cpu throttling = no
	enable cpuacct cpu shares = no
	enable blkio bandwidth = no
	enable blkio operations = no
	enable blkio throttle bandwidth = no
	enable blkio throttle operations = no
	enable blkio queued operations = no
	enable blkio merged operations = no
	enable cpu pressure = no
	enable io some pressure = no
	enable io full pressure = no
	enable memory some pressure = no
	enable memory full pressure = no
	enable systemd services = no
EOF
}

# bench_netdata_run SIZE NCG INTERVAL: netdata over the tree of SIZE cgroups
# below $CG/cdbench (NCG cgroups in all below $CG) at INTERVAL s. Measures,
# as bench_collectd_run does for collectd, per collection (sample) over
# VMTEST_CD_INTERVALS collections after the warm-up: its CPU (user + system
# of its whole process tree, reaped children included) and the mean spacing
# of its collections; then its peak RSS (VmHWM summed over its processes) and
# how many of the tree's cgroups it monitors. Fails when that is less than
# 90% of SIZE, or when it does not get there in VMTEST_ND_SECS seconds.
bench_netdata_run() {
	size=$1 ncg=$2 ival=$3
	warm=${VMTEST_CD_WARMUP:-3} n=${VMTEST_CD_INTERVALS:-20}
	limit=${VMTEST_ND_SECS:-$((300 + size / 10))}
	if [ ! -x "$NETDATA" ]; then
		why "netdata is not in the initramfs (tests/bench/netdata-files.sh puts it there)"
		return 1
	fi
	d=$WORK/cdbench-netdata-$size
	rm -rf "$d"
	mkdir -p "$d"
	nd_conf "$d" "$ncg" "$ival"
	version=$("$NETDATA" -v 2>&1 | sed -n 's/^netdata v*//p' | head -n 1)
	nd_start=$(date +%s)
	"$NETDATA" -D -c "$d/netdata.conf" > "$d/stdout" 2>&1 &
	npid=$!

	# Warm-up, 1: netdata finds new cgroups on a timer (check for new cgroups
	# every) and charts them at its next collection. Wait until the tree's
	# first and last cgroups have charts.
	probe="/api/v1/allmetrics?format=json&filter=cgroup_cdbench_c0.mem%20cgroup_cdbench_c$((size - 1)).mem"
	while [ "$(nd_get "$probe" 2>/dev/null | grep -c '^[[:space:]]*"cgroup_cdbench_c[0-9]*\.mem": {')" -lt 2 ]; do
		if ! kill -0 "$npid" 2>/dev/null || [ $(($(date +%s) - nd_start)) -gt "$limit" ]; then
			nd_fail "the tree's cgroups not charted after $(($(date +%s) - nd_start)) s"
			return 1
		fi
		sleep 2
	done
	charted=$(($(date +%s) - nd_start))

	# 2: each new chart's metadata goes through a queue into netdata's SQLite
	# store, and the collector blocks while that queue is full. Collections
	# are counted by the opens of c0's memory.stat (opens.c: the collector
	# opens it once per collection). The warm-up ends after VMTEST_CD_WARMUP
	# collections in a row in which the collector thread did not block
	# (fewer than 10 voluntary context switches, its sleep until the next
	# collection included); the next VMTEST_CD_INTERVALS are measured.
	tid=$(nd_collector_tid "$npid")
	[ -n "$tid" ] || { nd_fail "no thread PLUGIN[cgroups]"; return 1; }
	opens "$CG/cdbench/c0/memory.stat" 1000000 "$limit" > "$d/opens" 2> "$d/opens.err" &
	opid=$!
	seen=0 calm=0 k0='' sw0=$(nd_sleeps "$npid" "$tid")
	while :; do
		k=$(wc -l < "$d/opens")
		if [ "$k" -gt "$seen" ]; then
			seen=$k
			if [ -z "$k0" ]; then
				sw=$(nd_sleeps "$npid" "$tid")
				if [ $((sw - sw0)) -lt 10 ]; then calm=$((calm + 1)); else calm=0; fi
				sw0=$sw
				if [ "$calm" -ge "$warm" ]; then
					k0=$k c0=$(nd_ticks "$npid") e0=$(date +%s)
				fi
			elif [ $((k - k0)) -ge "$n" ]; then
				k1=$k c1=$(nd_ticks "$npid")
				break
			fi
		fi
		if ! kill -0 "$npid" 2>/dev/null || ! kill -0 "$opid" 2>/dev/null ||
			[ $(($(date +%s) - nd_start)) -gt "$limit" ]; then
			kill "$opid" 2>/dev/null
			nd_fail "$k collections of the tree seen, ${k0:+measuring from the ${k0}th, }not $n measured after $(($(date +%s) - nd_start)) s ($(cat "$d/opens.err"))"
			return 1
		fi
		sleep 0.2
	done
	kill "$opid" 2>/dev/null
	wait "$opid"
	rss=$(nd_hwm "$npid")
	monitored=$(nd_charts "$e0")
	db=$(du -sk "$d/cache" | cut -f1)
	nd_stop
	echo "---- netdata $size: collections (monotonic s)"
	cat "$d/opens"
	echo "---- netdata $size: error.log (last 20 lines)"
	tail -n 20 "$d/error.log"
	if [ "$monitored" -lt $((size * 9 / 10)) ]; then
		why "netdata at $size: monitors $monitored of the tree's $size cgroups (less than 90%)"
		return 1
	fi
	info "# netdata $version: only its cgroups collector (memory.stat, memory.current, memory.max), update every $ival s, db mode alloc; charted the tree after $charted s, measured from $((e0 - nd_start)) s to $(($(date +%s) - nd_start)) s; per collection (c0's memory.stat opened), over its process tree: cpu_ms, and peak_rss summed (kB); values = cgroups of the tree it monitors; its SQLite metadata store $((db / 1024)) MiB (tmpfs, not in its RSS)"
	# the values column holds the number of the tree's cgroups netdata
	# monitors: their memory.stat charts were updated while it was measured
	info "$(awk -v size="$size" -v ncg="$ncg" -v c="$((c1 - c0))" -v n="$((k1 - k0))" \
		-v t0="$(sed -n "${k0}p" "$d/opens")" -v t1="$(sed -n "${k1}p" "$d/opens")" \
		-v mon="$monitored" -v rss="$rss" 'BEGIN {
		# USER_HZ is 100 on x86: 10 ms per tick
		printf "%7d %6d %-18s %9.1f %9s %7s %8s %8s %8s %8s %7s %8s %8s %8s %7s %5s %6.2f %s\n",
			size, ncg, "netdata", c * 10 / n, "-", "-", "-", "-", "-", "-", "-", "-", "-",
			mon, "-", "-", (t1 - t0) / n, rss
	}')"
	rm -rf "$d"
}

# nd_fail WHY: netdata ($npid) failed at the tree of $size: shows what it
# says of itself, stops it and gives WHY as the reason.
nd_fail() {
	nd_diag
	nd_stop
	why "netdata at $size: $1"
}

# nd_diag: what netdata ($npid) shows of itself, as INFO lines.
nd_diag() {
	if err=$(nd_get /api/v1/info 2>&1 >/dev/null); then
		info "netdata: $(kill -0 "$npid" 2>/dev/null && echo running || echo exited), $(nd_charts 0) of the tree's cgroups charted"
	else
		info "netdata: $(kill -0 "$npid" 2>/dev/null && echo running || echo exited), its API does not answer: $err"
	fi
	grep -v 'POPEN\|cannot popen\|thread created\|set name of thread' "$d/error.log" | tail -n 15 |
		while IFS= read -r line; do info "netdata log: $line"; done
}

# nd_stop: stops netdata ($npid) and what is left of its process tree.
nd_stop() {
	left=$(nd_tree "$npid" | cut -d' ' -f1)
	kill -TERM "$npid" 2>/dev/null
	t=0
	while [ "$(cut -d' ' -f3 "/proc/$npid/stat" 2>/dev/null)" != Z ] && kill -0 "$npid" 2>/dev/null; do
		t=$((t + 1))
		if [ $t -gt 300 ]; then
			echo "netdata did not exit 30 s after SIGTERM: killing it"
			kill -KILL "$npid"
			break
		fi
		sleep 0.1
	done
	wait "$npid"
	for p in $left; do
		[ "$p" = "$npid" ] || kill -KILL "$p" 2>/dev/null
	done
}
