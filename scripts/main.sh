#!/bin/bash
# The main job of the README: builds memcg_bpf, starts a local Prometheus
# (Debian's package from sid, run unpacked from a cache, listening on
# 127.0.0.1 only) as the central collector, and runs the collectd daemon with
# the plugin shipping remote-write batches to it. Every interval it shows
# what arrived: the number of memcg series and the top cgroups by usage,
# queried back from Prometheus. Every PLOT_EVERY intervals it redraws
# build/main/memcg_bpf.png (scripts/plot.py: usage against memory.max of the
# top cgroups, working set, memory pressure, OOM kills, from Prometheus'
# query_range API, with gnuplot) over the run's last hour.
#   INTERVAL=10 DURATION=0 PLOT_EVERY=1 ./scripts/main.sh   (DURATION=0: until Ctrl-C)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
interval=${INTERVAL:-10}
duration=${DURATION:-0}
port=${PROM_PORT:-19090}
plot_every=${PLOT_EVERY:-1}
"$top/scripts/deps.sh"
BUILD_DIR=$build "$top/scripts/build.sh" >/dev/null
prometheus=$("$top/tests/sender/fetch-receivers.sh" | awk '$1 == "prometheus" { print $3 }')
[ -x "$prometheus" ] || { echo "main: cannot get Prometheus (see above)" >&2; exit 1; }

run=$build/main
rm -rf "$run/csv"
mkdir -p "$run/plugins" "$run/csv" "$run/prometheus"
cp "$build/.libs/memcg_bpf.so" "$run/plugins/" # regular copies: collectd refuses symlinks
for p in csv logfile; do cp "/usr/lib/collectd/$p.so" "$run/plugins/"; done

pids=()
stop() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop EXIT
trap 'exit 0' INT TERM

echo "global: { scrape_interval: 1m }" >"$run/prometheus/prometheus.yml"
"$prometheus" --config.file="$run/prometheus/prometheus.yml" --storage.tsdb.path="$run/prometheus/data" \
	--web.listen-address="127.0.0.1:$port" --web.enable-remote-write-receiver \
	--web.remote-write-receiver.accepted-protobuf-messages=prometheus.WriteRequest \
	--web.remote-write-receiver.accepted-protobuf-messages=io.prometheus.write.v2.Request \
	>"$run/prometheus.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
	curl -fs "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1 && break
	sleep 0.1
done

cat >"$run/collectd.conf" <<CONF
Interval $interval
BaseDir "$run"
PIDFile "$run/collectd.pid"
PluginDir "$run/plugins"
TypesDB "/usr/share/collectd/types.db"
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$run/collectd.log"
  Timestamp true
</Plugin>
LoadPlugin csv
<Plugin csv>
  DataDir "$run/csv"
</Plugin>
LoadPlugin memcg_bpf
<Plugin memcg_bpf>
  Backend "auto"
  CgroupRoot "/sys/fs/cgroup"
  URL "http://127.0.0.1:$port/api/v1/write"
  Format "remote_write"
</Plugin>
CONF
/usr/sbin/collectd -f -C "$run/collectd.conf" &
pids+=($!)
echo "main: Prometheus on http://127.0.0.1:$port, collectd with memcg_bpf every ${interval}s"
echo "main: config $run/collectd.conf, log $run/collectd.log (Ctrl-C stops both)"
png=$run/memcg_bpf.png
rm -f "$png"
echo "main: plot of the key panels: $png (redrawn every $plot_every interval(s))"

# show: what Prometheus holds now
show() {
	local q='topk(10, memcg_usage_bytes)' n
	n=$(curl -fsG "http://127.0.0.1:$port/api/v1/query" --data-urlencode 'query=count({__name__=~"memcg_.+"})' |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
	echo "--- $(date +%T): $n memcg series in Prometheus; $(grep -o 'backend [a-z]*: .*' "$run/collectd.log" | tail -n 1)"
	curl -fsG "http://127.0.0.1:$port/api/v1/query" --data-urlencode "query=$q" |
		python3 -c 'import json,sys
for r in json.load(sys.stdin)["data"]["result"]:
    print("  %14.1f MiB  %s  %s" % (float(r["value"][1]) / 2**20, r["metric"].get("host", "?"), r["metric"].get("cgroup", "?")))'
}

# plot: redraw the PNG over the run so far (at most its last hour); rates
# over 4 intervals, so that each window holds several samples
plot() {
	local now from
	now=$(date +%s)
	from=$((now - start > 3600 ? now - 3600 : start))
	python3 "$top/scripts/plot.py" --prom "http://127.0.0.1:$port" --out "$png" \
		--start "$from" --end "$now" --rate-window $((4 * interval)) --top 6 --depth 1
}

start=$(date +%s)
n=0
while kill -0 "${pids[1]}" 2>/dev/null; do
	sleep "$interval"
	show || echo "main: Prometheus did not answer"
	n=$((n + 1))
	if [ $((n % plot_every)) = 0 ]; then
		if out=$(plot 2>&1); then echo "main: ${out#plot: }"; else echo "main: the plot failed: $out"; fi
	fi
	if [ "$duration" -gt 0 ] && [ $(($(date +%s) - start)) -ge "$duration" ]; then
		break
	fi
done
