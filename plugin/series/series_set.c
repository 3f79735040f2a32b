// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* qsort_r */
#include "series/series_set.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "series/cgroup_ident.h"
#include "series/duplicate_series.h"
#include "series/metric_names.h"
#include "series/nonzero_bits.h"
#include "series/row_labels.h"
#include "series/stale_tracker.h"
#include "series/string_arena.h"
#include "sampling/sample_table.h"

double stale_nan(void)
{
	uint64_t bits = STALE_NAN_BITS;
	double v;

	memcpy(&v, &bits, sizeof(v));
	return v;
}

bool is_stale_nan(double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	return bits == STALE_NAN_BITS;
}

void series_set_init(struct series_set *set)
{
	memset(set, 0, sizeof(*set));
}

void series_set_free(struct series_set *set)
{
	free(set->items);
	free(set->labels);
	free(set->label_lens);
	free(set->cgroup_keys);
	free(set->nonzero);
	series_arena_free(set);
	memset(set, 0, sizeof(*set));
}

/* Appends the plugin's own metrics of @snap. */
static int add_self_items(struct series_set *set, const struct series_opts *o, const struct snapshot *snap,
			  const struct stale_tracker *st)
{
	for (size_t i = 0; i < snap->nr_self; i++) {
		const struct self_metric *m = &snap->self[i];
		struct series_item proto = { .name = m->name, .counter = m->counter, .unit = m->unit,
					     .value = m->value, .start_ms = st ? st->born_ms : 0 };
		struct label_list ll;
		int err;

		label_list_common(&ll, o, m->name);
		label_list_add(&ll, m->label, m->label_value);
		label_list_add(&ll, m->label2, m->label2_value);
		err = add_item_with_labels(set, &proto, &ll);
		if (err)
			return err;
	}
	return 0;
}

static uint64_t new_shape(void)
{
	static uint64_t last;

	return __atomic_add_fetch(&last, 1, __ATOMIC_RELAXED);
}

static bool same_item_keys(const struct series_key *keys, const struct series_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!series_key_equal(&keys[i], &items[i].key))
			return false;
	return true;
}

/* The steady state: new values into the items in place, the self metrics again. */
static int patch_values(struct series_set *set, const struct series_opts *o, const struct snapshot *snap,
			const struct stale_tracker *st)
{
	size_t nr_stats = snap->nr_stats;
	size_t nr_self = set->nr_items - set->nr_row_items, i = 0;
	bool bits = set->nr_nonzero_known >= set->nr_row_items;
	struct series_key old[SNAPSHOT_MAX_SELF];
	int err;

	/*
	 * The rows' items in build_from_snapshot()'s order, stat-major. Most
	 * values are what they were: only a changed one is converted (a double
	 * conversion is not cheap everywhere) and its nonzero bit written.
	 */
	for (size_t c = 0; c < nr_stats; c++)
		for (size_t r = 0; r < snap->nr_rows; r++) {
			struct series_item *it = &set->items[i];
			uint64_t v = snap->values[r][c];

			if (v == SAMPLE_VALUE_MISSING)
				continue;
			if (it->raw != v) {
				it->raw = v;
				it->value = sample_value(snap->stats[c], v);
				if (bits)
					put_nonzero_bit(set, i);
			}
			i++;
		}
	set->nr_nonzero_known = bits ? i : 0;
	set->ts_ms = snap->ts_ms;
	if (nr_self > SNAPSHOT_MAX_SELF)
		return -EFAULT; /* cannot be: same_shape_as_last() wants no stale items */
	for (size_t k = 0; k < nr_self; k++)
		old[k] = set->items[set->nr_row_items + k].key;
	set->nr_items = set->nr_row_items;
	set->nr_labels = set->nr_row_labels;
	err = add_self_items(set, o, snap, st);
	if (err)
		return err;
	/* the self metrics' labels rarely change (a new stage or reason): then the shape does */
	if (set->nr_items - set->nr_row_items != nr_self ||
	    !same_item_keys(old, set->items + set->nr_row_items, nr_self))
		set->shape = new_shape();
	return 0;
}

static int cmp_rows_by_path(const void *a, const void *b, void *arg)
{
	const char *const *paths = arg;

	return strcmp(paths[*(const size_t *)a], paths[*(const size_t *)b]);
}

