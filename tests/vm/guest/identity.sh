# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Who a cgroup belongs to (issue 13): functions only, sourced by
# run-tests.sh after lib.sh, receivers.sh and oom.sh (mkpath); they use
# run-tests.sh's collectd helpers.
#   identity  cgroup trees as the kubelet lays them out with the systemd and
#             the cgroupfs cgroup driver, for containerd, CRI-O and Docker,
#             next to non-Kubernetes cgroups, and a /var/log/pods (plus the
#             /var/log/containers links) as the kubelet writes them; the real
#             collectd ships remote write to VictoriaMetrics and Prometheus,
#             and every series that arrives in either must carry exactly the
#             labels the expected table below gives its cgroup.

# Pod UIDs (the kubelet's form, with dashes) and 64-hex container ids.
ID_UID1=1b4e28ba-2fa1-11d2-883f-0016d3cca427
ID_UID2=6fa459ea-ee8a-3ca4-894e-db77e160355e
ID_UID3=16fd2706-8baf-433b-82eb-8c7fada847da
ID_UID4=9a0364b9-e99b-4e0e-8c3d-5b1d7e2f1a01
ID_UID5=c2f1a8d4-3b6e-4c57-9e0a-1f2b3c4d5e6f
ID_UID6=0e1d2c3b-4a59-4687-a5b4-c3d2e1f0a9b8
hex64() { printf '%064x' 0 | sed "s/^.\{${#1}\}/$1/"; }
ID_C1=$(hex64 a1) ID_C2=$(hex64 b2) ID_C3=$(hex64 c3) ID_C4=$(hex64 d4)
ID_C5=$(hex64 e5) ID_C6=$(hex64 f6) ID_C7=$(hex64 77)

# under: the systemd unit form of a pod UID (dashes become underscores)
us() { echo "$1" | tr - _; }

# id_state FILE KEY IMAGE: an OCI config.json as a CRI runtime writes it,
# with the image under annotation KEY, and before it an environment
# variable a tenant chose that holds the key in quotes (escaped: not it).
id_state() {
	mkdir -p "${1%/*}"
	printf '{"ociVersion":"1.1.0","process":{"env":["EVIL=\\"%s\\":\\"evil.example/x:1\\""]},"annotations":{"io.kubernetes.cri.container-type":"container","%s":"%s"}}\n' \
		"$2" "$2" "$3" > "$1"
}

