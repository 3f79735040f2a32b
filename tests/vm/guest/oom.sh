# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# OOM kills, from the kernel's files to an alert (issue 12): functions only,
# sourced by run-tests.sh after lib.sh, tree.sh and receivers.sh; they use
# run-tests.sh's collectd helpers (collectd_conf, stop_checked).
#   oom_events_scope  where the kernel counts one OOM kill: memory.events.local
#                     in the victim's cgroup only, memory.events in it and in
#                     every ancestor below the root
#   oom_alert         the real collectd with memcg_bpf shipping remote write
#                     to a real Prometheus that has the shipped rules
#                     (packaging/dashboard/memcg_bpf.rules.yml) loaded; one
#                     OOM kill 3 levels deep must give exactly one
#                     MemcgOOMKill alert, for that cgroup, raise the host's
#                     OOM count by exactly 1, and usage / limit, working set
#                     and pressure of that cgroup must come back through the
#                     query API as the files say.
#   oom_gone          (issue 31) three containers of a kubelet pod, each with
#                     memory.oom.group=1, are OOM-killed and their cgroups
#                     removed at once; the real collectd ships to a real
#                     VictoriaMetrics: each victim's kills arrive under its
#                     own cgroup label with the pod and container labels,
#                     as many as the kernel counted in its memory.events.local,
#                     each series then goes stale, and each kill is a
#                     collectd notification
#   oom_storm         (issue 31) 1,000 OOM kills across 100 cgroups, as fast
#                     as the VM makes them, under the CLI sampling every
#                     second: every kill counted in its cgroup (against
#                     memory.events.local and /proc/vmstat), and the CLI's
#                     RSS stays bounded

# The metric names (the stat contract of issue 12, collectd-memcg_bpf(5)).
OOM_COUNTER=memcg_oom_kill_local_total # memory.events.local oom_kill
M_USAGE=memcg_usage_bytes              # memory.current
M_LIMIT=memcg_memory_max_bytes         # memory.max
M_WS=memcg_working_set_bytes           # memory.current - inactive_file
M_SOME=memcg_pressure_some_seconds_total # memory.pressure some total (us)
M_FULL=memcg_pressure_full_seconds_total # memory.pressure full total (us)

# event FILE KEY: KEY's count in a memory.events(.local) file ("none" when
# the file or the key is missing).
event() {
	v=$(awk -v k="$2" '$1 == k { print $2 }' "$1" 2>/dev/null)
	echo "${v:-none}"
}

# pressure_total FILE some|full: the "total=" of that line, in us.
pressure_total() {
	sed -n "s/^$2 .*total=\([0-9]*\).*/\1/p" "$1"
}

# limit_memory DIR BYTES: memory.max, and no swap to escape to.
limit_memory() {
	echo "$2" > "$1/memory.max" || { why "cannot set $1/memory.max"; return 1; }
	if [ -f "$1/memory.swap.max" ]; then
		echo 0 > "$1/memory.swap.max" || { why "cannot set $1/memory.swap.max"; return 1; }
	fi
}

# oom_victim DIR MIB: a memload in DIR that touches MIB MiB, more than DIR's
# memory.max; it must die of SIGKILL within 60 s without ever being ready.
oom_victim() {
	rm -f "$WORK/victim.ready"
	( echo 0 > "$1/cgroup.procs" && exec memload -a "$2" -r "$WORK/victim.ready" ) &
	vpid=$!
	t=0
	while kill -0 $vpid 2>/dev/null; do
		t=$((t + 1))
		if [ -f "$WORK/victim.ready" ] || [ $t -gt 600 ]; then
			kill -KILL $vpid
			wait $vpid
			why "memload -a $2 in $1 (memory.max $(cat "$1/memory.max")) was not OOM-killed"
			return 1
		fi
		sleep 0.1
	done
	wait $vpid
	vrc=$?
	if [ $vrc -ne 137 ]; then why "memload -a $2 in $1 exited $vrc, not by SIGKILL (137)"; return 1; fi
}

