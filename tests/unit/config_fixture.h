/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the config-parser unit tests: a fresh plugin_config per test,
 * the core's log captured (errors counted, the last one kept), and terse
 * ways to write a config line: SET(c, "Key", S("a"), N(1), B(true)).
 * Include after <cmocka.h>.
 */
#ifndef MEMCG_BPF_TEST_CONFIG_FIXTURE_H
#define MEMCG_BPF_TEST_CONFIG_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "base/macros.h"
#include "base/log.h"
#include "config/plugin_config.h"

static int errors_logged, warnings_logged;
static char last_error[1024], last_warning[1024];

static void capture(int level, const char *msg)
{
	if (level <= LOG_ERR) {
		errors_logged++;
		snprintf(last_error, sizeof(last_error), "%s", msg);
	} else if (level == LOG_WARNING) {
		warnings_logged++;
		snprintf(last_warning, sizeof(last_warning), "%s", msg);
	}
}

static int setup(void **state)
{
	struct plugin_config *c = test_malloc(sizeof(*c));

	errors_logged = warnings_logged = 0;
	last_error[0] = '\0';
	mb_log_set_sink(capture);
	assert_int_equal(plugin_config_init(c), 0);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	plugin_config_free(*state);
	plugin_config_free(*state); /* twice: safe */
	test_free(*state);
	mb_log_set_sink(NULL);
	return 0;
}

#define S(x) { .type = CFG_STRING, .string = (x) }
#define N(x) { .type = CFG_NUMBER, .number = (x) }
#define B(x) { .type = CFG_BOOLEAN, .boolean = (x) }
/* One line, as the next line of a config file (LINE), or as the key's first line (SET). */
#define LINE(c, key, ...)                                                                     \
	({                                                                                    \
		const struct cfg_value v_[] = { __VA_ARGS__ };                                \
		plugin_config_set((c), (key), v_, ARRAY_SIZE(v_));                            \
	})
#define SET(c, key, ...)                                                                      \
	({                                                                                    \
		struct plugin_config *c_ = (c);                                               \
		memset(c_->key_lines, 0, sizeof(c_->key_lines));                              \
		memset(c_->key_errors, 0, sizeof(c_->key_errors));                            \
		LINE(c_, key, __VA_ARGS__);                                                   \
	})

/* Exactly one error was logged, and it contains both needles (@needle2 may be NULL). */
static void assert_one_error(const char *needle1, const char *needle2)
{
	assert_int_equal(errors_logged, 1);
	if (!strstr(last_error, needle1) || (needle2 && !strstr(last_error, needle2)))
		fail_msg("error \"%s\" lacks \"%s\"/\"%s\"", last_error, needle1, needle2 ? needle2 : "");
}

#endif
