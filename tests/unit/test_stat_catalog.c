// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stat catalog: look-ups, the one stat-selection parser (the config's
 * Stat values, the CLI's --stats list) and its errors, suggestions for typos.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
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
		/* the bpf backend reads a kernel constant, or a page counter, or nothing (derived) */
		if (cat[i].file == STAT_FILE_MEMORY_STAT || cat[i].file == STAT_FILE_MEMORY_EVENTS ||
		    cat[i].file == STAT_FILE_MEMORY_EVENTS_LOCAL || cat[i].file == STAT_FILE_PRESSURE)
			assert_non_null(cat[i].kernel[0]);
		/* a stat covers its cgroup alone exactly when its name says so */
		assert_int_equal(cat[i].scope == STAT_SCOPE_LOCAL,
				 strlen(cat[i].name) > 6 && !strcmp(cat[i].name + strlen(cat[i].name) - 6, "_local"));
		/* every derived stat's inputs are in the catalog */
		for (size_t k = 0; k < STAT_MAX_INPUTS && cat[i].inputs[k]; k++)
			assert_non_null(stat_lookup(cat[i].inputs[k]));
		assert_true(cat[i].file != STAT_FILE_DERIVED || cat[i].inputs[0]);
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
	/* in any case, after a name that then keeps its place */
	assert_int_equal(stat_parse_list("usage ALL", out, 128, &n), 0);
	assert_int_equal(n, total);
	assert_string_equal(out[0]->name, "usage");
	assert_string_equal(out[1]->name, "anon");
}

static void test_parse_unknown_names_nearest(void **state)
{
	const struct stat_def *out[8];
	size_t n;

	assert_int_equal(stat_parse_list("anon,anonn", out, 8, &n), -EINVAL);
	assert_true(starts_with(last_log, "unknown stat 'anonn'; nearest valid names: anon, "));
	assert_true(ends_with(last_log, " (see --list-stats)"));
	assert_int_equal(n, 1);
}

static void test_parse_too_many(void **state)
{
	const struct stat_def *out[2];
	size_t n;

	assert_int_equal(stat_parse_list("anon,file,kernel", out, 2, &n), -E2BIG);
	assert_string_equal(last_log, "too many stats selected (at most 2)");
	assert_int_equal(n, 2);
}

static void test_parse_empty_list_is_the_default(void **state)
{
	const struct stat_def *def[128], *out[128];
	size_t nd, n;

	assert_int_equal(stat_parse_list(STAT_DEFAULT_LIST, def, 128, &nd), 0);
	assert_int_equal(stat_parse_list("", out, 128, &n), 0);
	assert_int_equal(n, nd);
	assert_memory_equal(out, def, n * sizeof(out[0]));
	assert_int_equal(stat_parse_list(" , ", out, 128, &n), 0); /* only separators: nothing */
	assert_int_equal(n, 0);
}

/* "default" adds the default set: Stat "default" "anon_thp" keeps every default stat. */
static void test_select_default_word(void **state)
{
	const struct stat_def *def[STAT_SELECTION_MAX], *out[STAT_SELECTION_MAX];
	size_t nd, n = 0;

	assert_int_equal(stat_parse_list(STAT_DEFAULT_LIST, def, STAT_SELECTION_MAX, &nd), 0);
	assert_int_equal(stat_select("Stat", "default", out, STAT_SELECTION_MAX, &n), 0);
	assert_int_equal(stat_select("Stat", "DEFAULT", out, STAT_SELECTION_MAX, &n), 0);
	assert_int_equal(n, nd);
	assert_memory_equal(out, def, n * sizeof(out[0]));
	assert_int_equal(stat_select("Stat", "soft_limit", out, STAT_SELECTION_MAX, &n), 0);
	assert_int_equal(n, nd + 1);
	/* a stat named before it is not added twice, and keeps its place */
	n = 0;
	assert_int_equal(stat_parse_list("anon_thp,usage,default", out, STAT_SELECTION_MAX, &n), 0);
	assert_int_equal(n, nd + 1);
	assert_string_equal(out[0]->name, "anon_thp");
	assert_string_equal(out[1]->name, "usage");
	/* too little room: one error, as for "all" */
	n = 0;
	assert_int_equal(stat_select("Stat", "default", out, 3, &n), -E2BIG);
}

/* The config adds its Stat values one by one, line after line. */
static void test_select_accumulates_without_duplicates(void **state)
{
	const struct stat_def *out[8];
	size_t n = 0;

	assert_int_equal(stat_select("Stat", "anon", out, 8, &n), 0);
	assert_int_equal(stat_select("Stat", "usage", out, 8, &n), 0);
	assert_int_equal(stat_select("Stat", "anon", out, 8, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(out[0]->name, "anon");
	assert_string_equal(out[1]->name, "usage");
	assert_string_equal(last_log, "");
}

static void test_select_takes_one_name(void **state)
{
	const struct stat_def *out[8];
	size_t n = 0;

	assert_int_equal(stat_select("Stat", "anon,file", out, 8, &n), -EINVAL);
	assert_int_equal(n, 0);
}

static void test_select_unknown_names_key_and_nearest(void **state)
{
	const struct stat_def *out[8];
	size_t n = 0;

	assert_int_equal(stat_select("Stat", "oomkill", out, 8, &n), -EINVAL);
	assert_true(starts_with(last_log, "Stat \"oomkill\": unknown stat; nearest valid names: oom_kill, "));
	assert_null(strstr(last_log, "--list-stats"));
	assert_int_equal(n, 0);
}

static void test_select_too_many_names_key(void **state)
{
	const struct stat_def *out[2];
	size_t n = 0;

	assert_int_equal(stat_select("Stat", "all", out, 2, &n), -E2BIG);
	assert_string_equal(last_log, "Stat \"all\": more than 2 stats selected");
	assert_int_equal(n, 2);
	assert_int_equal(stat_select("Stat", "anon", out, 2, &n), 0); /* already in */
	assert_int_equal(stat_select("Stat", "usage", out, 2, &n), -E2BIG);
	assert_string_equal(last_log, "Stat \"usage\": more than 2 stats selected");
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
		cmocka_unit_test_setup(test_parse_empty_list_is_the_default, setup),
		cmocka_unit_test_setup(test_select_default_word, setup),
		cmocka_unit_test_setup(test_select_accumulates_without_duplicates, setup),
		cmocka_unit_test_setup(test_select_takes_one_name, setup),
		cmocka_unit_test_setup(test_select_unknown_names_key_and_nearest, setup),
		cmocka_unit_test_setup(test_select_too_many_names_key, setup),
		cmocka_unit_test_setup(test_suggest_prefix_first, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
