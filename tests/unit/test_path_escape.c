// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests of the CLI's path escaping (cli/path_escape.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cli/path_escape.h"

static void json_is(const char *in, size_t len, const char *want)
{
	char out[256];
	size_t n = path_escape_json(in, len, out, sizeof(out));

	assert_string_equal(out, want);
	assert_int_equal(n, strlen(want));
}

static void table_is(const char *in, const char *want)
{
	char out[256];
	size_t n = path_escape_table(in, strlen(in), out, sizeof(out));

	assert_string_equal(out, want);
	assert_int_equal(n, strlen(want));
}

#define JSON(lit, want) json_is(lit, sizeof(lit) - 1, want)

static void test_json_plain_and_specials(void **state)
{
	JSON("/a/b c", "\"/a/b c\"");
	JSON("/q\"b\\s", "\"/q\\\"b\\\\s\"");
	JSON("/t\tn\n", "\"/t\\tn\\n\"");
	JSON("/\001\033\177", "\"/\\u0001\\u001b\\u007f\"");
}

static void test_json_utf8_as_code_points(void **state)
{
	JSON("/\xc3\xa9", "\"/\\u00e9\"");             /* U+00E9 */
	JSON("/\xe2\x82\xac", "\"/\\u20ac\"");         /* U+20AC */
	JSON("/\xf0\x9f\x98\x80", "\"/\\ud83d\\ude00\""); /* U+1F600: a pair */
}

/* The byte 0xFF and the character U+00FF no longer print alike. */
static void test_json_byte_ff_and_u00ff_differ(void **state)
{
	JSON("/\xff", "\"/\\udcff\"");
	JSON("/\xc3\xbf", "\"/\\u00ff\"");
}

static void test_json_invalid_sequences_byte_by_byte(void **state)
{
	JSON("/\xed\xa0\x80", "\"/\\udced\\udca0\\udc80\"");         /* a surrogate in UTF-8 */
	JSON("/\xc0\xaf", "\"/\\udcc0\\udcaf\"");                     /* overlong '/' */
	JSON("/\xf4\x90\x80\x80", "\"/\\udcf4\\udc90\\udc80\\udc80\""); /* above U+10FFFF */
	JSON("/\xe9x", "\"/\\udce9x\"");                             /* a lone lead byte */
}

static void test_json_truncates_like_snprintf(void **state)
{
	char out[5];

	assert_int_equal(path_escape_json("/abcdef", 7, out, sizeof(out)), 9);
	assert_string_equal(out, "\"/ab");
	assert_int_equal(path_escape_json("/\xff", 2, NULL, 0), 9);
}

static void test_table_escapes_controls_and_invalid(void **state)
{
	table_is("/plain/\xc3\xa9", "/plain/\xc3\xa9");
	table_is("/tab\tbed", "/tab\\x09bed");
	table_is("/esc\033[2J", "/esc\\x1b[2J");
	table_is("/raw\xe9", "/raw\\xe9");
	table_is("/back\\x41", "/back\\x41"); /* 0x41 is no escaped byte: nothing to tell apart */
	table_is("/del\177", "/del\\x7f");
}

/* The table shows the cgroup label: the text "\xe9" and the byte 0xe9 differ. */
static void test_table_is_the_label_form(void **state)
{
	table_is("/raw\\xe9", "/raw\\\\xe9");
	table_is("/two\\\\", "/two\\\\\\");
	table_is("/before\\\t", "/before\\\\\\x09");
	table_is("/dev-disk-by\\x2duuid.swap", "/dev-disk-by\\x2duuid.swap");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_plain_and_specials),
		cmocka_unit_test(test_json_utf8_as_code_points),
		cmocka_unit_test(test_json_byte_ff_and_u00ff_differ),
		cmocka_unit_test(test_json_invalid_sequences_byte_by_byte),
		cmocka_unit_test(test_json_truncates_like_snprintf),
		cmocka_unit_test(test_table_escapes_controls_and_invalid),
		cmocka_unit_test(test_table_is_the_label_form),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
