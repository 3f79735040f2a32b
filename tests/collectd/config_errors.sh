#!/bin/bash
# (b) Each bad input in <Plugin memcg_bpf> gives exactly one error line from
# the plugin, naming the key and the reason; the plugin's init fails and the
# daemon keeps running its other plugins (the load plugin keeps writing csv).
set -u
. "$(dirname "$0")/lib.sh"
setup

kfuncs=no
grep -qw bpf_get_mem_cgroup /proc/kallsyms 2>/dev/null && kfuncs=yes
mkdir -p "$T/not-a-cgroup"
mkfifo "$T/token.fifo"
head -c 5000 /dev/zero | tr '\0' a >"$T/token.long"

# name | <Plugin> body | text the error line must hold (grep -F)
CASES=(
	"unknown key|  Frobnicate 1|unknown config key \"Frobnicate\""
	"unknown stat|  Stat \"anon\" \"anonn\"|Stat \"anonn\": unknown stat; nearest valid names: anon"
	"bad regex|  Cgroup \"/system.slice/*\"\n  Cgroup \"/a(b/\"|Cgroup \"/a(b/\": not a valid POSIX extended regular expression"
	"wrong value type (string for a number)|  MaxDepth \"three\"|MaxDepth: expects exactly one whole number, got a string"
	"wrong value type (number for a boolean)|  IncludeRoot 2|IncludeRoot: expects exactly one boolean (true or false), got a number"
	"wrong value type (two values)|  Backend \"text\" \"bpf\"|Backend: expects exactly one string, got 2 values"
	"negative MaxDepth|  MaxDepth -1|MaxDepth -1: must be 0 or more"
	"unknown Backend|  Backend \"ebpf\"|Backend \"ebpf\": not one of auto, bpf, bpf-core, text"
	"missing CgroupRoot|  CgroupRoot \"$T/no/such/dir\"|CgroupRoot \"$T/no/such/dir\": cgroup root $T/no/such/dir: No such file or directory"
	"CgroupRoot without a memory hierarchy|  CgroupRoot \"$T/not-a-cgroup\"|CgroupRoot \"$T/not-a-cgroup\": no memory cgroup hierarchy under $T/not-a-cgroup"
	"Backend bpf without the kfuncs|  Backend \"bpf\"|Backend \"bpf\": backend bpf is not usable here: kernel lacks kfunc bpf_get_mem_cgroup"
	"malformed URL (a space)|  URL \"http://a b/x\"|URL \"http://a b/x\": not a valid URL: Bad hostname"
	"malformed URL (unclosed IPv6)|  URL \"https://[::1\"|URL \"https://[::1\": not a valid URL: Bad IPv6 address"
	"Timeout too small|  URL \"http://127.0.0.1:9/x\"\n  Timeout 0.0004|Timeout 0.0004: must be from 0.1 to 3600 seconds"
	"a single-value key twice|  MaxDepth 2\n  MaxDepth 3|MaxDepth: given more than once"
	"BearerTokenFile a FIFO (must not hang collectd)|  URL \"http://127.0.0.1:9/api/v1/write\"\n  BearerTokenFile \"$T/token.fifo\"|BearerTokenFile \"$T/token.fifo\": not a regular file"
	"BearerTokenFile too long|  URL \"http://127.0.0.1:9/api/v1/write\"\n  BearerTokenFile \"$T/token.long\"|BearerTokenFile \"$T/token.long\": 5000 bytes; a secret file holds at most 4095"
)

n=0
for c in "${CASES[@]}"; do
	IFS='|' read -r name body expect <<<"$c"
	n=$((n + 1))
	if [ "$name" = "Backend bpf without the kfuncs" ] && [ $kfuncs = yes ]; then
		skip_one "$name: this kernel has the memcg kfuncs"
		continue
	fi
	dir=$(write_conf "case$n" 1 "" "$(printf '%b' "$body")")
	start_daemon "$dir"
	# other plugins keep running: load writes 3 rows after memcg_bpf's init failed
	if wait_rows "load_csv '$dir'" 3 15 && alive; then
		ok "$name: daemon alive and the load plugin still writing"
	else
		not_ok "$name: daemon died or load stopped writing ($(tail -n 3 "$dir/stdout" "$dir/collectd.log" 2>/dev/null | tr '\n' ' '))"
	fi
	stop_daemon
	errors=$(grep -c '\[error\] memcg_bpf plugin: ' "$dir/collectd.log")
	line=$(grep '\[error\] memcg_bpf plugin: ' "$dir/collectd.log" | head -n 1)
	if [ "$errors" -eq 1 ] && grep -qF -- "$expect" <<<"$line"; then
		ok "$name: one error: ${line#*\] \[error\] }"
	else
		not_ok "$name: $errors error lines, wanted one holding '$expect': $(grep '\[error\]' "$dir/collectd.log" | tr '\n' ' ')"
	fi
	check "$name: collectd reports the plugin's init failed" \
		grep -q "Initialization of plugin \`memcg_bpf' failed" "$dir/collectd.log"
	check "$name: no memcg_bpf values written" test ! -e "$dir/csv/$HOSTNAME_CD/memcg_bpf-root" -a ! -e "$dir/csv/$HOSTNAME_CD/memcg_bpf-self"
done

# the good config next to them does work (the checks above can tell the difference)
# (the sampling keys of collectd-memcg_bpf(5); several values per Stat line, Stat repeated)
dir=$(write_conf good 1 "" '  Backend "auto"
  CgroupRoot "'"$CGROUP_ROOT"'"
  Stat "anon" "file" "kernel" "shmem" "pgfault" "pgmajfault" "usage" "oom_kill_local"
  Stat "file_mapped"
  Cgroup "/system.slice/*"
  Cgroup "/^/$/"
  IgnoreSelected false
  MaxDepth 3
  IncludeRoot true
  DispatchValues true
  ReportSelf true')
start_daemon "$dir"
check "control: a good config writes memcg_bpf values" wait_rows "csv_file '$dir' root bytes-anon" 2 15
stop_daemon
check "control: and logs no error" bash -c "! grep -q '\[error\]' '$dir/collectd.log'"

# collectd -t only parses the syntax (collectd 5.12 runs no plugin for it);
# collectd -T runs the plugin's config and init: it reports what memcg_bpf
# rejects, and exits 1.
dir=$(write_conf test-mode 1 "" '  Frobnicate 1')
check "collectd -t passes a config the plugin rejects (syntax only)" "$COLLECTD" -t -C "$dir/collectd.conf"
if timeout 60 "$COLLECTD" -T -C "$dir/collectd.conf" >"$dir/T.out" 2>&1; then rc=0; else rc=$?; fi
check "collectd -T exits 1 on a config the plugin rejects" [ "$rc" = 1 ]
check "collectd -T shows the plugin's error" grep -q 'unknown config key "Frobnicate"' "$dir/T.out" "$dir/collectd.log"
finish
