#!/bin/sh
# Checks that collectd-memcg_bpf(5) follows the code:
#  - every key of plugin/config/plugin_config.c's key table is documented as a
#    .TP item of doc/collectd-memcg_bpf.5.in, and every key documented there
#    exists in the table;
#  - the built man page lists every stat of memcg-bpf-sample --list-stats;
#  - both built pages (doc/*.in -> doc/*) have no @PLACEHOLDER@ left and
#    their footers name the version of the build tree's Makefile;
#  - man --warnings finds nothing to say about either man page.
#   check-man.sh [SRCDIR BUILDDIR]
# Without arguments (make check runs it from the build directory): the
# source tree this script is in, and the current directory. Needs no root
# and takes well under a second, so a config key added without its
# documentation fails make check.
set -eu
src=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${2:-$(pwd)}
tmpl="$src/doc/collectd-memcg_bpf.5.in"
page="$build/doc/collectd-memcg_bpf.5"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sed -n '/^static const struct cfg_key keys\[\] = {/,/^};/s/^[[:space:]]*{ "\([A-Za-z]*\)",.*/\1/p' \
	"$src/plugin/config/plugin_config.c" | sort -u >"$tmp/code"
[ -s "$tmp/code" ] || { echo "check-man: no key table found in plugin/config/plugin_config.c" >&2; exit 1; }
# .TP items of the CONFIGURATION sections: "\fBKey\fR ..." (and "\fBA\fR ..., \fBB\fR ...")
awk '/^\.SH "CONFIGURATION/ { on = 1; next } /^\.SH/ { on = 0 }
     on && prev == ".TP" { print } { prev = $0 }' "$tmpl" |
	grep -o '^\\fB[A-Za-z]*\\fR\|, \\fB[A-Za-z]*\\fR' | sed 's/^, //; s/\\fB//; s/\\fR//' | sort -u >"$tmp/man"
for k in $(comm -23 "$tmp/code" "$tmp/man"); do
	echo "check-man: config key $k (plugin/config/plugin_config.c) is not documented in doc/collectd-memcg_bpf.5.in" >&2
	fail=1
done
for k in $(comm -13 "$tmp/code" "$tmp/man"); do
	echo "check-man: doc/collectd-memcg_bpf.5.in documents $k, which plugin/config/plugin_config.c does not know" >&2
	fail=1
done
echo "check-man: $(wc -l <"$tmp/code") config keys in the code, $(wc -l <"$tmp/man") documented"

[ -f "$page" ] || { echo "check-man: $page not built (make)" >&2; exit 1; }
n=0
# the catalog: --list-stats up to its blank line (the per-node stats follow)
for s in $("$build/memcg-bpf-sample" --list-stats | awk 'NF == 0 { exit } NR > 1 { print $1 }'); do
	n=$((n + 1))
	grep -q "^$s\\*\\{0,1\\}@" "$page" || { echo "check-man: stat $s missing from $page (stale? run make)" >&2; fail=1; }
done
echo "check-man: $n stats in the catalog, all in the man page" | { [ $fail = 0 ] && cat || true; }
n=0
for s in $("$build/memcg-bpf-sample" --list-stats | awk 'NF == 0 { on = 1; next } on && $1 != "Per" { print $1 }'); do
	n=$((n + 1))
	grep -q "^$s@.*@memcg_numa_" "$page" || { echo "check-man: per-node stat $s missing from $page (stale? run make)" >&2; fail=1; }
done
[ $n -gt 0 ] || { echo "check-man: memcg-bpf-sample --list-stats lists no per-node stats" >&2; fail=1; }
echo "check-man: $n per-node stats, all in the man page" | { [ $fail = 0 ] && cat || true; }

# no placeholder left: the footer names the version (configure substituted
# @VERSION@ inside the Makefile's own sed once, which left it in the page)
# both pages are built from doc/*.in; each footer names the version
page1="$build/doc/memcg-bpf-sample.1"
[ -f "$page1" ] || { echo "check-man: $page1 not built (make)" >&2; exit 1; }
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$build/Makefile")
for p in "$page" "$page1"; do
	grep -q "^\.TH .*\"memcg_bpf $version\"" "$p" ||
		{ echo "check-man: the footer of $p does not name version $version: $(grep '^\.TH' "$p")" >&2; fail=1; }
	if grep -n '@[A-Z]*@' "$p" >"$tmp/left"; then
		echo "check-man: placeholders left in $p:" >&2
		cat "$tmp/left" >&2
		fail=1
	fi
done
echo "check-man: both footers name memcg_bpf $version" | { [ $fail = 0 ] && cat || true; }

command -v man >/dev/null || { echo "check-man: man (man-db) not installed: man --warnings not run"; exit $fail; }
for p in "$page" "$page1"; do
	MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -E UTF-8 -l -Tutf8 -Z "$p" >/dev/null 2>"$tmp/warn" || true
	if [ -s "$tmp/warn" ]; then
		echo "check-man: man --warnings on $p:" >&2
		cat "$tmp/warn" >&2
		fail=1
	fi
done
exit $fail
