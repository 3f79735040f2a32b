// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests of the "name value" parser (memory_stat_parse.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sampling/memory_stat_parse.h"

#define MISSING UINT64_MAX

static const char *const names3[] = { "anon", "file", "pgfault" };
static const size_t slots3[] = { 0, 1, 2 };

static struct memory_stat_parser *new3(void)
{
	struct memory_stat_parser *p = NULL;

	assert_int_equal(memory_stat_parser_new(names3, slots3, 3, &p), 0);
	assert_non_null(p);
	return p;
}

static void fill_missing(uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = MISSING;
}

static size_t parse_str(struct memory_stat_parser *p, const char *s, uint64_t *v)
{
	return memory_stat_parse(p, s, strlen(s), v);
}

static void test_normal(void **state)
{
	struct memory_stat_parser *p = new3();
	uint64_t v[3];

	fill_missing(v, 3);
	assert_int_equal(parse_str(p, "anon 4096\nfile 8192\nkernel 12\npgfault 77\n", v), 3);
	assert_true(v[0] == 4096 && v[1] == 8192 && v[2] == 77);
	assert_int_equal(memory_stat_parser_bad_values(p), 0);
	memory_stat_parser_free(p);
}

static void test_slots_follow_mapping(void **state)
{
	static const char *const names[] = { "b", "a" };
	static const size_t slots[] = { 3, 0 };
	struct memory_stat_parser *p = NULL;
	uint64_t v[4];

	assert_int_equal(memory_stat_parser_new(names, slots, 2, &p), 0);
	fill_missing(v, 4);
	assert_int_equal(parse_str(p, "a 1\nb 2\n", v), 2);
	assert_true(v[0] == 1 && v[1] == MISSING && v[2] == MISSING && v[3] == 2);
	memory_stat_parser_free(p);
}

static void test_missing_field_stays_missing(void **state)
{
	struct memory_stat_parser *p = new3();
	uint64_t v[3];

	fill_missing(v, 3);
	assert_int_equal(parse_str(p, "anon 1\npgfault 3\n", v), 2);
	assert_true(v[0] == 1 && v[1] == MISSING && v[2] == 3);
	memory_stat_parser_free(p);
}

static void test_unexpected_lines_ignored(void **state)
{
	struct memory_stat_parser *p = new3();
	uint64_t v[3];

	fill_missing(v, 3);
	assert_int_equal(parse_str(p, "\nnovalue\n  \nanon_thp 5\nanonx 6\nanon 7\nfile_mapped 8\n"
				      "file 9\nweird line with words\npgfault 10\n", v), 3);
	assert_true(v[0] == 7 && v[1] == 9 && v[2] == 10);
	memory_stat_parser_free(p);
}

static void test_prefix_names_not_confused(void **state)
{
	static const char *const names[] = { "oom_kill" };
	static const size_t slots[] = { 0 };
	struct memory_stat_parser *p = NULL;
	uint64_t v[1];

	assert_int_equal(memory_stat_parser_new(names, slots, 1, &p), 0);
	for (int round = 0; round < 2; round++) { /* slow pass, then cached layout */
		fill_missing(v, 1);
		assert_int_equal(parse_str(p, "oom_kill_disable 1\nunder_oom 0\noom_kill 42\n", v), 1);
		assert_true(v[0] == 42);
	}
	memory_stat_parser_free(p);
}

static void test_overlong_lines(void **state)
{
	struct memory_stat_parser *p = new3();
	size_t big = 200000;
	char *buf = malloc(big + 64);
	uint64_t v[3];
	size_t n;

	assert_non_null(buf);
	/* a huge unknown line starting with a wanted name, then a wanted line */
	memcpy(buf, "anonymous", 9);
	memset(buf + 9, 'x', big - 9);
	n = big;
	n += (size_t)sprintf(buf + n, "\nfile 5\n");
	fill_missing(v, 3);
	assert_int_equal(memory_stat_parse(p, buf, n, v), 1);
	assert_true(v[0] == MISSING && v[1] == 5);

	/* a wanted name with a huge value: not a number that fits */
	memcpy(buf, "anon ", 5);
	memset(buf + 5, '7', big - 5);
	n = big;
	n += (size_t)sprintf(buf + n, "\nfile 6\n");
	fill_missing(v, 3);
	assert_int_equal(memory_stat_parse(p, buf, n, v), 1);
	assert_true(v[0] == MISSING && v[1] == 6);
	assert_int_equal(memory_stat_parser_bad_values(p), 1);
	free(buf);
	memory_stat_parser_free(p);
}

