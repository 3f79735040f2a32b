#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# memcg-bpf-sample --allocinfo FILE on files made here (issue 37):
#  - a 5,000-site file in format 2.0 (made with awk: bytes, calls, modules,
#    accurate:no, ties): the CLI's JSON gives exactly the top 25 sites by
#    bytes (ties: calls, then names), with their bytes and calls, as sort(1)
#    ranks them here, and an "other" row with the rest's sums;
#  - the table shows the same top;
#  - the real 7.3.4 capture (tests/data): its top and other add up to the file;
#  - --allocinfo-backend ioctl on a file (no binary interface) is an error
#    saying so, auto reads it as text;
#  - damaged files (a bad number, a cut line, no header, version 3.0) end in
#    exit status 1 and an error naming the line; a missing file in 1 and
#    an error naming the kernel option.
set -u
BIN=${MEMCG_BPF_SAMPLE:?set MEMCG_BPF_SAMPLE to the memcg-bpf-sample binary}
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
not_ok() { echo "not ok - $*"; fail=$((fail + 1)); }

# 5,000 sites: bytes from a fixed LCG with many ties, every 7th in a module, every 5th accurate:no
awk 'BEGIN {
	print "allocinfo - version: 2.0"; print "#     <size>  <calls> <tag info>"
	x = 12345
	for (i = 0; i < 5000; i++) {
		x = (x * 1103515245 + 12345) % 2147483648
		b = (x % 300) * 4096; c = int(x / 300) % 50
		mod = i % 7 == 0 ? sprintf(" [mod%d]", i % 3) : ""
		acc = i % 5 == 0 ? " accurate:no" : ""
		printf "%12d %8d dir%d/file%d.c:%d%s func:f%d%s \n", b, c, i % 13, i, i % 997 + 1, mod, i, acc
	}
}' > "$tmp/fixture"
# the expected top 25: bytes, then calls (both descending), then site, module, func
awk 'NR > 2 { m = ""; for (i = 4; i <= NF; i++) if ($i ~ /^\[/) m = substr($i, 2, length($i) - 2);
	f = ""; for (i = 4; i <= NF; i++) if ($i ~ /^func:/) f = substr($i, 6);
	print $1, $2, $3, m, f }' "$tmp/fixture" |
	LC_ALL=C sort -k1,1nr -k2,2nr -k3,3 -k4,4 -k5,5 | head -n 25 | awk '{ print $3, $1, $2 }' > "$tmp/want"

if "$BIN" --allocinfo "$tmp/fixture" --allocinfo-top 25 --format json > "$tmp/json" 2> "$tmp/err"; then
	grep -v '"other":true' "$tmp/json" | sed 's/.*"site":"\([^"]*\)".*"bytes":\([0-9-]*\),"calls":\([0-9]*\).*/\1 \2 \3/' > "$tmp/got"
	if cmp -s "$tmp/want" "$tmp/got"; then
		ok "5,000-site fixture: the JSON's top 25 sites, bytes and calls are sort(1)'s"
	else
		not_ok "5,000-site fixture: top 25 differs (< want, > got): $(diff "$tmp/want" "$tmp/got" | head -n 6 | tr '\n' ' ')"
	fi
	total=$(awk 'NR > 2 { s += $1 } END { printf "%.0f\n", s }' "$tmp/fixture")
	got=$(awk '{ if (match($0, /"bytes":-?[0-9]+/)) s += substr($0, RSTART + 8, RLENGTH - 8) } END { printf "%.0f\n", s }' "$tmp/json")
	# the sites that hold memory (bytes != 0) are ranked; the rest of them is "other"
	held=$(awk 'NR > 2 && $1 != 0' "$tmp/fixture" | wc -l)
	other=$(grep -c "\"other\":true,\"sites\":$((held - 25))," "$tmp/json")
	if [ "$got" = "$total" ] && [ "$other" = 1 ]; then
		ok "the top 25 and the other row ($((held - 25)) sites) add up to the file's $total bytes"
	else
		not_ok "top + other bytes $got, file $total; other rows with $((held - 25)) sites: $other"
	fi
else
	not_ok "--allocinfo on the fixture: exit $?: $(head -n 1 "$tmp/err")"
fi

if "$BIN" --allocinfo "$tmp/fixture" --allocinfo-top 25 > "$tmp/table" 2> "$tmp/err" &&
	awk '!/^#/ && !/^ *BYTES/ { print $4, $1, $2 }' "$tmp/table" | cmp -s - "$tmp/want"; then
	ok "the table shows the same top 25"
else
	not_ok "the table's top 25 differs: $(head -n 3 "$tmp/table" | tr '\n' ' ')"
fi

capture=$top/tests/data/allocinfo-7.3.4-defconfig.txt
total=$(awk 'NR > 2 { s += $1 } END { printf "%.0f\n", s }' "$capture")
got=$("$BIN" --allocinfo "$capture" --format json 2>/dev/null |
	awk '{ if (match($0, /"bytes":-?[0-9]+/)) s += substr($0, RSTART + 8, RLENGTH - 8) } END { printf "%.0f\n", s }')
if [ "$got" = "$total" ]; then ok "the 7.3.4 capture: top 25 and other add up to $total bytes"; else not_ok "capture: $got bytes, file $total"; fi

"$BIN" --allocinfo "$tmp/fixture" --allocinfo-backend ioctl > /dev/null 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'no binary interface on this file' "$tmp/err"; then ok "ioctl on a file: exit 1, said why"; else not_ok "ioctl on a file: exit $rc: $(head -n 1 "$tmp/err")"; fi
if "$BIN" --allocinfo "$tmp/fixture" --allocinfo-backend auto | head -n 1 | grep -q 'text reader: 5000 call sites read'; then
	ok "auto on a file reads it as text"
else
	not_ok "auto on a file: $("$BIN" --allocinfo "$tmp/fixture" 2>&1 | head -n 1)"
fi

# damaged: exit 1 and the line named
damaged() {
	name=$1 want=$2
	"$BIN" --allocinfo "$tmp/damaged" > /dev/null 2> "$tmp/err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "$want" "$tmp/err"; then
		ok "damaged ($name): exit 1, \"$(head -n 1 "$tmp/err" | cut -c 1-100)\""
	else
		not_ok "damaged ($name): exit $rc, stderr: $(head -n 1 "$tmp/err")"
	fi
}
sed '30s/^ *[0-9]*/  abc/' "$tmp/fixture" > "$tmp/damaged"
damaged "bad size" "line 30: the size is not a number"
sed '1000s/ func:.*//' "$tmp/fixture" > "$tmp/damaged"
damaged "cut line" "line 1000: no func: field"
sed 1d "$tmp/fixture" > "$tmp/damaged"
damaged "no header" "line 1: no \"allocinfo - version: X.Y\" header"
sed '1s/2\.0/3.0/' "$tmp/fixture" > "$tmp/damaged"
damaged "version 3.0" "line 1: an allocinfo format this version does not read"
"$BIN" --allocinfo "$tmp/nonexistent" > /dev/null 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'CONFIG_MEM_ALLOC_PROFILING' "$tmp/err"; then ok "no file: exit 1, the kernel option named"; else not_ok "no file: exit $rc: $(head -n 1 "$tmp/err")"; fi

echo "allocinfo_cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
