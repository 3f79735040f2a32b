// SPDX-License-Identifier: GPL-2.0-only
/* The <Plugin memcg_bpf> parser: defaults, every key, one error per bad line. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>


#include "config_fixture.h"

static void test_defaults(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(plugin_config_finish(c), 0);
	assert_int_equal(c->backend, SAMPLER_AUTO);
	assert_string_equal(c->cgroup_root, "/sys/fs/cgroup");
	assert_int_equal(c->max_depth, -1);
	assert_true(c->include_root);
	assert_true(c->dispatch_values);
	assert_true(c->report_self);
	assert_true(c->self_interval_s == PLUGIN_CONFIG_SELF_INTERVAL_S);
	assert_false(c->ignore_selected);
	assert_int_equal(cgroup_filter_count(c->filter), 0);
	assert_true(c->nr_stats > 0);
	assert_string_equal(c->stats[0]->name, "anon");
	assert_int_equal(errors_logged, 0);
}

static void test_all_keys(void **state)
{
	struct plugin_config *c = *state;
	struct sampler_opts o;

	assert_int_equal(SET(c, "Backend", S("text")), 0);
	assert_int_equal(SET(c, "CgroupRoot", S("/tmp/x")), 0);
	assert_int_equal(SET(c, "Stat", S("anon"), S("file"), S("usage")), 0);
	assert_int_equal(SET(c, "Stat", S("oom_kill"), S("anon")), 0);
	assert_int_equal(SET(c, "Cgroup", S("/system.slice/*")), 0);
	assert_int_equal(SET(c, "Cgroup", S("/^/user/"), S("/init.scope")), 0);
	assert_int_equal(SET(c, "IgnoreSelected", B(true)), 0);
	assert_int_equal(SET(c, "MaxDepth", N(3)), 0);
	assert_int_equal(SET(c, "IncludeRoot", B(false)), 0);
	assert_int_equal(SET(c, "DispatchValues", S("false")), 0);
	assert_int_equal(SET(c, "ReportSelf", S("off")), 0);
	assert_int_equal(plugin_config_finish(c), 0);
	assert_int_equal(errors_logged, 0);

	assert_int_equal(c->backend, SAMPLER_TEXT);
	assert_string_equal(c->cgroup_root, "/tmp/x");
	assert_int_equal(c->nr_stats, 4);
	assert_string_equal(c->stats[3]->name, "oom_kill");
	assert_int_equal(cgroup_filter_count(c->filter), 3);
	/* IgnoreSelected reached the filter */
	assert_false(cgroup_filter_selected(c->filter, "/system.slice/a"));
	assert_true(cgroup_filter_selected(c->filter, "/other"));
	assert_int_equal(c->max_depth, 3);
	assert_false(c->include_root);
	assert_false(c->dispatch_values);
	assert_false(c->report_self);

	plugin_config_sampler_opts(c, &o);
	assert_string_equal(o.cgroup_root, "/tmp/x");
	assert_int_equal(o.max_depth, 3);
	assert_int_equal(o.backend, SAMPLER_TEXT);
	assert_int_equal(o.nr_stats, 4);
	assert_false(o.strict_stats);
}

static void test_keys_are_case_insensitive(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(SET(c, "maxdepth", N(0)), 0);
	assert_int_equal(c->max_depth, 0);
}

/* Key values that name something take any case, as keys do (base/name_table.h). */
static void test_backend_is_case_insensitive(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(SET(c, "Backend", S("BPF")), 0);
	assert_int_equal(c->backend, SAMPLER_BPF);
	assert_int_equal(SET(c, "Backend", S("Text")), 0);
	assert_int_equal(c->backend, SAMPLER_TEXT);
	assert_int_equal(errors_logged, 0);
}

/* A key that takes one value, given twice: an error naming it, on the second line. */
static void test_duplicate_single_key(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(LINE(c, "MaxDepth", N(2)), 0);
	assert_int_equal(LINE(c, "maxdepth", N(3)), -EINVAL);
	assert_one_error("MaxDepth", "more than once");
	assert_int_equal(c->max_depth, 2);
	/* list keys add up */
	errors_logged = 0;
	assert_int_equal(LINE(c, "Stat", S("anon")), 0);
	assert_int_equal(LINE(c, "Stat", S("file")), 0);
	assert_int_equal(errors_logged, 0);
}