static void test_overflow_is_missing_and_counted(void **state)
{
	struct memory_stat_parser *p = new3();
	uint64_t v[3];

	fill_missing(v, 3);
	assert_int_equal(parse_str(p, "anon 18446744073709551616\nfile 18446744073709551615\npgfault 1\n", v), 2);
	assert_true(v[0] == MISSING && v[1] == UINT64_MAX && v[2] == 1);
	assert_int_equal(memory_stat_parser_bad_values(p), 1);
	/* again through the cached layout */
	fill_missing(v, 3);
	assert_int_equal(parse_str(p, "anon 99999999999999999999\nfile 2\npgfault 1\n", v), 2);
	assert_true(v[0] == MISSING && v[1] == 2);
	assert_int_equal(memory_stat_parser_bad_values(p), 2);
	memory_stat_parser_free(p);
}

static void test_malformed_value_counted(void **state)
{
	struct memory_stat_parser *p = new3();
	uint64_t v[3];

	fill_missing(v, 3);
	assert_int_equal(parse_str(p, "anon -1\nfile 12abc\npgfault \n", v), 0);
	assert_true(v[0] == MISSING && v[1] == MISSING && v[2] == MISSING);
	assert_int_equal(memory_stat_parser_bad_values(p), 3);
	memory_stat_parser_free(p);
}

static void test_no_trailing_newline(void **state)
{
	struct memory_stat_parser *p = new3();
	uint64_t v[3];

	for (int round = 0; round < 2; round++) {
		fill_missing(v, 3);
		assert_int_equal(parse_str(p, "anon 1\nfile 2\npgfault 3", v), 3);
		assert_true(v[0] == 1 && v[1] == 2 && v[2] == 3);
	}
	memory_stat_parser_free(p);
}

static void test_no_nul_needed(void **state)
{
	struct memory_stat_parser *p = new3();
	const char text[] = "anon 12345";
	uint64_t v[3];

	fill_missing(v, 3);
	/* only "anon 12" is in range */
	assert_int_equal(memory_stat_parse(p, text, 7, v), 1);
	assert_true(v[0] == 12);
	memory_stat_parser_free(p);
}

static void test_cached_layout_value_widths_change(void **state)
{
	struct memory_stat_parser *p = new3();
	uint64_t v[3];

	fill_missing(v, 3);
	parse_str(p, "anon 1\nkernel 2\nfile 3\npgfault 4\n", v);
	fill_missing(v, 3);
	assert_int_equal(parse_str(p, "anon 1000000\nkernel 2000000000\nfile 3\npgfault 40000\n", v), 3);
	assert_true(v[0] == 1000000 && v[1] == 3 && v[2] == 40000);
	memory_stat_parser_free(p);
}

static void test_reordered_after_cached_layout(void **state)
{
	struct memory_stat_parser *p = new3();
	uint64_t v[3];

	fill_missing(v, 3);
	assert_int_equal(parse_str(p, "anon 1\nkernel 2\nfile 3\npgfault 4\n", v), 3);
	/* same line count, wanted fields moved */
	fill_missing(v, 3);
	assert_int_equal(parse_str(p, "pgfault 40\nfile 30\nanon 10\nkernel 20\n", v), 3);
	assert_true(v[0] == 10 && v[1] == 30 && v[2] == 40);
	/* a field vanished, lines inserted */
	fill_missing(v, 3);
	assert_int_equal(parse_str(p, "x 1\nanon 11\ny 2\nz 3\npgfault 44\n", v), 2);
	assert_true(v[0] == 11 && v[1] == MISSING && v[2] == 44);
	/* back to the first layout */
	fill_missing(v, 3);
	assert_int_equal(parse_str(p, "anon 5\nkernel 6\nfile 7\npgfault 8\n", v), 3);
	assert_true(v[0] == 5 && v[1] == 7 && v[2] == 8);
	memory_stat_parser_free(p);
}