# mkpath ROOT NAME...: the cgroups ROOT/NAME/NAME/..., memory enabled in
# the subtree_control of ROOT and of every one but the last (a process can
# only join a cgroup that does not enable it).
mkpath() {
	mp=$1
	shift
	for n in "$@"; do
		enable_memory "$mp" || return 1
		mp=$mp/$n
		[ -d "$mp" ] || mkdir "$mp" || { why "mkdir $mp failed"; return 1; }
	done
}

t_oom_events_scope() {
	r=$CG/voom
	mkpath "$CG" voom a b || return 1
	limit_memory "$r/a/b" 32M || return 1
	vm_before=$(awk '$1 == "oom_kill" { print $2 }' /proc/vmstat)
	oom_victim "$r/a/b" 64 || return 1
	vm_after=$(awk '$1 == "oom_kill" { print $2 }' /proc/vmstat)
	got="" want=""
	for p in voom/a/b:1:1 voom/a:0:1 voom:0:1; do
		d=$CG/${p%%:*}
		rest=${p#*:}
		got="$got ${p%%:*}=$(event "$d/memory.events.local" oom_kill)/$(event "$d/memory.events" oom_kill)"
		want="$want ${p%%:*}=${rest%%:*}/${rest#*:}"
	done
	if [ -f "$CG/memory.events" ]; then
		root="root memory.events oom_kill $(event "$CG/memory.events" oom_kill)"
	else
		root="the root has no memory.events"
	fi
	info "one OOM kill in /voom/a/b; oom_kill local/hierarchical:$got; $root; /proc/vmstat oom_kill $vm_before -> $vm_after"
	rmdir "$r/a/b" "$r/a" "$r"
	if [ "$got" != "$want" ]; then why "memory.events(.local) oom_kill:$got, expected$want"; return 1; fi
	if [ $((vm_after - vm_before)) -ne 1 ]; then why "/proc/vmstat oom_kill $vm_before -> $vm_after, expected +1"; return 1; fi
}

# ---- oom_alert
OOM_POD=/kubepods.slice/pod1.slice
OOM_CG=$OOM_POD/c1.scope

# prom_wait EXPR TEST SECS WHAT: polls the instant query EXPR (one series)
# until its value passes the awk condition TEST on v (e.g. "v >= 2"), for
# up to SECS; PROM_V is the last value.
prom_wait() {
	t0=$(date +%s)
	while :; do
		PROM_V=$(prom_value "$1")
		if [ -n "$PROM_V" ] && awk -v v="$PROM_V" "BEGIN { exit !($2) }"; then return 0; fi
		if [ $(($(date +%s) - t0)) -ge "$3" ]; then
			why "$4: $1 is ${PROM_V:-no single series} after ${3}s (want $2)"
			return 1
		fi
		if ! kill -0 "$OOM_CD" 2>/dev/null; then why "$4: collectd died"; return 1; fi
		sleep 1
	done
}

# oom_alerts: the MemcgOOMKill alerts, "STATE CGROUP" lines, in $WORK/oom.alerts.
oom_alerts() {
	prom_alerts > "$WORK/alerts.all" || { why "GET /api/v1/alerts failed"; return 1; }
	awk '$1 == "MemcgOOMKill" { print $2, $3 }' "$WORK/alerts.all" > "$WORK/oom.alerts"
}

# near A B TOL: |A - B| <= TOL
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }

