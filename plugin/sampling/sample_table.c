// SPDX-License-Identifier: GPL-2.0-only
#include "sampling/sample_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sample_table_init_hidden(struct sample_table *t, const struct stat_def **stats, size_t nr_stats,
			      size_t nr_columns)
{
	memset(t, 0, sizeof(*t));
	t->stats = stats;
	t->nr_stats = nr_stats;
	t->nr_columns = nr_columns > nr_stats ? nr_columns : nr_stats;
}

void sample_table_init(struct sample_table *t, const struct stat_def **stats, size_t nr_stats)
{
	sample_table_init_hidden(t, stats, nr_stats, nr_stats);
}

void sample_table_reset(struct sample_table *t)
{
	t->nr_rows = 0;
	t->path_len = 0;
	t->skipped = 0;
	t->timestamp_ns = 0;
	t->duration_ns = 0;
}

static int grow_rows(struct sample_table *t)
{
	size_t cap = t->cap_rows ? t->cap_rows * 2 : 256;
	struct sample_row *rows;
	uint64_t *values;

	rows = realloc(t->rows, cap * sizeof(*rows));
	if (!rows)
		return -1;
	t->rows = rows;
	values = realloc(t->value_buf, cap * (t->nr_columns ? t->nr_columns : 1) * sizeof(*values));
	if (!values)
		return -1;
	t->value_buf = values;
	t->cap_rows = cap;
	return 0;
}

/* Paths live in one buffer, reused between samples. */
static int store_path(struct sample_table *t, const char *path, size_t *offset)
{
	size_t len = strlen(path) + 1;

	if (t->path_len + len > t->path_cap) {
		size_t cap = t->path_cap ? t->path_cap : 4096;
		char *buf;

		while (cap < t->path_len + len)
			cap *= 2;
		buf = realloc(t->path_buf, cap);
		if (!buf)
			return -1;
		t->path_buf = buf;
		t->path_cap = cap;
	}
	memcpy(t->path_buf + t->path_len, path, len);
	*offset = t->path_len;
	t->path_len += len;
	return 0;
}

/* realloc may have moved either buffer: re-point every row at them. */
static void repoint_rows(struct sample_table *t)
{
	for (size_t i = 0; i < t->nr_rows; i++) {
		t->rows[i].values = t->value_buf + i * t->nr_columns;
		t->rows[i].path = t->path_buf + t->rows[i].path_offset;
	}
}

struct sample_row *sample_table_add(struct sample_table *t, uint64_t cgroup_id, const char *path, int depth)
{
	const char *old_paths = t->path_buf;
	const uint64_t *old_values = t->value_buf;
	struct sample_row *row;
	size_t offset;

	if (t->nr_rows == t->cap_rows && grow_rows(t))
		return NULL;
	if (store_path(t, path, &offset))
		return NULL;

	row = &t->rows[t->nr_rows++];
	row->cgroup_id = cgroup_id;
	row->depth = depth;
	row->partial = false;
	row->path_offset = offset;
	if (t->path_buf != old_paths || t->value_buf != old_values)
		repoint_rows(t);
	else {
		row->path = t->path_buf + offset;
		row->values = t->value_buf + (t->nr_rows - 1) * t->nr_columns;
	}
	for (size_t i = 0; i < t->nr_columns; i++)
		row->values[i] = SAMPLE_VALUE_MISSING;
	return row;
}

void sample_table_swap_rows(struct sample_table *a, struct sample_table *b)
{
	struct sample_table t = *a;

	/* the same columns: whole tables swapped are their rows swapped */
	*a = *b;
	*b = t;
}

void sample_table_free(struct sample_table *t)
{
	free(t->rows);
	free(t->value_buf);
	free(t->path_buf);
	t->rows = NULL;
	t->value_buf = NULL;
	t->path_buf = NULL;
	t->nr_rows = t->cap_rows = 0;
	t->path_len = t->path_cap = 0;
}
