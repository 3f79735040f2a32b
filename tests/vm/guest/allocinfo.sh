# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Memory allocation profiling (issue 37): functions only, sourced by
# run-tests.sh after lib.sh and receivers.sh; they use run-tests.sh's
# collectd helpers. The allocinfo set boots the profiling kernel that
# tests/vm/build-profiling-kernel.sh builds (Linux 7.3, tinyconfig plus
# tests/vm/profiling-kernel.config); tests/vm/run.sh puts the test module
# tests/vm/allocmod, built against it, at /vmtest/allocmod.ko.
#   allocinfo_kernel    /proc/allocinfo: format 2.0, mode 0400, counting
#                       (vm.mem_profiling 1); insmod allocmod.ko adds its
#                       rows "[allocmod] func:..." with the bytes and calls
#                       it allocated; rmmod takes them away
#   allocinfo_collectd  the userland runs on that kernel: the CLI (text
#                       backend: the kernel has no BPF), and the real
#                       collectd with memcg_bpf shipping to VictoriaMetrics
#   allocinfo_readers   the CLI's top 25 by ioctl = by text = the file
#   allocinfo_twins     two sites whose file names share their last 63
#                       bytes (the ioctl cuts names to them): both readers
#                       give each with its own bytes and calls, as the file
#   allocinfo_ship      collectd with AllocInfo into VictoriaMetrics: insmod
#                       brings allocmod's series (module="allocmod", whole
#                       names), rmmod makes them stale, vm.mem_profiling 0
#                       is one NOTICE and 1 ships again without a restart
#   allocinfo_bench     (make bench) text and binary reader per read

ALLOCINFO=/proc/allocinfo
ALLOCMOD=/vmtest/allocmod.ko
# allocmod's call sites (tests/vm/allocmod/sites.c): "FUNCTION BYTES CALLS".
# vmalloc(262144) counts its 64 pages one call each, and the 512-byte array
# of their pointers that vmalloc allocates under the caller's tag.
ALLOCMOD_SITES="allocmod_kmalloc_small 2048 32
allocmod_kmalloc_4k 32768 8
allocmod_kmalloc_large 65536 1
allocmod_vmalloc 262656 65
allocmod_pages 16384 1
allocmod_a_call_site_whose_function_name_runs_past_the_ioctl_limit_of_63_bytes 384 3
allocmod_deep_alloc 512 1"
# its twin sites (tests/vm/allocmod/twin_a.c, twin_b.c): one function name,
# files that share their last 63 bytes: "SITE BYTES CALLS"
ALLOCMOD_TWIN_TAIL=/directories/named/so/that/the/last/sixty/three/bytes/of/both/twin.c
ALLOCMOD_TWINS="allocmod/a$ALLOCMOD_TWIN_TAIL:6 204800 50
allocmod/bb$ALLOCMOD_TWIN_TAIL:6 102400 25"
ALLOCMOD_ROWS=9

# allocmod_rows FILE: the rows of module allocmod in FILE (a copy of
# /proc/allocinfo) as "FUNCTION BYTES CALLS FILE:LINE REST".
allocmod_rows() {
	awk '$4 == "[allocmod]" { f = $5; sub(/^func:/, "", f); r = ""; for (i = 6; i <= NF; i++) r = r " " $i; print f, $1, $2, $3 r }' "$1"
}

