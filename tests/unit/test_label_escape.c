// SPDX-License-Identifier: GPL-2.0-only
/* UTF-8 escaping of label values, metric names, label names, derived labels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "series/cgroup_labels.h"
#include "series/label_escape.h"
#include "series/metric_names.h"
#include "sampling/stat_catalog.h"

/* Whether @s holds a raw C0 control byte or DEL. */
static bool has_control(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return true;
	return false;
}

/* label_unescape(@enc) gives back @len bytes of @raw. */
static void unesc_is(const char *enc, const char *raw, size_t len)
{
	char out[256];

	assert_int_equal(label_unescape(enc, strlen(enc), out, sizeof(out)), len);
	assert_memory_equal(out, raw, len);
}

static void esc(const char *in, size_t len, const char *want)
{
	char out[256];
	size_t n = label_escape(in, len, out, sizeof(out));

	assert_string_equal(out, want);
	assert_int_equal(n, strlen(want));
	assert_true(utf8_valid(out, n));
	assert_false(has_control(out, n));
	unesc_is(out, in, len);
}

#define ESC(lit, want) esc(lit, sizeof(lit) - 1, want)

static void test_valid_utf8_is_copied(void **state)
{
	ESC("/system.slice/getty@tty1.service", "/system.slice/getty@tty1.service");
	ESC("/caf\xc3\xa9/\xe2\x82\xac/\xf0\x9f\x98\x80", "/caf\xc3\xa9/\xe2\x82\xac/\xf0\x9f\x98\x80");
	ESC("/\xc2\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf", "/\xc2\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf"); /* U+0080, U+FFFF, U+10FFFF */
	/* systemd's own escapes are not touched: 0x2d is no escaped byte */
	ESC("/dev-disk-by\\x2duuid.swap", "/dev-disk-by\\x2duuid.swap");
}

static void test_invalid_bytes_are_escaped(void **state)
{
	ESC("/a\xff" "b", "/a\\xffb");
	ESC("\x80", "\\x80");                              /* lone continuation */
	ESC("\xc0\xaf", "\\xc0\\xaf");                     /* overlong '/' */
	ESC("\xe0\x80\xaf", "\\xe0\\x80\\xaf");            /* overlong, 3 bytes */
	ESC("\xf0\x80\x80\xaf", "\\xf0\\x80\\x80\\xaf");   /* overlong, 4 bytes */
	ESC("\xed\xa0\x80", "\\xed\\xa0\\x80");            /* surrogate U+D800 */
	ESC("\xed\xbf\xbf", "\\xed\\xbf\\xbf");            /* surrogate U+DFFF */
	ESC("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");   /* above U+10FFFF */
	ESC("\xc3", "\\xc3");                              /* truncated */
	ESC("\xc3(", "\\xc3(");                            /* resumes at the next byte */
	ESC("\xc3\xc3\xa9", "\\xc3\xc3\xa9");              /* a lead byte, then a sequence */
}

static void test_control_bytes_are_escaped(void **state)
{
	ESC("/tab\tbed", "/tab\\x09bed");
	ESC("/esc\033[2J", "/esc\\x1b[2J");
	ESC("\x01\x1f\x7f", "\\x01\\x1f\\x7f");
	ESC("a\0b", "a\\x00b");
	ESC(" ~", " ~"); /* the printable ends stay */
}

/* The text "x\xff" and 'x' + the byte 0xff: two cgroups, two labels. */
static void test_text_of_an_escape_stays_apart(void **state)
{
	ESC("x\\xff", "x\\\\xff");
	ESC("x\xff", "x\\xff");
}

static void test_backslash_doubled_only_before_an_escape(void **state)
{
	ESC("a\\\\b", "a\\\\\\b");        /* before a backslash: doubled; the last one is alone */
	ESC("\\\\\\", "\\\\\\\\\\");      /* three: doubled, doubled, single */
	ESC("\\\xff", "\\\\\\xff");       /* before an escaped byte */
	ESC("\\\t", "\\\\\\x09");         /* before a control byte */
	ESC("\\\xc3\xa9", "\\\xc3\xa9");  /* before a character: alone */
	ESC("\\x8f", "\\\\x8f");          /* the text of an escape */
	ESC("\\xff", "\\\\xff");
	ESC("\\x00", "\\\\x00");
	ESC("\\x1f", "\\\\x1f");
	ESC("\\x7f", "\\\\x7f");
	ESC("\\x2d", "\\x2d");            /* 0x2d, 0x20, 0x7e, 0x41 are no escaped bytes */
	ESC("\\x20", "\\x20");
	ESC("\\x7e", "\\x7e");
	ESC("\\x41", "\\x41");
	ESC("\\xFF", "\\xFF");            /* uppercase is no escape */
	ESC("\\xfF", "\\xfF");
	ESC("\\xf", "\\xf");              /* too short */
	ESC("\\x", "\\x");
	ESC("\\xfg", "\\xfg");
	ESC("a\\", "a\\");                /* trailing */
	ESC("\\", "\\");
	ESC("\\a\\b", "\\a\\b");
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
	assert_int_equal(label_escape("\\\\", 2, out, sizeof(out)), 3);
	assert_string_equal(out, "\\\\\\");
}

