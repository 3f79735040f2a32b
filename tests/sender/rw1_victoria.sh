#!/bin/bash
# Remote write 1.0 (snappy) to a real VictoriaMetrics: every sampled value
# stored; then the same with zstd, which VictoriaMetrics also accepts.
. "$(dirname "$0")/lib.sh"
sender_setup

for comp in snappy zstd; do
	stop_receivers
	start_vm "vm-$comp" || { not_ok "victoria-metrics starts"; continue; }
	run_collectd "rw1-$comp" "URL \"http://127.0.0.1:$VM_PORT/api/v1/write\"
Format \"remote_write\"
Compression \"$comp\""
	check "$comp: collectd exits cleanly" [ "$daemon_rc" = 0 ]
	check "$comp: no errors logged" log_clean "$RUN_DIR"
	check "$comp: victoria-metrics has every sampled value" vm_compare "$VM_PORT $T/vm-$comp.jsonl"
done
finish