t_allocinfo_kernel() {
	[ -e "$ALLOCINFO" ] || { why "no $ALLOCINFO: the kernel lacks CONFIG_MEM_ALLOC_PROFILING"; return 1; }
	[ -f "$ALLOCMOD" ] || { why "no $ALLOCMOD in the initramfs (tests/vm/run.sh puts it there for the profiling kernel)"; return 1; }
	mode=$(stat -c %a "$ALLOCINFO")
	[ "$mode" = 400 ] || { why "$ALLOCINFO has mode $mode, not 400"; return 1; }
	prof=$(cat /proc/sys/vm/mem_profiling 2>/dev/null)
	[ "$prof" = 1 ] || { why "vm.mem_profiling is '${prof:-missing}', not 1"; return 1; }
	t0=$(cut -d' ' -f1 /proc/uptime)
	cat "$ALLOCINFO" > "$WORK/allocinfo.before" || { why "cannot read $ALLOCINFO"; return 1; }
	t1=$(cut -d' ' -f1 /proc/uptime)
	h1=$(sed -n 1p "$WORK/allocinfo.before") h2=$(sed -n 2p "$WORK/allocinfo.before")
	[ "$h1" = "allocinfo - version: 2.0" ] || { why "first line '$h1', not 'allocinfo - version: 2.0'"; return 1; }
	[ "$h2" = "#     <size>  <calls> <tag info>" ] || { why "second line '$h2', not the column header"; return 1; }
	# every row: "%12lli %8llu file:line [module] func:name[ accurate:no] "
	bad=$(sed 1,2d "$WORK/allocinfo.before" |
		grep -cvE '^ *-?[0-9]+ +[0-9]+ [^ ]+:[0-9]+ (\[[^] ]+\] )?func:[^ ]+( accurate:no)? $')
	[ "$bad" -eq 0 ] || { why "$bad rows not in the 2.0 format, e.g. '$(sed 1,2d "$WORK/allocinfo.before" |
		grep -vE '^ *-?[0-9]+ +[0-9]+ [^ ]+:[0-9]+ (\[[^] ]+\] )?func:[^ ]+( accurate:no)? $' | head -n 1)'"; return 1; }
	rows=$(($(wc -l < "$WORK/allocinfo.before") - 2))
	nonzero=$(awk 'NR > 2 && $1 != 0' "$WORK/allocinfo.before" | wc -l)
	inacc=$(grep -c ' accurate:no $' "$WORK/allocinfo.before")
	info "$ALLOCINFO: $rows call sites, $nonzero non-zero, $inacc accurate:no; one read $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1000 }') ms (uptime's resolution: 10 ms)"
	if [ -n "$(allocmod_rows "$WORK/allocinfo.before")" ]; then why "allocmod rows before insmod"; return 1; fi

	insmod "$ALLOCMOD" 2> "$WORK/insmod.err" || { why "insmod $ALLOCMOD: $(first_line "$WORK/insmod.err")"; return 1; }
	cat "$ALLOCINFO" > "$WORK/allocinfo.loaded"
	allocmod_rows "$WORK/allocinfo.loaded" > "$WORK/allocmod.rows"
	echo "---- allocmod rows"
	cat "$WORK/allocmod.rows"
	bad=''
	echo "$ALLOCMOD_SITES" | {
		while read -r f bytes calls; do
			row=$(awk -v f="$f" '$1 == f' "$WORK/allocmod.rows")
			n=$(echo "$row" | grep -c .)
			if [ "$n" -ne 1 ]; then echo "; $n rows of func:$f"; continue; fi
			# shellcheck disable=SC2086 # the row's fields
			set -- $row
			[ "$2" = "$bytes" ] || echo "; $f: $2 bytes, not $bytes"
			[ "$3" = "$calls" ] || echo "; $f: $3 calls, not $calls"
			[ -z "$5" ] || echo "; $f: '$5' after the name"
		done
	} > "$WORK/allocmod.bad"
	echo "$ALLOCMOD_TWINS" | while read -r site bytes calls; do
		row=$(awk -v s="$site" '$1 == "allocmod_twin_alloc" && $4 == s' "$WORK/allocmod.rows")
		[ "$(echo "$row" | grep -c .)" -eq 1 ] || { echo "; no one row of $site"; continue; }
		# shellcheck disable=SC2086 # the row's fields
		set -- $row
		[ "$2 $3" = "$bytes $calls" ] || echo "; $site: $2 bytes $3 calls, not $bytes $calls"
	done >> "$WORK/allocmod.bad"
	bad=$(tr -d '\n' < "$WORK/allocmod.bad")
	n=$(wc -l < "$WORK/allocmod.rows")
	[ "$n" -eq $ALLOCMOD_ROWS ] || bad="$bad; $n allocmod rows, not $ALLOCMOD_ROWS"
	if [ -n "$bad" ]; then why "after insmod: ${bad#; }"; rmmod allocmod; return 1; fi
	rows2=$(($(wc -l < "$WORK/allocinfo.loaded") - 2))
	info "insmod: $n allocmod rows ($(awk '{ print $4 }' "$WORK/allocmod.rows" | tr '\n' ' ')), $rows2 call sites in all"

	rmmod allocmod 2> "$WORK/rmmod.err" || { why "rmmod allocmod: $(first_line "$WORK/rmmod.err")"; return 1; }
	cat "$ALLOCINFO" > "$WORK/allocinfo.unloaded"
	left=$(allocmod_rows "$WORK/allocinfo.unloaded" | wc -l)
	[ "$left" -eq 0 ] || { why "$left allocmod rows after rmmod"; return 1; }
	rows3=$(($(wc -l < "$WORK/allocinfo.unloaded") - 2))
	[ "$rows3" -eq "$rows" ] || { why "$rows3 call sites after rmmod, $rows before insmod"; return 1; }
	# a module unloaded with memory still allocated is reported by the kernel
	if dmesg | grep -q 'allocated at module unload'; then
		why "the kernel says: $(dmesg | grep 'allocated at module unload' | head -n 1 | cut -c 1-200)"; return 1
	fi
}