static void test_unescape(void **state)
{
	unesc_is("", "", 0);
	unesc_is("\\x41\\xFF\\", "\\x41\\xFF\\", 9); /* no escapes: literal */
	unesc_is("\\\\\\x2d", "\\\\x2d", 5);         /* "\\", then "\" before the text "x2d" */
	unesc_is("\\xc3(", "\xc3(", 2);
	unesc_is("\\xed\\xa0\\x80", "\xed\xa0\x80", 3);
	unesc_is("\\xc3\xc3\xa9", "\xc3\xc3\xa9", 3);
}

static void unesc_fails(const char *enc, size_t len, int err)
{
	char out[64];

	assert_int_equal(label_unescape(enc, len, out, sizeof(out)), err);
}

#define UNESC_FAILS(lit) unesc_fails(lit, sizeof(lit) - 1, -EINVAL)

/* What label_escape never writes is refused. */
static void test_unescape_refuses_other_forms(void **state)
{
	UNESC_FAILS("a\tb");               /* a raw control byte */
	UNESC_FAILS("a\x7f");
	UNESC_FAILS("a\0");
	UNESC_FAILS("a\xff");              /* raw invalid UTF-8 */
	UNESC_FAILS("\xc3");
	UNESC_FAILS("\xed\xa0\x80");
	UNESC_FAILS("\\\\a");              /* "\\" where one backslash reads the same */
	UNESC_FAILS("\\\\");
	UNESC_FAILS("\\\\x2d");
	UNESC_FAILS("\\\\xFF");
	UNESC_FAILS("\\xc3\\xa9");         /* escaped bytes of a well-formed sequence */
	UNESC_FAILS("\\xe2\\x82\\xac");
	UNESC_FAILS("\\xf0\\x9f\\x98\\x80");
	UNESC_FAILS("a\\xc2\\x80b");
}

static void test_unescape_needs_room(void **state)
{
	char out[3];

	assert_int_equal(label_unescape("abcd", 4, out, sizeof(out)), -ENOBUFS);
	assert_int_equal(label_unescape("\\xff\\xfe\\xfd\\xfc", 16, out, sizeof(out)), -ENOBUFS);
	assert_int_equal(label_unescape("\\xff\\xfe\\xfd", 12, out, sizeof(out)), 3);
	assert_int_equal(label_unescape("", 0, NULL, 0), 0);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Every string of up to 4 bytes over an alphabet of what matters (the
 * backslash, the text of escapes, escaped bytes, a character): distinct
 * inputs, distinct labels, each decoding back.
 */
static void test_injective_on_short_strings(void **state)
{
	static const char alphabet[] = { '\\', 'x', 'f', '8', '2', 'F', '\xff', '\xc3', '\xa9', '\t', 'a' };
	enum { K = sizeof(alphabet), MAX = 4 };
	size_t total = 0, count = 1, at = 0;
	char **labels;

	for (int len = 0; len <= MAX; len++, count *= K)
		total += count;
	labels = calloc(total, sizeof(*labels));
	assert_non_null(labels);
	count = 1;
	for (int len = 0; len <= MAX; len++, count *= K) {
		for (size_t v = 0; v < count; v++) {
			char in[MAX], back[MAX];
			size_t n, rest = v;

			for (int k = 0; k < len; k++, rest /= K)
				in[k] = alphabet[rest % K];
			n = label_escape(in, (size_t)len, NULL, 0);
			labels[at] = malloc(n + 1);
			assert_non_null(labels[at]);
			label_escape(in, (size_t)len, labels[at], n + 1);
			assert_true(utf8_valid(labels[at], n));
			assert_int_equal(label_unescape(labels[at], n, back, sizeof(back)), len);
			assert_memory_equal(back, in, (size_t)len);
			at++;
		}
	}
	qsort(labels, total, sizeof(*labels), cmp_str);
	for (size_t i = 1; i < total; i++)
		assert_string_not_equal(labels[i - 1], labels[i]);
	for (size_t i = 0; i < total; i++)
		free(labels[i]);
	free(labels);
}

/*
 * Every string of up to 8 characters over an alphabet of escaped forms: the
 * decoder accepts exactly what label_escape writes.
 */
static void test_unescape_accepts_only_escaped_forms(void **state)
{
	static const char alphabet[] = { '\\', 'x', 'c', '3', 'a', '9' };
	enum { K = sizeof(alphabet), MAX = 8 };
	size_t count = 1, accepted = 0, refused = 0;

	for (int len = 0; len <= MAX; len++, count *= K) {
		for (size_t v = 0; v < count; v++) {
			char in[MAX + 1], raw[MAX], again[MAX + 1];
			size_t rest = v;
			ssize_t n;

			for (int k = 0; k < len; k++, rest /= K)
				in[k] = alphabet[rest % K];
			in[len] = 0;
			n = label_unescape(in, (size_t)len, raw, sizeof(raw));
			if (n < 0) {
				assert_int_equal(n, -EINVAL);
				refused++;
				continue;
			}
			accepted++;
			assert_int_equal(label_escape(raw, (size_t)n, again, sizeof(again)), len);
			assert_string_equal(again, in);
		}
	}
	assert_true(accepted > 0 && refused > 0);
}

/* xorshift64*, fixed seed: the same names on every run. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* A byte of a cgroup name (1-255 but '/'), often one of the tricky ones. */
static char name_byte(void)
{
	static const char tricky[] = "\\\\\\xxxff8F2d\xff\xc3\xa9\xe2\x82\xac\xed\xa0\x80\t\x7f";
	unsigned char c;

	if (rng() % 2)
		return tricky[rng() % (sizeof(tricky) - 1)];
	do
		c = (unsigned char)(rng() % 255 + 1);
	while (c == '/');
	return (char)c;
}

struct named {
	char name[24];
	size_t len;
	char *label;
};

static int cmp_label(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->label, ((const struct named *)b)->label);
}

