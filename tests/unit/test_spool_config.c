// SPDX-License-Identifier: GPL-2.0-only
/*
 * The spool keys of the <Plugin memcg_bpf> parser and config
 * values out of range: each bad value is one ERROR naming the key and the
 * reason, and the configuration fails.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>


#include "config_fixture.h"

static void test_spool_keys(void **state)
{
	struct plugin_config *c = *state;

	assert_null(c->sender.spool_dir);
	assert_int_equal(SET(c, "URL", S("http://127.0.0.1:1/api/v1/write")), 0);
	assert_int_equal(SET(c, "spooldir", S("/var/spool/memcg_bpf")), 0);
	assert_int_equal(SET(c, "SpoolMaxBytes", N(1048576)), 0);
	assert_int_equal(plugin_config_finish(c), 0);
	assert_string_equal(c->sender.spool_dir, "/var/spool/memcg_bpf");
	assert_int_equal(c->sender.spool_max_bytes, 1048576);
	assert_int_equal(SET(c, "SpoolMaxBytes", N(1099511627776.0)), 0); /* 1 TiB */
	assert_int_equal(errors_logged, 0);
}

static void test_spool_dir_relative(void **state)
{
	assert_int_equal(SET(*state, "SpoolDir", S("spool")), -EINVAL);
	assert_one_error("SpoolDir \"spool\"", "absolute");
}

static void test_spool_dir_empty(void **state)
{
	assert_int_equal(SET(*state, "SpoolDir", S("")), -EINVAL);
	assert_one_error("SpoolDir", "absolute");
}

static void test_spool_max_out_of_range(void **state)
{
	static const double bad[] = { 0, -1, 1048575, 1.5e6 + 0.5, 2e12, 1e300 };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		errors_logged = 0;
		assert_int_equal(SET(*state, "SpoolMaxBytes", N(bad[i])), -EINVAL);
		assert_one_error("SpoolMaxBytes", "1 MiB");
	}
	errors_logged = 0;
	assert_int_equal(SET(*state, "SpoolMaxBytes", N(INFINITY)), -EINVAL);
	assert_one_error("SpoolMaxBytes", "finite");
	errors_logged = 0;
	assert_int_equal(SET(*state, "SpoolMaxBytes", S("1G")), -EINVAL);
	assert_one_error("SpoolMaxBytes", "a string");
}

static void test_spool_without_url(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(SET(c, "SpoolDir", S("/tmp/x")), 0);
	assert_int_equal(plugin_config_finish(c), -EINVAL);
	assert_one_error("URL", "no URL");
}

static void test_spool_max_without_dir(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(SET(c, "URL", S("http://127.0.0.1:1/api/v1/write")), 0);
	assert_int_equal(SET(c, "SpoolMaxBytes", N(4194304)), 0);
	assert_int_equal(plugin_config_finish(c), -EINVAL);
	assert_one_error("SpoolMaxBytes", "without SpoolDir");
}

/* Out-of-range values of the other numeric keys: one error each. */
static void test_numbers_out_of_range(void **state)
{
	static const struct {
		const char *key;
		double value;
		const char *why;
	} cases[] = {
		{ "MaxDepth", -1, "0 or more" },
		{ "MaxDepth", 1e10, "whole number" },
		{ "MaxDepth", 2.5, "whole number" },
		{ "MaxSamplesPerSend", 0, "must be from 1 to" },
		{ "MaxBytesPerSend", 1023, "must be from 1024 to" },
		{ "QueueLength", 0, "must be from 1 to" },
		{ "QueueLength", -5, "must be from 1 to" },
		{ "Timeout", 0, "from 0.1" },
		{ "Timeout", 3601, "to 3600" },
		{ "ConnectTimeout", -1, "from 0.1" },
		{ "Timeout", NAN, "finite" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		errors_logged = 0;
		assert_int_equal(SET(*state, cases[i].key, N(cases[i].value)), -EINVAL);
		assert_one_error(cases[i].key, cases[i].why);
	}
	assert_int_equal(((struct plugin_config *)*state)->errors, ARRAY_SIZE(cases));
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_spool_keys),         T(test_spool_dir_relative),   T(test_spool_dir_empty),
		T(test_spool_max_out_of_range), T(test_spool_without_url), T(test_spool_max_without_dir),
		T(test_numbers_out_of_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
