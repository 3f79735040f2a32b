/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The stale tracker's insides (series/series_set.h has its public side):
 * per cgroup path, which stats were sent last, since when the cgroup is
 * seen, and the identity labels its series were sent with. Internal to
 * series/.
 */
#ifndef MEMCG_BPF_STALE_TRACKER_H
#define MEMCG_BPF_STALE_TRACKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "series/cgroup_ident.h"
#include "series/row_labels.h"
#include "series/series_set.h"

struct tracked {
	char *path;
	uint64_t *bits;   /* which stats were sent: words of the tracker's bit pool */
	int64_t first_ms; /* the sample time the cgroup was first seen (since it last vanished) */
	struct ident *id; /* the identity labels its series were sent with */
};

/* An allocation-profile series sent at the last read: what its stale marker needs. */
struct alloc_sent {
	const char *name; /* static metric name */
	char *site, *module, *func;
};

struct stale_tracker {
	const struct stat_def **stats; /* the columns the entries' bits are of */
	size_t nr_stats;
	size_t words;            /* of bits per entry: one per 64 columns */
	uint64_t *bits;          /* the entries' bits, words each */
	struct tracked *entries; /* sorted by path */
	size_t nr;
	size_t *row_entry; /* nr: the entry of each row of the last snapshot, in its row order */
	uint64_t gen;      /* changes with every update */
	int64_t born_ms; /* the sample time of the first snapshot: start of the self counters */
	struct alloc_sent *alloc; /* series/alloc_series.c */
	size_t nr_alloc;
};

/* series/alloc_series.c: the allocation profile's items, and stale markers for sites gone since the last read. */
int add_alloc_items(struct series_set *set, const struct series_opts *o, const struct snapshot *snap,
		    struct stale_tracker *st);
void alloc_sent_clear(struct stale_tracker *st);

void tracker_first_seen(struct stale_tracker *st, const struct snapshot *snap, const size_t *order,
			int64_t *row_first, size_t *row_entry);
int add_stale_markers_and_remember(struct series_set *set, const struct series_opts *o,
				   const struct snapshot *snap, const struct metric_name_len *names,
				   const size_t *order, const int64_t *row_first, struct row_idents *ri,
				   struct stale_tracker *st);
bool same_shape_as_last(const struct series_set *set, const struct stale_tracker *st,
			const struct snapshot *snap);

#endif