/* Random sets of names: equal labels only for equal names, each decoding back. */
static void test_injective_on_random_names(void **state)
{
	enum { SETS = 200, NAMES = 256 };
	static struct named set[NAMES];
	size_t distinct = 0;

	for (int s = 0; s < SETS; s++) {
		for (int i = 0; i < NAMES; i++) {
			struct named *e = &set[i];
			char back[sizeof(e->name)];
			size_t n;

			e->len = 1 + rng() % (sizeof(e->name) - 1);
			for (size_t k = 0; k < e->len; k++)
				e->name[k] = name_byte();
			n = label_escape(e->name, e->len, NULL, 0);
			e->label = malloc(n + 1);
			assert_non_null(e->label);
			label_escape(e->name, e->len, e->label, n + 1);
			assert_true(utf8_valid(e->label, n));
			assert_false(has_control(e->label, n));
			assert_int_equal(label_unescape(e->label, n, back, sizeof(back)), e->len);
			assert_memory_equal(back, e->name, e->len);
		}
		qsort(set, NAMES, sizeof(set[0]), cmp_label);
		for (int i = 0; i < NAMES; i++) {
			if (i && !strcmp(set[i - 1].label, set[i].label)) {
				assert_int_equal(set[i - 1].len, set[i].len);
				assert_memory_equal(set[i - 1].name, set[i].name, set[i].len);
			} else {
				distinct++;
			}
		}
		for (int i = 0; i < NAMES; i++)
			free(set[i].label);
	}
	assert_true(distinct > SETS * NAMES * 9 / 10); /* the loop compared mostly distinct names */
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
		cmocka_unit_test(test_control_bytes_are_escaped),
		cmocka_unit_test(test_text_of_an_escape_stays_apart),
		cmocka_unit_test(test_backslash_doubled_only_before_an_escape),
		cmocka_unit_test(test_escape_reports_length_when_short),
		cmocka_unit_test(test_unescape),
		cmocka_unit_test(test_unescape_refuses_other_forms),
		cmocka_unit_test(test_unescape_needs_room),
		cmocka_unit_test(test_injective_on_short_strings),
		cmocka_unit_test(test_unescape_accepts_only_escaped_forms),
		cmocka_unit_test(test_injective_on_random_names),
		cmocka_unit_test(test_metric_names),
		cmocka_unit_test(test_every_catalog_name_is_valid),
		cmocka_unit_test(test_label_names),
		cmocka_unit_test(test_unit_label),
		cmocka_unit_test(test_container_id_label),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
