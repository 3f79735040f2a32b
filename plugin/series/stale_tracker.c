// SPDX-License-Identifier: GPL-2.0-only
#include "series/stale_tracker.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sampling/sample_table.h"

struct stale_tracker *stale_tracker_new(void)
{
	return calloc(1, sizeof(struct stale_tracker));
}

static void tracker_clear(struct stale_tracker *st)
{
	for (size_t i = 0; i < st->nr; i++) {
		free(st->entries[i].path);
		ident_free(st->entries[i].id);
	}
	free(st->entries);
	free(st->row_entry);
	free(st->bits);
	st->entries = NULL;
	st->row_entry = NULL;
	st->bits = NULL;
	st->nr = 0;
	st->gen++;
}

void stale_tracker_free(struct stale_tracker *st)
{
	if (!st)
		return;
	tracker_clear(st);
	alloc_sent_clear(st);
	free(st->stats);
	free(st);
}

static bool same_columns(const struct stale_tracker *st, const struct snapshot *snap)
{
	return st->nr_stats == snap->nr_stats &&
	       memcmp(st->stats, snap->stats, snap->nr_stats * sizeof(snap->stats[0])) == 0;
}

static size_t words_for(size_t nr_stats)
{
	return (nr_stats + 63) / 64;
}

/* Which of row @r's stats have a value, into @bits (words_for(snap->nr_stats) words). */
static void row_bits(const struct snapshot *snap, size_t r, uint64_t *bits)
{
	memset(bits, 0, words_for(snap->nr_stats) * sizeof(uint64_t));
	for (size_t c = 0; c < snap->nr_stats; c++)
		if (snap->values[r][c] != SAMPLE_VALUE_MISSING)
			bits[c / 64] |= 1ULL << (c % 64);
}

/*
 * @order: the rows sorted by path; fills @row_first with the time each row's
 * cgroup was first seen: kept from the tracker while the cgroup stays, the
 * snapshot's time for a new (or returning) one; and @row_entry with the
 * index of the row's tracker entry (SIZE_MAX: none). Clears the tracker
 * when the columns changed.
 */
void tracker_first_seen(struct stale_tracker *st, const struct snapshot *snap, const size_t *order,
			int64_t *row_first, size_t *row_entry)
{
	size_t i = 0, taken = SIZE_MAX;

	if (!same_columns(st, snap))
		tracker_clear(st); /* new columns: nothing to compare with */
	if (!st->born_ms)
		st->born_ms = snap->ts_ms;
	for (size_t j = 0; j < snap->nr_rows; j++) {
		bool found;
		int c = 1;

		while (i < st->nr && (c = strcmp(st->entries[i].path, snap->paths[order[j]])) < 0)
			i++;
		found = i < st->nr && c == 0 && i != taken; /* a path twice: the entry is the first row's */
		row_first[order[j]] = found ? st->entries[i].first_ms : snap->ts_ms;
		row_entry[order[j]] = found ? i : SIZE_MAX;
		if (found)
			taken = i;
	}
}

/*
 * Stale markers for what was sent last time and is gone now, with the
 * labels it was sent with: a vanished cgroup's series, a vanished stat's,
 * and every series of a cgroup whose identity labels changed (a name was
 * found). Then remembers now; the tracker takes the rows' identities.
 */
int add_stale_markers_and_remember(struct series_set *set, const struct series_opts *o,
				   const struct snapshot *snap, const struct metric_name_len *names,
				   const size_t *order, const int64_t *row_first, struct row_idents *ri,
				   struct stale_tracker *st)
{
	size_t i = 0, j = 0, *row_entry = NULL, words = words_for(snap->nr_stats);
	const struct stat_def **stats = NULL;
	uint64_t *bits = NULL, *now = NULL;
	struct tracked *next = NULL;
	int err = -ENOMEM;

