/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The table of samples both backends fill: one row per cgroup, one column
 * per selected stat. A value the kernel did not give for that row is
 * SAMPLE_VALUE_MISSING, never a made-up number.
 */
#ifndef MEMCG_BPF_SAMPLE_TABLE_H
#define MEMCG_BPF_SAMPLE_TABLE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "sampling/stat_catalog.h"

#define SAMPLE_VALUE_MISSING UINT64_MAX
/* A limit set to "max": shipped as +Inf (sample_value()). */
#define SAMPLE_VALUE_UNLIMITED (UINT64_MAX - 1)

struct sample_row {
	uint64_t cgroup_id;
	const char *path;   /* relative to the walk root, "/" for the root; owned by the table */
	int depth;          /* 0 for the walk root */
	bool partial;       /* only the rank stat was read (sampler_rank_only()) */
	uint64_t *values;   /* nr_stats values */
	size_t path_offset; /* private: where path lives in the table's buffer */
};

struct sample_table {
	size_t nr_stats;
	const struct stat_def **stats; /* the columns, borrowed from the sampler */
	size_t nr_columns;             /* nr_stats, then the inputs of derived stats nobody asked for */
	size_t nr_rows;
	struct sample_row *rows;

	uint64_t timestamp_ns;   /* CLOCK_REALTIME when the walk started */
	uint64_t duration_ns;    /* CLOCK_MONOTONIC time the walk took */
	uint64_t cpu_ns;         /* CPU time it cost the sampling thread (base/clock.h) */
	unsigned int skipped;    /* cgroups that vanished or could not be read mid-walk */

	/* storage, reused between samples */
	size_t cap_rows;
	uint64_t *value_buf;
	char *path_buf;
	size_t path_len, path_cap;
};

void sample_table_init(struct sample_table *t, const struct stat_def **stats, size_t nr_stats);
/*
 * Like sample_table_init(), with @nr_columns >= @nr_stats values per row:
 * the columns past nr_stats are sampled but not shown (stats[nr_stats..]).
 */
void sample_table_init_hidden(struct sample_table *t, const struct stat_def **stats, size_t nr_stats,
			      size_t nr_columns);
/* Empties the table, keeping its storage. */
void sample_table_reset(struct sample_table *t);
/*
 * Appends a row with all values SAMPLE_VALUE_MISSING and returns it, or NULL
 * on ENOMEM. Row pointers stay valid until the next add or reset.
 */
struct sample_row *sample_table_add(struct sample_table *t, uint64_t cgroup_id, const char *path, int depth);
/*
 * A value as shipped: bytes and counts as they are, microseconds in
 * seconds, SAMPLE_VALUE_UNLIMITED as +Inf. Not for SAMPLE_VALUE_MISSING.
 */
/*
 * The sample's time in whole milliseconds (rounded): the wire's timestamp,
 * and collectd's too, so that both show the same moment for a sample.
 */
static inline int64_t sample_table_ms(const struct sample_table *t)
{
	return (int64_t)((t->timestamp_ns + 500000u) / 1000000u);
}

static inline double sample_value(const struct stat_def *def, uint64_t v)
{
	if (v == SAMPLE_VALUE_UNLIMITED)
		return INFINITY;
	if (def && def->unit == STAT_UNIT_MICROSECONDS)
		return (double)v / 1e6;
	return (double)v;
}

/*
 * Swaps the rows of @a and @b with their storage and what the sample says of
 * them (timestamp, duration, cpu, skipped), so that rows change hands
 * without a copy. Both must have the same columns (the same stats array).
 */
void sample_table_swap_rows(struct sample_table *a, struct sample_table *b);

/* Frees the storage; safe on a zeroed or already freed table. */
void sample_table_free(struct sample_table *t);

#endif
