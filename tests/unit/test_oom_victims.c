// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OOM tracker's book of victim cgroups, driven with made-up kernel
 * entries: a live victim reads 0 then its count; a removed one gets a row
 * of its own at its path, lingers OOM_VICTIMS_LINGER samples after its 0,
 * then is dropped and its kernel entry forgotten; placement below a walk
 * root in the middle of the hierarchy and at its top; MaxDepth; a cut path.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sampling/oom_victims.h"
#include "sampling/stat_catalog.h"

/* A kernel entry for a cgroup at "/a/b/..." with ids 100, 101, ... per level. */
static void kernel_entry(struct oom_victim *k, uint64_t kills, const char *const *names, unsigned n)
{
	unsigned off = 0;

	memset(k, 0, sizeof(*k));
	k->kills = kills;
	for (unsigned j = 0; j < n; j++) {
		off += (unsigned)snprintf(k->path + off, sizeof(k->path) - off, "/%s", names[j]);
		k->ids[j] = 100 + j;
		k->name_end[j] = (__u16)off;
	}
	k->nr_levels = n;
}

struct forgotten {
	uint64_t ids[8];
	size_t n;
};

static void forget(uint64_t id, void *arg)
{
	struct forgotten *f = arg;

	if (f->n < 8)
		f->ids[f->n] = id;
	f->n++;
}

static const struct stat_def *cols[1];

static void table(struct sample_table *t)
{
	cols[0] = stat_lookup("oom_victims_local");
	assert_non_null(cols[0]);
	sample_table_init(t, cols, 1);
}

/* The row of @t for @id, or NULL. */
static const struct sample_row *row_of(const struct sample_table *t, uint64_t id)
{
	for (size_t r = 0; r < t->nr_rows; r++)
		if (t->rows[r].cgroup_id == id)
			return &t->rows[r];
	return NULL;
}

static struct oom_victims *book(uint64_t root_id, bool top, int max_depth)
{
	struct oom_walk w = { .root_id = root_id, .root_is_top = top, .max_depth = max_depth };
	struct oom_victims *vs;

	assert_int_equal(oom_victims_new(&w, &vs), 0);
	return vs;
}

/* A cgroup the walk still sees: 0 at its first sample, then its count as it grows. */
static void test_live_victim_reads_zero_then_count(void **state)
{
	static const char *const names[] = { "pod", "c1" };
	struct oom_victims *vs = book(1, true, -1);
	struct forgotten f = { 0 };
	struct sample_table t;
	struct oom_victim k;

	table(&t);
	kernel_entry(&k, 2, names, 2);
	assert_int_equal(oom_victims_update(vs, 101, &k), 0);
	for (int round = 0; round < 3; round++) {
		sample_table_reset(&t);
		assert_non_null(sample_table_add(&t, 100, "/pod", 1));
		assert_non_null(sample_table_add(&t, 101, "/pod/c1", 2));
		if (round == 2) {
			k.kills = 5;
			assert_int_equal(oom_victims_update(vs, 101, &k), 0);
		}
		assert_int_equal(oom_victims_fill(vs, &t, 0, forget, &f), 0);
		assert_int_equal(t.nr_rows, 2);
		assert_int_equal(row_of(&t, 100)->values[0], SAMPLE_VALUE_MISSING);
		assert_int_equal(row_of(&t, 101)->values[0], round == 0 ? 0 : round == 1 ? 2 : 5);
	}
	assert_int_equal(f.n, 0);
	sample_table_free(&t);
	oom_victims_free(vs);
}

/* Removed before any sample saw it: its own row, 0, then the count LINGER times, then gone. */
static void test_removed_victim_lingers_then_goes(void **state)
{
	static const char *const names[] = { "kubepods.slice", "pod1.slice", "cri-containerd-a.scope" };
	struct oom_victims *vs = book(1, true, -1);
	struct forgotten f = { 0 };
	struct sample_table t;
	struct oom_victim k;
	int round;

	table(&t);
	kernel_entry(&k, 2, names, 3);
	assert_int_equal(oom_victims_update(vs, 102, &k), 0);
	for (round = 0; round < 1 + OOM_VICTIMS_LINGER; round++) {
		const struct sample_row *row;

		sample_table_reset(&t);
		assert_non_null(sample_table_add(&t, 1, "/", 0));
		assert_int_equal(oom_victims_fill(vs, &t, 0, forget, &f), 0);
		assert_int_equal(t.nr_rows, 2);
		row = row_of(&t, 102);
		assert_non_null(row);
		assert_string_equal(row->path, "/kubepods.slice/pod1.slice/cri-containerd-a.scope");
		assert_int_equal(row->depth, 3);
		assert_int_equal(row->values[0], round == 0 ? 0 : 2);
		assert_int_equal(f.n, 0);
	}
	sample_table_reset(&t);
	assert_int_equal(oom_victims_fill(vs, &t, 0, forget, &f), 0);
	assert_int_equal(t.nr_rows, 0);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.ids[0], 102);
	assert_int_equal(oom_victims_count(vs), 0);
	sample_table_free(&t);
	oom_victims_free(vs);
}