# id_tree: the cgroups, /var/log/pods and /var/log/containers, the
# container runtimes' state (containerd's and CRI-O's config.json with the
# image); writes the expected labels, one line per cgroup: "PATH pod_uid
# namespace pod container container_id image" ("-" for a label that must
# be absent).
id_tree() {
	exp=$WORK/identity.expected
	: > "$exp"
	# systemd driver, containerd, burstable
	p=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$(us $ID_UID1).slice
	mkpath "$CG" $(echo "${p#/}" | tr / " ") "cri-containerd-$ID_C1.scope" || return 1
	echo "$p $ID_UID1 shop web - -" >> "$exp"
	echo "$p/cri-containerd-$ID_C1.scope $ID_UID1 shop web nginx $ID_C1" >> "$exp"
	# systemd driver, CRI-O, besteffort
	p=/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod$(us $ID_UID2).slice
	mkpath "$CG" $(echo "${p#/}" | tr / " ") "crio-$ID_C2.scope" || return 1
	echo "$p/crio-$ID_C2.scope $ID_UID2 kube-system dns coredns $ID_C2" >> "$exp"
	# systemd driver, Docker (cri-dockerd), guaranteed: no QoS level
	p=/kubepods.slice/kubepods-pod$(us $ID_UID3).slice
	mkpath "$CG" $(echo "${p#/}" | tr / " ") "docker-$ID_C3.scope" || return 1
	echo "$p/docker-$ID_C3.scope $ID_UID3 batch job-7x2 worker $ID_C3" >> "$exp"
	# cgroupfs driver, containerd, burstable
	p=/kubepods/burstable/pod$ID_UID4
	mkpath "$CG" $(echo "${p#/}" | tr / " ") "$ID_C4" || return 1
	echo "$p $ID_UID4 shop api - -" >> "$exp"
	echo "$p/$ID_C4 $ID_UID4 shop api app $ID_C4" >> "$exp"
	# cgroupfs driver, CRI-O, besteffort
	p=/kubepods/besteffort/pod$ID_UID5
	mkpath "$CG" $(echo "${p#/}" | tr / " ") "crio-$ID_C5" || return 1
	echo "$p/crio-$ID_C5 $ID_UID5 mon agent exporter $ID_C5" >> "$exp"
	# cgroupfs driver, Docker, guaranteed
	p=/kubepods/pod$ID_UID6
	mkpath "$CG" $(echo "${p#/}" | tr / " ") "$ID_C6" || return 1
	echo "$p/$ID_C6 $ID_UID6 db pg-0 postgres $ID_C6" >> "$exp"
	# not Kubernetes: no pod labels (a Docker container outside Kubernetes
	# keeps its container_id)
	mkpath "$CG" system.slice cron.service || return 1
	echo "/system.slice/cron.service - - - - -" >> "$exp"
	mkpath "$CG" system.slice "docker-$ID_C7.scope" || return 1
	echo "/system.slice/docker-$ID_C7.scope - - - - $ID_C7" >> "$exp"
	mkpath "$CG" kubepods-not pod$ID_UID1 || return 1
	echo "/kubepods-not/pod$ID_UID1 - - - - -" >> "$exp"
	mkpath "$CG" vt-id "pod$ID_UID2" "abc" || return 1
	echo "/vt-id/pod$ID_UID2/abc - - - - -" >> "$exp"

	# the runtimes' state: containerd's (C1, C4) and CRI-O's (C2, C5)
	# containers have their image; Docker's (C3, C6, C7) have none
	ctrd=/run/containerd/io.containerd.runtime.v2.task/k8s.io crio=/run/containers/storage/overlay-containers
	rm -rf /run/containerd /run/containers
	id_state "$ctrd/$ID_C1/config.json" io.kubernetes.cri.image-name docker.io/library/nginx:1.25
	id_state "$crio/$ID_C2/userdata/config.json" io.kubernetes.cri-o.ImageName registry.k8s.io/coredns/coredns:v1.11.1
	id_state "$ctrd/$ID_C4/config.json" io.kubernetes.cri.image-name docker.io/shop/api:2.3
	id_state "$crio/$ID_C5/userdata/config.json" io.kubernetes.cri-o.ImageName quay.io/prometheus/node-exporter:v1.8.2
	awk -v c1="$ID_C1" -v c2="$ID_C2" -v c4="$ID_C4" -v c5="$ID_C5" 'BEGIN {
		img[c1] = "docker.io/library/nginx:1.25"; img[c2] = "registry.k8s.io/coredns/coredns:v1.11.1"
		img[c4] = "docker.io/shop/api:2.3"; img[c5] = "quay.io/prometheus/node-exporter:v1.8.2" }
		{ print $0, ($6 in img ? img[$6] : "-") }' "$exp" > "$exp.img" && mv "$exp.img" "$exp"

	# the kubelet's logs: /var/log/pods/<namespace>_<pod>_<uid>/<container>/N.log
	# and /var/log/containers/<pod>_<namespace>_<container>-<id>.log -> that file
	rm -rf /var/log/pods /var/log/containers
	mkdir -p /var/log/containers
	while read -r path uid ns pod ctr cid _; do
		[ "$uid" != - ] && [ "$ctr" != - ] || continue
		mkdir -p "/var/log/pods/${ns}_${pod}_$uid/$ctr"
		: > "/var/log/pods/${ns}_${pod}_$uid/$ctr/0.log"
		ln -s "/var/log/pods/${ns}_${pod}_$uid/$ctr/0.log" "/var/log/containers/${pod}_${ns}_$ctr-$cid.log"
	done < "$exp"
}

