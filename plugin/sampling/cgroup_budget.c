// SPDX-License-Identifier: GPL-2.0-only
#include "sampling/cgroup_budget.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/siphash.h"
#include "base/u64_map.h"

/* A kept cgroup ranks as if it used twice its memory plus this. */
#define STICKY_SLACK_BYTES (1ull << 20)
/* Parents named in warnings per sample; the rest are summed up. */
#define NEW_PARENTS_NAMED 3
/* Parents remembered as named; past this, only the summary names none. */
#define WARNED_PARENTS_MAX 4096
#define SUMMARY_EVERY_NS (600ull * 1000000000ull)

enum row_state { ROW_UNSELECTED, ROW_KEPT, ROW_CUT };
enum cut_reason { CUT_NONE, CUT_CHILDREN, CUT_CGROUPS, CUT_BELOW };

/* A row's parent when the table has none for it (the walk root, a removed OOM victim's orphan). */
#define NO_PARENT UINT32_MAX

/* A selected row of the level being decided. */
struct candidate {
	uint64_t score;     /* memory.current, raised for the sticky */
	uint64_t cgroup_id;
	uint32_t parent;    /* its parent's row, or NO_PARENT */
	uint32_t row;
	bool sticky;
};

struct cgroup_budget {
	struct cgroup_budget_limits limits;
	struct cgroup_budget_tally tally;
	/* per row of the last table, reused */
	size_t cap_rows;
	uint8_t *state;    /* enum row_state */
	uint8_t *reason;   /* enum cut_reason of a cut row */
	bool *keep;        /* the callers' verdicts (cgroup_budget_rows()) */
	uint32_t *by_depth; /* row numbers, shallow first */
	uint32_t *parent;   /* each row's parent row, or NO_PARENT */
	uint32_t *group_at; /* per parent row (and NO_PARENT's slot at the end): where its children go, + 1 */
	struct candidate *level, *survivors, *grouped;
	uint32_t *last_at_depth; /* the walk's pre-order: the last row seen at each depth */
	size_t cap_depths;
	struct u64_map *rows_by_path; /* keyed hash of a path -> row + 1, built only when pre-order fails */
	bool paths_indexed;
	struct u64_map *kept_before, *kept_now; /* cgroup id -> (void *)1 */
	struct u64_map *warned;       /* parent keys already named */
	struct cgroup_budget_cut *cuts;
	size_t nr_cuts, cap_cuts;
	uint64_t last_summary_ns;
};

static void *const PRESENT = (void *)1;

int cgroup_budget_new(const struct cgroup_budget_limits *limits, struct cgroup_budget **out)
{
	struct cgroup_budget *b = calloc(1, sizeof(*b));

	*out = NULL;
	if (!b)
		return -ENOMEM;
	b->limits = *limits;
	if (u64_map_new(1024, &b->rows_by_path) || u64_map_new(1024, &b->kept_before) ||
	    u64_map_new(1024, &b->kept_now) || u64_map_new(64, &b->warned)) {
		cgroup_budget_free(b);
		return -ENOMEM;
	}
	*out = b;
	return 0;
}

void cgroup_budget_free(struct cgroup_budget *b)
{
	if (!b)
		return;
	u64_map_free(b->rows_by_path);
	u64_map_free(b->kept_before);
	u64_map_free(b->kept_now);
	u64_map_free(b->warned);
	free(b->state);
	free(b->reason);
	free(b->keep);
	free(b->by_depth);
	free(b->parent);
	free(b->group_at);
	free(b->level);
	free(b->survivors);
	free(b->grouped);
	free(b->last_at_depth);
	free(b->cuts);
	free(b);
}

bool cgroup_budget_limited(const struct cgroup_budget *b)
{
	return b->limits.max_children || b->limits.max_cgroups;
}

void cgroup_budget_tally(const struct cgroup_budget *b, struct cgroup_budget_tally *out)
{
	*out = b->tally;
}

