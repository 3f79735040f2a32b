# Shared by the tests/collectd/*.sh tests: a private collectd 5.12 daemon with
# the built memcg_bpf.so, in a temp dir, stopped by its own PID.
# Read only on the host's cgroups: nothing here creates or writes a cgroup.
# shellcheck shell=bash

BUILDDIR=${MEMCG_BPF_BUILDDIR:-$PWD}
COLLECTD=${COLLECTD:-$(command -v collectd || echo /usr/sbin/collectd)}
COLLECTD_PLUGINS=${COLLECTD_PLUGINS:-/usr/lib/collectd}
TYPESDB=${TYPESDB:-/usr/share/collectd/types.db}
CGROUP_ROOT=${MEMCG_BPF_ROOT:-/sys/fs/cgroup}
HOSTNAME_CD=mbtest

pass=0 fail=0 skipped=0
daemon_pid=

ok() { echo "ok - $*"; pass=$((pass + 1)); }
not_ok() { echo "not ok - $*"; fail=$((fail + 1)); }
skip_one() { echo "ok - # SKIP $*"; skipped=$((skipped + 1)); }
check() { # check DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

finish() {
	stop_daemon
	echo "$pass passed, $fail failed"
	if [ "$fail" -eq 0 ]; then
		rm -rf "$T"
		exit 0
	fi
	echo "# kept $T for inspection"
	exit 1
}

skip_all() {
	echo "ok - # SKIP $*"
	echo "0 passed, 0 failed"
	rm -rf "${T:-/nonexistent}"
	exit 77
}

# Which directory carries the memory controller (as cgroup_mount.c decides).
memory_dir() {
	if [ -r "$CGROUP_ROOT/memory.stat" ] && [ -r "$CGROUP_ROOT/cgroup.controllers" ]; then
		echo "$CGROUP_ROOT 2"
	elif [ -r "$CGROUP_ROOT/memory/memory.stat" ]; then
		echo "$CGROUP_ROOT/memory 1"
	elif grep -qw memory "$CGROUP_ROOT/unified/cgroup.controllers" 2>/dev/null; then
		echo "$CGROUP_ROOT/unified 2"
	fi
}

setup() {
	[ -x "$COLLECTD" ] || skip_all "collectd not installed (apt-get install collectd-core)"
	PLUGIN_SO=$BUILDDIR/.libs/memcg_bpf.so
	[ -f "$PLUGIN_SO" ] || skip_all "$PLUGIN_SO not built"
	read -r MEMDIR CGV <<<"$(memory_dir)"
	[ -n "${MEMDIR:-}" ] || skip_all "no memory cgroup hierarchy under $CGROUP_ROOT"
	T=$(mktemp -d "${TMPDIR:-/tmp}/memcg_bpf-collectd.XXXXXX")
	mkdir -p "$T/plugins"
	# collectd refuses symlinks in PluginDir: regular copies only
	cp "$PLUGIN_SO" "$T/plugins/memcg_bpf.so"
	for p in csv logfile load "$@"; do
		cp "$COLLECTD_PLUGINS/$p.so" "$T/plugins/$p.so" || skip_all "no $p.so in $COLLECTD_PLUGINS"
	done
	trap 'stop_daemon' EXIT
}

# write_conf NAME GLOBAL_INTERVAL MEMCG_LOADPLUGIN_BODY MEMCG_PLUGIN_BODY
# The tests read the plugin's self values as they come (samples taken, the
# sender's queue, drops): with every read (SelfInterval 0) unless
# MEMCG_PLUGIN_BODY sets SelfInterval.
write_conf() {
	local name=$1 interval=$2 load_body=$3 body=$4 dir=$T/$1
	case $body in
	*SelfInterval*) ;;
	*) body="$body
  SelfInterval 0" ;;
	esac
	rm -rf "$dir"
	mkdir -p "$dir/csv"
	cat >"$dir/collectd.conf" <<CONF
Hostname "$HOSTNAME_CD"
FQDNLookup false
BaseDir "$dir"
PIDFile "$dir/collectd.pid"
PluginDir "$T/plugins"
TypesDB "$TYPESDB"
Interval $interval
ReadThreads 2
WriteThreads 1
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$dir/collectd.log"
  Timestamp true
  PrintSeverity true
</Plugin>
LoadPlugin csv
<Plugin csv>
  DataDir "$dir/csv"
  StoreRates false
</Plugin>
LoadPlugin load
<LoadPlugin memcg_bpf>
$load_body
</LoadPlugin>
<Plugin memcg_bpf>
$body
</Plugin>
CONF
	echo "$dir"
}

# start_daemon DIR [WRAPPER...]: collectd -f in the background; sets daemon_pid.
start_daemon() {
	local dir=$1
	shift
	"$@" "$COLLECTD" -f -C "$dir/collectd.conf" >"$dir/stdout" 2>&1 &
	daemon_pid=$!
}

alive() { [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; }

# stop_daemon [TIMEOUT_S]: SIGTERM by PID, SIGKILL after the timeout; sets daemon_rc.
stop_daemon() {
	local i limit=$((${1:-20} * 10))
	daemon_rc=
	[ -n "$daemon_pid" ] || return 0
	kill -TERM "$daemon_pid" 2>/dev/null
	for ((i = 0; i < limit; i++)); do
		kill -0 "$daemon_pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$daemon_pid" 2>/dev/null; then
		echo "# daemon $daemon_pid ignored SIGTERM; killing it"
		kill -KILL "$daemon_pid" 2>/dev/null
	fi
	wait "$daemon_pid" 2>/dev/null
	daemon_rc=$?
	daemon_pid=
}

# rows FILE: data rows in a csv file (0 when missing)
rows() {
	if [ -f "$1" ]; then echo $(($(wc -l <"$1") - 1)); else echo 0; fi
}

# The csv file of one value: csv_file DIR PLUGIN_INSTANCE TYPE-TYPE_INSTANCE
csv_file() {
	local f
	for f in "$1/csv/$HOSTNAME_CD/memcg_bpf-$2/$3"-*; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	echo "$1/csv/$HOSTNAME_CD/memcg_bpf-$2/$3-missing"
}

load_csv() {
	local f
	for f in "$1/csv/$HOSTNAME_CD/load/load"-*; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	echo "$1/csv/$HOSTNAME_CD/load/load-missing"
}

# wait_rows FILE_CMD N TIMEOUT_S: waits until the file named by FILE_CMD has N rows
wait_rows() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		[ "$(rows "$(eval "$1")")" -ge "$2" ] && return 0
		alive || return 1
		sleep 0.1
	done
	return 1
}

# The plugin_instance rule of plugin/series/instance_name.h, for short paths.
instance_of() {
	local path=${1#/} out= c i hex LC_ALL=C
	if [ -z "$path" ]; then echo root; return; fi
	for ((i = 0; i < ${#path}; i++)); do
		c=${path:i:1}
		case $c in
		[A-Za-z0-9.@-]) out+=$c ;;
		/) out+=_ ;;
		*) printf -v hex '%02x' "'$c"; out+="+$hex" ;;
		esac
	done
	case $out in root | self) printf -v hex '+%02x' "'${out:0:1}"; out=$hex${out:1} ;; esac
	echo "$out"
}
