// SPDX-License-Identifier: GPL-2.0-only
#include "series/snapshot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Makes *@buf hold @n elements of @size bytes; @cap: how many it holds now. */
static int reserve(void **buf, size_t *cap, size_t n, size_t size)
{
	void *p;

	if (n <= *cap && *buf)
		return 0;
	n = n ? n : 1;
	p = realloc(*buf, n * size);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = n;
	return 0;
}

/* Points paths and values at the rows of s->rows that @keep accepts; no self metrics yet. */
static int index_rows(struct snapshot *s, snapshot_row_filter keep, void *arg)
{
	const struct sample_table *t = &s->rows;

	s->nr_rows = s->nr_values = s->nr_self = s->nr_alloc = 0;
	s->alloc_fresh = false;
	if (reserve((void **)&s->stats, &s->cap_stats, t->nr_stats, sizeof(*s->stats)) ||
	    reserve((void **)&s->paths, &s->cap_paths, t->nr_rows, sizeof(*s->paths)) ||
	    reserve((void **)&s->values, &s->cap_values, t->nr_rows, sizeof(*s->values)))
		return -ENOMEM;
	/* nearest ms, as collectd prints cdtime with %.3f */
	s->ts_ms = sample_table_ms(t);
	s->nr_stats = t->nr_stats;
	memcpy(s->stats, t->stats, t->nr_stats * sizeof(*s->stats));
	for (size_t r = 0; r < t->nr_rows; r++) {
		const struct sample_row *row = &t->rows[r];

		if (keep && !keep(row, arg))
			continue;
		s->paths[s->nr_rows] = row->path;
		s->values[s->nr_rows] = row->values;
		for (size_t c = 0; c < s->nr_stats; c++)
			s->nr_values += row->values[c] != SAMPLE_VALUE_MISSING;
		s->nr_rows++;
	}
	return 0;
}

struct snapshot *snapshot_new(void)
{
	return calloc(1, sizeof(struct snapshot));
}

int snapshot_take_rows(struct snapshot *s, struct sample_table *t, snapshot_row_filter keep, void *arg)
{
	if (s->rows.stats != t->stats || s->rows.nr_columns != t->nr_columns) {
		sample_table_free(&s->rows); /* done with rows of other columns */
		sample_table_init_hidden(&s->rows, t->stats, t->nr_stats, t->nr_columns);
	}
	sample_table_swap_rows(&s->rows, t);
	sample_table_reset(t);
	return index_rows(s, keep, arg);
}

int snapshot_from_table(const struct sample_table *t, snapshot_row_filter keep, void *arg,
			struct snapshot **out)
{
	struct snapshot *s = snapshot_new();
	int err = -ENOMEM;

	if (!s)
		return err;
	sample_table_init_hidden(&s->rows, t->stats, t->nr_stats, t->nr_columns);
	s->rows.timestamp_ns = t->timestamp_ns;
	for (size_t r = 0; r < t->nr_rows; r++) {
		const struct sample_row *row = &t->rows[r];
		struct sample_row *copy;

		if (keep && !keep(row, arg))
			continue;
		copy = sample_table_add(&s->rows, row->cgroup_id, row->path, row->depth);
		if (!copy)
			goto free_snapshot;
		memcpy(copy->values, row->values, t->nr_columns * sizeof(*copy->values));
	}
	err = index_rows(s, NULL, NULL);
	if (err)
		goto free_snapshot;
	*out = s;
	return 0;

free_snapshot:
	snapshot_free(s);
	return err;
}

void snapshot_add_self(struct snapshot *s, const char *name, const char *label, const char *label_value,
		       double value, bool counter, const char *unit)
{
	if (s->nr_self == SNAPSHOT_MAX_SELF)
		return;
	s->self[s->nr_self++] = (struct self_metric){ .name = name, .label = label, .label_value = label_value,
						      .value = value, .counter = counter, .unit = unit };
}

void snapshot_add_info(struct snapshot *s, const char *name, const char *label, const char *label_value,
		       const char *label2, const char *label2_value)
{
	if (s->nr_self == SNAPSHOT_MAX_SELF)
		return;
	s->self[s->nr_self++] = (struct self_metric){ .name = name, .label = label, .label_value = label_value,
						      .label2 = label2, .label2_value = label2_value, .value = 1,
						      .unit = "{info}" };
}

/* Copies @str into @names at *@at; returns the copy. */
static const char *put_name(char *names, size_t *at, const char *str)
{
	char *copy = names + *at;
	size_t len = strlen(str) + 1;

	memcpy(copy, str, len);
	*at += len;
	return copy;
}

int snapshot_set_alloc(struct snapshot *s, const struct allocinfo_ranked *r)
{
	static const char other_row[] = "other";
	size_t need = sizeof(other_row) + 2, at = 0;

	for (size_t i = 0; i < r->nr_top; i++)
		need += strlen(r->top[i]->site) + strlen(r->top[i]->module) + strlen(r->top[i]->func) + 3;
	if (reserve((void **)&s->alloc_names, &s->cap_alloc_names, need, 1) ||
	    reserve((void **)&s->alloc, &s->cap_alloc, r->nr_top + 1, sizeof(*s->alloc)))
		return -ENOMEM;
	s->nr_alloc = 0;
	for (size_t i = 0; i < r->nr_top; i++) {
		struct snapshot_alloc_row *a = &s->alloc[s->nr_alloc++];

		a->site = put_name(s->alloc_names, &at, r->top[i]->site);
		a->module = put_name(s->alloc_names, &at, r->top[i]->module);
		a->func = put_name(s->alloc_names, &at, r->top[i]->func);
		a->bytes = r->top[i]->bytes;
		a->calls = r->top[i]->calls;
	}
	/* the rest, so that the totals add up; none when the profile went away */
	if (r->nr_top) {
		struct snapshot_alloc_row *a = &s->alloc[s->nr_alloc++];

		a->site = put_name(s->alloc_names, &at, other_row);
		a->module = a->func = put_name(s->alloc_names, &at, "");
		a->bytes = r->other.bytes;
		a->calls = r->other.calls;
	}
	s->alloc_fresh = true;
	return 0;
}

void snapshot_free(struct snapshot *s)
{
	if (!s)
		return;
	free(s->alloc);
	free(s->alloc_names);
	free(s->stats);
	free(s->paths);
	free(s->values);
	sample_table_free(&s->rows);
	free(s);
}
