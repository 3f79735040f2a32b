// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cgroup budget on made-up tables: no limit keeps everything; MaxChildren
 * keeps the largest children of a crowded parent and cuts what lies below
 * a cut child; MaxCgroups keeps shallower levels first; the kept set is
 * sticky (a newcomer must be clearly larger); equal cgroups never trade
 * places; a removed OOM victim's row is kept first; rows outside the
 * selection are neither counted nor kept; the
 * parents with cut children are reported.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sampling/cgroup_budget.h"
#include "sampling/stat_catalog.h"

#define MiB (1ull << 20)

static const struct stat_def *cols[1];

static void table(struct sample_table *t)
{
	cols[0] = stat_lookup("usage");
	assert_non_null(cols[0]);
	sample_table_init(t, cols, 1);
}

static void row(struct sample_table *t, uint64_t id, const char *path, uint64_t usage)
{
	int depth = 0;
	struct sample_row *r;

	for (const char *p = path; p[1] && *p; p++)
		depth += *p == '/';
	r = sample_table_add(t, id, path, depth);
	assert_non_null(r);
	r->values[0] = usage;
}

static struct cgroup_budget *budget(unsigned int max_children, unsigned int max_cgroups)
{
	struct cgroup_budget_limits l = { .max_children = max_children, .max_cgroups = max_cgroups };
	struct cgroup_budget *b;

	assert_int_equal(cgroup_budget_new(&l, &b), 0);
	return b;
}

static void done(struct cgroup_budget *b, struct sample_table *t)
{
	cgroup_budget_free(b);
	sample_table_free(t);
}

/* Applies @b to @t with every row selected; @keep gets the verdicts. */
static void apply_all(struct cgroup_budget *b, const struct sample_table *t, bool *keep)
{
	for (size_t r = 0; r < t->nr_rows; r++)
		keep[r] = true;
	assert_int_equal(cgroup_budget_apply(b, t, 0, keep), 0);
}

static bool kept(const struct sample_table *t, const bool *keep, const char *path)
{
	for (size_t r = 0; r < t->nr_rows; r++)
		if (strcmp(t->rows[r].path, path) == 0)
			return keep[r];
	fail_msg("no row %s", path);
	return false;
}

/* "/" with /sys (3 services) and /tenant (8 children c0..c7 of usage i MiB, c7 with a child). */
static void host(struct sample_table *t, const uint64_t *tenant_usage)
{
	char path[32];

	table(t);
	row(t, 1, "/", 100 * MiB);
	row(t, 2, "/sys", 10 * MiB);
	row(t, 3, "/sys/a", 1 * MiB);
	row(t, 4, "/sys/b", 2 * MiB);
	row(t, 5, "/sys/c", 3 * MiB);
	row(t, 6, "/tenant", 50 * MiB);
	for (int i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "/tenant/c%d", i);
		row(t, 10 + (uint64_t)i, path, tenant_usage[i]);
	}
	row(t, 30, "/tenant/c7/deep", 1 * MiB);
}

static const uint64_t ascending[8] = { 0, 1 * MiB, 2 * MiB, 3 * MiB, 4 * MiB, 5 * MiB, 6 * MiB, 7 * MiB };

static void test_no_limit_keeps_all(void **state)
{
	struct cgroup_budget *b = budget(0, 0);
	struct sample_table t;
	struct cgroup_budget_tally tally;
	bool keep[32];

	host(&t, ascending);
	assert_false(cgroup_budget_limited(b));
	apply_all(b, &t, keep);
	for (size_t r = 0; r < t.nr_rows; r++)
		assert_true(keep[r]);
	cgroup_budget_tally(b, &tally);
	assert_int_equal(tally.seen, t.nr_rows);
	assert_int_equal(tally.kept, t.nr_rows);
	assert_int_equal(tally.cut, 0);
	assert_int_equal(tally.cut_parents, 0);
	done(b, &t);
}

