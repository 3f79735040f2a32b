// SPDX-License-Identifier: GPL-2.0-only
/* UTF-8 escaping of label values, metric names, label names, derived labels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "series/cgroup_labels.h"
#include "series/label_escape.h"
#include "series/metric_names.h"
#include "sampling/stat_catalog.h"

static void esc(const char *in, size_t len, const char *want)
{
	char out[256];
	size_t n = label_escape(in, len, out, sizeof(out));

	assert_string_equal(out, want);
	assert_int_equal(n, strlen(want));
	assert_true(utf8_valid(out, n));
}

static void test_valid_utf8_is_copied(void **state)
{
	esc("/system.slice/getty@tty1.service", strlen("/system.slice/getty@tty1.service"), "/system.slice/getty@tty1.service");
	esc("/caf\xc3\xa9/\xe2\x82\xac/\xf0\x9f\x98\x80", 15, "/caf\xc3\xa9/\xe2\x82\xac/\xf0\x9f\x98\x80");
	/* backslashes stay: systemd's own escapes are not touched */
	esc("/dev-disk-by\\x2duuid.swap", strlen("/dev-disk-by\\x2duuid.swap"), "/dev-disk-by\\x2duuid.swap");
}

static void test_invalid_bytes_are_escaped(void **state)
{
	esc("/a\xff" "b", 4, "/a\\xffb");
	esc("\x80", 1, "\\x80");                              /* lone continuation */
	esc("\xc0\xaf", 2, "\\xc0\\xaf");                     /* overlong '/' */
	esc("\xe0\x80\xaf", 3, "\\xe0\\x80\\xaf");            /* overlong, 3 bytes */
	esc("\xed\xa0\x80", 3, "\\xed\\xa0\\x80");            /* surrogate U+D800 */
	esc("\xf4\x90\x80\x80", 4, "\\xf4\\x90\\x80\\x80");   /* above U+10FFFF */
	esc("\xc3", 1, "\\xc3");                              /* truncated */
	esc("\xc3(", 2, "\\xc3(");                            /* resumes at the next byte */
}

static void test_escape_reports_length_when_short(void **state)
{
	char out[4];

	assert_int_equal(label_escape("\xff\xfe", 2, out, sizeof(out)), 8);
	assert_int_equal(strlen(out), 3);
	assert_int_equal(label_escape("\xff", 1, NULL, 0), 4);
	/* an ASCII run cut short: as many bytes as fit, the full length reported */
	assert_int_equal(label_escape("/abcdef", 7, out, sizeof(out)), 7);
	assert_string_equal(out, "/ab");
	assert_int_equal(label_escape("\xff" "abcdef", 7, out, sizeof(out)), 10);
	assert_string_equal(out, "\\xf");
	assert_int_equal(label_escape("abc", 3, NULL, 0), 3);
	assert_int_equal(label_escape("a\xc3\xa9" "b", 4, out, sizeof(out)), 4);
	assert_string_equal(out, "a\xc3\xa9");
}

static void test_metric_names(void **state)
{
	char buf[METRIC_NAME_MAX];

	assert_int_equal(metric_name(stat_lookup("anon"), buf, sizeof(buf)), strlen("memcg_anon_bytes"));
	assert_string_equal(buf, "memcg_anon_bytes");
	metric_name(stat_lookup("usage"), buf, sizeof(buf));
	assert_string_equal(buf, "memcg_usage_bytes");
	metric_name(stat_lookup("pgfault"), buf, sizeof(buf));
	assert_string_equal(buf, "memcg_pgfault_total");
	metric_name(stat_lookup("oom_kill"), buf, sizeof(buf));
	assert_string_equal(buf, "memcg_oom_kill_total");
	metric_name(stat_lookup("oom_kill_local"), buf, sizeof(buf));
	assert_string_equal(buf, "memcg_oom_kill_local_total");
	metric_name(stat_lookup("memory_max"), buf, sizeof(buf));
	assert_string_equal(buf, "memcg_memory_max_bytes");
	metric_name(stat_lookup("pressure_some"), buf, sizeof(buf));
	assert_string_equal(buf, "memcg_pressure_some_seconds_total");
	metric_name(stat_lookup("working_set"), buf, sizeof(buf));
	assert_string_equal(buf, "memcg_working_set_bytes");
	assert_int_equal(metric_name(stat_lookup("anon"), buf, 8), -ENAMETOOLONG);
}

static void test_every_catalog_name_is_valid(void **state)
{
	size_t n;
	const struct stat_def *cat = stat_catalog(&n);
	char buf[METRIC_NAME_MAX];

	for (size_t i = 0; i < n; i++) {
		assert_true(metric_name(&cat[i], buf, sizeof(buf)) > 0);
		assert_true(label_name_valid(buf)); /* metric names obey the label-name rule too */
	}
}

static void test_label_names(void **state)
{
	assert_true(label_name_allowed_static("dc"));
	assert_true(label_name_allowed_static("Zone_1"));
	assert_false(label_name_allowed_static("__name__"));
	assert_false(label_name_allowed_static("1abc"));
	assert_false(label_name_allowed_static("a-b"));
	assert_false(label_name_allowed_static(""));
	assert_true(label_name_valid("__name__"));
}

static void test_unit_label(void **state)
{
	char buf[128];

	cgroup_unit_label("/system.slice/ssh.service", buf, sizeof(buf));
	assert_string_equal(buf, "ssh.service");
	cgroup_unit_label("/user.slice/user-1000.slice/session-3.scope", buf, sizeof(buf));
	assert_string_equal(buf, "session-3.scope");
	cgroup_unit_label("/kubepods/burstable/pod1", buf, sizeof(buf));
	assert_string_equal(buf, "");
	cgroup_unit_label("/", buf, sizeof(buf));
	assert_string_equal(buf, "");
}

static void test_container_id_label(void **state)
{
	const char *id = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	char path[256], buf[CONTAINER_ID_LEN + 1];

	snprintf(path, sizeof(path), "/system.slice/docker-%s.scope", id);
	cgroup_container_id_label(path, buf);
	assert_string_equal(buf, id);
	snprintf(path, sizeof(path), "/kubepods/besteffort/pod1/cri-containerd-%s.scope", id);
	cgroup_container_id_label(path, buf);
	assert_string_equal(buf, id);
	snprintf(path, sizeof(path), "/docker/%s", id);
	cgroup_container_id_label(path, buf);
	assert_string_equal(buf, id);
	cgroup_container_id_label("/system.slice/ssh.service", buf);
	assert_string_equal(buf, "");
	cgroup_container_id_label("/docker/0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef", buf);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_utf8_is_copied),
		cmocka_unit_test(test_invalid_bytes_are_escaped),
		cmocka_unit_test(test_escape_reports_length_when_short),
		cmocka_unit_test(test_metric_names),
		cmocka_unit_test(test_every_catalog_name_is_valid),
		cmocka_unit_test(test_label_names),
		cmocka_unit_test(test_unit_label),
		cmocka_unit_test(test_container_id_label),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