static int bad_urls_seen;

static int picky_url_check(const char *url, char *why, size_t len)
{
	bad_urls_seen++;
	if (strchr(url, ' ')) {
		snprintf(why, len, "a space in the host");
		return -EINVAL;
	}
	return 0;
}

/* A repeated mistake logs one error and one summing-up warning, not one per line. */
static void test_repeated_mistake_logged_once(void **state)
{
	struct plugin_config *c = *state;

	for (int i = 0; i < 1000; i++)
		assert_int_equal(LINE(c, "Label", S("bad-name"), S("v")), -EINVAL);
	for (int i = 0; i < 5; i++)
		assert_int_equal(LINE(c, "Frobnicate", N(1)), -EINVAL);
	assert_int_equal(errors_logged, 2); /* Label once, Frobnicate once */
	assert_int_equal(c->errors, 1005);
	assert_int_equal(plugin_config_finish(c), -EINVAL);
	assert_int_equal(errors_logged, 2);
	assert_non_null(strstr(last_warning, "Label: 999 more lines rejected"));
}

/* URLs go through the checker the glue installs (curl's URL parser) when read. */
static void test_url_checked_when_read(void **state)
{
	struct plugin_config *c = *state;

	c->check_url = picky_url_check;
	assert_int_equal(LINE(c, "URL", S("http://a b/x")), -EINVAL);
	assert_one_error("URL \"http://a b/x\": not a valid URL", "a space in the host");
	assert_int_equal(LINE(c, "URL", S("http://ab/x")), 0);
	assert_int_equal(bad_urls_seen, 2);
	assert_int_equal(c->sender.nr_urls, 1);
}

/* With a URL the cgroup values go over the wire only, unless DispatchValues says otherwise. */
static void test_dispatch_default_follows_url(void **state)
{
	struct plugin_config *c = *state;
	struct plugin_config d;

	assert_int_equal(plugin_config_finish(c), 0);
	assert_true(c->dispatch_values); /* no URL: into collectd */
	assert_int_equal(plugin_config_init(&d), 0);
	assert_int_equal(LINE(&d, "URL", S("http://127.0.0.1:9/api/v1/write")), 0);
	assert_int_equal(plugin_config_finish(&d), 0);
	assert_false(d.dispatch_values);
	plugin_config_free(&d);
	assert_int_equal(plugin_config_init(&d), 0);
	assert_int_equal(LINE(&d, "URL", S("http://127.0.0.1:9/api/v1/write")), 0);
	assert_int_equal(LINE(&d, "DispatchValues", B(true)), 0);
	assert_int_equal(plugin_config_finish(&d), 0);
	assert_true(d.dispatch_values);
	plugin_config_free(&d);
}

static void test_stat_all(void **state)
{
	struct plugin_config *c = *state;
	size_t n;

	stat_catalog(&n);
	assert_int_equal(SET(c, "Stat", S("all")), 0);
	assert_int_equal(c->nr_stats, n);
}

/* NumaStat: per-node stats over lines (off by default), "all"; a stat without per-node values is refused. */
static void test_numa_stat(void **state)
{
	struct plugin_config *c = *state;
	struct sampler_opts o;
	size_t n;

	assert_int_equal(c->nr_numa_stats, 0);
	assert_int_equal(SET(c, "NumaStat", S("anon"), S("file")), 0);
	assert_int_equal(SET(c, "NumaStat", S("file"), S("shmem")), 0);
	assert_int_equal(c->nr_numa_stats, 3);
	assert_int_equal(plugin_config_finish(c), 0);
	plugin_config_sampler_opts(c, &o);
	assert_int_equal(o.nr_numa_stats, 3);
	assert_string_equal(o.numa_stats[2]->name, "shmem");
	assert_int_equal(o.nr_stats, c->nr_stats); /* Stat's default set stays */
	numa_stat_catalog(&n);
	assert_int_equal(SET(c, "NumaStat", S("all")), 0);
	assert_int_equal(c->nr_numa_stats, n);
	assert_int_equal(SET(c, "NumaStat", S("usage")), -EINVAL);
	assert_one_error("NumaStat \"usage\"", "unknown per-node stat");
}

