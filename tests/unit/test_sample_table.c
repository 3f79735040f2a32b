// SPDX-License-Identifier: GPL-2.0-only
/* The sample table: rows, missing values, growth, reuse. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sampling/sample_table.h"

static const struct stat_def *two_stats[2];

static void test_new_row_is_all_missing(void **state)
{
	struct sample_table t;
	struct sample_row *row;

	sample_table_init(&t, two_stats, 2);
	row = sample_table_add(&t, 42, "/a", 1);
	assert_non_null(row);
	assert_int_equal(row->cgroup_id, 42);
	assert_string_equal(row->path, "/a");
	assert_int_equal(row->values[0], SAMPLE_VALUE_MISSING);
	assert_int_equal(row->values[1], SAMPLE_VALUE_MISSING);
	sample_table_free(&t);
}

static void test_rows_survive_growth(void **state)
{
	struct sample_table t;
	char path[64];

	sample_table_init(&t, two_stats, 2);
	for (int i = 0; i < 5000; i++) {
		struct sample_row *row;

		snprintf(path, sizeof(path), "/cgroup-with-a-long-name-%d", i);
		row = sample_table_add(&t, i, path, 1);
		assert_non_null(row);
		row->values[0] = i;
		row->values[1] = 2 * i;
	}
	assert_int_equal(t.nr_rows, 5000);
	for (int i = 0; i < 5000; i++) {
		snprintf(path, sizeof(path), "/cgroup-with-a-long-name-%d", i);
		assert_string_equal(t.rows[i].path, path);
		assert_int_equal(t.rows[i].values[0], i);
		assert_int_equal(t.rows[i].values[1], 2 * i);
	}
	sample_table_free(&t);
}

static void test_reset_reuses_storage(void **state)
{
	struct sample_table t;
	uint64_t *values;

	sample_table_init(&t, two_stats, 2);
	sample_table_add(&t, 1, "/x", 1);
	values = t.value_buf;
	t.skipped = 3;
	sample_table_reset(&t);
	assert_int_equal(t.nr_rows, 0);
	assert_int_equal(t.skipped, 0);
	sample_table_add(&t, 2, "/y", 1);
	assert_ptr_equal(t.value_buf, values);
	assert_string_equal(t.rows[0].path, "/y");
	sample_table_free(&t);
}

static void test_free_twice_is_safe(void **state)
{
	struct sample_table t;

	sample_table_init(&t, two_stats, 2);
	sample_table_add(&t, 1, "/x", 1);
	sample_table_free(&t);
	sample_table_free(&t);
}

static void test_shipped_values(void **state)
{
	assert_true(sample_value(stat_lookup("anon"), 4096) == 4096.0);
	assert_true(isinf(sample_value(stat_lookup("memory_max"), SAMPLE_VALUE_UNLIMITED)));
	assert_true(sample_value(stat_lookup("memory_max"), SAMPLE_VALUE_UNLIMITED) > 0);
	/* memory.pressure's totals are in µs, shipped as seconds */
	assert_true(sample_value(stat_lookup("pressure_some"), 2500000) == 2.5);
}

/* Hidden columns are sampled (rows hold them) but not among the table's stats. */
static void test_hidden_columns(void **state)
{
	const struct stat_def *cols[3] = { stat_lookup("working_set"), stat_lookup("usage"),
					   stat_lookup("inactive_file") };
	struct sample_table t;
	struct sample_row *a, *b;

	sample_table_init_hidden(&t, cols, 1, 3);
	assert_int_equal(t.nr_stats, 1);
	a = sample_table_add(&t, 1, "/a", 1);
	a->values[2] = 7;
	b = sample_table_add(&t, 2, "/b", 1);
	assert_int_equal(b->values[0], SAMPLE_VALUE_MISSING);
	assert_int_equal(b->values[2], SAMPLE_VALUE_MISSING);
	assert_int_equal(t.rows[0].values[2], 7);
	assert_ptr_equal(t.rows[1].values, t.rows[0].values + 3);
	sample_table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_row_is_all_missing),
		cmocka_unit_test(test_rows_survive_growth),
		cmocka_unit_test(test_reset_reuses_storage),
		cmocka_unit_test(test_free_twice_is_safe),
		cmocka_unit_test(test_shipped_values),
		cmocka_unit_test(test_hidden_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