static void test_unwanted_line_becomes_wanted(void **state)
{
	struct memory_stat_parser *p = new3();
	uint64_t v[3];

	fill_missing(v, 3);
	assert_int_equal(parse_str(p, "anon 1\nkernel 2\npgfault 4\n", v), 2);
	/* same line count; the line the layout calls unwanted is now "file" */
	fill_missing(v, 3);
	assert_int_equal(parse_str(p, "anon 1\nfile 3\npgfault 4\n", v), 3);
	assert_true(v[0] == 1 && v[1] == 3 && v[2] == 4);
	memory_stat_parser_free(p);
}

/* A line without a value has the same name as a wanted line: only the latter counts. */
static void test_line_without_value_after_layout(void **state)
{
	struct memory_stat_parser *p = new3();
	uint64_t v[3], clean[3];
	struct memory_stat_parser *fresh = new3();

	fill_missing(v, 3);
	parse_str(p, "anon\nanon 1\nfile 5\n", v);
	/* the layout's "anon" without a value is now "anon !": wanted, bad, first */
	fill_missing(v, 3);
	fill_missing(clean, 3);
	parse_str(p, "anon !\nanon 2\nshmem 3\n", v);
	parse_str(fresh, "anon !\nanon 2\nshmem 3\n", clean);
	assert_memory_equal(v, clean, sizeof(v));
	assert_true(v[0] == MISSING);
	/* a failed fast pass leaves nothing behind */
	fill_missing(v, 3);
	parse_str(p, "anon !\nanon 2\nshmem 3\n", v);
	assert_true(v[0] == MISSING);
	memory_stat_parser_free(p);
	memory_stat_parser_free(fresh);
}

/* Names of one length that differ only in the middle are told apart. */
static void test_names_differ_in_the_middle(void **state)
{
	static const char *const names[] = { "workingset_refault_anon" };
	static const size_t slots[] = { 0 };
	struct memory_stat_parser *p = NULL;
	uint64_t v[1];

	assert_int_equal(memory_stat_parser_new(names, slots, 1, &p), 0);
	v[0] = MISSING;
	assert_int_equal(parse_str(p, "workingset_XXXXXXX_anon 1\nfile 2\n", v), 0);
	assert_true(v[0] == MISSING);
	assert_int_equal(parse_str(p, "workingset_refault_anon 7\nfile 2\n", v), 1);
	assert_true(v[0] == 7);
	memory_stat_parser_free(p);
}

static void test_repeated_name_first_wins(void **state)
{
	struct memory_stat_parser *p = new3();
	uint64_t v[3];

	fill_missing(v, 3);
	assert_int_equal(parse_str(p, "anon 1\nanon 2\n", v), 1);
	assert_true(v[0] == 1);
	memory_stat_parser_free(p);
}

static void test_duplicate_wanted_name_sets_each_slot(void **state)
{
	static const char *const names[] = { "anon", "file", "anon" };
	static const size_t slots[] = { 0, 1, 2 };
	struct memory_stat_parser *p = NULL;
	uint64_t v[3];

	assert_int_equal(memory_stat_parser_new(names, slots, 3, &p), 0);
	for (int round = 0; round < 2; round++) {
		fill_missing(v, 3);
		assert_int_equal(parse_str(p, "anon 9\nfile 8\n", v), 3);
		assert_true(v[0] == 9 && v[1] == 8 && v[2] == 9);
	}
	memory_stat_parser_free(p);
}

static void test_empty_input(void **state)
{
	struct memory_stat_parser *p = new3();
	uint64_t v[3];

	fill_missing(v, 3);
	assert_int_equal(memory_stat_parse(p, "", 0, v), 0);
	assert_true(v[0] == MISSING && v[1] == MISSING && v[2] == MISSING);
	memory_stat_parser_free(p);
}

static void test_new_rejects_bad_names(void **state)
{
	static const char *const empty[] = { "" };
	static const char *const space[] = { "a b" };
	static const char *const nl[] = { "a\nb" };
	static const size_t slot[] = { 0 };
	struct memory_stat_parser *p = (void *)1;

	assert_int_equal(memory_stat_parser_new(empty, slot, 1, &p), -EINVAL);
	assert_null(p);
	assert_int_equal(memory_stat_parser_new(space, slot, 1, &p), -EINVAL);
	assert_int_equal(memory_stat_parser_new(nl, slot, 1, &p), -EINVAL);
}