size_t cgroup_budget_cut_parents(const struct cgroup_budget *b, const struct cgroup_budget_cut **out)
{
	*out = b->cuts;
	return b->nr_cuts;
}

static int grow_rows(struct cgroup_budget *b, size_t n)
{
	size_t cap = b->cap_rows ? b->cap_rows : 256;
	void *p;

	if (n <= b->cap_rows)
		return 0;
	while (cap < n)
		cap *= 2;
#define GROW(field)                                                   \
	p = realloc(b->field, cap * sizeof(*b->field));               \
	if (!p)                                                       \
		return -ENOMEM;                                       \
	b->field = p;
	GROW(state)
	GROW(reason)
	GROW(keep)
	GROW(by_depth)
	GROW(parent)
	GROW(level)
	GROW(survivors)
	GROW(grouped)
	/* one more: NO_PARENT's slot; all zero between levels */
	p = realloc(b->group_at, (cap + 1) * sizeof(*b->group_at));
	if (!p)
		return -ENOMEM;
	b->group_at = p;
	memset(b->group_at + b->cap_rows, 0, (cap + 1 - b->cap_rows) * sizeof(*b->group_at));
#undef GROW
	b->cap_rows = cap;
	return 0;
}

static size_t depth_of(const struct sample_row *row)
{
	return row->depth > 0 ? (size_t)row->depth : 0;
}

static bool drop_all(uint64_t key, void *value, void *arg)
{
	return true;
}

bool *cgroup_budget_rows(struct cgroup_budget *b, size_t nr_rows)
{
	return grow_rows(b, nr_rows) ? NULL : b->keep;
}

const struct stat_def *cgroup_budget_rank_stat(const struct cgroup_budget_limits *limits)
{
	return limits->max_children || limits->max_cgroups ? stat_lookup(CGROUP_BUDGET_RANK_STAT) : NULL;
}

static uint64_t path_key(const char *path, size_t len)
{
	return siphash_bytes(siphash_process_key(), path, len, 1, 3);
}

/* The length of @path's parent ("/a/b" -> 2, "/a" -> 1); 0 for the root "/". */
static size_t parent_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash || !path[1])
		return 0;
	return slash == path ? 1 : (size_t)(slash - path);
}

/* Row number + 1 of the row at @path[0..len), whose key is @key; 0 when none (or a hash collision). */
static size_t row_at(const struct cgroup_budget *b, const struct sample_table *t, uint64_t key, const char *path,
		     size_t len)
{
	size_t r = (size_t)(uintptr_t)u64_map_get(b->rows_by_path, key);

	if (r && (strncmp(t->rows[r - 1].path, path, len) || t->rows[r - 1].path[len]))
		return 0;
	return r;
}

static int index_paths(struct cgroup_budget *b, const struct sample_table *t)
{
	u64_map_remove_if(b->rows_by_path, drop_all, NULL);
	for (size_t r = 0; r < t->nr_rows; r++) {
		const char *path = t->rows[r].path;
		int err = u64_map_put(b->rows_by_path, path_key(path, strlen(path)), (void *)(uintptr_t)(r + 1));

		if (err)
			return err;
	}
	return 0;
}

/* The row at @path[0..len) (a parent's path), by the path index, built on first need. */
static int parent_by_path(struct cgroup_budget *b, const struct sample_table *t, const char *path, size_t len,
			  uint32_t *parent)
{
	size_t r;

	if (!b->paths_indexed) {
		int err = index_paths(b, t);

		if (err)
			return err;
		b->paths_indexed = true;
	}
	r = row_at(b, t, path_key(path, len), path, len);
	*parent = r ? (uint32_t)(r - 1) : NO_PARENT;
	return 0;
}