static void test_max_children_keeps_largest(void **state)
{
	const struct cgroup_budget_cut *cuts;
	struct cgroup_budget *b = budget(3, 0);
	struct sample_table t;
	struct cgroup_budget_tally tally;
	bool keep[32];

	host(&t, ascending);
	apply_all(b, &t, keep);
	/* the services: 3 children, within the budget */
	assert_true(kept(&t, keep, "/sys/a") && kept(&t, keep, "/sys/b") && kept(&t, keep, "/sys/c"));
	assert_true(kept(&t, keep, "/") && kept(&t, keep, "/sys") && kept(&t, keep, "/tenant"));
	for (int i = 0; i < 8; i++) {
		char path[32];

		snprintf(path, sizeof(path), "/tenant/c%d", i);
		assert_int_equal(kept(&t, keep, path), i >= 5);
	}
	assert_true(kept(&t, keep, "/tenant/c7/deep"));
	cgroup_budget_tally(b, &tally);
	assert_int_equal(tally.seen, 15);
	assert_int_equal(tally.kept, 10);
	assert_int_equal(tally.cut, 5);
	assert_int_equal(cgroup_budget_cut_parents(b, &cuts), 1);
	assert_int_equal(cuts[0].parent_len, strlen("/tenant"));
	assert_memory_equal(cuts[0].child_path, "/tenant/", 8);
	assert_int_equal(cuts[0].by_children, 5);
	assert_int_equal(cuts[0].by_cgroups, 0);
	done(b, &t);
}

static void test_below_a_cut_child_is_cut(void **state)
{
	/* c7 is now the smallest: cut, and its child with it */
	const uint64_t descending[8] = { 7 * MiB, 6 * MiB, 5 * MiB, 4 * MiB, 3 * MiB, 2 * MiB, 1 * MiB, 0 };
	struct cgroup_budget *b = budget(3, 0);
	struct sample_table t;
	struct cgroup_budget_tally tally;
	bool keep[32];

	host(&t, descending);
	apply_all(b, &t, keep);
	assert_false(kept(&t, keep, "/tenant/c7"));
	assert_false(kept(&t, keep, "/tenant/c7/deep"));
	assert_true(kept(&t, keep, "/tenant/c0"));
	cgroup_budget_tally(b, &tally);
	assert_int_equal(tally.cut, 6);
	done(b, &t);
}

static void test_max_cgroups_shallow_first(void **state)
{
	const struct cgroup_budget_cut *cuts;
	struct cgroup_budget *b = budget(0, 8);
	struct sample_table t;
	struct cgroup_budget_tally tally;
	bool keep[32];
	size_t n;

	host(&t, ascending);
	apply_all(b, &t, keep);
	/* levels 0 and 1: 3 rows; level 2: 11 rows for 5 places, the largest (c7..c3; /sys/c is 3 MiB = c3: older id) */
	assert_true(kept(&t, keep, "/") && kept(&t, keep, "/sys") && kept(&t, keep, "/tenant"));
	assert_true(kept(&t, keep, "/tenant/c7") && kept(&t, keep, "/tenant/c6") && kept(&t, keep, "/tenant/c5"));
	assert_true(kept(&t, keep, "/tenant/c4") && kept(&t, keep, "/sys/c"));
	assert_false(kept(&t, keep, "/tenant/c3") || kept(&t, keep, "/sys/a") || kept(&t, keep, "/sys/b"));
	/* level 3: no room left */
	assert_false(kept(&t, keep, "/tenant/c7/deep"));
	cgroup_budget_tally(b, &tally);
	assert_int_equal(tally.kept, 8);
	assert_int_equal(tally.cut, 7);
	n = cgroup_budget_cut_parents(b, &cuts);
	assert_int_equal(n, 3); /* /sys, /tenant, /tenant/c7 */
	for (size_t i = 0; i < n; i++)
		assert_int_equal(cuts[i].by_children, 0);
	done(b, &t);
}

