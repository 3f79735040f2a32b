# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# The kubernetes-mixin on memcg_bpf's cAdvisor names (issue 47): functions
# only, sourced by run-tests.sh after lib.sh, receivers.sh, oom.sh and
# identity.sh (id_tree); they use run-tests.sh's collectd helpers.
#   kube_mixin  identity's kubelet-layout tree (systemd and cgroupfs drivers,
#               containerd, CRI-O, Docker) with a memload in every container,
#               some of it swapped out, the pods then frozen; the real
#               collectd ships remote write (default stats, Label "cluster")
#               to Prometheus, which loads packaging/dashboard/
#               memcg_bpf.cadvisor.rules.yml and the mixin's own recording
#               rules (rules/apps.libsonnet) and scrapes a stand-in for
#               kube-state-metrics: busybox httpd serving a file of the
#               series kube-state-metrics would give for these pods
#               (kube_pod_info, kube_pod_status_phase, the containers'
#               resource requests and limits, kube_namespace_status_phase,
#               kube_resourcequota, kube_pod_owner). Then every memory query
#               of the mixin's pod dashboard (for each pod) and namespace
#               dashboard (for each namespace), and the mixin's memory
#               recording rules, must give exactly the rows the kernel's
#               files and those series give: working set = memory.current -
#               inactive_file, rss = anon, cache = file, swap =
#               memory.swap.current, each of the container's cgroup.
# The rules and queries are the mixin's text, rendered by jsonnet on the host
# with the configuration packaging/dashboard/README gives
# (tests/vm/kube-mixin.sh; the source in tests/data/kubernetes-mixin).
KM_RULES=/vmtest/kube-mixin.rules.yml
KM_QUERIES=/vmtest/kube-mixin.queries
KM_CADVISOR=/vmtest/memcg_bpf.cadvisor.rules.yml
KM_CLUSTER=vmtest-cluster
KM_KSM=127.0.0.1:9091
MIB=1048576

# What the pods ask for and run, per container: "namespace pod container
# request limit anon_mib file_mib swap_mib" (request and limit in MiB, "-"
# for none, as in the pod spec: burstable, besteffort and guaranteed pods of
# identity's tree); swap_mib is how much memory.reclaim is asked to push out.
km_spec() {
	cat <<EOF
shop web nginx 16 64 6 4 0
kube-system dns coredns - - 4 2 2
batch job-7x2 worker 48 48 10 3 3
shop api app 24 - 8 6 0
mon agent exporter - - 3 1 0
db pg-0 postgres 96 96 12 8 4
EOF
}

# km_ksm FILE: the series kube-state-metrics gives for the pods of
# identity.expected and km_spec (its metric and label names; the scrape adds
# job and cluster).
km_ksm() {
	km_spec | awk -v node="$CD_HOST" -v mib=$MIB '
	NR == FNR { req[$1 "/" $2 "/" $3] = $4; lim[$1 "/" $2 "/" $3] = $5; next }
	$5 == "-" { next }
	{
		ns = $3; pod = $4; ctr = $5; uid = $2; k = ns "/" pod "/" ctr
		p = "namespace=\"" ns "\",pod=\"" pod "\",uid=\"" uid "\""
		if (!(ns "/" pod in seen)) {
			seen[ns "/" pod] = 1
			n++
			print "kube_pod_info{" p ",host_ip=\"10.0.0.1\",pod_ip=\"10.1.0." n "\",node=\"" node "\",created_by_kind=\"ReplicaSet\",created_by_name=\"" pod "-rs\",priority_class=\"\",host_network=\"false\"} 1"
			print "kube_pod_owner{" p ",owner_kind=\"ReplicaSet\",owner_name=\"" pod "-rs\",owner_is_controller=\"true\"} 1"
			split("Pending Running Succeeded Failed Unknown", ph, " ")
			for (i = 1; i <= 5; i++) print "kube_pod_status_phase{" p ",phase=\"" ph[i] "\"} " (ph[i] == "Running")
			if (!(ns in nsseen)) {
				nsseen[ns] = 1
				print "kube_namespace_status_phase{namespace=\"" ns "\",phase=\"Active\"} 1"
				print "kube_namespace_status_phase{namespace=\"" ns "\",phase=\"Terminating\"} 0"
			}
		}
		c = p ",container=\"" ctr "\",node=\"" node "\""
		if (req[k] != "-") {
			print "kube_pod_container_resource_requests{" c ",resource=\"memory\",unit=\"byte\"} " req[k] * mib
			print "kube_pod_container_resource_requests{" c ",resource=\"cpu\",unit=\"core\"} 0.1"
		}
		if (lim[k] != "-") {
			print "kube_pod_container_resource_limits{" c ",resource=\"memory\",unit=\"byte\"} " lim[k] * mib
			print "kube_pod_container_resource_limits{" c ",resource=\"cpu\",unit=\"core\"} 0.5"
		}
	}
	END {
		q = "namespace=\"shop\",resourcequota=\"shop-quota\""
		print "kube_resourcequota{" q ",resource=\"requests.memory\",type=\"hard\"} " 256 * mib
		print "kube_resourcequota{" q ",resource=\"limits.memory\",type=\"hard\"} " 512 * mib
		print "kube_resourcequota{" q ",resource=\"requests.memory\",type=\"used\"} " 40 * mib
	}' - "$WORK/identity.expected"
}

