// SPDX-License-Identifier: GPL-2.0-only
#include "series/snapshot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int snapshot_from_table(const struct sample_table *t, snapshot_row_filter keep, void *arg,
			struct snapshot **out)
{
	struct snapshot *s;
	size_t rows = 0, path_bytes = 0, off = 0;
	int err = -ENOMEM;

	for (size_t r = 0; r < t->nr_rows; r++)
		if (!keep || keep(&t->rows[r], arg)) {
			rows++;
			path_bytes += strlen(t->rows[r].path) + 1;
		}
	s = calloc(1, sizeof(*s));
	if (!s)
		return err;
	/* nearest ms, as collectd prints cdtime with %.3f */
	s->ts_ms = (int64_t)((t->timestamp_ns + 500000u) / 1000000u);
	s->nr_stats = t->nr_stats;
	s->stats = calloc(t->nr_stats ? t->nr_stats : 1, sizeof(*s->stats));
	s->paths = calloc(rows ? rows : 1, sizeof(*s->paths));
	s->values = calloc(rows * t->nr_stats > 0 ? rows * t->nr_stats : 1, sizeof(*s->values));
	s->path_buf = malloc(path_bytes ? path_bytes : 1);
	if (!s->stats || !s->paths || !s->values || !s->path_buf)
		goto free_snapshot;
	memcpy(s->stats, t->stats, t->nr_stats * sizeof(*s->stats));
	for (size_t r = 0; r < t->nr_rows; r++) {
		const struct sample_row *row = &t->rows[r];
		size_t n;

		if (keep && !keep(row, arg))
			continue;
		n = strlen(row->path) + 1;
		memcpy(s->path_buf + off, row->path, n);
		s->paths[s->nr_rows] = s->path_buf + off;
		off += n;
		memcpy(s->values + s->nr_rows * s->nr_stats, row->values, s->nr_stats * sizeof(uint64_t));
		for (size_t c = 0; c < s->nr_stats; c++)
			s->nr_values += row->values[c] != SAMPLE_VALUE_MISSING;
		s->nr_rows++;
	}
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
	s->self[s->nr_self++] = (struct self_metric){ name, label, label_value, value, counter, unit };
}

void snapshot_free(struct snapshot *s)
{
	if (!s)
		return;
	free(s->stats);
	free(s->paths);
	free(s->values);
	free(s->path_buf);
	free(s);
}
