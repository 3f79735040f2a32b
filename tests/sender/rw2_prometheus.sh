#!/bin/bash
# Remote write 2.0 to a real Prometheus 3.x (which answers with the
# X-Prometheus-Remote-Write-*-Written headers): every sampled value stored and
# no fallback to 1.0.
. "$(dirname "$0")/lib.sh"
sender_setup

start_prometheus prom || { not_ok "prometheus starts"; finish; }
run_collectd rw2 "URL \"http://127.0.0.1:$PROM_PORT/api/v1/write\"
Format \"remote_write_v2\""
check "collectd exits cleanly" [ "$daemon_rc" = 0 ]
check "no errors, no fallback logged" log_clean "$RUN_DIR"
prom_dump "$PROM_PORT" "$T/prom.json"
check "prometheus has every sampled value" compare --prom "$T/prom.json" --require-self
finish
