// SPDX-License-Identifier: GPL-2.0-only
/* The name<->value helper: lookups both ways, the case rule, the edges. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base/name_table.h"

enum colour { RED, GREEN, UNNAMED, BLUE };

static const char *const colour_names[] = {
	[RED] = "red",
	[GREEN] = "green",
	[BLUE] = "blue", /* UNNAMED stays NULL */
};

/* the pair DEFINE_NAME_TABLE writes */
const char *colour_name(enum colour value);
int colour_parse(const char *s, enum colour *out);
DEFINE_NAME_TABLE(colour, enum colour, colour_names)

static void test_defined_pair(void **state)
{
	enum colour c = RED;

	assert_string_equal(colour_name(GREEN), "green");
	assert_string_equal(colour_name(UNNAMED), "?");
	assert_int_equal(colour_parse("Blue", &c), 0);
	assert_int_equal(c, BLUE);
	assert_int_equal(colour_parse("purple", &c), -EINVAL);
	assert_int_equal(c, BLUE); /* untouched on failure */
}

static void test_name_of_gives_the_name(void **state)
{
	assert_string_equal(NAME_OF(colour_names, RED), "red");
	assert_string_equal(NAME_OF(colour_names, BLUE), "blue");
}

static void test_name_of_out_of_range_is_question_mark(void **state)
{
	assert_string_equal(NAME_OF(colour_names, -1), "?");
	assert_string_equal(NAME_OF(colour_names, 4), "?");
	assert_string_equal(name_of(colour_names, 0, RED), "?");
}

static void test_name_of_a_hole_is_question_mark(void **state)
{
	assert_string_equal(NAME_OF(colour_names, UNNAMED), "?");
}

static void test_parse_gives_the_index(void **state)
{
	assert_int_equal(NAME_PARSE(colour_names, "red"), RED);
	assert_int_equal(NAME_PARSE(colour_names, "blue"), BLUE);
}

static void test_parse_ignores_case(void **state)
{
	assert_int_equal(NAME_PARSE(colour_names, "GREEN"), GREEN);
	assert_int_equal(NAME_PARSE(colour_names, "bLuE"), BLUE);
}

static void test_parse_refuses_unknown_names(void **state)
{
	assert_int_equal(NAME_PARSE(colour_names, "purple"), -EINVAL);
	assert_int_equal(NAME_PARSE(colour_names, ""), -EINVAL);
	assert_int_equal(NAME_PARSE(colour_names, "?"), -EINVAL);
	assert_int_equal(NAME_PARSE(colour_names, "re"), -EINVAL);
	assert_int_equal(NAME_PARSE(colour_names, "redd"), -EINVAL);
	assert_int_equal(NAME_PARSE(colour_names, NULL), -EINVAL);
	assert_int_equal(name_parse(colour_names, 0, "red"), -EINVAL);
}

static void test_both_ways_agree(void **state)
{
	for (int v = 0; v < (int)ARRAY_SIZE(colour_names); v++)
		if (colour_names[v])
			assert_int_equal(NAME_PARSE(colour_names, NAME_OF(colour_names, v)), v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_of_gives_the_name),
		cmocka_unit_test(test_name_of_out_of_range_is_question_mark),
		cmocka_unit_test(test_name_of_a_hole_is_question_mark),
		cmocka_unit_test(test_parse_gives_the_index),
		cmocka_unit_test(test_parse_ignores_case),
		cmocka_unit_test(test_parse_refuses_unknown_names),
		cmocka_unit_test(test_both_ways_agree),
		cmocka_unit_test(test_defined_pair),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