/* Seen alive with its kills, then removed: LINGER more samples of its count, no second 0. */
static void test_seen_then_removed(void **state)
{
	static const char *const names[] = { "app" };
	struct oom_victims *vs = book(1, true, -1);
	struct forgotten f = { 0 };
	struct sample_table t;
	struct oom_victim k;

	table(&t);
	kernel_entry(&k, 1, names, 1);
	assert_int_equal(oom_victims_update(vs, 100, &k), 0);
	for (int round = 0; round < 2; round++) {
		sample_table_reset(&t);
		assert_non_null(sample_table_add(&t, 100, "/app", 1));
		assert_int_equal(oom_victims_fill(vs, &t, 0, forget, &f), 0);
	}
	for (int round = 0; round < OOM_VICTIMS_LINGER; round++) {
		sample_table_reset(&t);
		assert_int_equal(oom_victims_fill(vs, &t, 0, forget, &f), 0);
		assert_int_equal(t.nr_rows, 1);
		assert_int_equal(t.rows[0].values[0], 1);
	}
	sample_table_reset(&t);
	assert_int_equal(oom_victims_fill(vs, &t, 0, forget, &f), 0);
	assert_int_equal(t.nr_rows, 0);
	assert_int_equal(f.n, 1);
	sample_table_free(&t);
	oom_victims_free(vs);
}

/* A walk root inside the hierarchy (id 101 = /a/b): paths and depths below it; others are outside. */
static void test_placed_below_a_subtree_root(void **state)
{
	static const char *const inside[] = { "a", "b", "c", "d" };
	static const char *const root[] = { "a", "b" };
	static const char *const outside[] = { "x", "y" };
	struct oom_victims *vs = book(101, false, -1);
	struct forgotten f = { 0 };
	struct sample_table t;
	struct oom_victim k;

	table(&t);
	kernel_entry(&k, 1, inside, 4);
	assert_int_equal(oom_victims_update(vs, 103, &k), 0);
	assert_string_equal(oom_victims_path(vs, 103), "/c/d");
	kernel_entry(&k, 1, root, 2);
	assert_int_equal(oom_victims_update(vs, 101, &k), 0);
	assert_string_equal(oom_victims_path(vs, 101), "/");
	kernel_entry(&k, 1, outside, 2);
	k.ids[0] = 500, k.ids[1] = 501;
	assert_int_equal(oom_victims_update(vs, 501, &k), 0);
	assert_null(oom_victims_path(vs, 501));

	assert_int_equal(oom_victims_fill(vs, &t, 0, forget, &f), 0);
	assert_int_equal(t.nr_rows, 2); /* the outside one has no row, and is forgotten */
	assert_int_equal(row_of(&t, 103)->depth, 2);
	assert_int_equal(row_of(&t, 101)->depth, 0);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.ids[0], 501);
	sample_table_free(&t);
	oom_victims_free(vs);
}

/* MaxDepth: a victim deeper than it gets no row; a cut path neither, with a warning. */
static void test_too_deep_and_cut(void **state)
{
	static const char *const deep[] = { "a", "b", "c" };
	struct oom_victims *vs = book(1, true, 2);
	struct forgotten f = { 0 };
	struct sample_table t;
	struct oom_victim k;

	table(&t);
	kernel_entry(&k, 1, deep, 3);
	assert_int_equal(oom_victims_update(vs, 102, &k), 0);
	assert_null(oom_victims_path(vs, 102));
	kernel_entry(&k, 1, deep, 2);
	k.flags = OOM_VICTIM_PATH_CUT;
	assert_int_equal(oom_victims_update(vs, 101, &k), 0);
	assert_null(oom_victims_path(vs, 101));
	/* a cut one the walk sees still gets its value */
	assert_non_null(sample_table_add(&t, 101, "/a/b", 2));
	assert_int_equal(oom_victims_fill(vs, &t, 0, forget, &f), 0);
	assert_int_equal(t.nr_rows, 1);
	assert_int_equal(t.rows[0].values[0], 0);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.ids[0], 102);
	sample_table_free(&t);
	oom_victims_free(vs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_victim_reads_zero_then_count),
		cmocka_unit_test(test_removed_victim_lingers_then_goes),
		cmocka_unit_test(test_seen_then_removed),
		cmocka_unit_test(test_placed_below_a_subtree_root),
		cmocka_unit_test(test_too_deep_and_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
