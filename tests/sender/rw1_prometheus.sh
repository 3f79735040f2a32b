#!/bin/bash
# Remote write 1.0 (snappy) to a real Prometheus 3.x: every sampled
# (cgroup, stat, timestamp) is stored with the sampled value; the plugin's
# self metrics arrive too; nothing is logged as an error.
. "$(dirname "$0")/lib.sh"
sender_setup

start_prometheus prom || { not_ok "prometheus starts"; finish; }
run_collectd rw1 "URL \"http://127.0.0.1:$PROM_PORT/api/v1/write\"
Format \"remote_write\"
Label \"dc\" \"test\""
check "collectd exits cleanly" [ "$daemon_rc" = 0 ]
check "no errors logged" log_clean "$RUN_DIR"
prom_dump "$PROM_PORT" "$T/prom.json"
check "prometheus has every sampled value" compare --prom "$T/prom.json" --require-self
check "static label arrived" grep -q '"dc":"test"' "$T/prom.json"
finish