# id_labels URL OUT [otlp]: "cgroup pod_uid namespace pod container
# container_id image" of every memcg_usage_bytes series the receiver at URL
# holds, "-" for a label it lacks; with otlp, under their OTLP attribute
# names (collectd-memcg_bpf(5), OTLP).
id_labels() {
	names="cgroup pod_uid namespace pod container container_id image"
	[ "${3:-}" != otlp ] || names="cgroup k8s.pod.uid k8s.namespace.name k8s.pod.name k8s.container.name container.id image"
	wget -q -O - "$1/api/v1/query?query=$(urlenc 'memcg_usage_bytes')" > "$WORK/id.json" 2>/dev/null || return 1
	grep -q '"status":"success"' "$WORK/id.json" || return 1
	awk '{ n = split($0, a, /\{"metric":\{/); for (i = 2; i <= n; i++) { sub(/\}.*/, "", a[i]); print a[i] } }' \
		"$WORK/id.json" |
	while IFS= read -r m; do
		line=
		for l in $names; do
			v=$(echo "$m" | sed -n "s/.*\"$l\":\"\([^\"]*\)\".*/\1/p")
			line="$line ${v:--}"
		done
		echo "${line# }"
	done > "$2"
}

# id_ship URL FORMAT QUERY_URL: collectd ships to URL (FORMAT) until the
# receiver at QUERY_URL holds a series of every expected cgroup (60 s at
# most).
id_ship() {
	d=$WORK/id-collectd
	rm -rf "$d"
	mkdir -p "$d"
	collectd_conf "$d" 1 csv "  Backend \"auto\"
  CgroupRoot \"$CG\"
  Cgroup \"/kubepods*\" \"/system.slice*\" \"/vt-id*\"
  Stat \"usage\"
  URL \"$1\"
  Format \"$2\"" || return 1
	"$COLLECTD" -f -C "$d/collectd.conf" > "$d/stdout" 2>&1 &
	cpid=$!
	t=0
	while :; do
		id_labels "$3" "$WORK/id.got" "$2" 2>/dev/null
		n=$(awk 'NR == FNR { want[$1] = 1; next } ($1 in want) { n++ } END { print n + 0 }' \
			"$WORK/identity.expected" "$WORK/id.got")
		[ "$n" -ge "$want" ] && break
		t=$((t + 1))
		if [ $t -gt 60 ] || ! kill -0 $cpid 2>/dev/null; then
			stop_collectd $cpid
			why "$1 ($2) holds $n of the $want cgroups after 60 s: $(grep -i error "$d/collectd.log" | head -n 1 | cut -c 1-200)"
			return 1
		fi
		sleep 1
	done
	stop_collectd $cpid
}

t_identity() {
	have_collectd || return 77
	id_tree || return 1
	vm_start || return 1
	prom_start || return 1
	want=$(wc -l < "$WORK/identity.expected")
	: > "$WORK/id.bad"
	# remote write 1.0 and OTLP into VictoriaMetrics, 2.0 into Prometheus
	for rx in "$VM_URL/api/v1/write remote_write $VM_URL" "$PROM_URL/api/v1/write remote_write_v2 $PROM_URL" \
		"$VM_URL/opentelemetry/v1/metrics otlp $VM_URL"; do
		set -- $rx
		[ "$2" != otlp ] || { receivers_stop; vm_start || return 1; } # a fresh one: OTLP's series alone
		id_ship "$1" "$2" "$3" || return 1
		id_labels "$3" "$WORK/id.got" "$2" || { why "cannot query $3"; return 1; }
		while read -r path uid ns pod ctr cid img; do
			got=$(awk -v p="$path" '$1 == p' "$WORK/id.got")
			if [ "$(echo "$got" | grep -c .)" -ne 1 ]; then
				echo "$1: $path: $(echo "$got" | grep -c .) series"
			elif [ "$got" != "$path $uid $ns $pod $ctr $cid $img" ]; then
				echo "$1 ($2): $path: got \"$got\", want \"$path $uid $ns $pod $ctr $cid $img\""
			fi
		done < "$WORK/identity.expected" >> "$WORK/id.bad"
	done
	cat "$WORK/id.bad"
	bad=$(grep -c . "$WORK/id.bad")
	receivers_stop
	info "identity: $want cgroups (systemd and cgroupfs drivers x containerd, CRI-O, Docker; 4 not Kubernetes; images from the runtimes' state), remote write 1.0 and OTLP into VictoriaMetrics, 2.0 into Prometheus: $bad wrong"
	if [ "$bad" -ne 0 ]; then why "$(head -n 2 "$WORK/id.bad" | tr '\n' ' ' | cut -c 1-300)"; return 1; fi
}