# km_kernel OUT: "namespace pod container image wss rss cache swap request
# limit" of every container of km_spec, from its cgroup's files now
# (image 1 where the runtime's state gives one; request and limit in bytes).
km_kernel() {
	km_spec | while read -r ns pod ctr req lim _; do
		path=$(awk -v n="$ns" -v p="$pod" -v c="$ctr" '$3 == n && $4 == p && $5 == c { print $1 }' "$WORK/identity.expected")
		img=$(awk -v n="$ns" -v p="$pod" -v c="$ctr" '$3 == n && $4 == p && $5 == c { print ($7 != "-") }' "$WORK/identity.expected")
		d=$CG$path
		cur=$(cat "$d/memory.current") swap=$(cat "$d/memory.swap.current")
		awk -v ns="$ns" -v pod="$pod" -v ctr="$ctr" -v img="$img" -v cur="$cur" -v swap="$swap" \
			-v req="$req" -v lim="$lim" -v mib=$MIB '
			{ s[$1] = $2 }
			END {
				wss = cur > s["inactive_file"] ? cur - s["inactive_file"] : 0
				printf "%s %s %s %s %.0f %s %s %s %s %s\n", ns, pod, ctr, img, wss, s["anon"], s["file"], swap,
					req == "-" ? "-" : sprintf("%.0f", req * mib), lim == "-" ? "-" : sprintf("%.0f", lim * mib)
			}' "$d/memory.stat"
	done > "$1"
}

