#!/bin/bash
# The scale-out path: remote write 1.0 to vmagent with -remoteWrite.shardByURL
# in front of two VictoriaMetrics nodes. Each series must land on exactly one
# node, both nodes get some, and together they hold every sampled value.
. "$(dirname "$0")/lib.sh"
sender_setup

start_vm vm1 || { not_ok "victoria-metrics 1 starts"; finish; }
VM1=$VM_PORT
start_vm vm2 || { not_ok "victoria-metrics 2 starts"; finish; }
VM2=$VM_PORT
start_vmagent vmagent "http://127.0.0.1:$VM1/api/v1/write" "http://127.0.0.1:$VM2/api/v1/write" ||
	{ not_ok "vmagent starts"; finish; }
run_collectd shard "URL \"http://127.0.0.1:$VMAGENT_PORT/api/v1/write\"
Format \"remote_write\""
check "collectd exits cleanly" [ "$daemon_rc" = 0 ]
check "no errors logged" log_clean "$RUN_DIR"
check "each series on exactly one node, none missing" \
	vm_compare "$VM1 $T/vm1.jsonl $VM2 $T/vm2.jsonl" --exclusive
finish