	next = calloc(snap->nr_rows ? snap->nr_rows : 1, sizeof(*next));
	row_entry = malloc((snap->nr_rows ? snap->nr_rows : 1) * sizeof(*row_entry));
	bits = calloc((snap->nr_rows ? snap->nr_rows : 1) * (words ? words : 1), sizeof(*bits));
	now = calloc(words ? words : 1, sizeof(*now));
	stats = malloc((snap->nr_stats ? snap->nr_stats : 1) * sizeof(*stats));
	if (!next || !row_entry || !bits || !now || !stats)
		goto free_tmp;
	while (i < st->nr) {
		int c = 1;

		memset(now, 0, (words ? words : 1) * sizeof(*now));
		while (j < snap->nr_rows && (c = strcmp(snap->paths[order[j]], st->entries[i].path)) < 0)
			j++;
		if (j < snap->nr_rows && c == 0 && same_ident(st->entries[i].id, ri->id[order[j]]))
			row_bits(snap, order[j], now);
		for (size_t k = 0; k < st->nr_stats; k++) {
			struct row_labels rl;
			struct row_template rt;
			struct label_list ll;

			if (!(st->entries[i].bits[k / 64] & ~now[k / 64] & (1ULL << (k % 64))))
				continue;
			err = escape_row_labels(set, o, st->entries[i].path, st->entries[i].id, &rl);
			if (!err) {
				fill_row_template(&rt, &ll, o, &rl);
				err = add_stat_item(set, &rt, snap->stats[k], &names[k], SAMPLE_VALUE_MISSING, true,
						    st->entries[i].first_ms);
			}
			if (err)
				goto free_tmp;
		}
		i++;
	}

	for (size_t r = 0; r < snap->nr_rows; r++) {
		next[r].path = strdup(snap->paths[order[r]]);
		if (!next[r].path) {
			for (size_t k = 0; k < r; k++)
				free(next[k].path);
			err = -ENOMEM;
			goto free_tmp;
		}
		next[r].bits = bits + r * words;
		row_bits(snap, order[r], next[r].bits);
		next[r].first_ms = row_first[order[r]];
		row_entry[order[r]] = r;
	}
	/* nothing fails from here: the identities change hands */
	for (size_t r = 0; r < snap->nr_rows; r++) {
		size_t row = order[r];

		next[r].id = ri->id[row];
		if (ri->owned[row])
			ri->owned[row] = false;
		else if (ri->entry[row] != SIZE_MAX)
			st->entries[ri->entry[row]].id = NULL; /* borrowed: the entry gives it up */
	}
	tracker_clear(st);
	st->entries = next;
	st->row_entry = row_entry;
	st->bits = bits;
	st->nr = snap->nr_rows;
	next = NULL;
	row_entry = NULL;
	bits = NULL;
	memcpy(stats, snap->stats, snap->nr_stats * sizeof(stats[0]));
	free(st->stats);
	st->stats = stats;
	stats = NULL;
	st->nr_stats = snap->nr_stats;
	st->words = words;
	err = 0;

free_tmp:
	free(stats);
	free(now);
	free(bits);
	free(row_entry);
	free(next);
	return err;
}

/*
 * @snap has the shape of the snapshot @st was last updated with, and @set
 * was built from that one: the same columns, the same paths in the same
 * row order, the same stats present in each row, and no identity waiting
 * for a Kubernetes name. Then its series are @set's, with new values.
 */
bool same_shape_as_last(const struct series_set *set, const struct stale_tracker *st,
			const struct snapshot *snap)
{
	if (!set->shape || set->tracker_gen != st->gen || set->nr_stale || set->nr_duplicates || !st->row_entry ||
	    st->nr != snap->nr_rows || !same_columns(st, snap))
		return false;
	for (size_t r = 0; r < snap->nr_rows; r++) {
		const struct tracked *e = &st->entries[st->row_entry[r]];

		if ((e->id && e->id->pending) || strcmp(e->path, snap->paths[r]) != 0)
			return false;
		for (size_t c = 0; c < snap->nr_stats; c++)
			if ((snap->values[r][c] != SAMPLE_VALUE_MISSING) != !!(e->bits[c / 64] & (1ULL << (c % 64))))
				return false;
	}
	return true;
}