static int grow_depths(struct cgroup_budget *b, size_t depth)
{
	size_t cap = b->cap_depths ? b->cap_depths : 16;
	uint32_t *p;

	if (depth < b->cap_depths)
		return 0;
	while (cap <= depth)
		cap *= 2;
	p = realloc(b->last_at_depth, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	b->last_at_depth = p;
	b->cap_depths = cap;
	return 0;
}

/*
 * Each row's parent row. The walk lists the tree in pre-order, so a row's
 * parent is the last row seen one level up, which its path confirms; a row
 * out of that order (a removed OOM victim's, added after the walk) is
 * found by its parent's path instead. No hashing in the common case.
 */
static int find_parents(struct cgroup_budget *b, const struct sample_table *t)
{
	size_t depths_seen = 0;

	b->paths_indexed = false;
	for (size_t r = 0; r < t->nr_rows; r++) {
		const struct sample_row *row = &t->rows[r];
		size_t depth = depth_of(row), plen = parent_len(row->path);
		uint32_t parent = NO_PARENT;
		int err = grow_depths(b, depth);

		if (err)
			return err;
		if (plen && depth > 0 && depth - 1 < depths_seen && b->last_at_depth[depth - 1] != NO_PARENT) {
			const char *up = t->rows[b->last_at_depth[depth - 1]].path;

			if (strncmp(up, row->path, plen) == 0 && up[plen] == '\0')
				parent = b->last_at_depth[depth - 1];
		}
		if (parent == NO_PARENT && plen) {
			err = parent_by_path(b, t, row->path, plen, &parent);
			if (err)
				return err;
		}
		b->parent[r] = parent;
		for (; depths_seen < depth; depths_seen++)
			b->last_at_depth[depths_seen] = NO_PARENT;
		b->last_at_depth[depth] = (uint32_t)r;
		if (depths_seen <= depth)
			depths_seen = depth + 1;
	}
	return 0;
}

/* Row numbers by depth, shallow first (a stable counting sort). */
static int sort_by_depth(struct cgroup_budget *b, const struct sample_table *t)
{
	size_t deepest = 0, *at;

	for (size_t r = 0; r < t->nr_rows; r++)
		if (t->rows[r].depth > 0 && (size_t)t->rows[r].depth > deepest)
			deepest = (size_t)t->rows[r].depth;
	at = calloc(deepest + 2, sizeof(*at));
	if (!at)
		return -ENOMEM;
	for (size_t r = 0; r < t->nr_rows; r++)
		at[depth_of(&t->rows[r]) + 1]++;
	for (size_t d = 1; d <= deepest + 1; d++)
		at[d] += at[d - 1];
	for (size_t r = 0; r < t->nr_rows; r++)
		b->by_depth[at[depth_of(&t->rows[r])]++] = (uint32_t)r;
	free(at);
	return 0;
}

/* Larger score first, then the sticky, then the older (smaller) id. */
static int by_rank(const void *pa, const void *pb)
{
	const struct candidate *a = pa, *c = pb;

	if (a->score != c->score)
		return a->score > c->score ? -1 : 1;
	if (a->sticky != c->sticky)
		return a->sticky ? -1 : 1;
	if (a->cgroup_id != c->cgroup_id)
		return a->cgroup_id < c->cgroup_id ? -1 : 1;
	return 0;
}

static void swap_candidates(struct candidate *a, struct candidate *c)
{
	struct candidate tmp = *a;

	*a = *c;
	*c = tmp;
}

/*
 * Rearranges the @n candidates at @c so that the first @k are the best by
 * by_rank() (in no order): a quickselect, O(n), where a full sort of a
 * tenant's 49,000 siblings cost most of the budget's time. A range that
 * keeps partitioning badly is sorted instead.
 */
static void select_best(struct candidate *c, size_t n, size_t k)
{
	size_t lo = 0, hi = n, partitions = 0;

	while (k > lo && k < hi && hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2, last = hi - 1, store = lo;

		if (++partitions > 64) {
			qsort(c + lo, hi - lo, sizeof(*c), by_rank);
			return;
		}
		/* the median of the first, middle and last as the pivot, at last */
		if (by_rank(&c[mid], &c[lo]) < 0)
			swap_candidates(&c[mid], &c[lo]);
		if (by_rank(&c[last], &c[lo]) < 0)
			swap_candidates(&c[last], &c[lo]);
		if (by_rank(&c[mid], &c[last]) < 0)
			swap_candidates(&c[mid], &c[last]);
		for (size_t i = lo; i < last; i++)
			if (by_rank(&c[i], &c[last]) < 0)
				swap_candidates(&c[i], &c[store++]);
		swap_candidates(&c[store], &c[last]);
		/* [lo, store) rank above the pivot, now at store; (store, hi) below */
		if (k <= store)
			hi = store;
		else if (k > store + 1)
			lo = store + 1;
		else
			return;
	}
}

/* group_at's slot of @parent: its row, NO_PARENT's at the end. */
static size_t group_slot(const struct cgroup_budget *b, uint32_t parent)
{
	return parent == NO_PARENT ? b->cap_rows : parent;
}

#define GROUP_PLACED (1u << 31)

/*
 * The @n candidates of b->level, siblings together, parents in the order
 * they first appear (a counting sort by parent row: the walk's pre-order
 * has them so already, but for rows added after the walk).
 */
static void group_by_parent(struct cgroup_budget *b, size_t n)
{
	uint32_t *at = b->group_at, next = 0;
	struct candidate *swap;

	for (size_t i = 0; i < n; i++)
		at[group_slot(b, b->level[i].parent)]++;
	for (size_t i = 0; i < n; i++) {
		uint32_t *slot = &at[group_slot(b, b->level[i].parent)];

		if (!(*slot & GROUP_PLACED)) {
			uint32_t count = *slot;

			*slot = GROUP_PLACED | next;
			next += count;
		}
		b->grouped[*slot & ~GROUP_PLACED] = b->level[i];
		(*slot)++;
	}
	for (size_t i = 0; i < n; i++)
		at[group_slot(b, b->level[i].parent)] = 0;
	swap = b->level;
	b->level = b->grouped;
	b->grouped = swap;
}

static uint64_t score_of(const struct cgroup_budget *b, const struct sample_row *row, size_t usage_column,
			 bool *sticky)
{
	uint64_t u = usage_column == SIZE_MAX ? 0 : row->values[usage_column];

	/*
	 * A row without memory.current in a table that has the column is a
	 * removed OOM victim's (sampling/oom_victims.h): first, so that its
	 * kills are not cut (the tracker's book bounds them).
	 */
	if (u == SAMPLE_VALUE_MISSING)
		u = UINT64_MAX;
	else if (u == SAMPLE_VALUE_UNLIMITED)
		u = 0;
	*sticky = u64_map_get(b->kept_before, row->cgroup_id) != NULL;
	if (!*sticky)
		return u;
	if (u > (UINT64_MAX - STICKY_SLACK_BYTES) / 2)
		return UINT64_MAX;
	return 2 * u + STICKY_SLACK_BYTES;
}

static int add_cut(struct cgroup_budget *b, const struct sample_table *t, const struct candidate *first,
		   size_t by_children, size_t by_cgroups)
{
	const char *path = t->rows[first->row].path;

	if (b->nr_cuts == b->cap_cuts) {
		size_t cap = b->cap_cuts ? b->cap_cuts * 2 : 16;
		struct cgroup_budget_cut *p = realloc(b->cuts, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		b->cuts = p;
		b->cap_cuts = cap;
	}
	b->cuts[b->nr_cuts++] = (struct cgroup_budget_cut){
		.child_path = path, .parent_len = parent_len(path), .by_children = by_children, .by_cgroups = by_cgroups,
	};
	return 0;
}

/*
 * One level: @n candidates whose ancestors are all kept. Cuts children past
 * max_children per parent, then what exceeds the room left in max_cgroups.
 */
static int decide_level(struct cgroup_budget *b, const struct sample_table *t, size_t n)
{
	size_t nr_survivors = 0;
	int err = 0;

	group_by_parent(b, n);
	for (size_t i = 0, j; i < n; i = j) {
		size_t kept;

		for (j = i + 1; j < n && b->level[j].parent == b->level[i].parent; j++)
			;
		kept = j - i;
		if (b->limits.max_children && kept > b->limits.max_children) {
			kept = b->limits.max_children;
			select_best(b->level + i, j - i, kept);
			for (size_t k = i + kept; k < j; k++) {
				b->state[b->level[k].row] = ROW_CUT;
				b->reason[b->level[k].row] = CUT_CHILDREN;
			}
		}
		memcpy(b->survivors + nr_survivors, b->level + i, kept * sizeof(b->survivors[0]));
		nr_survivors += kept;
	}
	if (b->limits.max_cgroups && b->tally.kept + nr_survivors > b->limits.max_cgroups) {
		size_t room = b->limits.max_cgroups - b->tally.kept;

		select_best(b->survivors, nr_survivors, room);
		for (size_t i = room; i < nr_survivors; i++) {
			b->state[b->survivors[i].row] = ROW_CUT;
			b->reason[b->survivors[i].row] = CUT_CGROUPS;
		}
		nr_survivors = room;
	}
	for (size_t i = 0; i < nr_survivors; i++) {
		b->state[b->survivors[i].row] = ROW_KEPT;
		err = err ? err : u64_map_put(b->kept_now, b->survivors[i].cgroup_id, PRESENT);
	}
	b->tally.kept += nr_survivors;

	/* the parents with cut children, from the level in parent order */
	for (size_t i = 0; i < n && !err;) {
		size_t j = i, by_children = 0, by_cgroups = 0;

		for (; j < n && b->level[j].parent == b->level[i].parent; j++) {
			by_children += b->reason[b->level[j].row] == CUT_CHILDREN;
			by_cgroups += b->reason[b->level[j].row] == CUT_CGROUPS;
		}
		if (by_children || by_cgroups)
			err = add_cut(b, t, &b->level[i], by_children, by_cgroups);
		i = j;
	}
	return err;
}

/* Whether row @r sits below a cut cgroup (its parent is cut, or below one). */
static bool below_cut(const struct cgroup_budget *b, uint32_t r)
{
	uint32_t p = b->parent[r];

	return p != NO_PARENT && (b->state[p] == ROW_CUT || b->reason[p] == CUT_BELOW);
}

static int decide(struct cgroup_budget *b, const struct sample_table *t, size_t usage_column, const bool *keep)
{
	size_t i = 0;
	int err;

	err = find_parents(b, t);
	if (err)
		return err;
	err = sort_by_depth(b, t);
	if (err)
		return err;
	while (i < t->nr_rows) {
		size_t depth = depth_of(&t->rows[b->by_depth[i]]), n = 0;

		for (; i < t->nr_rows && depth_of(&t->rows[b->by_depth[i]]) == depth; i++) {
			uint32_t r = b->by_depth[i];
			const struct sample_row *row = &t->rows[r];
			struct candidate *c = &b->level[n];

			b->state[r] = keep[r] ? ROW_KEPT : ROW_UNSELECTED;
			b->reason[r] = below_cut(b, r) ? CUT_BELOW : CUT_NONE;
			if (!keep[r])
				continue;
			b->tally.seen++;
			if (b->reason[r] == CUT_BELOW) {
				b->state[r] = ROW_CUT;
				continue;
			}
			c->row = r;
			c->cgroup_id = row->cgroup_id;
			c->parent = b->parent[r];
			c->score = score_of(b, row, usage_column, &c->sticky);
			n++;
		}
		err = decide_level(b, t, n);
		if (err)
			return err;
	}
	return 0;
}

/* A path as a log line shows it: bytes outside printable ASCII as '?'. */
static void printable(char *dst, size_t size, const char *src, size_t len)
{
	size_t i;

	for (i = 0; i < len && i + 1 < size; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
	dst[i] = '\0';
}

/* "past MaxChildren 100", "past MaxCgroups 300" or both, with counts. */
static const char *reasons(const struct cgroup_budget *b, const struct cgroup_budget_cut *c, char *buf, size_t size)
{
	if (!c->by_cgroups)
		snprintf(buf, size, "past MaxChildren %u", b->limits.max_children);
	else if (!c->by_children)
		snprintf(buf, size, "past MaxCgroups %u", b->limits.max_cgroups);
	else
		snprintf(buf, size, "%zu past MaxChildren %u, %zu past MaxCgroups %u", c->by_children,
			 b->limits.max_children, c->by_cgroups, b->limits.max_cgroups);
	return buf;
}

static void warn_cuts(struct cgroup_budget *b)
{
	size_t named = 0, unnamed = 0;
	uint64_t now = clock_ns(CLOCK_MONOTONIC);

	for (size_t i = 0; i < b->nr_cuts; i++) {
		const struct cgroup_budget_cut *c = &b->cuts[i];
		uint64_t key = path_key(c->child_path, c->parent_len);
		char path[256], why[96];

		if (u64_map_get(b->warned, key))
			continue;
		if (named == NEW_PARENTS_NAMED || u64_map_count(b->warned) >= WARNED_PARENTS_MAX) {
			unnamed++;
			continue;
		}
		if (u64_map_put(b->warned, key, PRESENT))
			continue;
		named++;
		printable(path, sizeof(path), c->child_path, c->parent_len);
		mb_log(LOG_WARNING,
		       "cgroup \"%s\": %zu of its children get no series of their own (%s); their memory still "
		       "counts in its values. Said once per parent",
		       path, c->by_children + c->by_cgroups, reasons(b, c, why, sizeof(why)));
	}
	if (unnamed && (!b->last_summary_ns || now - b->last_summary_ns >= SUMMARY_EVERY_NS)) {
		b->last_summary_ns = now;
		mb_log(LOG_WARNING,
		       "the cgroup budget cuts %zu of %zu selected cgroups below %zu parents (%zu not named above); "
		       "MaxChildren %u, MaxCgroups %u. Said at most every 10 minutes",
		       b->tally.cut, b->tally.seen, b->tally.cut_parents, unnamed, b->limits.max_children,
		       b->limits.max_cgroups);
	}
}

int cgroup_budget_apply(struct cgroup_budget *b, const struct sample_table *t, size_t usage_column, bool *keep)
{
	struct u64_map *swap;
	int err;

	memset(&b->tally, 0, sizeof(b->tally));
	b->nr_cuts = 0;
	if (!cgroup_budget_limited(b)) {
		for (size_t r = 0; r < t->nr_rows; r++)
			b->tally.seen += keep[r];
		b->tally.kept = b->tally.seen;
		return 0;
	}
	err = grow_rows(b, t->nr_rows);
	if (!err) {
		u64_map_remove_if(b->kept_now, drop_all, NULL);
		err = decide(b, t, usage_column, keep);
	}
	if (err) {
		/* keep[] unchanged: nothing is cut, and the sticky set stays */
		memset(&b->tally, 0, sizeof(b->tally));
		b->nr_cuts = 0;
		mb_log(LOG_ERR, "the cgroup budget: out of memory; this sample ships every selected cgroup");
		return err;
	}
	for (size_t r = 0; r < t->nr_rows; r++)
		keep[r] = b->state[r] == ROW_KEPT;
	b->tally.cut = b->tally.seen - b->tally.kept;
	b->tally.cut_parents = b->nr_cuts;
	swap = b->kept_before;
	b->kept_before = b->kept_now;
	b->kept_now = swap;
	warn_cuts(b);
	return 0;
}