/* AllocInfo keys: off by default; top and interval checked, the file taken. */
static void test_alloc_info(void **state)
{
	struct plugin_config *c = *state;

	assert_false(c->alloc_info);
	assert_int_equal(c->alloc_top, 50);
	assert_true(c->alloc_interval_s == 60);
	assert_string_equal(c->alloc_file, "/proc/allocinfo");
	assert_int_equal(SET(c, "AllocInfo", B(true)), 0);
	assert_int_equal(SET(c, "AllocInfoTop", N(25)), 0);
	assert_int_equal(SET(c, "AllocInfoInterval", N(30)), 0);
	assert_int_equal(SET(c, "AllocInfoFile", S("/tmp/allocinfo.copy")), 0);
	assert_true(c->alloc_info);
	assert_int_equal(c->alloc_top, 25);
	assert_true(c->alloc_interval_s == 30);
	assert_string_equal(c->alloc_file, "/tmp/allocinfo.copy");
	assert_int_equal(SET(c, "AllocInfoTop", N(0)), -EINVAL);
	assert_one_error("AllocInfoTop 0", "must be from 1 to 1000");
}

static void test_alloc_info_interval_range(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(SET(c, "AllocInfoInterval", N(0.5)), -EINVAL);
	assert_one_error("AllocInfoInterval 0.5", "must be from 1 to 86400 seconds");
}

static void test_unknown_key(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(SET(c, "Interval2", N(3)), -EINVAL);
	assert_one_error("\"Interval2\"", "unknown config key");
	assert_int_equal(plugin_config_finish(c), -EINVAL);
	assert_int_equal(errors_logged, 1); /* finish does not log again */
}

static void test_unknown_stat(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(SET(c, "Stat", S("anon"), S("anonn")), -EINVAL);
	assert_one_error("Stat \"anonn\"", "unknown stat");
	assert_non_null(strstr(last_error, "anon"));
	assert_int_equal(plugin_config_finish(c), -EINVAL);
	assert_int_equal(errors_logged, 1);
}

static void test_bad_regex(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(SET(c, "Cgroup", S("/a(/")), -EINVAL);
	assert_one_error("Cgroup \"/a(/\"", "regular expression");
}

static void test_bad_backend(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(SET(c, "Backend", S("ebpf")), -EINVAL);
	assert_one_error("Backend \"ebpf\"", "auto, bpf, bpf-core, text");
}

static void test_negative_max_depth(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(SET(c, "MaxDepth", N(-1)), -EINVAL);
	assert_one_error("MaxDepth -1", "0 or more");
}

/* MaxChildren and MaxCgroups: the defaults, 0 for no limit, a range; the rank stat follows them. */
static void test_budget(void **state)
{
	struct plugin_config *c = *state;
	struct sampler_opts o;

	assert_int_equal(c->budget.max_children, 1000);
	assert_int_equal(c->budget.max_cgroups, 10000);
	plugin_config_sampler_opts(c, &o);
	assert_non_null(o.rank_stat);
	assert_string_equal(o.rank_stat->name, "usage");
	assert_int_equal(SET(c, "MaxChildren", N(-1)), -EINVAL);
	assert_one_error("MaxChildren -1", "from 0 (no limit) to 100000000");
	errors_logged = 0;
	assert_int_equal(SET(c, "MaxCgroups", N(100000001)), -EINVAL);
	assert_one_error("MaxCgroups 100000001", "from 0 (no limit) to 100000000");
	errors_logged = 0;
	assert_int_equal(SET(c, "MaxCgroups", S("many")), -EINVAL);
	assert_one_error("MaxCgroups", "expects exactly one whole number, got a string");
	errors_logged = 0;
	assert_int_equal(SET(c, "MaxChildren", N(100)), 0);
	assert_int_equal(SET(c, "MaxCgroups", N(0)), 0);
	assert_int_equal(c->budget.max_children, 100);
	assert_int_equal(c->budget.max_cgroups, 0);
	assert_int_equal(SET(c, "MaxChildren", N(0)), 0);
	plugin_config_sampler_opts(c, &o);
	assert_null(o.rank_stat); /* no budget: nothing to rank by */
}

