/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cgroup budget: which of the selected cgroups keep series of their own
 * when a host has more than it should ship (MaxChildren, MaxCgroups).
 *
 * cgroup memory is hierarchical: a parent's values hold its children's, so
 * a cut child loses detail, never bytes from a total. The budget keeps,
 * level by level from the walk root down:
 *   - at most max_children children of any one parent, the largest by
 *     memory.current (ties: the one kept before, then the older id);
 *   - at most max_cgroups in all: shallower levels first (they contain the
 *     deeper ones), and at the level where the budget runs out, the
 *     largest, as above;
 *   - nothing below a cut cgroup (its memory is in its kept ancestor);
 *   - a row without memory.current (a removed OOM victim's row, which the
 *     OOM tracker bounds) before any other.
 * The kept set is sticky: a cgroup kept last time ranks as if it used
 * twice its memory.current plus 1 MiB, so a newcomer displaces it only when
 * clearly larger, and equal cgroups (empty ones) never trade places.
 *
 * Each parent whose children were cut is named in one warning, the first
 * time; after a few in one sample, one summary line every 10 minutes.
 */
#ifndef MEMCG_BPF_CGROUP_BUDGET_H
#define MEMCG_BPF_CGROUP_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sampling/sample_table.h"
#include "sampling/stat_catalog.h"

#define CGROUP_BUDGET_MAX_CHILDREN 1000 /* MaxChildren's default */
#define CGROUP_BUDGET_MAX_CGROUPS 10000 /* MaxCgroups' default */
#define CGROUP_BUDGET_LIMIT 100000000    /* the largest either takes */
#define CGROUP_BUDGET_RANK_STAT "usage"  /* what ranks siblings: memory.current */

struct cgroup_budget_limits {
	unsigned int max_children; /* 0: no limit */
	unsigned int max_cgroups;  /* 0: no limit */
};

/* A parent some of whose children were cut. */
struct cgroup_budget_cut {
	const char *child_path; /* one cut child's path (the table's): the parent is its first parent_len bytes */
	size_t parent_len;      /* 1 for the walk root "/" */
	size_t by_children;     /* children cut by max_children */
	size_t by_cgroups;      /* children cut by max_cgroups */
};

/* What the last cgroup_budget_apply() did. */
struct cgroup_budget_tally {
	size_t seen;        /* rows that passed the selection */
	size_t kept;
	size_t cut;         /* seen - kept: every cut cgroup, those below a cut one included */
	size_t cut_parents; /* parents with children cut */
};

struct cgroup_budget;

/* 0, or -ENOMEM. */
int cgroup_budget_new(const struct cgroup_budget_limits *limits, struct cgroup_budget **out);
void cgroup_budget_free(struct cgroup_budget *b);
/* Whether either limit is set (without one, apply only counts). */
bool cgroup_budget_limited(const struct cgroup_budget *b);

/*
 * The stat the budget ranks by (CGROUP_BUDGET_RANK_STAT), for the sampler
 * to sample when it is not asked for (sampler_opts.rank_stat); NULL when
 * @limits sets no limit.
 */
const struct stat_def *cgroup_budget_rank_stat(const struct cgroup_budget_limits *limits);
/*
 * An array of @nr_rows verdicts for cgroup_budget_apply()'s @keep, owned by
 * @b: valid until the next call or cgroup_budget_free(). NULL on ENOMEM.
 */
bool *cgroup_budget_rows(struct cgroup_budget *b, size_t nr_rows);
/*
 * Decides which rows of @t keep their series. On entry @keep[r] says
 * whether row r passed the selection; on return, whether it is kept.
 * @usage_column: the column that ranks siblings (memory.current), or
 * SIZE_MAX (then only stickiness and ids rank them). Returns 0, or
 * -ENOMEM with @keep unchanged (nothing is cut).
 */
int cgroup_budget_apply(struct cgroup_budget *b, const struct sample_table *t, size_t usage_column, bool *keep);
void cgroup_budget_tally(const struct cgroup_budget *b, struct cgroup_budget_tally *out);
/* The parents with cut children of the last apply: *@out, valid until the next apply or a change of @t. */
size_t cgroup_budget_cut_parents(const struct cgroup_budget *b, const struct cgroup_budget_cut **out);

#endif
