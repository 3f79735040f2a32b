#!/bin/sh
# libFuzzer targets of tests/fuzz, built with ASan + UBSan against the core
# archive of the sanitizer build (${ASAN_BUILD_DIR:-build-asan}; made by
# scripts/sanitize.sh --build-only when missing).
#
#   fuzz.sh list               the target names
#   fuzz.sh ci TARGET          deterministic: -seed=$FUZZ_SEED (1) and
#                              -runs=$FUZZ_RUNS (per target, below) on a fresh
#                              copy of the kept corpus; what CI runs. Seed
#                              and run count alone did not make two runs of
#                              a commit alike, so: no address randomisation
#                              (setarch -R: UBSan's pointer checks are
#                              branches on addresses, and coverage counts
#                              them), no comparison-guided mutation
#                              (-use_cmp=0: it copies compared values, heap
#                              addresses too, into inputs) and no timed
#                              corpus reload (-reload=0)
#   fuzz.sh random [SECONDS]   every target for SECONDS (600) with a random
#                              seed, new inputs kept in $build/fuzz-corpus;
#                              what `make fuzz` runs
#
# A crash leaves crash-* in the build folder: add it to
# tests/fuzz/corpus/TARGET/ as a regression input, so that the ci mode
# replays it on every run from then on.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${ASAN_BUILD_DIR:-$top/build-asan}
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Runs per target in ci mode: about 5-10 s each under ASan on this
# project's 2-core machines.
ci_runs() {
	case $1 in
	memory_stat) echo 200000 ;;
	plugin_config) echo 4000 ;; # unknown stats run the edit-distance suggester
	label_escape) echo 200000 ;;
	spool_reader) echo 200000 ;;
	*) echo 200000 ;;
	esac
}

targets() {
	for src in "$top"/tests/fuzz/fuzz_*.c; do
		name=$(basename "$src" .c)
		echo "${name#fuzz_}"
	done
}

# build TARGET: links $build/fuzz_TARGET from the core archive libtool built.
build() {
	core=$build/.libs/libmemcg_core.a
	[ -f "$core" ] || ASAN_BUILD_DIR=$build "$top/scripts/sanitize.sh" --build-only
	libs="$(pkg-config --libs libbpf libelf) $(pkg-config --libs libprotobuf-c libcurl 2>/dev/null || true) -lm"
	# shellcheck disable=SC2046,SC2086
	clang -g -O1 $san -fsanitize=fuzzer -I"$top/plugin" -I"$top" -I"$build" \
		"$top/tests/fuzz/fuzz_$1.c" "$core" $libs $(cat "$build/fuzz-extra-libs" 2>/dev/null) \
		-o "$build/fuzz_$1" >"$build/fuzz_$1.build.log" 2>&1 || {
		echo "fuzz: building fuzz_$1 failed:" >&2
		tail -n 20 "$build/fuzz_$1.build.log" >&2
		return 1
	}
}

# fresh_corpus TARGET: a copy of the kept corpus that the run may add to.
fresh_corpus() {
	corpus=$build/fuzz-corpus/$1
	rm -rf "$corpus"
	mkdir -p "$corpus"
	cp "$top/tests/fuzz/corpus/$1"/* "$corpus/"
}

case ${1:-} in
list)
	targets
	;;
ci)
	target=${2:?usage: fuzz.sh ci TARGET}
	build "$target"
	fresh_corpus "$target"
	cd "$build"
	exec setarch "$(uname -m)" -R "$build/fuzz_$target" -seed="${FUZZ_SEED:-1}" -runs="${FUZZ_RUNS:-$(ci_runs "$target")}" -use_cmp=0 -reload=0 \
		-timeout=60 -rss_limit_mb=2048 -print_final_stats=1 "$build/fuzz-corpus/$target"
	;;
random)
	seconds=${2:-600}
	status=0
	for target in $(targets); do
		build "$target"
		mkdir -p "$build/fuzz-corpus/$target"
		cp -n "$top/tests/fuzz/corpus/$target"/* "$build/fuzz-corpus/$target/"
		echo "fuzz: $target for ${seconds} s"
		(cd "$build" && "$build/fuzz_$target" -max_total_time="$seconds" -timeout=10 \
			-rss_limit_mb=2048 -print_final_stats=1 "$build/fuzz-corpus/$target") || status=1
	done
	exit $status
	;;
*)
	echo "usage: fuzz.sh list | ci TARGET | random [SECONDS]" >&2
	exit 2
	;;
esac