static void test_wrong_types(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(SET(c, "MaxDepth", S("three")), -EINVAL);
	assert_one_error("MaxDepth", "expects exactly one whole number, got a string");
	errors_logged = 0;
	assert_int_equal(SET(c, "MaxDepth", N(2.5)), -EINVAL);
	assert_one_error("MaxDepth", "not a whole number");
	errors_logged = 0;
	assert_int_equal(SET(c, "IncludeRoot", N(1)), -EINVAL);
	assert_one_error("IncludeRoot", "got a number");
	errors_logged = 0;
	assert_int_equal(SET(c, "IncludeRoot", S("maybe")), -EINVAL);
	assert_one_error("IncludeRoot", "not true or false");
	errors_logged = 0;
	assert_int_equal(SET(c, "Backend", S("bpf"), S("text")), -EINVAL);
	assert_one_error("Backend", "got 2 values");
	errors_logged = 0;
	assert_int_equal(SET(c, "CgroupRoot", B(true)), -EINVAL);
	assert_one_error("CgroupRoot", "got a boolean");
	errors_logged = 0;
	assert_int_equal(SET(c, "Stat", S("anon"), N(4)), -EINVAL);
	assert_one_error("Stat", "one or more strings, got a number");
	errors_logged = 0;
	assert_int_equal(plugin_config_set(c, "Cgroup", NULL, 0), -EINVAL);
	assert_one_error("Cgroup", "got no value");
	assert_int_equal(c->errors, 8);
	/* nothing was changed by the rejected lines */
	assert_int_equal(c->max_depth, -1);
	assert_int_equal(c->nr_stats, 0);
}

/* SelfInterval: whole reads, rounded up; at most the read interval means every read */
static void test_self_interval(void **state)
{
	static const struct {
		double self_s, interval_s;
		unsigned int every;
	} cases[] = {
		{ PLUGIN_CONFIG_SELF_INTERVAL_S, 1, 10 }, /* the default at Interval 1 */
		{ PLUGIN_CONFIG_SELF_INTERVAL_S, 10, 1 },
		{ PLUGIN_CONFIG_SELF_INTERVAL_S, 60, 1 },
		{ 10, 3, 4 },       /* rounded up: never more often than asked */
		{ 10.05, 1, 10 },   /* within 1% above: rounded down */
		{ 10, 0.1, 100 },   /* (10 / 0.1 is a hair above 100 in binary) */
		{ 10.2, 1, 11 },
		{ 4, 2, 2 },
		{ 0, 1, 1 },
		{ 0.5, 1, 1 },
		{ 10, 0, 1 },       /* no interval known: every read */
	};
	struct plugin_config *c = *state;

	assert_int_equal(plugin_config_finish(c), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c->self_interval_s = cases[i].self_s;
		assert_int_equal(plugin_config_self_every(c, cases[i].interval_s), cases[i].every);
	}
	assert_int_equal(SET(c, "SelfInterval", N(0)), 0);
	assert_int_equal(SET(c, "SelfInterval", N(60)), 0);
	assert_true(c->self_interval_s == 60);
	assert_int_equal(SET(c, "SelfInterval", N(-1)), -EINVAL);
	assert_one_error("SelfInterval -1", "0 (with every read) to 86400 seconds");
	assert_true(c->self_interval_s == 60);
}

static void test_empty_root(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(SET(c, "CgroupRoot", S("")), -EINVAL);
	assert_one_error("CgroupRoot \"\"", "empty");
	assert_string_equal(c->cgroup_root, "/sys/fs/cgroup");
}

static void test_last_value_wins(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(SET(c, "CgroupRoot", S("/a")), 0);
	assert_int_equal(SET(c, "CgroupRoot", S("/b")), 0);
	assert_string_equal(c->cgroup_root, "/b");
	assert_int_equal(SET(c, "MaxDepth", N(100000)), 0);
	assert_int_equal(c->max_depth, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keys_are_case_insensitive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backend_is_case_insensitive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duplicate_single_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dispatch_default_follows_url, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repeated_mistake_logged_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_url_checked_when_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stat_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_numa_stat, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_info, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_info_interval_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_stat, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_regex, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_backend, setup, teardown),
		cmocka_unit_test_setup_teardown(test_negative_max_depth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_self_interval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_last_value_wins, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
