#!/bin/bash
# The loopback wire check: tests/sender/wire_receiver.py decodes every request
# of tests/sender/ship-fake (the sender without collectd, on a made-up tree in
# which cgroups vanish) and checks it against the specs: headers, snappy block
# format, sorted labels, UTF-8, 2.0 symbol table, ms timestamps, stale
# markers. It also answers 500/429/400/415 and 2xx without -Written headers
# to check retries, drops and the 2.0 -> 1.0 fallback.
set -u
BUILDDIR=${MEMCG_BPF_BUILDDIR:-$PWD}
HERE=$(cd "$(dirname "$0")" && pwd)
SHIP=$BUILDDIR/tests/sender/ship-fake
pass=0 fail=0 rpid=
T=$(mktemp -d "${TMPDIR:-/tmp}/memcg_bpf-wire.XXXXXX")

ok() { echo "ok - $*"; pass=$((pass + 1)); }
not_ok() { echo "not ok - $*"; fail=$((fail + 1)); }
check() { local w=$1; shift; if "$@"; then ok "$w"; else not_ok "$w"; fi; }
stop_receiver() { [ -n "$rpid" ] && kill -TERM "$rpid" 2>/dev/null && wait "$rpid" 2>/dev/null; rpid=; }
trap stop_receiver EXIT

[ -x "$SHIP" ] || { echo "ok - # SKIP $SHIP not built"; exit 77; }
command -v python3 >/dev/null || { echo "ok - # SKIP no python3"; exit 77; }

# run NAME SCRIPT PATH FORMAT COMPRESSION [MAX_SAMPLES]: one sender run against a fresh receiver
run() {
	local name=$1 script=$2 path=$3
	shift 3
	rm -f "$T/$name.port"
	python3 "$HERE/wire_receiver.py" --port-file "$T/$name.port" --log "$T/$name.jsonl" --script "$script" \
		2>"$T/$name.receiver.err" &
	rpid=$!
	for ((i = 0; i < 100; i++)); do [ -f "$T/$name.port" ] && break; sleep 0.05; done
	"$SHIP" "http://127.0.0.1:$(cat "$T/$name.port")$path" "$@" >"$T/$name.stats" 2>"$T/$name.log"
	stop_receiver
	LOG=$T/$name.jsonl STATS=$T/$name.stats
}

stat_is() { grep -qx "$1=$2" "$STATS" || { echo "# $1: $(grep "^$1=" "$STATS")"; return 1; }; }

# verify ARGS: python checks over the request log (see below)
verify() { python3 - "$LOG" "$@" <<'PY'
import json, sys
log, want = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
reqs = [json.loads(l) for l in open(log)]
bad = [e for r in reqs for e in r["errors"]]
for e in bad[:10]:
    print("# wire: " + e)
ok = not bad
acc = [r for r in reqs if r["status"] < 300]
series = [s for r in acc for s in r["series"]]
stale = [s for s in series if s[1] == "7ff0000000000002"]
def check(cond, msg):
    global ok
    if not cond:
        print("# wire: " + msg); ok = False
if "formats" in want:
    check([r["format"] for r in reqs] == want["formats"].split(","), "formats %s" % [r["format"] for r in reqs])
if "stale" in want:
    gone = sorted({s[0].get("cgroup") for s in stale})
    check(gone == want["stale"].split(","), "stale markers for %s" % gone)
    check(len(stale) == 2 * len(gone), "%d stale markers" % len(stale))
if "values" in want:
    vals = [s for s in series if s[1] != "7ff0000000000002" and "cgroup" in s[0]]
    check(len(vals) == int(want["values"]), "%d values stored" % len(vals))
    cg = {s[0]["cgroup"] for s in vals}
    check("/bad\\xff" in cg, "escaped path /bad\\xff missing: %s" % cg)
    u = {s[0].get("unit") for s in vals if s[0]["cgroup"] == "/system.slice/x.service"}
    check(u == {"x.service"}, "unit label %s" % u)
    ts = sorted({s[2] for s in vals})
    check(len(ts) == 3 and all(t % 1000 == 123 for t in ts), "timestamps %s (ms, .123)" % ts)
if "reused" in want:
    check(all(r["connection_reused"] for r in reqs[1:]), "connection not kept alive")
if "requests" in want:
    check(len(reqs) == int(want["requests"]), "%d requests" % len(reqs))
sys.exit(0 if ok else 1)
PY
}

# 3 intervals: 4+2+1 cgroups x 2 stats = 14 values; stale markers (2 stats
# each): /b and x.service in interval 1, /bad\xff in interval 2
STALE='/b,/bad\xff,/system.slice/x.service'
for fmt in remote_write:rw1 remote_write_v2:rw2 otlp:otlp; do
	wire=${fmt#*:} fmt=${fmt%:*} path=/api/v1/write
	[ $fmt = otlp ] && path=/opentelemetry/v1/metrics
	run "$fmt" "" "$path" "$fmt" default
	check "$fmt: all 3 intervals sent" stat_is batches_sent 3
	check "$fmt: wire format, labels, UTF-8, ms timestamps, stale markers, keep-alive" \
		verify formats="$wire,$wire,$wire" values=14 stale="$STALE" reused=1
done
run otlp-zstd "" /opentelemetry/v1/metrics otlp zstd
check "otlp zstd: decoded and checked" verify values=14 stale="$STALE"

run split "" /api/v1/write remote_write default 5
check "MaxSamplesPerSend 5: more requests, same series" verify values=14 stale="$STALE"
check "MaxSamplesPerSend 5: no request above 5 samples" python3 -c "
import json,sys
sys.exit(any(len(json.loads(l)['series']) > 5 for l in open('$LOG')))"

run retry "500,429" /api/v1/write remote_write default
check "500 (Retry-After) and 429 are retried" stat_is retries 2
check "retried requests arrive" verify values=14 requests=5
check "nothing dropped after retries" stat_is dropped_rejected 0

run reject "400" /api/v1/write remote_write default
check "400 drops the request" stat_is dropped_rejected 1
check "400 is logged with status and body" grep -q 'HTTP 400, dropping.*wire_receiver says 400' "$T/reject.log"
check "the rest is sent" stat_is batches_sent 2

run fallback415 "415v2" /api/v1/write remote_write_v2 default
check "415 to 2.0: falls back to 1.0" stat_is format remote_write
check "415 to 2.0: resent as 1.0" verify formats=rw2,rw1,rw1,rw1 values=14

run fallback-nohdr "nohdr" /api/v1/write remote_write_v2 default
check "2xx without -Written headers: falls back" stat_is fallbacks 1
check "2xx without -Written headers: resent as 1.0" verify formats=rw2,rw1,rw1,rw1

# failover: the first URL refuses connections
rm -f "$T/fo.port"
python3 "$HERE/wire_receiver.py" --port-file "$T/fo.port" --log "$T/fo.jsonl" 2>/dev/null &
rpid=$!
for ((i = 0; i < 100; i++)); do [ -f "$T/fo.port" ] && break; sleep 0.05; done
dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$SHIP" "http://127.0.0.1:$dead/api/v1/write" remote_write default 2000 \
	"http://127.0.0.1:$(cat "$T/fo.port")/api/v1/write" >"$T/fo.stats" 2>"$T/fo.log"
stop_receiver
LOG=$T/fo.jsonl STATS=$T/fo.stats
check "failover to the second URL" verify values=14

echo "$pass passed, $fail failed"
[ $fail -eq 0 ] && rm -rf "$T" || echo "# kept $T"
[ $fail -eq 0 ]