static void test_sticky_until_clearly_behind(void **state)
{
	uint64_t usage[8] = { 0, 1 * MiB, 2 * MiB, 3 * MiB, 4 * MiB, 5 * MiB, 6 * MiB, 7 * MiB };
	struct cgroup_budget *b = budget(3, 0);
	struct sample_table t;
	bool keep[32];

	host(&t, usage);
	apply_all(b, &t, keep); /* c5, c6, c7 */
	sample_table_free(&t);

	/* c4 grows past c5, but not clearly: nothing changes */
	usage[4] = 9 * MiB;
	host(&t, usage);
	apply_all(b, &t, keep);
	assert_true(kept(&t, keep, "/tenant/c5"));
	assert_false(kept(&t, keep, "/tenant/c4"));
	sample_table_free(&t);

	/* past twice c5 plus 1 MiB: c4 takes c5's place */
	usage[4] = 12 * MiB;
	host(&t, usage);
	apply_all(b, &t, keep);
	assert_true(kept(&t, keep, "/tenant/c4"));
	assert_false(kept(&t, keep, "/tenant/c5"));
	assert_true(kept(&t, keep, "/tenant/c6") && kept(&t, keep, "/tenant/c7"));
	sample_table_free(&t);

	/* c5 back at its old size: c4, now kept, stays */
	usage[4] = 6 * MiB;
	host(&t, usage);
	apply_all(b, &t, keep);
	assert_true(kept(&t, keep, "/tenant/c4"));
	assert_false(kept(&t, keep, "/tenant/c5"));
	done(b, &t);
}

static void test_equal_cgroups_do_not_churn(void **state)
{
	const uint64_t zero[8] = { 0 };
	struct cgroup_budget *b = budget(4, 0);
	struct sample_table t;
	bool first[32], keep[32];

	host(&t, zero);
	apply_all(b, &t, first);
	/* the older ids */
	assert_true(kept(&t, first, "/tenant/c0") && kept(&t, first, "/tenant/c3"));
	assert_false(kept(&t, first, "/tenant/c4"));
	for (int round = 0; round < 5; round++) {
		apply_all(b, &t, keep);
		assert_memory_equal(keep, first, t.nr_rows * sizeof(bool));
	}
	done(b, &t);
}

/* A removed OOM victim's row (no memory.current) is not cut. */
static void test_victim_rows_first(void **state)
{
	struct cgroup_budget *b = budget(3, 0);
	struct sample_table t;
	bool keep[32];

	host(&t, ascending);
	row(&t, 40, "/tenant/gone", SAMPLE_VALUE_MISSING);
	apply_all(b, &t, keep);
	assert_true(kept(&t, keep, "/tenant/gone"));
	assert_true(kept(&t, keep, "/tenant/c7") && kept(&t, keep, "/tenant/c6"));
	assert_false(kept(&t, keep, "/tenant/c5"));
	done(b, &t);
}

static void test_selection_applies_first(void **state)
{
	struct cgroup_budget *b = budget(3, 6);
	struct sample_table t;
	struct cgroup_budget_tally tally;
	bool keep[32];

	host(&t, ascending);
	/* the selection leaves out the root and /sys/a */
	for (size_t r = 0; r < t.nr_rows; r++)
		keep[r] = strcmp(t.rows[r].path, "/") && strcmp(t.rows[r].path, "/sys/a");
	assert_int_equal(cgroup_budget_apply(b, &t, 0, keep), 0);
	assert_false(kept(&t, keep, "/") || kept(&t, keep, "/sys/a"));
	cgroup_budget_tally(b, &tally);
	assert_int_equal(tally.seen, 13);
	assert_int_equal(tally.kept, 6);
	/* /sys, /tenant, then 4 of level 2's: c7, c6, c5 (MaxChildren 3), /sys/c */
	assert_true(kept(&t, keep, "/tenant/c5") && kept(&t, keep, "/sys/c"));
	assert_false(kept(&t, keep, "/sys/b") || kept(&t, keep, "/tenant/c7/deep"));
	done(b, &t);
}

/*
 * A random tree of 3,000 cgroups (ties in usage included), once in the
 * walk's pre-order and once shuffled (rows out of order, as rows added
 * after the walk are): the same cgroups are kept, no parent keeps more
 * than MaxChildren, the total stays within MaxCgroups, nothing is kept
 * below a cut cgroup, and every kept sibling outranks every cut one.
 */
#define TREE_ROWS 3000
struct tree_row {
	uint64_t id, usage;
	int parent; /* index, -1 for the root */
	char path[64];
};

static uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void random_tree(struct tree_row *tr)
{
	uint64_t x = 88172645463325252ull;

	tr[0] = (struct tree_row){ .id = 1, .usage = 1000 * MiB, .parent = -1, .path = "/" };
	for (int i = 1; i < TREE_ROWS; i++) {
		/* a few wide parents: the first 40 rows take the children */
		int p = (int)(next_random(&x) % (uint64_t)(i < 40 ? i : 40));

		tr[i].id = 100 + (uint64_t)i;
		tr[i].usage = (next_random(&x) % 16) * MiB; /* many ties */
		tr[i].parent = p;
		snprintf(tr[i].path, sizeof(tr[i].path), "%s/c%d", p ? tr[p].path : "", i);
	}
}

/* Pre-order from @i: the walk's order. */
static void add_preorder(struct sample_table *t, const struct tree_row *tr, int i)
{
	row(t, tr[i].id, tr[i].path, tr[i].usage);
	for (int c = i + 1; c < TREE_ROWS; c++)
		if (tr[c].parent == i)
			add_preorder(t, tr, c);
}

static bool kept_id(const struct sample_table *t, const bool *keep, uint64_t id)
{
	for (size_t r = 0; r < t->nr_rows; r++)
		if (t->rows[r].cgroup_id == id)
			return keep[r];
	fail_msg("no row %llu", (unsigned long long)id);
	return false;
}

static void test_random_tree_any_order(void **state)
{
	static struct tree_row tr[TREE_ROWS];
	static bool keep_walk[TREE_ROWS], keep_shuffled[TREE_ROWS], kept_by_index[TREE_ROWS];
	static int order[TREE_ROWS];
	struct cgroup_budget *b1 = budget(7, 300), *b2 = budget(7, 300);
	struct sample_table walk, shuffled;
	uint64_t x = 2463534242ull;
	size_t total = 0;

	random_tree(tr);
	table(&walk);
	add_preorder(&walk, tr, 0);
	assert_int_equal(walk.nr_rows, TREE_ROWS);
	for (int i = 0; i < TREE_ROWS; i++)
		order[i] = i;
	for (int i = TREE_ROWS - 1; i > 0; i--) {
		int j = (int)(next_random(&x) % (uint64_t)(i + 1)), tmp = order[i];

		order[i] = order[j];
		order[j] = tmp;
	}
	table(&shuffled);
	for (int i = 0; i < TREE_ROWS; i++)
		row(&shuffled, tr[order[i]].id, tr[order[i]].path, tr[order[i]].usage);
	apply_all(b1, &walk, keep_walk);
	apply_all(b2, &shuffled, keep_shuffled);

	for (int i = 0; i < TREE_ROWS; i++) {
		kept_by_index[i] = kept_id(&walk, keep_walk, tr[i].id);
		assert_int_equal(kept_by_index[i], kept_id(&shuffled, keep_shuffled, tr[i].id));
		total += kept_by_index[i];
	}
	assert_true(total <= 300 && total > 7);
	for (int p = 0; p < TREE_ROWS; p++) {
		size_t kept_children = 0;

		for (int c = 1; c < TREE_ROWS; c++) {
			if (tr[c].parent != p)
				continue;
			kept_children += kept_by_index[c];
			if (kept_by_index[c])
				assert_true(kept_by_index[p]); /* nothing kept below a cut */
			for (int d = 1; d < TREE_ROWS && kept_by_index[c]; d++)
				if (tr[d].parent == p && !kept_by_index[d] && kept_by_index[p])
					assert_true(tr[c].usage > tr[d].usage ||
						    (tr[c].usage == tr[d].usage && tr[c].id < tr[d].id));
		}
		assert_true(kept_children <= 7);
	}
	cgroup_budget_free(b1);
	cgroup_budget_free(b2);
	sample_table_free(&walk);
	sample_table_free(&shuffled);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_limit_keeps_all),
		cmocka_unit_test(test_max_children_keeps_largest),
		cmocka_unit_test(test_below_a_cut_child_is_cut),
		cmocka_unit_test(test_max_cgroups_shallow_first),
		cmocka_unit_test(test_sticky_until_clearly_behind),
		cmocka_unit_test(test_equal_cgroups_do_not_churn),
		cmocka_unit_test(test_victim_rows_first),
		cmocka_unit_test(test_selection_applies_first),
		cmocka_unit_test(test_random_tree_any_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
