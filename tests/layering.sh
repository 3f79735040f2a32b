#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The folders under plugin/ are the layers (README, "Source map"). Bottom up:
#   base < sampling, allocinfo < series < wire < sending < config < plugin, cli
# A file may include headers of its own layer and of layers below it, and
# the generated headers (bpf/, proto/) of the layers that own them. This
# test fails on any include that reaches up, and on any project include
# that does not name its folder.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
rank() {
	case $1 in
	base) echo 0 ;;
	bpf) echo 1 ;; # the BPF record layout and skeleton: sampling's
	sampling) echo 1 ;;
	allocinfo) echo 1 ;; # the kernel's allocation profile, beside sampling
	series) echo 2 ;;
	proto) echo 3 ;; # generated protobuf-c code: wire's
	wire) echo 3 ;;
	sending) echo 4 ;;
	config) echo 5 ;;
	plugin | cli) echo 6 ;;
	*) echo -1 ;;
	esac
}
bad=0 checked=0
for dir in base sampling allocinfo series wire sending config plugin cli; do
	mine=$(rank "$dir")
	folder=$top/plugin/$dir # the core's layers are plugin/'s folders
	[ "$dir" = plugin ] && folder=$top/plugin
	for f in "$folder"/*.[ch]; do
		[ -f "$f" ] || continue
		for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
			checked=$((checked + 1))
			case $inc in
			memcg_bpf_config.h | collectd.h | plugin.h | utils/*) continue ;; # autoconf's, collectd's
			*/*) ;;
			*)
				echo "layering: $dir/${f##*/} includes \"$inc\" without its folder"
				bad=$((bad + 1))
				continue
				;;
			esac
			theirs=$(rank "${inc%%/*}")
			if [ "$theirs" -lt 0 ] || [ "$theirs" -gt "$mine" ]; then
				echo "layering: $dir/${f##*/} (layer $dir) includes $inc from a higher layer"
				bad=$((bad + 1))
			fi
		done
	done
done
# The top level is the design card's: the product, not its layers.
for entry in $(git -C "$top" ls-files 2>/dev/null | cut -d/ -f1 | sort -u); do
	case $entry in
	plugin | bpf | proto | packaging | tests | configure.ac | Makefile.am | README | COPYING | m4 | scripts | doc | build-aux | .*) ;;
	*)
		echo "layering: top-level entry $entry is not the design card's (plugin/, bpf/, proto/, packaging/, tests/, ...)"
		bad=$((bad + 1))
		;;
	esac
done
echo "layering: $checked includes checked, $bad against the layers"
[ "$bad" -eq 0 ]