t_allocinfo_collectd() {
	have_collectd || return 77
	enable_memory "$CG" && mkdir -p "$CG/alloc" || return 1
	# the CLI: no BPF in this kernel, so auto runs text
	if ! sample --backend auto --stats usage,anon,slab --format json --count 1; then
		why "memcg-bpf-sample: $(first_line "$WORK/err")"; rmdir "$CG/alloc"; return 1
	fi
	if ! grep -q '"backend":"text"' "$WORK/out" || ! grep -q '"path":"/alloc"' "$WORK/out"; then
		why "memcg-bpf-sample: no record of /alloc from backend text"; rmdir "$CG/alloc"; return 1
	fi
	info "CLI: $(grep -m 1 'backend text' "$WORK/err" | cut -c 1-200)"
	d=$WORK/allocinfo-cd
	rm -rf "$d"
	mkdir -p "$d"
	vm_start || { rmdir "$CG/alloc"; return 1; }
	collectd_conf "$d" 1 csv "  CgroupRoot \"$CG\"
  Stat \"usage\" \"anon\" \"slab\"
  Label \"run\" \"allocinfo\"
  URL \"$VM_URL/api/v1/write\"" || { receivers_stop; rmdir "$CG/alloc"; return 1; }
	"$COLLECTD" -f -C "$d/collectd.conf" > "$d/stdout" 2>&1 &
	cd_pid=$!
	t=0
	until [ "$(rx_query "$VM_URL" 'count_over_time(memcg_usage_bytes{run="allocinfo",cgroup="/alloc"}[10m])' | cut -d' ' -f1)" -ge 3 ] 2>/dev/null; do
		t=$((t + 1))
		if [ $t -gt 90 ] || ! kill -0 $cd_pid 2>/dev/null; then
			why "no 3 samples of memcg_usage_bytes{cgroup=\"/alloc\"} in VictoriaMetrics after 90 s"
			stop_collectd $cd_pid; cat "$d/stdout" "$d/collectd.log"; receivers_stop; rmdir "$CG/alloc"; return 1
		fi
		sleep 1
	done
	stop_checked $cd_pid "$d" text allocinfo || { receivers_stop; rmdir "$CG/alloc"; return 1; }
	series=$(rx_query "$VM_URL" 'count(last_over_time({__name__=~"memcg_.*",run="allocinfo"}[10m]))' | cut -d' ' -f1)
	info "collectd (Backend auto: text) shipped to VictoriaMetrics: $series series, 3 samples in ${t}s"
	receivers_stop
	rmdir "$CG/alloc"
}

