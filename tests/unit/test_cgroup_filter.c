// SPDX-License-Identifier: GPL-2.0-only
/* Cgroup selection: globs, /regex/, IgnoreSelected, errors. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sampling/cgroup_filter.h"

static struct cgroup_filter *filter_of(const char *const *patterns, size_t n, bool ignore)
{
	struct cgroup_filter *f = cgroup_filter_new();
	char why[256];

	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(cgroup_filter_add(f, patterns[i], why, sizeof(why)), 0);
	cgroup_filter_set_ignore_selected(f, ignore);
	return f;
}

static void test_empty_selects_all(void **state)
{
	struct cgroup_filter *f = filter_of(NULL, 0, false);

	assert_true(cgroup_filter_selected(f, "/"));
	assert_true(cgroup_filter_selected(f, "/a/b"));
	cgroup_filter_set_ignore_selected(f, true);
	assert_true(cgroup_filter_selected(f, "/a"));
	assert_int_equal(cgroup_filter_count(f), 0);
	cgroup_filter_free(f);
}

static void test_glob_star_crosses_slash(void **state)
{
	static const char *const p[] = { "/system.slice/*" };
	struct cgroup_filter *f = filter_of(p, 1, false);

	assert_true(cgroup_filter_selected(f, "/system.slice/cron.service"));
	assert_true(cgroup_filter_selected(f, "/system.slice/a/b"));
	assert_false(cgroup_filter_selected(f, "/system.slice"));
	assert_false(cgroup_filter_selected(f, "/user.slice/x"));
	assert_false(cgroup_filter_selected(f, "/"));
	cgroup_filter_free(f);
}

static void test_glob_exact_and_classes(void **state)
{
	static const char *const p[] = { "/", "/user-[0-9]?.slice" };
	struct cgroup_filter *f = filter_of(p, 2, false);

	assert_true(cgroup_filter_selected(f, "/"));
	assert_true(cgroup_filter_selected(f, "/user-10.slice"));
	assert_false(cgroup_filter_selected(f, "/user-100.slice"));
	assert_false(cgroup_filter_selected(f, "/a"));
	cgroup_filter_free(f);
}

static void test_regex_unanchored_and_anchored(void **state)
{
	static const char *const p[] = { "/docker-[0-9a-f]+\\.scope/", "/^/kubepods(/|$)/" };
	struct cgroup_filter *f = filter_of(p, 2, false);

	assert_true(cgroup_filter_selected(f, "/system.slice/docker-0abc.scope"));
	assert_true(cgroup_filter_selected(f, "/kubepods"));
	assert_true(cgroup_filter_selected(f, "/kubepods/burstable"));
	assert_false(cgroup_filter_selected(f, "/kubepodsx"));
	assert_false(cgroup_filter_selected(f, "/x/kubepods"));
	assert_false(cgroup_filter_selected(f, "/system.slice/docker-xyz.scope"));
	cgroup_filter_free(f);
}

static void test_ignore_selected_inverts(void **state)
{
	static const char *const p[] = { "/system.slice*", "/init.scope" };
	struct cgroup_filter *f = filter_of(p, 2, true);

	assert_false(cgroup_filter_selected(f, "/system.slice"));
	assert_false(cgroup_filter_selected(f, "/system.slice/a"));
	assert_false(cgroup_filter_selected(f, "/init.scope"));
	assert_true(cgroup_filter_selected(f, "/user.slice"));
	assert_true(cgroup_filter_selected(f, "/"));
	cgroup_filter_free(f);
}

static void test_odd_bytes_in_paths(void **state)
{
	static const char *const p[] = { "/with space*", "/new\nline/" };
	struct cgroup_filter *f = filter_of(p, 2, false);

	assert_true(cgroup_filter_selected(f, "/with space/x"));
	assert_true(cgroup_filter_selected(f, "/a/new\nline"));
	assert_false(cgroup_filter_selected(f, "/\xff"));
	cgroup_filter_free(f);
}

static void test_bad_regex_is_einval_with_reason(void **state)
{
	struct cgroup_filter *f = cgroup_filter_new();
	char why[256] = "";

	assert_int_equal(cgroup_filter_add(f, "/a(/", why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "regular expression"));
	assert_int_equal(cgroup_filter_count(f), 0);
	assert_int_equal(cgroup_filter_add(f, "/[z-a]/", why, sizeof(why)), -EINVAL);
	assert_int_equal(cgroup_filter_add(f, "", why, sizeof(why)), -EINVAL);
	assert_int_equal(cgroup_filter_count(f), 0);
	cgroup_filter_free(f);
}

static void test_many_patterns_and_free(void **state)
{
	struct cgroup_filter *f = cgroup_filter_new();
	char pat[32], why[64];

	for (int i = 0; i < 100; i++) {
		snprintf(pat, sizeof(pat), i % 2 ? "/^/c%d$/" : "/g%d", i);
		assert_int_equal(cgroup_filter_add(f, pat, why, sizeof(why)), 0);
	}
	assert_int_equal(cgroup_filter_count(f), 100);
	assert_true(cgroup_filter_selected(f, "/c99"));
	assert_true(cgroup_filter_selected(f, "/g98"));
	assert_false(cgroup_filter_selected(f, "/c98"));
	cgroup_filter_free(f);
	cgroup_filter_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_selects_all),
		cmocka_unit_test(test_glob_star_crosses_slash),
		cmocka_unit_test(test_glob_exact_and_classes),
		cmocka_unit_test(test_regex_unanchored_and_anchored),
		cmocka_unit_test(test_ignore_selected_inverts),
		cmocka_unit_test(test_odd_bytes_in_paths),
		cmocka_unit_test(test_bad_regex_is_einval_with_reason),
		cmocka_unit_test(test_many_patterns_and_free),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