static void test_free_null(void **state)
{
	memory_stat_parser_free(NULL);
}

static void test_find(void **state)
{
	const char *s = "oom_kill_disable 1\nunder_oom 0\noom_kill 7";
	uint64_t v = 0;

	assert_int_equal(memory_stat_find(s, strlen(s), "oom_kill", &v), 0);
	assert_true(v == 7);
	assert_int_equal(memory_stat_find(s, strlen(s), "under_oom", &v), 0);
	assert_true(v == 0);
	assert_int_equal(memory_stat_find(s, strlen(s), "oom", &v), -ENOENT);
	assert_int_equal(memory_stat_find("a 99999999999999999999\n", 23, "a", &v), -ERANGE);
	assert_int_equal(memory_stat_find("a x\n", 4, "a", &v), -EINVAL);
	assert_int_equal(memory_stat_find("", 0, "a", &v), -ENOENT);
}

static void test_u64(void **state)
{
	uint64_t v = 0;

	assert_int_equal(memory_stat_parse_u64("123\n", 4, &v), 0);
	assert_true(v == 123);
	assert_int_equal(memory_stat_parse_u64("456", 3, &v), 0);
	assert_true(v == 456);
	assert_int_equal(memory_stat_parse_u64("18446744073709551615\n", 21, &v), 0);
	assert_true(v == UINT64_MAX);
}

static void test_u64_errors(void **state)
{
	uint64_t v = 5;

	assert_int_equal(memory_stat_parse_u64("", 0, &v), -EINVAL);
	assert_int_equal(memory_stat_parse_u64("\n", 1, &v), -EINVAL);
	assert_int_equal(memory_stat_parse_u64("max\n", 4, &v), -EINVAL);
	assert_int_equal(memory_stat_parse_u64("12 3\n", 5, &v), -EINVAL);
	assert_int_equal(memory_stat_parse_u64("18446744073709551616\n", 21, &v), -ERANGE);
	assert_true(v == 5); /* untouched on error */
}

static void test_pressure(void **state)
{
	const char psi[] = "some avg10=0.00 avg60=1.25 avg300=0.00 total=123456\n"
			   "full avg10=0.00 avg60=0.00 avg300=0.00 total=789\n";
	uint64_t v = 0;

	assert_int_equal(memory_stat_parse_pressure(psi, strlen(psi), "some", &v), 0);
	assert_int_equal(v, 123456);
	assert_int_equal(memory_stat_parse_pressure(psi, strlen(psi), "full", &v), 0);
	assert_int_equal(v, 789);
	/* only "some": a kernel that reports no full line (the cpu file of old kernels) */
	assert_int_equal(memory_stat_parse_pressure(psi, strchr(psi, '\n') + 1 - psi, "full", &v), -ENOENT);
	assert_int_equal(memory_stat_parse_pressure("some avg10=1.00\n", 16, "some", &v), -EINVAL);
	assert_int_equal(memory_stat_parse_pressure("some total=x\n", 13, "some", &v), -EINVAL);
	assert_int_equal(memory_stat_parse_pressure("", 0, "some", &v), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normal),
		cmocka_unit_test(test_slots_follow_mapping),
		cmocka_unit_test(test_missing_field_stays_missing),
		cmocka_unit_test(test_unexpected_lines_ignored),
		cmocka_unit_test(test_prefix_names_not_confused),
		cmocka_unit_test(test_overlong_lines),
		cmocka_unit_test(test_overflow_is_missing_and_counted),
		cmocka_unit_test(test_malformed_value_counted),
		cmocka_unit_test(test_no_trailing_newline),
		cmocka_unit_test(test_no_nul_needed),
		cmocka_unit_test(test_cached_layout_value_widths_change),
		cmocka_unit_test(test_reordered_after_cached_layout),
		cmocka_unit_test(test_unwanted_line_becomes_wanted),
		cmocka_unit_test(test_line_without_value_after_layout),
		cmocka_unit_test(test_names_differ_in_the_middle),
		cmocka_unit_test(test_repeated_name_first_wins),
		cmocka_unit_test(test_duplicate_wanted_name_sets_each_slot),
		cmocka_unit_test(test_empty_input),
		cmocka_unit_test(test_new_rejects_bad_names),
		cmocka_unit_test(test_free_null),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_u64_errors),
		cmocka_unit_test(test_pressure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
