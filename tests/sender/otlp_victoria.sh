#!/bin/bash
# OTLP/HTTP protobuf to VictoriaMetrics' /opentelemetry/v1/metrics, gzip and
# zstd: every sampled value stored under the same metric names.
. "$(dirname "$0")/lib.sh"
sender_setup

for comp in gzip zstd; do
	stop_receivers
	start_vm "vm-$comp" || { not_ok "victoria-metrics starts"; continue; }
	run_collectd "otlp-$comp" "URL \"http://127.0.0.1:$VM_PORT/opentelemetry/v1/metrics\"
Format \"otlp\"
Compression \"$comp\""
	check "$comp: collectd exits cleanly" [ "$daemon_rc" = 0 ]
	check "$comp: no errors logged" log_clean "$RUN_DIR"
	check "$comp: victoria-metrics has every sampled value" vm_compare "$VM_PORT $T/vm-$comp.jsonl" --host-label host.name
done
finish
