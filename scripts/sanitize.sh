#!/bin/sh
# AddressSanitizer + UndefinedBehaviorSanitizer run: builds the tree with
# clang and both sanitizers in ${ASAN_BUILD_DIR:-build-asan}, runs the unit
# tests, the host CLI tests and the collectd-daemon tests (the plugin under
# ASan inside the stock daemon, with the ASan runtime preloaded), then runs
# each libFuzzer target of tests/fuzz for ${FUZZ_SECONDS:-20} s on a copy of
# its corpus. Any sanitizer report or fuzzer crash fails the run.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${ASAN_BUILD_DIR:-$top/build-asan}
seconds=${FUZZ_SECONDS:-20}
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

cd "$top"
[ -x configure ] || autoreconf -fi
mkdir -p "$build"
cd "$build"
[ -f Makefile ] || "$top/configure" -q CC=clang \
	CFLAGS="-g -O1 -fno-omit-frame-pointer $san -fsanitize=fuzzer-no-link" LDFLAGS="$san"
make -j"$(nproc)" >make.log 2>&1 || { tail -n 30 make.log; exit 1; }
make -j"$(nproc)" $(make -s -f - print-check <<'MK' 2>/dev/null
include Makefile
print-check: ; @echo $(check_PROGRAMS)
MK
) >>make.log 2>&1 || { tail -n 30 make.log; exit 1; }

pass=0 fail=0
run() { # run NAME COMMAND...
	name=$1
	shift
	if "$@" >"$build/$(echo "$name" | tr / _).log" 2>&1; then
		echo "ok - $name"
		pass=$((pass + 1))
	else
		echo "not ok - $name"
		tail -n 30 "$build/$(echo "$name" | tr / _).log" | sed 's/^/  | /'
		fail=$((fail + 1))
	fi
}

for t in tests/unit/test_*; do
	[ -x "$t" ] && [ "${t%.o}" = "$t" ] || continue
	run "$t" "$t"
done
run tests/host/cli_host.sh env MEMCG_BPF_SAMPLE="$build/memcg-bpf-sample" sh "$top/tests/host/cli_host.sh"

# The stock collectd is not instrumented: preload the ASan runtime so the
# plugin's checks work inside it; collectd's own leaks are not ours.
asan_rt=$(clang -print-file-name=libclang_rt.asan-x86_64.so)
for t in "$top"/tests/collectd/values.sh "$top"/tests/collectd/config_errors.sh; do
	[ -f "$t" ] || continue
	run "collectd/$(basename "$t")" env LD_PRELOAD="$asan_rt" ASAN_OPTIONS=abort_on_error=1:detect_leaks=0 \
		MEMCG_BPF_BUILDDIR="$build" bash "$t"
done

# libFuzzer targets: the core archive libtool built, plus the target.
core=$build/.libs/libmemcg_core.a
libs="$(pkg-config --libs libbpf libelf) $(pkg-config --libs libprotobuf-c libcurl 2>/dev/null || true) -lm"
for src in "$top"/tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	target=${name#fuzz_}
	# shellcheck disable=SC2086
	if ! clang -g -O1 $san -fsanitize=fuzzer -I"$top/plugin" -I"$build/bpf" -I"$build" \
		"$src" "$core" $libs $(cat "$build/fuzz-extra-libs" 2>/dev/null) -o "$build/$name" \
		>"$build/$name.build.log" 2>&1; then
		echo "not ok - fuzz/$target (build)"
		tail -n 20 "$build/$name.build.log" | sed 's/^/  | /'
		fail=$((fail + 1))
		continue
	fi
	corpus=$build/fuzz-corpus/$target
	rm -rf "$corpus"
	mkdir -p "$corpus"
	cp "$top/tests/fuzz/corpus/$target"/* "$corpus/"
	run "fuzz/$target (${seconds}s)" "$build/$name" -max_total_time="$seconds" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 "$corpus"
	grep -h 'stat::number_of_executed_units' "$build/fuzz_${target}_*.log" "$build"/fuzz_"$target"*.log 2>/dev/null | head -n 1 | sed 's/^/  /'
done

echo "sanitize: $pass passed, $fail failed"
[ $fail -eq 0 ]
