#!/bin/bash
# The kernel's allocation profile (AllocInfo, issue 37) shipped by the real
# collectd to a real VictoriaMetrics, from a copy of a real 7.3.4 profile
# (AllocInfoFile; this host's kernel has no /proc/allocinfo):
#  - the top 10 call sites and "other", bytes and calls, equal the file's,
#    with the labels site, module and func; top and other add up;
#  - a site that leaves the file (a module unloaded) ends at the receiver at
#    the next read (its stale marker: an instant query finds it no more),
#    while the others go on;
#  - with AllocInfo on the default /proc/allocinfo, which this kernel lacks:
#    one NOTICE, no error, and the cgroups' series arrive as ever.
. "$(dirname "$0")/lib.sh"
sender_setup
CAPTURE=$SENDER_TESTS/../data/allocinfo-7.3.4-defconfig.txt

vm_value() { # vm_value QUERY: the value of its one series, or nothing
	curl -sf "http://127.0.0.1:$VM_PORT/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if len(r) == 1 else "")'
}

# the file's top 10 by bytes (then calls, then names), as "site func bytes calls"
top10() {
	awk 'NR > 2 { f = ""; for (i = 4; i <= NF; i++) if ($i ~ /^func:/) f = substr($i, 6); print $1, $2, $3, f }' "$1" |
		LC_ALL=C sort -k1,1nr -k2,2nr -k3,3 -k4,4 | head -n 10 | awk '{ print $3, $4, $1, $2 }'
}

start_vm vm-alloc || { not_ok "victoria-metrics starts"; finish; }
cp "$CAPTURE" "$T/allocinfo"
dir=$(write_conf alloc 1 "" "  URL \"http://127.0.0.1:$VM_PORT/api/v1/write\"
  AllocInfo true
  AllocInfoTop 10
  AllocInfoInterval 1
  AllocInfoFile \"$T/allocinfo\"")
start_daemon "$dir"
top10 "$T/allocinfo" > "$T/want"
ok=
for ((i = 0; i < 100; i++)); do
	v=$(vm_value 'memcg_bpf_kernel_alloc_bytes{site="mm/slub.c:3347",func="alloc_slab_page"}')
	[ "$v" = 9330688 ] && { ok=1; break; }
	sleep 0.2
done
check "the largest site's bytes arrive (9330688)" [ -n "$ok" ]
: > "$T/got"
while read -r site func bytes calls; do
	b=$(vm_value "memcg_bpf_kernel_alloc_bytes{site=\"$site\",func=\"$func\"}")
	c=$(vm_value "memcg_bpf_kernel_alloc_calls{site=\"$site\",func=\"$func\"}")
	echo "$site $func $b $c" >> "$T/got"
done < "$T/want"
check "the top 10 sites' bytes and calls equal the file's" cmp -s "$T/want" "$T/got"
diff "$T/want" "$T/got" | head -n 4 | sed 's/^/# /'
n=$(vm_value 'count(memcg_bpf_kernel_alloc_bytes{site!="other"})')
check "10 sites and one other row (got ${n:-none} sites)" [ "$n" = 10 ]
total=$(awk 'NR > 2 { s += $1 } END { printf "%.0f\n", s }' "$T/allocinfo")
sum=$(vm_value 'sum(memcg_bpf_kernel_alloc_bytes)')
check "top and other add up to the file's $total bytes (got $sum)" [ "$sum" = "$total" ]

# a site leaves: the 3rd largest's line goes (as at rmmod)
gone=$(sed -n 3p "$T/want")
gone_site=${gone%% *}
grep -v " $gone_site " "$T/allocinfo" > "$T/allocinfo.new" && mv "$T/allocinfo.new" "$T/allocinfo"
for ((i = 0; i < 50; i++)); do
	v=$(vm_value "memcg_bpf_kernel_alloc_bytes{site=\"$gone_site\"}")
	[ -z "$v" ] && break
	sleep 0.2
done
check "the site that left ($gone_site) ends at the receiver" [ -z "$v" ]
v=$(vm_value 'memcg_bpf_kernel_alloc_bytes{site="mm/slub.c:3347"}')
check "the others go on" [ "$v" = 9330688 ]
for ((i = 0; i < 50; i++)); do # a new series is searchable about a second after it arrives
	n=$(vm_value 'count(memcg_bpf_kernel_alloc_bytes{site!="other"})')
	[ "$n" = 10 ] && break
	sleep 0.2
done
check "still 10 sites: the 11th came in (got ${n:-none})" [ "$n" = 10 ]
stop_daemon
check "collectd exits cleanly" [ "$daemon_rc" = 0 ]
check "no errors logged" log_clean "$dir"
check "one NOTICE that it reads the file" [ "$(grep -c 'AllocInfo: reading' "$dir/collectd.log")" = 1 ]

# no /proc/allocinfo on this kernel: one NOTICE, nothing else changes
if [ -e /proc/allocinfo ]; then
	ok "# SKIP this kernel has /proc/allocinfo"
else
	dir=$(write_conf noalloc 1 "" "  URL \"http://127.0.0.1:$VM_PORT/api/v1/write\"
  Label \"run\" \"noalloc\"
  AllocInfo true
  AllocInfoInterval 1")
	start_daemon "$dir"
	for ((i = 0; i < 100; i++)); do
		[ -n "$(vm_value 'count(memcg_usage_bytes{run="noalloc"})')" ] && [ "$(grep -c 'AllocInfo: no /proc/allocinfo' "$dir/collectd.log")" -ge 1 ] && break
		sleep 0.2
	done
	sleep 2
	stop_daemon
	check "no allocinfo: collectd exits cleanly" [ "$daemon_rc" = 0 ]
	check "no allocinfo: no errors logged" log_clean "$dir"
	check "no allocinfo: one NOTICE naming the kernel option" \
		[ "$(grep -c 'notice.*AllocInfo: no /proc/allocinfo: .*CONFIG_MEM_ALLOC_PROFILING' "$dir/collectd.log")" = 1 ]
	check "no allocinfo: the cgroups' series arrive" [ -n "$(vm_value 'count(memcg_usage_bytes{run="noalloc"})')" ]
	check "no allocinfo: no profile series" [ -z "$(vm_value 'count(memcg_bpf_kernel_alloc_bytes{run="noalloc"})')" ]
fi
finish