# ai_rows JSON: the CLI's rows (not "other") as "SITE MODULE FUNC BYTES CALLS", in order.
ai_rows() {
	grep -v '"other":true' "$1" | sed 's/"module":""/"module":"-"/' |
		sed -n 's/.*"site":"\([^"]*\)","module":"\([^"]*\)","func":"\([^"]*\)","bytes":\(-\{0,1\}[0-9]*\),"calls":\([0-9]*\).*/\1 \2 \3 \4 \5/p'
}

# ai_sites FILE: a copy of /proc/allocinfo as "SITE MODULE FUNC BYTES CALLS", one line per
# call site (rows under one name summed, as the readers do), module "-" for the kernel's own.
ai_sites() {
	awk 'NR > 2 { m = "-"; f = ""; for (i = 4; i <= NF; i++) { if ($i ~ /^\[/) m = substr($i, 2, length($i) - 2); if ($i ~ /^func:/) f = substr($i, 6) }
		k = $3 " " m " " f; b[k] += $1; c[k] += $2 }
		END { for (k in b) print k, b[k], c[k] }' "$1"
}

# allocinfo_readers: the CLI's top 25 by the binary reader (Linux 7.3) and by
# the text one are the same sites in the same order, with the file's bytes
# and calls, on the stable sites: those with the same bytes and calls in
# every read around them (cat before and after, and a whole listing by each
# reader: a read allocates, and rows that move with the reading process,
# its own buffers and page tables, differ between a cat and a reader).
t_allocinfo_readers() {
	cat "$ALLOCINFO" > "$WORK/ai.before"
	for r in ioctl text; do
		if ! memcg-bpf-sample --allocinfo --allocinfo-backend $r --allocinfo-top 100000 -f json > "$WORK/ai.all.$r" 2> "$WORK/ai.err" ||
			! memcg-bpf-sample --allocinfo --allocinfo-backend $r --allocinfo-top 25 -f json > "$WORK/ai.$r" 2>> "$WORK/ai.err"; then
			why "$r reader: $(first_line "$WORK/ai.err")"
			return 1
		fi
	done
	cat "$ALLOCINFO" > "$WORK/ai.after"
	# the CLI's one read: auto is the text (the plugin's lasting reader picks ioctl)
	used=$(memcg-bpf-sample --allocinfo --allocinfo-top 1 | head -n 1)
	case $used in *"text reader"*) ;; *) why "the CLI's auto does not pick the text reader: $used"; return 1 ;; esac
	ai_sites "$WORK/ai.before" > "$WORK/ai.sites.before"
	ai_sites "$WORK/ai.after" > "$WORK/ai.sites.after"
	ai_rows "$WORK/ai.all.ioctl" > "$WORK/ai.sites.ioctl"
	ai_rows "$WORK/ai.all.text" > "$WORK/ai.sites.text"
	# stable: the same line (name, bytes, calls) in all four (busybox has no comm)
	awk 'FNR == 1 { f++ } { n[$0]++ } END { for (k in n) if (n[k] == 4) { split(k, a, " "); print a[1], a[2], a[3] } }' \
		"$WORK/ai.sites.before" "$WORK/ai.sites.after" "$WORK/ai.sites.ioctl" "$WORK/ai.sites.text" > "$WORK/ai.stable"
	ai_rows "$WORK/ai.ioctl" > "$WORK/ai.rows.ioctl"
	ai_rows "$WORK/ai.text" > "$WORK/ai.rows.text"
	# each reader's stable rows of its top 25, in its order
	for r in ioctl text; do
		awk 'NR == FNR { s[$1 " " $2 " " $3] = 1; next } ($1 " " $2 " " $3) in s' "$WORK/ai.stable" "$WORK/ai.rows.$r" > "$WORK/ai.stable.$r"
	done
	n=$(wc -l < "$WORK/ai.stable.ioctl")
	bad=''
	[ "$(wc -l < "$WORK/ai.rows.ioctl")" -eq 25 ] || bad="$bad; the ioctl reader gave $(wc -l < "$WORK/ai.rows.ioctl") rows, not 25"
	[ "$n" -ge 10 ] || bad="$bad; only $n of the top 25 were stable around the reads"
	cmp -s "$WORK/ai.stable.ioctl" "$WORK/ai.stable.text" ||
		bad="$bad; the readers' stable rows differ: $(diff "$WORK/ai.stable.ioctl" "$WORK/ai.stable.text" | head -n 4 | tr '\n' ' ')"
	off=$(awk 'NR == FNR { f[$0] = 1; next } !($0 in f)' "$WORK/ai.sites.before" "$WORK/ai.stable.ioctl" | head -n 2 | tr '\n' ' ')
	[ -z "$off" ] || bad="$bad; rows unlike the file's: $off"
	if [ -n "$bad" ]; then why "$(echo "${bad#; }" | cut -c 1-400)"; return 1; fi
	info "the top 25 by ioctl and by text: $n stable sites, the same, in the same order, with the file's bytes and calls ($(head -n 1 "$WORK/ai.rows.ioctl")); the rest moved with the reads"
}

