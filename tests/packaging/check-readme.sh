#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Checks that the README stays a user's README, true without dates:
#  - at most 400 lines;
#  - no dated run (YYYY-MM-DD) and no commit id (a word of 7 to 40
#    lowercase hex digits with a letter and a digit in it, or "commit X");
#    dated runs, commits and history belong in doc/ (doc/benchmarks.md,
#    doc/reliability.md, doc/design.md);
#  - the two set-up commands of a fresh Debian 12 machine, as written;
#  - every doc/ file, man page source and packaging/ or scripts/ path it
#    names exists, and every doc/*.md file is named in it.
#   check-readme.sh [SRCDIR]
# Without an argument: the source tree this script is in. No root, well
# under a second.
set -eu
src=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
readme=$src/README
fail=0
bad() {
	echo "check-readme: $*" >&2
	fail=1
}

[ -f "$readme" ] || { echo "check-readme: no $readme" >&2; exit 1; }

lines=$(wc -l <"$readme")
[ "$lines" -le 400 ] || bad "README has $lines lines, more than 400: move design notes, tables and history to doc/"

if grep -nE '(^|[^0-9])[12][0-9]{3}-[01][0-9]-[0-3][0-9]([^0-9]|$)' "$readme" >&2; then
	bad "README names dates (above): dated runs go to doc/"
fi
if grep -niE 'commit [0-9a-f]{7,40}' "$readme" >&2; then
	bad "README names commits (above): they go to doc/"
fi
# a bare commit id: a word of 7 to 40 hex digits with a letter and a digit
hex=$(grep -onE '\b[0-9a-f]{7,40}\b' "$readme" | awk -F: '$2 ~ /[a-f]/ && $2 ~ /[0-9]/' || true)
[ -z "$hex" ] || bad "README names what look like commit ids: $(echo "$hex" | tr '\n' ' ')"

for cmd in './scripts/main.sh' './scripts/test.sh'; do
	grep -qE "^    $(echo "$cmd" | sed 's/[.]/[.]/g')( |$)" "$readme" ||
		bad "README lacks the set-up command $cmd (indented by four spaces)"
	[ -x "$src/${cmd#./}" ] || bad "README's set-up command $cmd is not an executable in the tree"
done

# paths the README names at the top of the tree: doc/..., packaging/..., scripts/...
for p in $(grep -oE '(^|[^A-Za-z0-9_./-])(doc|packaging|scripts)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$readme" |
	sed 's,^[^dps],,' | sort -u); do
	[ -e "$src/$p" ] || bad "README names $p, which is not in the tree"
done
for f in "$src"/doc/*.md; do
	[ -e "$f" ] || continue
	grep -q "doc/$(basename "$f")" "$readme" || bad "README does not point to doc/$(basename "$f")"
done
[ -f "$src/COPYING" ] || bad "no COPYING"

[ $fail = 0 ] && echo "check-readme: README has $lines lines, no dates or commit ids, both set-up commands, every path it names"
exit $fail