oom_alert_run() {
	rules=/vmtest/memcg_bpf.rules.yml
	c=$CG$OOM_CG
	OOM_SEL="{cgroup=\"$OOM_CG\",host=\"$CD_HOST\"}"
	mkpath "$CG" kubepods.slice pod1.slice c1.scope || return 1
	limit_memory "$c" 32M || return 1
	prom_start "$rules" || return 1
	# the rules' host-level OOM count
	host_rule=$(sed -n 's/^[[:space:]]*-[[:space:]]*record:[[:space:]]*\(host:[^[:space:]]*oom_kill[^[:space:]]*\).*/\1/p' "$rules")
	if [ "$(echo "$host_rule" | grep -c .)" -ne 1 ]; then
		why "$rules: not one host-level recording rule of oom_kill: '$host_rule'"
		return 1
	fi
	# Only /kubepods.slice and below: the tree the kfunc set leaves behind
	# (2,000+ cgroups) would cost Prometheus ~40,000 samples a second
	# under TCG; the host's sums are over what the plugin ships.
	d=$WORK/oom-collectd
	rm -rf "$d"
	mkdir -p "$d"
	collectd_conf "$d" 1 csv "  Backend \"bpf\"
  CgroupRoot \"$CG\"
  Cgroup \"/kubepods.slice\" \"/kubepods.slice/*\"
  URL \"$PROM_URL/api/v1/write\"" || return 1
	"$COLLECTD" -f -C "$d/collectd.conf" > "$d/stdout" 2>&1 &
	OOM_CD=$!
	# the plugin has sampled the cgroup at least twice before the kill, and
	# its OOM counter is in Prometheus at 0
	prom_wait "count_over_time(${M_USAGE}${OOM_SEL}[5m])" "v >= 2" 60 "before the kill" || return 1
	prom_wait "$OOM_COUNTER$OOM_SEL" "v == 0" 30 "before the kill" || return 1
	hsum="sum by (host) ($OOM_COUNTER{host=\"$CD_HOST\"})"
	prom_wait "$hsum" "v >= 0" 10 "before the kill" || return 1
	host_before=$PROM_V
	rule_before=$(prom_value "$host_rule{host=\"$CD_HOST\"}")
	oom_alerts || return 1
	if [ -s "$WORK/oom.alerts" ]; then why "MemcgOOMKill before any kill: $(tr '\n' ' ' < "$WORK/oom.alerts")"; return 1; fi

	# the kill
	oom_victim "$c" 64 || return 1
	local_kills=$(event "$c/memory.events.local" oom_kill)
	if [ "$local_kills" != 1 ]; then why "$c/memory.events.local: oom_kill $local_kills after one kill"; return 1; fi
	# a load that stays (usage, and a working set below it: 8 MiB of anon
	# and 8 MiB of page cache on a real filesystem), stopped later
	scratch_fs || return 1
	rm -f "$WORK/steady.ready"
	( echo 0 > "$c/cgroup.procs" && exec memload -a 8 -f "$SCRATCH/c1.cache" -s 8 -r "$WORK/steady.ready" ) &
	OOM_LOAD=$!
	t=0
	until [ -f "$WORK/steady.ready" ]; do
		t=$((t + 1))
		if [ $t -gt 300 ] || ! kill -0 $OOM_LOAD 2>/dev/null; then why "the steady memload (8 + 8 MiB) did not start"; return 1; fi
		sleep 0.1
	done

	# Ingested: the counter reads 1, then the alert appears; a few more
	# evaluations (1 s each) for any other alert the same sample would raise.
	t_kill=$(date +%s)
	prom_wait "$OOM_COUNTER$OOM_SEL" "v == 1" 60 "after the kill" || return 1
	t=0
	until oom_alerts && [ -s "$WORK/oom.alerts" ]; do
		t=$((t + 1))
		if [ $t -gt 90 ]; then why "no MemcgOOMKill alert 90 s after the kill was ingested"; return 1; fi
		sleep 1
	done
	t_alert=$(($(date +%s) - t_kill))
	sleep 8
	oom_alerts || return 1
	info "MemcgOOMKill alerts ${t_alert}s after the kill, 8 s later: $(tr '\n' ';' < "$WORK/oom.alerts")"
	cat "$WORK/alerts.all"
	host_after=$(prom_value "$hsum")
	rule_after=$(prom_value "$host_rule{host=\"$CD_HOST\"}")
	info "host $CD_HOST: $hsum $host_before -> $host_after; $host_rule ${rule_before:-none} -> ${rule_after:-none}"

	# Freeze the load; once the kernel's stats flushed (2 s) and the plugin
	# shipped samples taken after that, the files and Prometheus must agree.
	kill -STOP $OOM_LOAD
	sleep 3
	t_frozen=$(date +%s)
	prom_wait "timestamp($M_USAGE$OOM_SEL)" "v >= $t_frozen + 2" 30 "after the freeze" || return 1
	usage=$(prom_value "$M_USAGE$OOM_SEL")
	limit=$(prom_value "$M_LIMIT$OOM_SEL")
	ratio=$(prom_value "$M_USAGE$OOM_SEL / $M_LIMIT$OOM_SEL")
	ws=$(prom_value "$M_WS$OOM_SEL")
	some=$(prom_value "$M_SOME$OOM_SEL")
	full=$(prom_value "$M_FULL$OOM_SEL")
	f_cur=$(cat "$c/memory.current")
	f_max=$(cat "$c/memory.max")
	f_inactive=$(awk '$1 == "inactive_file" { print $2 }' "$c/memory.stat")
	f_ws=$((f_cur - f_inactive))
	[ $f_ws -ge 0 ] || f_ws=0
	f_some=$(pressure_total "$c/memory.pressure" some)
	f_full=$(pressure_total "$c/memory.pressure" full)
	info "$OOM_CG query API: usage ${usage:-none} limit ${limit:-none} usage/limit ${ratio:-none} working_set ${ws:-none} pressure some ${some:-none}s full ${full:-none}s"
	info "$OOM_CG files: memory.current $f_cur memory.max $f_max inactive_file $f_inactive pressure some ${f_some}us full ${f_full}us"

	# every check, then one verdict
	bad=
	n=$(wc -l < "$WORK/oom.alerts")
	if [ "$n" -ne 1 ]; then
		bad="$bad; $n MemcgOOMKill alerts ($(tr '\n' ';' < "$WORK/oom.alerts")), expected 1"
	elif ! grep -qxE "(pending|firing) $OOM_CG" "$WORK/oom.alerts"; then
		bad="$bad; the MemcgOOMKill alert is '$(cat "$WORK/oom.alerts")', expected pending or firing for $OOM_CG"
	fi
	if [ -z "$host_after" ] || ! near "$host_after" "$((${host_before%%.*} + 1))" 0; then
		bad="$bad; $hsum went $host_before -> ${host_after:-none}, expected +1"
	fi
	# increase() extrapolates over [5m]: one kill reads 1 to ~1.1
	if [ -n "$rule_before" ] && ! near "$rule_before" 0 0; then
		bad="$bad; $host_rule read $rule_before before the kill"
	fi
	if [ -z "$rule_after" ] || ! awk -v v="$rule_after" 'BEGIN { exit !(v >= 0.9 && v < 1.5) }'; then
		bad="$bad; $host_rule reads ${rule_after:-none} after one kill"
	fi
	[ "$usage" = "$f_cur" ] || bad="$bad; $M_USAGE ${usage:-none} != memory.current $f_cur"
	[ "$limit" = "$f_max" ] || bad="$bad; $M_LIMIT ${limit:-none} != memory.max $f_max"
	if [ -z "$ratio" ] || ! near "$ratio" "$(awk -v a="$f_cur" -v b="$f_max" 'BEGIN { printf "%.12g", a / b }')" 1e-9; then
		bad="$bad; usage/limit ${ratio:-none} != $f_cur/$f_max"
	fi
	awk -v v="${ratio:-0}" 'BEGIN { exit !(v > 0.25 && v < 1) }' || bad="$bad; usage/limit ${ratio:-none} is not between 0.25 and 1 (16 MiB of 32)"
	[ "$ws" = "$f_ws" ] || bad="$bad; $M_WS ${ws:-none} != memory.current - inactive_file = $f_ws"
	[ "${f_inactive:-0}" -gt 0 ] || bad="$bad; inactive_file is 0: the working set cannot be told from usage"
	for k in some full; do
		eval "s=\$$k f=\$f_$k"
		# shipped as seconds; the file (us) is read after, with the load stopped:
		# f >= s, and hardly more
		if [ -z "$s" ] || [ -z "$f" ] || ! awk -v s="$s" -v f="$f" 'BEGIN { f /= 1e6; exit !(s > 0 && f >= s - 1e-6 && f - s < 0.1) }'; then
			bad="$bad; pressure $k shipped ${s:-none}s, file ${f:-none}us (want 0 < shipped <= file, file - shipped < 0.1 s)"
		fi
	done
	if [ -n "$bad" ]; then why "${bad#; }"; return 1; fi
	stop_checked $OOM_CD "$d" bpf "collectd" || { OOM_CD=; return 1; }
	OOM_CD=
}