static int build_from_snapshot(struct series_set *set, const struct series_opts *o, const struct snapshot *snap,
			       struct stale_tracker *st)
{
	struct metric_name_len *names;
	size_t nr_stats = snap->nr_stats;
	size_t rows = snap->nr_rows ? snap->nr_rows : 1, *order = NULL;
	struct row_idents ri = { 0 };
	struct row_template *tpl = NULL;
	struct label_pool pool = { 0 };
	int64_t *row_first = NULL;
	int err;

	set->nr_items = set->nr_labels = set->nr_stale = set->nr_values = set->nr_duplicates = 0;
	set->nr_cgroup_runs = 0;
	series_arena_reset(set);
	set->ts_ms = snap->ts_ms;
	set->host = o->host;
	set->instance_id = o->instance_id;
	names = malloc((nr_stats ? nr_stats : 1) * sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (size_t c = 0; c < nr_stats; c++) {
		char buf[METRIC_NAME_MAX];

		err = metric_name(snap->stats[c], buf, sizeof(buf)) < 0 ? -ENAMETOOLONG : 0;
		names[c].name = err ? NULL : series_arena_strdup(set, buf);
		names[c].len = (uint32_t)strlen(buf);
		if (!err && !names[c].name)
			err = -ENOMEM;
		if (err) {
			free(names);
			return err;
		}
	}
	err = -ENOMEM;
	order = malloc(rows * sizeof(*order));
	row_first = calloc(rows, sizeof(*row_first));
	ri.id = calloc(rows, sizeof(*ri.id));
	ri.owned = calloc(rows, sizeof(*ri.owned));
	ri.entry = malloc(rows * sizeof(*ri.entry));
	tpl = malloc(rows * sizeof(*tpl));
	if (!order || !row_first || !ri.id || !ri.owned || !ri.entry || !tpl)
		goto free_tmp;
	for (size_t r = 0; r < rows; r++)
		ri.entry[r] = SIZE_MAX;
	if (st) {
		for (size_t r = 0; r < snap->nr_rows; r++)
			order[r] = r;
		qsort_r(order, snap->nr_rows, sizeof(*order), cmp_rows_by_path, (void *)snap->paths);
		tracker_first_seen(st, snap, order, row_first, ri.entry);
	}
	err = resolve_row_idents(o, snap, st, &ri);
	if (err)
		goto free_tmp;
	err = build_row_templates(set, o, snap, &ri, tpl, &pool);
	if (err)
		goto free_tmp;
	/* stat-major (series_set.h) */
	for (size_t c = 0; c < nr_stats; c++)
		for (size_t r = 0; r < snap->nr_rows; r++) {
			uint64_t v = snap->values[r][c];

			if (v == SAMPLE_VALUE_MISSING)
				continue;
			err = add_stat_item(set, &tpl[r], snap->stats[c], &names[c], v, false, row_first[r]);
			if (err)
				goto free_tmp;
		}
	set->nr_row_items = set->nr_items;
	set->nr_row_labels = set->nr_labels;
	if (st) {
		err = add_stale_markers_and_remember(set, o, snap, names, order, row_first, &ri, st);
		if (err)
			goto free_tmp;
	}
	err = add_alloc_items(set, o, snap, st);
	if (!err)
		err = add_self_items(set, o, snap, st);
	if (!err)
		err = drop_duplicate_series(set);
free_tmp:
	row_idents_free(&ri, rows);
	label_pool_free(&pool);
	free(tpl);
	free(row_first);
	free(order);
	free(names);
	return err;
}

int series_set_build(struct series_set *set, const struct series_opts *o, const struct snapshot *snap,
		     struct stale_tracker *st)
{
	int err;

	/* a read of the allocation profile changes the items; so does the interval after it */
	if (st && !snap->alloc_fresh && !set->had_alloc && same_shape_as_last(set, st, snap)) {
		err = patch_values(set, o, snap, st); /* knows the rows' nonzero bits */
	} else {
		set->nr_nonzero_known = 0;
		err = build_from_snapshot(set, o, snap, st);
		set->shape = new_shape();
		set->tracker_gen = st ? st->gen : 0;
	}
	set->had_alloc = snap->alloc_fresh;
	if (err)
		set->shape = 0;
	else
		mark_nonzero_bits(set);
	return err;
}
