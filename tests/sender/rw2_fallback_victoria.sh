#!/bin/bash
# Remote write 2.0 towards VictoriaMetrics, which answers 204 without the
# X-Prometheus-Remote-Write-*-Written headers and stores nothing: the sender
# must fall back to 1.0 (logged once), resend, and lose nothing.
. "$(dirname "$0")/lib.sh"
sender_setup

start_vm vm || { not_ok "victoria-metrics starts"; finish; }
run_collectd rw2-fallback "URL \"http://127.0.0.1:$VM_PORT/api/v1/write\"
Format \"remote_write_v2\""
check "collectd exits cleanly" [ "$daemon_rc" = 0 ]
check "the fallback is logged once" [ "$(grep -c 'falling back to remote write 1.0' "$RUN_DIR/collectd.log")" = 1 ]
check "no errors logged" bash -c "! grep -q '\\[error\\]' '$RUN_DIR/collectd.log'"
check "victoria-metrics has every sampled value" vm_compare "$VM_PORT $T/vm.jsonl"
finish
