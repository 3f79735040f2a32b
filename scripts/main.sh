#!/bin/sh
# The main job of the README: builds memcg_bpf and runs the collectd daemon
# in the foreground with the plugin, sampling this host's memory cgroups
# every 10 s with the best backend the kernel allows. Values go to CSV files
# under build/main/csv; collectd's log goes to stdout.
#   INTERVAL=10 ./scripts/main.sh
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
"$top/scripts/deps.sh"
BUILD_DIR=$build "$top/scripts/build.sh" >/dev/null
run=$build/main
mkdir -p "$run/plugins" "$run/csv"
# collectd refuses symlinks in PluginDir: regular copies
cp "$build/.libs/memcg_bpf.so" "$run/plugins/"
for p in csv logfile; do cp "/usr/lib/collectd/$p.so" "$run/plugins/"; done
cat >"$run/collectd.conf" <<CONF
Interval ${INTERVAL:-10}
BaseDir "$run"
PIDFile "$run/collectd.pid"
PluginDir "$run/plugins"
TypesDB "/usr/share/collectd/types.db"
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File STDOUT
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
</Plugin>
CONF
echo "main: collectd with memcg_bpf, config $run/collectd.conf, values in $run/csv (Ctrl-C stops)"
exec /usr/sbin/collectd -f -C "$run/collectd.conf"
