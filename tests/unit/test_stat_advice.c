// SPDX-License-Identifier: GPL-2.0-only
/*
 * stat_advice_missing(): which series of the shipped rules and dashboard a
 * Stat selection leaves empty, on each cgroup version.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "config/stat_advice.h"
#include "sampling/stat_catalog.h"

static size_t missing_for(const char *list, int version, char *buf, size_t len)
{
	const struct stat_def *stats[STAT_SELECTION_MAX];
	size_t n = 0;

	assert_int_equal(stat_parse_list(list, stats, STAT_SELECTION_MAX, &n), 0);
	return stat_advice_missing(stats, n, version, buf, len);
}

/* The default set feeds every rule: nothing to say on either version. */
static void test_default_set_misses_nothing(void **state)
{
	char buf[1024];

	assert_int_equal(missing_for("default", 2, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(missing_for("default", 1, buf, sizeof(buf)), 0);
	assert_int_equal(missing_for("default,anon_thp", 2, buf, sizeof(buf)), 0);
}

/* One Stat line without working_set names cAdvisor's working-set series. */
static void test_list_without_working_set_names_its_series(void **state)
{
	char buf[2048];
	size_t n = missing_for("swap_current", 2, buf, sizeof(buf));

	assert_true(n > 10);
	assert_non_null(strstr(buf, "working_set (container_memory_working_set_bytes"));
	assert_null(strstr(buf, "container_memory_swap"));
}

/* Either OOM counter feeds container_oom_events_total. */
static void test_either_oom_counter_is_enough(void **state)
{
	char buf[2048];

	missing_for("oom_kill_local", 2, buf, sizeof(buf));
	assert_null(strstr(buf, "container_oom_events_total"));
	missing_for("oom_victims_local", 2, buf, sizeof(buf));
	assert_null(strstr(buf, "container_oom_events_total"));
	missing_for("anon", 2, buf, sizeof(buf));
	assert_non_null(strstr(buf, "oom_victims_local (container_oom_events_total"));
}

/* What cgroup v1 lacks altogether (kernel, swap_current, pressure) is not asked
 * for there. */
static void test_v1_skips_what_it_lacks(void **state)
{
	char buf[2048];

	missing_for("anon", 1, buf, sizeof(buf));
	assert_null(strstr(buf, "container_memory_kernel_usage"));
	assert_null(strstr(buf, "container_memory_swap"));
	assert_null(strstr(buf, "pressure"));
	assert_non_null(strstr(buf, "container_memory_working_set_bytes"));
	missing_for("anon", 2, buf, sizeof(buf));
	assert_non_null(strstr(buf, "container_memory_kernel_usage"));
}

/* A short buffer is cut, NUL-terminated, and the count stays whole. */
static void test_short_buffer_is_cut(void **state)
{
	char small[16], big[2048];

	assert_int_equal(missing_for("anon", 2, small, sizeof(small)), missing_for("anon", 2, big, sizeof(big)));
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_set_misses_nothing),
		cmocka_unit_test(test_list_without_working_set_names_its_series),
		cmocka_unit_test(test_either_oom_counter_is_enough),
		cmocka_unit_test(test_v1_skips_what_it_lacks),
		cmocka_unit_test(test_short_buffer_is_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
