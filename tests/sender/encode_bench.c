// SPDX-License-Identifier: GPL-2.0-only
/*
 * What one interval costs the sender, per format and compression, at N
 * cgroups (default 1000) and the default stats: bytes on the wire per sample
 * value and CPU time to build the series (labels, stale tracking: build_ms),
 * then to encode and compress them (encode_ms, of which compress_ms
 * compressing); cpu_ms is the sum, each a
 * median over the intervals. Made-up but realistic paths (systemd slices and services), values
 * that move between intervals. No network: HTTP costs are not included.
 * What stays allocated between intervals, per series (malloc's count, after
 * the last interval): held_B/series is all of it, of which labels_B in the
 * label cache, kept_B in the kept requests (blocks or protobuf, and where
 * their samples lie), bufs_B in the other buffers of the payload list and
 * set_B in the series set and the stale tracker.
 * usage: encode-bench [CGROUPS [ROUNDS [ONLY]]]; ONLY, a format
 * (remote_write, remote_write_v2, otlp) or a format and a compression
 * (otlp/zstd), runs those rows only, for a profile.
 */
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/macros.h"
#include "wire/batch_encode.h"
#include "sampling/sample_table.h"
#include "series/series_set.h"
#include "series/snapshot.h"
#include "sampling/stat_catalog.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Bytes malloc has handed out and not taken back, small and mmapped alike. */
static size_t heap_in_use(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Whether @only ("FORMAT" or "FORMAT/COMPRESSION") names the row of @f and @c. */
static bool row_wanted(const char *only, enum wire_format f, enum compression c)
{
	char row[64];

	if (strchr(only, '/'))
		snprintf(row, sizeof(row), "%s/%s", wire_format_name(f), compression_name(c));
	else
		snprintf(row, sizeof(row), "%s", wire_format_name(f));
	return strcmp(only, row) == 0;
}

int main(int argc, char **argv)
{
	static const struct {
		enum wire_format f;
		enum compression c;
	} combos[] = {
		{ WIRE_REMOTE_WRITE, COMPRESSION_SNAPPY }, { WIRE_REMOTE_WRITE, COMPRESSION_ZSTD },
		{ WIRE_REMOTE_WRITE_V2, COMPRESSION_SNAPPY }, { WIRE_OTLP, COMPRESSION_NONE },
		{ WIRE_OTLP, COMPRESSION_GZIP }, { WIRE_OTLP, COMPRESSION_ZSTD },
	};
	size_t n = argc > 1 ? (size_t)atol(argv[1]) : 1000, rounds = argc > 2 ? (size_t)atol(argv[2]) : 21;
	const struct stat_def *stats[64];
	size_t nr_stats;
	const struct label_pair lab[] = { { "dc", "eu-west-1" } };
	struct series_opts o = { .host = "node-0042.example.net", .labels = lab, .nr_labels = 1 };
	struct batch_limits lim = { .max_samples = BATCH_DEFAULT_MAX_SAMPLES, .max_bytes = BATCH_DEFAULT_MAX_BYTES };

	if (stat_parse_list(NULL, stats, 64, &nr_stats))
		return 1;
	printf("%zu cgroups x %zu stats, MaxSamplesPerSend %zu, median of %zu intervals\n", n, nr_stats,
	       lim.max_samples, rounds);
	printf("%-16s %-7s %10s %9s %12s %9s %9s %11s %9s %14s %9s %7s %7s %6s\n", "format", "comp",
	       "bytes/int", "requests", "bytes/value", "build_ms", "encode_ms", "compress_ms", "cpu_ms",
	       "held_B/series", "labels_B", "kept_B", "bufs_B", "set_B");
	for (size_t k = 0; k < ARRAY_SIZE(combos); k++) {
		if (argc > 3 && !row_wanted(argv[3], combos[k].f, combos[k].c))
			continue;
		size_t base = heap_in_use(); /* before anything of this format's */
		struct stale_tracker *st = stale_tracker_new();
		struct series_set set;
		struct payload_list pl = { 0 };
		double *cpu = calloc(4 * rounds, sizeof(double)), *build = cpu + rounds, *enc = cpu + 2 * rounds;
		double *comp = cpu + 3 * rounds;
		size_t bytes = 0, reqs = 0, values = 0, held, labels, kept, bufs, set_held;

		series_set_init(&set);
		for (size_t r = 0; r < rounds + 1; r++) {
			struct sample_table t;
			struct snapshot *snap;
			char path[128];
			double t0, t1;
			uint64_t comp0;
			int err;

			sample_table_init(&t, stats, nr_stats);
			t.timestamp_ns = (1800000000ULL + 10 * r) * 1000000000ULL + 1234567;
			for (size_t i = 0; i < n; i++) {
				struct sample_row *row;

				snprintf(path, sizeof(path), "/system.slice/app-%zu.slice/worker-%zu.service", i / 20, i);
				row = sample_table_add(&t, i + 1, path, 2);
				for (size_t c = 0; c < nr_stats; c++)
					row->values[c] = stats[c]->type == STAT_COUNTER ? (i + 1) * 1000 + r * (c + 7)
							 : ((i * 7919 + c * 104729 + r * 4096) % 100000) * 4096;
			}
			snapshot_from_table(&t, NULL, NULL, &snap);
			sample_table_free(&t);
			payload_list_clear(&pl);
			t0 = cpu_now();
			series_set_build(&set, &o, snap, st);
			t1 = cpu_now();
			comp0 = pl.compress_cpu_ns;
			err = batch_encode(&set, combos[k].f, combos[k].c, &lim, &pl);
			if (err) {
				fprintf(stderr, "encode-bench: %s + %s: %s\n", wire_format_name(combos[k].f),
					compression_name(combos[k].c), strerror(-err));
				return 1;
			}
			if (r > 0) { /* the first interval has no stale state to compare with */
				cpu[r - 1] = cpu_now() - t0;
				build[r - 1] = t1 - t0;
				enc[r - 1] = cpu[r - 1] - build[r - 1];
				comp[r - 1] = (pl.compress_cpu_ns - comp0) / 1e9;
			}
			if (r == rounds) {
				for (size_t i = 0; i < pl.n; i++)
					bytes += pl.p[i].len;
				reqs = pl.n;
				values = snap->nr_values;
			}
			snapshot_free(snap);
		}
		for (size_t m = 0; m < 4; m++)
			qsort(cpu + m * rounds, rounds, sizeof(double), cmp_double);
		held = heap_in_use() - base;
		label_cache_free(pl.cache);
		pl.cache = NULL;
		labels = held - (heap_in_use() - base);
		kept_requests_clear(&pl.kept);
		kept = held - labels - (heap_in_use() - base);
		payload_list_free(&pl);
		bufs = held - labels - kept - (heap_in_use() - base);
		series_set_free(&set);
		stale_tracker_free(st);
		set_held = held - labels - kept - bufs - (heap_in_use() - base);
		printf("%-16s %-7s %10zu %9zu %12.2f %9.2f %9.2f %11.2f %9.2f %14.1f %9.1f %7.1f %7.1f %6.1f\n",
		       wire_format_name(combos[k].f), compression_name(combos[k].c), bytes, reqs,
		       (double)bytes / values, build[rounds / 2] * 1e3, enc[rounds / 2] * 1e3,
		       comp[rounds / 2] * 1e3, cpu[rounds / 2] * 1e3, (double)held / values,
		       (double)labels / values, (double)kept / values, (double)bufs / values,
		       (double)set_held / values);
		free(cpu);
	}
	return 0;
}