# km_expect NAME NS POD < TABLE: the rows query NAME ("pod X", "namespace X"
# or "rule X") must give for $namespace NS and $pod POD, one "KEY VALUE"
# line each (KEY: the values of the labels km_labels names, "/"-joined);
# "unknown" for a query it has no expectation for. TABLE is km_kernel's.
km_expect() {
	awk -v q="$1" -v N="$2" -v P="$3" -v cl="$KM_CLUSTER" -v node="$CD_HOST" '
	function out(k, v) { printf "%s %.17g\n", k, v }
	{ ns = $1; pod = $2; ctr = $3; img = $4; wss = $5; rss = $6; cache = $7; swap = $8; req = $9; lim = $10
	  r = ns "/" pod "/" ctr
	  # the recording rules of the mixin: each container (image!="" where they read cAdvisor names)
	  if (q == "rule node_namespace_pod_container:container_memory_working_set_bytes" && img) out(cl "/" r "/" node, wss)
	  if (q == "rule node_namespace_pod_container:container_memory_rss" && img) out(cl "/" r "/" node, rss)
	  if (q == "rule node_namespace_pod_container:container_memory_cache" && img) out(cl "/" r "/" node, cache)
	  if (q == "rule node_namespace_pod_container:container_memory_swap" && img) out(cl "/" r "/" node, swap)
	  if (q == "rule cluster:namespace:pod_memory:active:kube_pod_container_resource_requests" && req != "-") out(cl "/" r, req)
	  if (q == "rule cluster:namespace:pod_memory:active:kube_pod_container_resource_limits" && lim != "-") out(cl "/" r, lim)
	  if (req != "-") { nsreq[cl "/" ns] += req }
	  if (lim != "-") { nslim[cl "/" ns] += lim }
	  # pod dashboard: $namespace N, $pod P, by (container) or one sum
	  if (ns == N && pod == P) {
		if (img) { cw[ctr] = wss }
		if (req != "-") { creq[ctr] = req; preq += req; hreq = 1 }
		if (lim != "-") { clim[ctr] = lim; plim += lim; hlim = 1 }
		crss[ctr] = rss; ccache[ctr] = cache; cswap[ctr] = swap
	  }
	  # namespace dashboard: $namespace N, by (pod) or one sum
	  if (ns == N) {
		if (img) { pw[pod] += wss; nw += wss; hw = 1 }
		if (req != "-") { pr[pod] += req; nr += req; hr = 1 }
		if (lim != "-") { pl[pod] += lim; nl += lim; hl = 1 }
		prss[pod] += rss; pcache[pod] += cache; pswap[pod] += swap
	  }
	}
	END {
		if (q == "rule namespace_memory:kube_pod_container_resource_requests:sum") for (k in nsreq) out(k, nsreq[k])
		else if (q == "rule namespace_memory:kube_pod_container_resource_limits:sum") for (k in nslim) out(k, nslim[k])
		else if (q ~ /^rule /) { }
		else if (q == "pod memoryUsageWSS") for (c in cw) out(c, cw[c])
		else if (q == "pod memoryRequests") { if (hreq) out("-", preq) }
		else if (q == "pod memoryLimits") { if (hlim) out("-", plim) }
		else if (q == "pod memoryRequestsByContainer") for (c in creq) out(c, creq[c])
		else if (q == "pod memoryLimitsByContainer") for (c in clim) out(c, clim[c])
		else if (q == "pod memoryUsageVsRequests") { for (c in cw) if (c in creq) out(c, cw[c] / creq[c]) }
		else if (q == "pod memoryUsageVsLimits") { for (c in cw) if (c in clim) out(c, cw[c] / clim[c]) }
		else if (q == "pod memoryUsageRSS") for (c in crss) out(c, crss[c])
		else if (q == "pod memoryUsageCache") for (c in ccache) out(c, ccache[c])
		else if (q == "pod memoryUsageSwap") for (c in cswap) out(c, cswap[c])
		else if (q == "namespace memoryUtilisationFromRequests") { if (hw && hr) out("-", nw / nr) }
		else if (q == "namespace memoryUtilisationFromLimits") { if (hw && hl) out("-", nw / nl) }
		else if (q == "namespace memoryUsageByPod") for (p in pw) out(p, pw[p])
		else if (q == "namespace memoryRequestsByPod") for (p in pr) out(p, pr[p])
		else if (q == "namespace memoryLimitsByPod") for (p in pl) out(p, pl[p])
		else if (q == "namespace memoryUsageVsRequests") { for (p in pw) if (p in pr) out(p, pw[p] / pr[p]) }
		else if (q == "namespace memoryUsageVsLimits") { for (p in pw) if (p in pl) out(p, pw[p] / pl[p]) }
		else if (q == "namespace memoryUsageRSS") for (p in prss) out(p, prss[p])
		else if (q == "namespace memoryUsageCache") for (p in pcache) out(p, pcache[p])
		else if (q == "namespace memoryUsageSwap") for (p in pswap) out(p, pswap[p])
		# kube_resourcequota as km_ksm serves it; scalar(max(nothing)) is NaN
		else if (q == "namespace memoryQuotaRequests") print "- " (N == "shop" ? 256 * 1048576 : "NaN")
		else if (q == "namespace memoryQuotaLimits") print "- " (N == "shop" ? 512 * 1048576 : "NaN")
		else print "unknown"
	}'
}

# km_labels NAME: the labels that tell a query's rows apart (its "by"), or
# that a recorded series must carry; empty for a single unlabelled row.
km_labels() {
	case $1 in
	"rule node_namespace_pod_container:"*) echo "cluster namespace pod container node" ;;
	"rule cluster:namespace:"*) echo "cluster namespace pod container" ;;
	"rule namespace_memory:"*) echo "cluster namespace" ;;
	"pod memoryRequests" | "pod memoryLimits" | "namespace memoryUtilisation"* | "namespace memoryQuota"*) echo "" ;;
	"pod "*) echo container ;;
	"namespace "*) echo pod ;;
	esac
}