oom_alert_cleanup() {
	[ -z "${OOM_CD:-}" ] || { stop_collectd "$OOM_CD"; cat "$WORK/oom-collectd/collectd.log"; }
	[ -z "${OOM_LOAD:-}" ] || { kill -KILL "$OOM_LOAD"; wait "$OOM_LOAD"; }
	receivers_stop
	echo "---- prometheus.log"
	cat "$WORK/prometheus.log"
	rmdir "$CG$OOM_CG" "$CG$OOM_POD" "$CG/kubepods.slice" 2>/dev/null
}

t_oom_alert() {
	have_collectd || return 77
	OOM_CD='' OOM_LOAD=''
	oom_alert_run
	rc=$?
	oom_alert_cleanup
	return $rc
}

# ---- oom_gone
OG_UID=5d3c7a3e-8f2b-4c1d-9e6a-7b8c9d0e1f2a
OG_N=3

# og_series OUT: "cgroup pod namespace container value" of every
# memcg_oom_victims_local_total series VictoriaMetrics holds below the pod, at its
# highest in the last 5 minutes (a series that went stale has no value "now").
og_series() {
	wget -q -O - "$VM_URL/api/v1/query?query=$(urlenc "max_over_time(memcg_oom_victims_local_total{cgroup=~\"$OG_POD/.+\"}[5m])")" \
		> "$WORK/og.json" 2>/dev/null || return 1
	grep -q '"status":"success"' "$WORK/og.json" || return 1
	awk '{ n = split($0, a, /\{"metric":\{/); for (i = 2; i <= n; i++) print a[i] }' "$WORK/og.json" |
	while IFS= read -r m; do
		line=
		for l in cgroup pod namespace container; do
			v=$(echo "${m%%\}*}" | sed -n "s/.*\"$l\":\"\([^\"]*\)\".*/\1/p")
			line="$line ${v:--}"
		done
		v=$(echo "$m" | sed -n 's/.*"value":\[[^,]*,"\([^"]*\)"\].*/\1/p')
		echo "${line# } ${v:--}"
	done | sort > "$1"
}

# og_count CGROUP: the samples VictoriaMetrics holds of that series (5 min).
og_count() {
	rx_query "$VM_URL" "count_over_time(memcg_oom_victims_local_total{cgroup=\"$1\"}[5m])" | cut -d' ' -f1
}

oom_gone_run() {
	OG_POD=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$(us $OG_UID).slice
	pod=$CG$OG_POD
	mkpath "$CG" kubepods.slice kubepods-burstable.slice "kubepods-burstable-pod$(us $OG_UID).slice" || return 1
	enable_memory "$pod" || return 1
	# the kubelet's logs name the pod and its containers
	rm -rf /var/log/pods /var/log/containers
	mkdir -p /var/log/containers
	: > "$WORK/og.expected"
	for i in $(seq $OG_N); do
		cid=$(hex64 "0$i")
		mkdir -p "/var/log/pods/shop_web-0_$OG_UID/app$i"
		: > "/var/log/pods/shop_web-0_$OG_UID/app$i/0.log"
		ln -s "/var/log/pods/shop_web-0_$OG_UID/app$i/0.log" "/var/log/containers/web-0_shop_app$i-$cid.log"
	done
	vm_start || return 1
	d=$WORK/og-collectd
	rm -rf "$d"
	mkdir -p "$d"
	collectd_conf "$d" 1 csv "  Backend \"auto\"
  CgroupRoot \"$CG\"
  Cgroup \"/kubepods.slice\" \"/kubepods.slice/*\"
  Stat \"usage\" \"oom_kill_local\" \"oom_victims_local\"
  URL \"$VM_URL/api/v1/write\"" || return 1
	"$COLLECTD" -f -C "$d/collectd.conf" > "$d/stdout" 2>&1 &
	OG_CD=$!
	# shipping: the pod's usage is in VictoriaMetrics
	t=0
	until [ -n "$(rx_query "$VM_URL" "memcg_usage_bytes{cgroup=\"$OG_POD\"}")" ]; do
		t=$((t + 1))
		if [ $t -gt 60 ] || ! kill -0 $OG_CD 2>/dev/null; then why "no usage of $OG_POD in VictoriaMetrics after 60 s"; return 1; fi
		sleep 1
	done
	pod_before=$(event "$pod/memory.events" oom_kill)
	# the kills: each container's cgroup is removed as soon as its victim is gone
	for i in $(seq $OG_N); do
		cid=$(hex64 "0$i")
		c=$pod/cri-containerd-$cid.scope
		mkdir "$c" || { why "mkdir $c failed"; return 1; }
		limit_memory "$c" 32M || return 1
		echo 1 > "$c/memory.oom.group" || { why "cannot set $c/memory.oom.group"; return 1; }
		oom_victim "$c" 64 || return 1
		n=$(event "$c/memory.events.local" oom_kill)
		t=0
		until rmdir "$c" 2>/dev/null; do
			t=$((t + 1))
			if [ $t -gt 100 ]; then why "rmdir $c: still busy after 1 s"; return 1; fi
			sleep 0.01
		done
		echo "$OG_POD/cri-containerd-$cid.scope web-0 shop app$i $n" >> "$WORK/og.expected"
	done
	pod_after=$(event "$pod/memory.events" oom_kill)
	sort -o "$WORK/og.expected" "$WORK/og.expected"
	info "$OG_N containers killed and removed at once; the pod's memory.events oom_kill $pod_before -> $pod_after; each victim's memory.events.local oom_kill: $(cut -d' ' -f5 "$WORK/og.expected" | tr '\n' ' ')"
	# every victim's kills arrive, under its own labels
	t=0
	while :; do
		og_series "$WORK/og.got"
		cmp -s "$WORK/og.got" "$WORK/og.expected" && break
		t=$((t + 1))
		if [ $t -gt 60 ] || ! kill -0 $OG_CD 2>/dev/null; then
			echo "---- expected"; cat "$WORK/og.expected"; echo "---- VictoriaMetrics"; cat "$WORK/og.got"
			echo "---- every oom series in VictoriaMetrics"; rx_query "$VM_URL" '{__name__=~"memcg_oom.*"}'
			echo "---- collectd's csv"; ls -R "$d/csv" | grep -i oom | head -n 20
			why "after 60 s VictoriaMetrics holds $(wc -l < "$WORK/og.got") victim series, not the $OG_N expected with their labels and counts (see the log)"
			return 1
		fi
		sleep 1
	done
	sum=$(awk '{ s += $5 } END { print s + 0 }' "$WORK/og.got")
	if [ "$sum" -ne $((pod_after - pod_before)) ]; then
		why "the victims' series sum to $sum kills, the pod's memory.events counted $((pod_after - pod_before))"; return 1
	fi
	# then each series goes stale: no sample more after its last few
	sleep $((OOM_TRACKER_LINGER + 4))
	bad=
	while read -r cg _ _ _ _; do
		n1=$(og_count "$cg")
		sleep 2
		n2=$(og_count "$cg")
		info "$cg: $n2 samples"
		[ "$n1" = "$n2" ] || bad="$bad; $cg still gets samples ($n1 -> $n2) ${OOM_TRACKER_LINGER}+ s after it was removed"
		[ "${n2:-0}" -ge 2 ] || bad="$bad; $cg has ${n2:-no} samples, not its 0 and its count"
	done < "$WORK/og.expected"
	logged=$(grep -c "OOM kill: process [0-9]* (memload) of cgroup $OG_POD/cri-containerd-" "$d/collectd.log")
	[ "$logged" -ge $OG_N ] || bad="$bad; the log names $logged OOM kills in the pod's containers, want $OG_N or more"
	# and collectd's notification chain got each (logfile prints notifications;
	# the message holds the path's first 120 bytes)
	notes=$(grep 'Notification: severity = WARNING' "$d/collectd.log" |
		grep -c "plugin = memcg_bpf, .*type = oom_kill, .*message = OOM kill: process [0-9]* (memload) of cgroup /kubepods.slice/")
	[ "$notes" -ge $OG_N ] || bad="$bad; $notes OOM kill notifications in collectd's log, want $OG_N or more"
	if [ -n "$bad" ]; then why "${bad#; }"; return 1; fi
	stop_checked $OG_CD "$d" "" "collectd" || { OG_CD=; return 1; }
	OG_CD=
}

t_oom_gone() {
	have_collectd || return 77
	OG_CD=''
	OOM_TRACKER_LINGER=3 # plugin/sampling/oom_tracker.h
	oom_gone_run
	rc=$?
	[ -z "$OG_CD" ] || { stop_collectd "$OG_CD"; cat "$WORK/og-collectd/collectd.log"; }
	receivers_stop
	rm -rf /var/log/pods /var/log/containers
	for c in "$CG$OG_POD"/*/; do [ -d "$c" ] && rmdir "$c"; done
	rmdir "$CG$OG_POD" "$CG/kubepods.slice/kubepods-burstable.slice" "$CG/kubepods.slice" 2>/dev/null
	return $rc
}

# ---- oom_storm
STORM_CGROUPS=100
STORM_KILLS=10 # per cgroup

# storm_cgroup DIR: STORM_KILLS OOM kills in DIR, one after the other.
storm_cgroup() {
	k=0
	while [ $k -lt $STORM_KILLS ]; do
		( echo 0 > "$1/cgroup.procs" && exec memload -a 16 ) 2>/dev/null
		k=$((k + 1))
	done
}

# rss PID: VmRSS in KiB.
rss() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status"; }

oom_storm_run() {
	r=$CG/storm
	mkdir -p "$r" && enable_memory "$r" || return 1
	i=0
	while [ $i -lt $STORM_CGROUPS ]; do
		mkdir "$r/s$i" && limit_memory "$r/s$i" 4M || return 1
		i=$((i + 1))
	done
	memcg-bpf-sample --root "$r" --stats oom_victims_local,oom_kill_local --format json --count 0 --interval 1 \
		> "$WORK/storm.json" 2> "$WORK/storm.err" &
	STORM_CLI=$!
	t=0
	until [ "$(grep -c '"sample":1,' "$WORK/storm.json")" -gt 0 ]; do
		t=$((t + 1))
		if [ $t -gt 300 ] || ! kill -0 $STORM_CLI 2>/dev/null; then why "the CLI took no second sample: $(first_line "$WORK/storm.err")"; return 1; fi
		sleep 0.1
	done
	rss0=$(rss $STORM_CLI)
	vm0=$(awk '$1 == "oom_kill" { print $2 }' /proc/vmstat)
	t0=$(date +%s)
	i=0 STORM_PIDS=
	while [ $i -lt $STORM_CGROUPS ]; do
		storm_cgroup "$r/s$i" &
		STORM_PIDS="$STORM_PIDS $!"
		i=$((i + 1))
	done
	rss_max=$rss0
	for pid in $STORM_PIDS; do
		while kill -0 "$pid" 2>/dev/null; do
			v=$(rss $STORM_CLI)
			[ "${v:-0}" -le "$rss_max" ] || rss_max=$v
			sleep 0.2
		done
		wait "$pid"
	done
	STORM_PIDS=
	wait_storm=$(($(date +%s) - t0))
	vm1=$(awk '$1 == "oom_kill" { print $2 }' /proc/vmstat)
	# two more samples after the last kill (the first one of a cgroup reads 0)
	last=$(sed -n 's/^{"sample":\([0-9]*\),.*/\1/p' "$WORK/storm.json" | tail -n 1)
	t=0
	until [ "$(sed -n 's/^{"sample":\([0-9]*\),.*/\1/p' "$WORK/storm.json" | tail -n 1)" -ge $((last + 3)) ]; do
		t=$((t + 1))
		if [ $t -gt 100 ]; then why "the CLI stopped sampling after the storm"; return 1; fi
		sleep 0.1
	done
	rss1=$(rss $STORM_CLI)
	kill -TERM $STORM_CLI
	wait $STORM_CLI
	STORM_CLI=
	n=$(sed -n 's/^{"sample":\([0-9]*\),.*/\1/p' "$WORK/storm.json" | tail -n 1)
	grep "^{\"sample\":$n," "$WORK/storm.json" |
		sed -n 's/.*"path":"\([^"]*\)".*"oom_victims_local":\([0-9]*\).*/\1 \2/p' | sort > "$WORK/storm.got"
	: > "$WORK/storm.want"
	i=0
	while [ $i -lt $STORM_CGROUPS ]; do
		echo "/s$i $(event "$r/s$i/memory.events.local" oom_kill)" >> "$WORK/storm.want"
		i=$((i + 1))
	done
	sort -o "$WORK/storm.want" "$WORK/storm.want"
	kills=$(awk '{ s += $2 } END { print s + 0 }' "$WORK/storm.want")
	counted=$(awk '{ s += $2 } END { print s + 0 }' "$WORK/storm.got")
	info "storm: $kills OOM kills (memory.events.local; /proc/vmstat +$((vm1 - vm0))) in ${wait_storm} s across $STORM_CGROUPS cgroups; counted $counted; CLI RSS ${rss0} KiB before, max ${rss_max} during, ${rss1} after; $(grep -c 'OOM kill: process' "$WORK/storm.err") kills logged one by one, $(grep -c 'more kills since the last sample' "$WORK/storm.err") summary lines"
	bad=
	if ! cmp -s "$WORK/storm.got" "$WORK/storm.want"; then
		diff "$WORK/storm.want" "$WORK/storm.got" | head -n 20
		bad="$bad; oom_victims_local differ from memory.events.local oom_kill ($(wc -l < "$WORK/storm.got") cgroups with a value, $(diff "$WORK/storm.want" "$WORK/storm.got" | grep -c '^<') lines differ)"
	fi
	[ "$kills" -eq $((vm1 - vm0)) ] || bad="$bad; memory.events.local counts $kills kills, /proc/vmstat $((vm1 - vm0))"
	[ "$kills" -ge $((STORM_CGROUPS * STORM_KILLS)) ] || bad="$bad; only $kills kills, want $((STORM_CGROUPS * STORM_KILLS))"
	# bounded: a few pages for 100 victims' state, whatever the kill count
	[ $((rss_max - rss0)) -le 2048 ] || bad="$bad; the CLI's RSS grew by $((rss_max - rss0)) KiB during the storm"
	if [ -n "$bad" ]; then why "${bad#; }"; return 1; fi
}

t_oom_storm() {
	STORM_CLI='' STORM_PIDS=''
	oom_storm_run
	rc=$?
	[ -z "$STORM_CLI" ] || { kill -KILL "$STORM_CLI"; wait "$STORM_CLI"; }
	for pid in $STORM_PIDS; do wait "$pid"; done
	for c in "$CG/storm"/s*; do rmdir "$c"; done 2>/dev/null
	rmdir "$CG/storm" 2>/dev/null
	return $rc
}