# allocinfo_twins: allocmod's twin sites (their file names share the last 63
# bytes the ioctl gives) from the binary and the text reader, each as the
# file says: the ioctl reader must not fold them into one row.
t_allocinfo_twins() {
	[ -f "$ALLOCMOD" ] || { why "no $ALLOCMOD in the initramfs"; return 1; }
	insmod "$ALLOCMOD" 2> "$WORK/insmod.err" || { why "insmod $ALLOCMOD: $(first_line "$WORK/insmod.err")"; return 1; }
	bad=
	for r in ioctl text; do
		memcg-bpf-sample --allocinfo --allocinfo-backend $r --allocinfo-top 100000 -f json > "$WORK/tw.$r" 2> "$WORK/tw.err" ||
			bad="$bad; $r reader: $(first_line "$WORK/tw.err")"
	done
	cat "$ALLOCINFO" > "$WORK/tw.file"
	rmmod allocmod
	[ -z "$bad" ] || { why "${bad#; }"; return 1; }
	ai_sites "$WORK/tw.file" > "$WORK/tw.sites.file"
	bad=$(echo "$ALLOCMOD_TWINS" | while read -r site bytes calls; do
		want="$site allocmod allocmod_twin_alloc $bytes $calls"
		grep -qxF "$want" "$WORK/tw.sites.file" || printf '; the file has no "%s"' "$want"
		for r in ioctl text; do
			got=$(ai_rows "$WORK/tw.$r" | awk -v s="$site" '$1 == s && $2 == "allocmod"')
			[ "$got" = "$want" ] || printf '; %s: "%s", not "%s"' "$r" "${got:-nothing}" "$want"
		done
	done)
	# nothing else of allocmod's at that line (a row holding both sites' counts)
	for r in ioctl text; do
		n=$(ai_rows "$WORK/tw.$r" | grep -c ' allocmod allocmod_twin_alloc ')
		[ "$n" -eq 2 ] || bad="$bad; $r: $n rows of allocmod_twin_alloc, not 2"
	done
	[ -z "$bad" ] || { why "$(echo "${bad#; }" | cut -c 1-400)"; return 1; }
	info "twins (files sharing their last 63 bytes, one line, one function): both readers give each site as the file ($(echo "$ALLOCMOD_TWINS" | awk '{ printf "%s B, %s calls; ", $2, $3 }'))"
}

# ai_vm_count QUERY: the number of series QUERY finds in VictoriaMetrics (0 when none).
ai_vm_count() {
	n=$(rx_query "$VM_URL" "count($1)" | cut -d' ' -f1)
	echo "${n:-0}"
}

# ai_wait_count QUERY N SECONDS: waits until QUERY finds N series; fails after SECONDS.
ai_wait_count() {
	t=0
	until [ "$(ai_vm_count "$1")" = "$2" ]; do
		t=$((t + 1))
		[ $t -le "$3" ] || return 1
		kill -0 "$cd_pid" 2>/dev/null || return 1
		sleep 1
	done
}

# ai_ship_fail D WHY: says WHY with what the receiver and collectd saw, stops both; fails.
ai_ship_fail() {
	why "$2"
	echo "---- VictoriaMetrics: $(rx_query "$VM_URL" 'count({__name__=~"memcg_bpf_kernel_alloc_.*"})')"
	stop_collectd "$cd_pid"
	cat "$1/collectd.log" "$1/stdout"
	receivers_stop
	return 1
}

# allocinfo_ship: the whole path on the profiling kernel, collectd + memcg_bpf
# (AllocInfo, binary reader) + VictoriaMetrics in the guest.
t_allocinfo_ship() {
	have_collectd || return 77
	[ -f "$ALLOCMOD" ] || { why "no $ALLOCMOD in the initramfs"; return 1; }
	held=$(awk 'NR > 2 && $1 != 0' "$ALLOCINFO" | wc -l)
	# every site that holds memory fits the top, so allocmod's small ones are in it
	[ "$held" -lt 900 ] || { why "$held sites hold memory: more than the test's AllocInfoTop 1000 leaves room for"; return 1; }
	d=$WORK/allocinfo-ship
	rm -rf "$d"
	mkdir -p "$d"
	vm_start || return 1
	collectd_conf "$d" 1 csv "  CgroupRoot \"$CG\"
  Stat \"usage\"
  Label \"run\" \"ship\"
  URL \"$VM_URL/api/v1/write\"
  AllocInfo true
  AllocInfoTop 1000
  AllocInfoInterval 1" || { receivers_stop; return 1; }
	"$COLLECTD" -f -C "$d/collectd.conf" > "$d/stdout" 2>&1 &
	cd_pid=$!
	ai_wait_count 'memcg_bpf_kernel_alloc_bytes{run="ship",site="other"}' 1 90 ||
		{ ai_ship_fail "$d" "no memcg_bpf_kernel_alloc_bytes{site=\"other\"} in VictoriaMetrics after 90 s"; return 1; }
	grep -q 'AllocInfo: reading /proc/allocinfo (ioctl)' "$d/collectd.log" ||
		{ ai_ship_fail "$d" "the log does not say that AllocInfo reads /proc/allocinfo by ioctl"; return 1; }
	[ "$(ai_vm_count 'memcg_bpf_kernel_alloc_bytes{module="allocmod"}')" = 0 ] ||
		{ ai_ship_fail "$d" "allocmod series before insmod"; return 1; }

	insmod "$ALLOCMOD" 2> "$WORK/insmod.err" || { ai_ship_fail "$d" "insmod: $(first_line "$WORK/insmod.err")"; return 1; }
	ai_wait_count 'memcg_bpf_kernel_alloc_bytes{run="ship",module="allocmod"}' $ALLOCMOD_ROWS 30 ||
		{ ai_ship_fail "$d" "$(ai_vm_count 'memcg_bpf_kernel_alloc_bytes{module="allocmod"}') allocmod series 30 s after insmod, not $ALLOCMOD_ROWS"; return 1; }
	sleep 2 # a read after the first: the counts settled
	bad=$(echo "$ALLOCMOD_SITES" | while read -r f bytes calls; do
		b=$(rx_query "$VM_URL" "memcg_bpf_kernel_alloc_bytes{module=\"allocmod\",func=\"$f\"}" | cut -d' ' -f1)
		c=$(rx_query "$VM_URL" "memcg_bpf_kernel_alloc_calls{module=\"allocmod\",func=\"$f\"}" | cut -d' ' -f1)
		[ "$b $c" = "$bytes $calls" ] || printf '; %s: %s bytes %s calls, not %s %s' "$f" "${b:-no}" "${c:-no}" "$bytes" "$calls"
	done)
	bad=$bad$(echo "$ALLOCMOD_TWINS" | while read -r site bytes calls; do
		b=$(rx_query "$VM_URL" "memcg_bpf_kernel_alloc_bytes{module=\"allocmod\",site=\"$site\"}" | cut -d' ' -f1)
		c=$(rx_query "$VM_URL" "memcg_bpf_kernel_alloc_calls{module=\"allocmod\",site=\"$site\"}" | cut -d' ' -f1)
		[ "$b $c" = "$bytes $calls" ] || printf '; %s: %s bytes %s calls, not %s %s' "$site" "${b:-no}" "${c:-no}" "$bytes" "$calls"
	done)
	[ -z "$bad" ] || { ai_ship_fail "$d" "after insmod: ${bad#; }"; return 1; }
	info "insmod: $ALLOCMOD_ROWS series with module=\"allocmod\" at the receiver, bytes and calls as allocated, the 76-byte function name whole, the twin sites apart"

	rmmod allocmod 2> "$WORK/rmmod.err" || { ai_ship_fail "$d" "rmmod: $(first_line "$WORK/rmmod.err")"; return 1; }
	ai_wait_count 'memcg_bpf_kernel_alloc_bytes{run="ship",module="allocmod"}' 0 10 ||
		{ ai_ship_fail "$d" "allocmod's series still current 10 s after rmmod (no stale markers?)"; return 1; }
	others=$(ai_vm_count 'memcg_bpf_kernel_alloc_bytes{run="ship"}')
	[ "$others" -gt 10 ] || { ai_ship_fail "$d" "after rmmod only $others alloc series are current"; return 1; }
	info "rmmod: allocmod's series ended at the receiver within 10 s (stale markers); $others others go on"

	echo 0 > /proc/sys/vm/mem_profiling
	t=0
	until grep -q 'AllocInfo: memory allocation profiling is off' "$d/collectd.log"; do
		t=$((t + 1))
		[ $t -le 10 ] || { ai_ship_fail "$d" "no NOTICE 10 s after vm.mem_profiling=0"; return 1; }
		sleep 1
	done
	ai_wait_count 'memcg_bpf_kernel_alloc_bytes{run="ship"}' 0 10 ||
		{ echo 1 > /proc/sys/vm/mem_profiling; ai_ship_fail "$d" "alloc series still current 10 s after vm.mem_profiling=0"; return 1; }
	echo 1 > /proc/sys/vm/mem_profiling
	ai_wait_count 'memcg_bpf_kernel_alloc_bytes{run="ship",site="other"}' 1 30 ||
		{ ai_ship_fail "$d" "no alloc series 30 s after vm.mem_profiling=1 (no restart)"; return 1; }
	[ "$(grep -c 'AllocInfo: reading /proc/allocinfo' "$d/collectd.log")" = 2 ] ||
		{ ai_ship_fail "$d" "the log does not say once more that it reads /proc/allocinfo"; return 1; }
	stop_checked $cd_pid "$d" text allocinfo_ship || { receivers_stop; return 1; }
	receivers_stop
	info "vm.mem_profiling 0: one NOTICE, the series ended; 1: shipping again, same daemon"
}

# allocinfo_bench (make bench, MEMCG_BPF_BENCH_KERNELS=profiling:allocinfo_bench): one read
# ranked to the top 50, text against the binary reader.
t_allocinfo_bench() {
	command -v allocinfo-bench >/dev/null || { why "allocinfo-bench is not in the initramfs"; return 1; }
	allocinfo-bench -n "${VMTEST_ALLOCINFO_READS:-201}" -t 50 > "$WORK/ai_bench.out" 2> "$WORK/ai_bench.err"
	bench_report "$WORK/ai_bench" $?
}
