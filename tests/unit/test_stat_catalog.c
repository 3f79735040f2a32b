// SPDX-License-Identifier: GPL-2.0-only
/* The stat catalog: look-ups, list parsing, suggestions for typos. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/log.h"
#include "sampling/stat_catalog.h"

static char last_log[1024];

static void capture_log(int level, const char *msg)
{
	snprintf(last_log, sizeof(last_log), "%s", msg);
}

static int setup(void **state)
{
	mb_log_set_sink(capture_log);
	last_log[0] = '\0';
	return 0;
}

static void test_names_are_unique_and_described(void **state)
{
	size_t n;
	const struct stat_def *cat = stat_catalog(&n);

	assert_true(n > 70);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(cat[i].name);
		assert_ptr_equal(stat_lookup(cat[i].name), &cat[i]);
		if (cat[i].file != STAT_FILE_USAGE)
			assert_non_null(cat[i].kernel[0]);
		for (size_t j = i + 1; j < n; j++)
			assert_string_not_equal(cat[i].name, cat[j].name);
	}
}

static void test_units_and_types(void **state)
{
	assert_int_equal(stat_lookup("anon")->unit, STAT_UNIT_BYTES);
	assert_int_equal(stat_lookup("anon")->type, STAT_GAUGE);
	assert_int_equal(stat_lookup("pgfault")->unit, STAT_UNIT_COUNT);
	assert_int_equal(stat_lookup("pgfault")->type, STAT_COUNTER);
	assert_int_equal(stat_lookup("usage")->file, STAT_FILE_USAGE);
	assert_int_equal(stat_lookup("oom_kill")->file, STAT_FILE_MEMORY_EVENTS);
	assert_int_equal(stat_lookup("oom_kill")->type, STAT_COUNTER);
}

static void test_v1_equivalents(void **state)
{
	assert_string_equal(stat_lookup("anon")->v1_name, "rss");
	assert_string_equal(stat_lookup("file")->v1_name, "cache");
	assert_string_equal(stat_lookup("file_mapped")->v1_name, "mapped_file");
	assert_null(stat_lookup("kernel")->v1_name);
}

static void test_sums_and_alternatives(void **state)
{
	const struct stat_def *pgscan = stat_lookup("pgscan");

	assert_non_null(strchr(stat_lookup("slab")->kernel[0], '+'));
	assert_non_null(pgscan->kernel[1]);
	assert_string_equal(stat_lookup("vmalloc")->kernel[1], "MEMCG_VMALLOC");
}

static void test_parse_default_list(void **state)
{
	const struct stat_def *out[128];
	size_t n;

	assert_int_equal(stat_parse_list(NULL, out, 128, &n), 0);
	assert_true(n >= 8);
	assert_ptr_equal(out[0], stat_lookup("anon"));
}

static void test_parse_keeps_order_and_drops_duplicates(void **state)
{
	const struct stat_def *out[8];
	size_t n;

	assert_int_equal(stat_parse_list("usage, anon,usage file", out, 8, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(out[0]->name, "usage");
	assert_string_equal(out[1]->name, "anon");
	assert_string_equal(out[2]->name, "file");
}

static void test_parse_all(void **state)
{
	const struct stat_def *out[128];
	size_t n, total;

	stat_catalog(&total);
	assert_int_equal(stat_parse_list("all", out, 128, &n), 0);
	assert_int_equal(n, total);
}

static void test_parse_unknown_names_nearest(void **state)
{
	const struct stat_def *out[8];
	size_t n;

	assert_int_equal(stat_parse_list("anon,anonn", out, 8, &n), -EINVAL);
	assert_non_null(strstr(last_log, "unknown stat 'anonn'"));
	assert_non_null(strstr(last_log, "anon"));
}

static void test_parse_too_many(void **state)
{
	const struct stat_def *out[2];
	size_t n;

	assert_int_equal(stat_parse_list("anon,file,kernel", out, 2, &n), -E2BIG);
}

static void test_suggest_prefix_first(void **state)
{
	char buf[256];

	assert_int_equal(stat_suggest("pgscan_", buf, sizeof(buf), 3), 3);
	assert_int_equal(strncmp(buf, "pgscan_", 7), 0);
	stat_suggest("oomkill", buf, sizeof(buf), 1);
	assert_string_equal(buf, "oom_kill");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_names_are_unique_and_described, setup),
		cmocka_unit_test_setup(test_units_and_types, setup),
		cmocka_unit_test_setup(test_v1_equivalents, setup),
		cmocka_unit_test_setup(test_sums_and_alternatives, setup),
		cmocka_unit_test_setup(test_parse_default_list, setup),
		cmocka_unit_test_setup(test_parse_keeps_order_and_drops_duplicates, setup),
		cmocka_unit_test_setup(test_parse_all, setup),
		cmocka_unit_test_setup(test_parse_unknown_names_nearest, setup),
		cmocka_unit_test_setup(test_parse_too_many, setup),
		cmocka_unit_test_setup(test_suggest_prefix_first, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