# km_query EXPR OUT LABELS: the instant query's rows as "KEY VALUE" (KEY as
# km_expect's; a scalar result is one row "-").
km_query() {
	rx_query "$PROM_URL" "$1" > "$WORK/km.rows" || return 1
	if grep -q '"resultType":"scalar"' "$WORK/query.json"; then
		echo "- $(sed -n 's/.*"result":\[[^,]*,"\([^"]*\)"\].*/\1/p' "$WORK/query.json")" > "$2"
		return
	fi
	awk -v labels="$3" '{
		v = $1; sub(/^[^ ]* /, ""); n = split(labels, l, " "); key = ""
		for (i = 1; i <= n; i++) {
			x = "-"
			if (match($0, "\"" l[i] "\":\"[^\"]*\"")) { x = substr($0, RSTART, RLENGTH); sub(/^"[^"]*":"/, "", x); sub(/"$/, "", x) }
			key = key (i > 1 ? "/" : "") x
		}
		print (n ? key : "-"), v
	}' "$WORK/km.rows" > "$2"
}

# km_compare WHAT EXPECTED GOT: one line per row that is missing, extra,
# twice, or of another value; "ROWS N" last (rows of either side).
km_compare() {
	awk -v what="$1" '
	NR == FNR { want[$1] = $2; next }
	{ seen[$1]++; got[$1] = $2 }
	END {
		for (k in want) {
			rows++
			if (!(k in seen)) print what ": " k ": missing (want " want[k] ")"
			else if (seen[k] > 1) print what ": " k ": " seen[k] " rows"
			else if (want[k] == "NaN" ? got[k] != "NaN" : got[k] + 0 != want[k] + 0)
				print what ": " k ": got " got[k] ", want " want[k]
		}
		for (k in seen) if (!(k in want)) { rows++; print what ": " k ": extra row (" got[k] ")" }
		print "ROWS", rows + 0
	}' "$2" "$3"
}

# km_text NAME: the mixin's text of query NAME from the rendered file.
km_text() { awk -v want="$1" '/^### / { on = (substr($0, 5) == want); next } on' "$KM_QUERIES"; }

# km_round OUT: every query once, its rows compared with km_kernel's table
# in $WORK/km.k1; the problems into OUT, the number of rows into $WORK/km.rowcount.
km_round() {
	: > "$1"
	rows=0
	# the dashboards: each pod (pod dashboard) and each namespace (namespace
	# dashboard), as Grafana sends them: $cluster, $namespace, $pod replaced
	km_spec | awk '{ print "pod", $1, $2; print "namespace", $1, "-" }' | sort -u > "$WORK/km.views"
	grep '^### ' "$KM_QUERIES" | cut -c 5- > "$WORK/km.names"
	while read -r dash name; do
		km_text "$dash $name" > "$WORK/km.qt"
		while read -r view ns pod; do
			[ "$view" = "$dash" ] || continue
			sed -e 's/\$cluster/'"$KM_CLUSTER"'/g' -e 's/\$namespace/'"$ns"'/g' \
				-e 's/\$pod/'"$pod"'/g' "$WORK/km.qt" > "$WORK/km.q"
			if grep -q '\$' "$WORK/km.q"; then
				echo "$dash $name: uses a variable this test does not set: $(grep -o '\$[a-zA-Z_]*' "$WORK/km.q" | head -n 1)" >> "$1"
				continue
			fi
			km_expect "$dash $name" "$ns" "$pod" < "$WORK/km.k1" > "$WORK/km.want"
			if [ "$(cat "$WORK/km.want")" = unknown ]; then
				echo "$dash $name: a query of the mixin this test has no expectation for" >> "$1"
				continue
			fi
			if ! km_query "$(cat "$WORK/km.q")" "$WORK/km.got" "$(km_labels "$dash $name")"; then
				echo "$dash $name ($ns/$pod): the query failed: $(cut -c 1-200 "$WORK/query.json")" >> "$1"
				continue
			fi
			km_compare "$dash $name ($ns/$pod)" "$WORK/km.want" "$WORK/km.got" > "$WORK/km.cmp"
			if grep -q ': missing (want' "$WORK/km.cmp"; then # (what the log shows: the same query again)
				km_query "$(cat "$WORK/km.q")" "$WORK/km.again" "$(km_labels "$dash $name")"
				echo "---- $dash $name ($ns/$pod) missed a row; asked again: $(tr '\n' ' ' < "$WORK/km.again")"
				echo "---- the stand-in's series now: $(prom_query 'count by (__name__) ({job="kube-state-metrics"})' | tr '\n' ' ')"
			fi
			rows=$((rows + $(sed -n 's/^ROWS //p' "$WORK/km.cmp")))
			grep -v '^ROWS ' "$WORK/km.cmp" >> "$1"
		done < "$WORK/km.views"
	done < "$WORK/km.names"
	# the mixin's recording rules, every series
	for r in node_namespace_pod_container:container_memory_working_set_bytes node_namespace_pod_container:container_memory_rss \
		node_namespace_pod_container:container_memory_cache node_namespace_pod_container:container_memory_swap \
		cluster:namespace:pod_memory:active:kube_pod_container_resource_requests \
		cluster:namespace:pod_memory:active:kube_pod_container_resource_limits \
		namespace_memory:kube_pod_container_resource_requests:sum namespace_memory:kube_pod_container_resource_limits:sum; do
		km_expect "rule $r" - - < "$WORK/km.k1" > "$WORK/km.want"
		if ! km_query "$r" "$WORK/km.got" "$(km_labels "rule $r")"; then
			echo "rule $r: the query failed" >> "$1"
			continue
		fi
		km_compare "rule $r" "$WORK/km.want" "$WORK/km.got" > "$WORK/km.cmp"
		rows=$((rows + $(sed -n 's/^ROWS //p' "$WORK/km.cmp")))
		grep -v '^ROWS ' "$WORK/km.cmp" >> "$1"
	done
	km_rule_errors >> "$1"
	echo "$rows" > "$WORK/km.rowcount"
}

# km_settled T: waits (60 s at most) until every container's memcg_usage_bytes
# is from a sample taken after T (seconds) and the mixin's recorded working
# set has been evaluated at least 2 s after that sample (the cAdvisor rule,
# then the mixin's, each group every second); 1 when it does not come.
km_settled() {
	i=0
	while [ $i -lt 60 ]; do
		raw=$(prom_value "min(timestamp(memcg_usage_bytes{cluster=\"$KM_CLUSTER\",cgroup=~\"/kubepods.*\"}))") || raw=0
		rec=$(prom_value 'min(timestamp(node_namespace_pod_container:container_memory_working_set_bytes))') || rec=0
		raw=${raw%%.*} rec=${rec%%.*}
		[ "$raw" -gt "$1" ] && [ "$rec" -ge $((raw + 2)) ] && return 0
		i=$((i + 1))
		sleep 1
	done
	return 1
}

# km_standin_whole SECONDS: whether every scrape of the kube-state-metrics
# stand-in in the last SECONDS succeeded and gave every sample of its file
# (one cut short at a line's end is a success that leaves the rest stale);
# says what the scrapes did when not.
km_standin_whole() {
	want=$(grep -c '^[a-z]' "$WORK/ksm/metrics.txt")
	lo=$(prom_value "min_over_time(scrape_samples_scraped{job=\"kube-state-metrics\"}[$1s])") || lo=0
	up=$(prom_value "min_over_time(up{job=\"kube-state-metrics\"}[$1s])") || up=0
	[ "$lo" = "$want" ] && [ "$up" = 1 ] && return 0
	echo "---- the stand-in's scrapes in the last $1 s: up at least $up, samples at least $lo of $want"
	return 1
}

# km_rule_errors: a line for each recording rule Prometheus holds whose
# last evaluation failed or that it has not evaluated yet.
km_rule_errors() {
	wget -q -O - "$PROM_URL/api/v1/rules" 2>/dev/null | awk '{
		n = split($0, a, /\{"name":"/)
		for (i = 2; i <= n; i++) {
			if (a[i] !~ /"type":"recording"/ || a[i] ~ /"health":"ok"/) continue
			name = a[i]; sub(/".*/, "", name)
			e = a[i]; if (!sub(/.*"lastError":"/, "", e)) e = "not evaluated"; sub(/".*/, "", e)
			print "rule " name ": evaluation: " e
		}
	}'
}

# km_cleanup: stops what kube_mixin started and gives the memory back.
km_cleanup() {
	[ -z "${KM_CD:-}" ] || stop_collectd "$KM_CD"
	[ -z "${KM_HTTPD:-}" ] || { kill "$KM_HTTPD" 2>/dev/null; wait "$KM_HTTPD" 2>/dev/null; }
	receivers_stop
	km_spec | while read -r ns pod ctr _; do
		path=$(awk -v n="$ns" -v p="$pod" -v c="$ctr" '$3 == n && $4 == p && $5 == c { print $1 }' "$WORK/identity.expected")
		[ -n "$path" ] || continue
		echo 0 > "$CG${path%/*}/cgroup.freeze" 2>/dev/null
		echo max > "$CG$path/memory.max" 2>/dev/null
	done
	for pid in ${KM_LOADS:-}; do kill "$pid" 2>/dev/null; done
	for pid in ${KM_LOADS:-}; do wait "$pid" 2>/dev/null; done
	swapoff "$SCRATCH/km.swap" 2>/dev/null
	rm -f "$SCRATCH"/km.* "$WORK"/km.ready.*
	KM_CD='' KM_HTTPD='' KM_LOADS=''
}

t_kube_mixin() {
	have_collectd || return 77
	for f in "$KM_RULES" "$KM_QUERIES" "$KM_CADVISOR"; do
		[ -f "$f" ] || { why "$f is not in the initramfs (tests/vm/kube-mixin.sh: jsonnet? see vm-logs/kube-mixin.log)"; return 1; }
	done
	id_tree || return 1
	scratch_fs || return 1
	KM_CD='' KM_HTTPD='' KM_LOADS=''

	# swap on the scratch disk, so that container_memory_swap has bytes to show
	dd if=/dev/zero of="$SCRATCH/km.swap" bs=1M count=12 2> /dev/null && chmod 600 "$SCRATCH/km.swap" &&
		mkswap "$SCRATCH/km.swap" > "$WORK/km.mkswap" 2>&1 && swapon "$SCRATCH/km.swap" 2>> "$WORK/km.mkswap" ||
		{ why "no swap file on $SCRATCH: $(tail -n 1 "$WORK/km.mkswap")"; km_cleanup; return 1; }

	# the containers' loads (the kubelet's memory.max on a container with a limit)
	i=0
	while read -r ns pod ctr req lim anon file swap; do
		i=$((i + 1))
		path=$(awk -v n="$ns" -v p="$pod" -v c="$ctr" '$3 == n && $4 == p && $5 == c { print $1 }' "$WORK/identity.expected")
		[ -n "$path" ] || { why "no cgroup of $ns/$pod/$ctr in identity.expected"; km_cleanup; return 1; }
		[ "$lim" = - ] || echo $((lim * MIB)) > "$CG$path/memory.max" || { why "cannot set $path/memory.max"; km_cleanup; return 1; }
		( echo 0 > "$CG$path/cgroup.procs" && exec memload -a "$anon" -f "$SCRATCH/km.file$i" -s "$file" -r "$WORK/km.ready.$i" ) &
		KM_LOADS="$KM_LOADS $!"
		wait_ready "$WORK/km.ready.$i" "memload in $path" || { km_cleanup; return 1; }
		[ "$swap" = 0 ] || echo "${swap}M swappiness=200" > "$CG$path/memory.reclaim" 2>/dev/null ||
			echo "${swap}M" > "$CG$path/memory.reclaim" 2>/dev/null || :
		# frozen: nothing in the pod runs while the values are compared
		echo 1 > "$CG${path%/*}/cgroup.freeze" || { why "cannot freeze ${path%/*}"; km_cleanup; return 1; }
	done <<EOF
$(km_spec)
EOF

	# kube-state-metrics' series, served as a file (text format)
	mkdir -p "$WORK/ksm"
	km_ksm > "$WORK/ksm/metrics.txt"
	httpd -f -p "$KM_KSM" -h "$WORK/ksm" &
	KM_HTTPD=$!
	# (a failed scrape marks every series of the job stale: no 1 s timeout
	# under TCG)
	PROM_SCRAPE="  - job_name: kube-state-metrics
    scrape_interval: 5s
    scrape_timeout: 5s
    metrics_path: /metrics.txt
    fallback_scrape_protocol: PrometheusText0.0.4
    static_configs:
      - targets: ['$KM_KSM']
        labels:
          cluster: $KM_CLUSTER"
	prom_start "$KM_CADVISOR" "$KM_RULES" || { km_cleanup; return 1; }

	d=$WORK/km-collectd
	rm -rf "$d"
	mkdir -p "$d"
	collectd_conf "$d" 1 csv "  CgroupRoot \"$CG\"
  Cgroup \"/kubepods*\"
  Label \"cluster\" \"$KM_CLUSTER\"
  URL \"$PROM_URL/api/v1/write\"
  Format \"remote_write\"" || { km_cleanup; return 1; }
	"$COLLECTD" -f -C "$d/collectd.conf" > "$d/stdout" 2>&1 &
	KM_CD=$!

	# every container's recorded working set (memcg_bpf -> cAdvisor rules ->
	# the mixin's rule, joined with kube_pod_info): 90 s at most
	want=$(km_spec | while read -r ns pod ctr _; do awk -v n="$ns" -v p="$pod" -v c="$ctr" '$3 == n && $4 == p && $5 == c && $7 != "-"' "$WORK/identity.expected"; done | wc -l)
	t=0
	until [ "$(prom_query 'node_namespace_pod_container:container_memory_working_set_bytes' 2>/dev/null | wc -l)" -ge "$want" ] &&
		[ -n "$(prom_query 'namespace_memory:kube_pod_container_resource_limits:sum' 2>/dev/null)" ]; do
		t=$((t + 1))
		if [ $t -gt 90 ] || ! kill -0 "$KM_CD" 2>/dev/null; then
			cat "$d/collectd.log" "$WORK/prometheus.log"
			why "no node_namespace_pod_container:container_memory_working_set_bytes of the $want containers with an image after 90 s (collectd: $(grep -i error "$d/collectd.log" | head -n 1 | cut -c 1-150))"
			km_cleanup
			return 1
		fi
		sleep 1
	done

	# A round: the kernel's values, a wait until a sample taken after them
	# has passed remote write and both rule groups (km_settled), every
	# query, the kernel's values again.
	# A round whose kernel values moved in between (a per-CPU charge cache
	# given back, a batch of pages put on the LRU lists), or in which a
	# scrape of the stand-in failed or came short (its series stale for a
	# scrape; seen once of two runs with a kernel build beside the VM) is
	# not judged; a round with the same values before and after and every
	# scrape whole is, and must match exactly.
	tries=0
	while :; do
		tries=$((tries + 1))
		km_kernel "$WORK/km.k1"
		t_round=$(date +%s)
		km_settled "$t_round" || { why "no sample after the kernel's values reached the mixin's rules in 60 s"; km_cleanup; return 1; }
		km_round "$WORK/km.bad"
		km_kernel "$WORK/km.k2"
		if ! cmp -s "$WORK/km.k1" "$WORK/km.k2"; then
			echo "---- round $tries: the kernel's values moved:"
			diff "$WORK/km.k1" "$WORK/km.k2"
		elif km_standin_whole $(($(date +%s) - t_round + 5)); then
			break
		fi
		if [ $tries -ge 5 ]; then
			why "the containers' memory values moved, or a scrape of the kube-state-metrics stand-in was lost, in each of 5 rounds"
			km_cleanup
			return 1
		fi
	done
	echo "---- the kernel's values (namespace pod container image wss rss cache swap request limit)"
	cat "$WORK/km.k1"
	cat "$WORK/km.bad"
	bad=$(grep -c . "$WORK/km.bad")
	rows=$(cat "$WORK/km.rowcount")
	swapped=$(awk '$8 > 0' "$WORK/km.k1" | wc -l)
	queries=$(grep -c '^### ' "$KM_QUERIES")
	views="$(grep -c '^pod ' "$WORK/km.views") pods, $(grep -c '^namespace ' "$WORK/km.views") namespaces"
	km_cleanup
	info "kube_mixin: the kubernetes-mixin's $queries pod and namespace dashboard memory queries ($views) and 8 memory recording rules on the shipped cAdvisor rules: $rows rows compared with the kernel's files ($swapped containers with swap) and kube-state-metrics' series, $bad wrong (round $tries)"
	if [ "$bad" -ne 0 ]; then why "$(head -n 2 "$WORK/km.bad" | tr '\n' ' ' | cut -c 1-300)"; return 1; fi
	[ "$rows" -gt 0 ] || { why "no rows compared"; return 1; }
}
