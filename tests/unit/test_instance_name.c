// SPDX-License-Identifier: GPL-2.0-only
/* The plugin_instance naming rule: charset, length, injectivity, hashing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/macros.h"
#include "series/instance_name.h"
#include "base/sha256.h"

/* Two buffers in turn, so that two names can be compared in one call. */
static const char *name_of(const char *path)
{
	static char buf[2][INSTANCE_NAME_MAX + 1];
	static int turn;

	turn = !turn;
	instance_name(path, buf[turn]);
	return buf[turn];
}

static void assert_safe(const char *name)
{
	size_t len = strlen(name);

	assert_true(len > 0);
	assert_true(len <= INSTANCE_NAME_MAX);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			 strchr(".-@_+", c) != NULL;

		if (!ok)
			fail_msg("byte 0x%02x at %zu in \"%s\"", c, i, name);
	}
}

static void test_sha256_vectors(void **state)
{
	static const struct {
		const char *in;
		const char *hex;
	} v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	uint8_t d[SHA256_DIGEST_LEN];
	char hex[65];

	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		sha256(v[i].in, strlen(v[i].in), d);
		for (int j = 0; j < SHA256_DIGEST_LEN; j++)
			snprintf(hex + 2 * j, 3, "%02x", d[j]);
		assert_string_equal(hex, v[i].hex);
	}
}

static void test_sha256_million_a(void **state)
{
	/* FIPS 180-2 appendix B.3, crosses every padding case on the way */
	char *a = malloc(1000000);
	uint8_t d[SHA256_DIGEST_LEN];
	char hex[65];

	assert_non_null(a);
	memset(a, 'a', 1000000);
	sha256(a, 1000000, d);
	for (int j = 0; j < SHA256_DIGEST_LEN; j++)
		snprintf(hex + 2 * j, 3, "%02x", d[j]);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
}

static void test_root(void **state)
{
	assert_string_equal(name_of("/"), "root");
}

static void test_plain_paths(void **state)
{
	assert_string_equal(name_of("/system.slice"), "system.slice");
	assert_string_equal(name_of("/system.slice/cron.service"), "system.slice_cron.service");
	assert_string_equal(name_of("/user.slice/user-1000.slice/user@1000.service"),
			    "user.slice_user-1000.slice_user@1000.service");
}

static void test_escapes(void **state)
{
	assert_string_equal(name_of("/a_b"), "a+5fb");
	assert_string_equal(name_of("/a+b"), "a+2bb");
	assert_string_equal(name_of("/with space"), "with+20space");
	assert_string_equal(name_of("/q\"uo'te"), "q+22uo+27te");
	assert_string_equal(name_of("/new\nline"), "new+0aline");
	assert_string_equal(name_of("/tab\there"), "tab+09here");
	assert_string_equal(name_of("/back\\slash"), "back+5cslash");
	assert_string_equal(name_of("/colon:x"), "colon+3ax");
	/* invalid UTF-8 and valid UTF-8 alike are bytes */
	assert_string_equal(name_of("/\xff\xfe"), "+ff+fe");
	assert_string_equal(name_of("/caf\xc3\xa9"), "caf+c3+a9");
	assert_safe(name_of("/\x01\x7f\x80/x"));
}

static void test_reserved_names(void **state)
{
	assert_string_equal(name_of("/root"), "+72oot");
	assert_string_equal(name_of("/self"), "+73elf");
	/* only whole names are reserved */
	assert_string_equal(name_of("/root/self"), "root_self");
	assert_string_equal(name_of("/selfish"), "selfish");
}

static void test_separator_and_underscore_differ(void **state)
{
	assert_string_not_equal(name_of("/a/b"), name_of("/a_b"));
	assert_string_equal(name_of("/a/b"), "a_b");
	assert_string_not_equal(name_of("/a b"), name_of("/a+20b"));
	assert_string_equal(name_of("/a+20b"), "a+2b20b");
}

static void test_exact_limit_is_not_hashed(void **state)
{
	char path[INSTANCE_NAME_MAX + 2];

	path[0] = '/';
	memset(path + 1, 'x', INSTANCE_NAME_MAX);
	path[INSTANCE_NAME_MAX + 1] = '\0';
	assert_int_equal(strlen(name_of(path)), INSTANCE_NAME_MAX);
	assert_null(strstr(name_of(path), "+h"));
}

static void test_one_over_limit_is_hashed(void **state)
{
	char path[INSTANCE_NAME_MAX + 3], expect_prefix[INSTANCE_NAME_PREFIX + 1];
	const char *name;

	path[0] = '/';
	memset(path + 1, 'x', INSTANCE_NAME_MAX + 1);
	path[INSTANCE_NAME_MAX + 2] = '\0';
	name = name_of(path);
	assert_int_equal(strlen(name), INSTANCE_NAME_MAX);
	memset(expect_prefix, 'x', INSTANCE_NAME_PREFIX);
	expect_prefix[INSTANCE_NAME_PREFIX] = '\0';
	assert_memory_equal(name, expect_prefix, INSTANCE_NAME_PREFIX);
	assert_memory_equal(name + INSTANCE_NAME_PREFIX, "+h", 2);
	assert_safe(name);
}

static void test_255_byte_components(void **state)
{
	char path[4 * 256 + 1], a[INSTANCE_NAME_MAX + 1], b[INSTANCE_NAME_MAX + 1];
	size_t off = 0;

	for (int i = 0; i < 4; i++) {
		path[off++] = '/';
		memset(path + off, 'a' + i, 255);
		off += 255;
	}
	path[off] = '\0';
	instance_name(path, a);
	assert_safe(a);
	assert_non_null(strstr(a, "+h"));
	/* the same long prefix, one byte different at the very end */
	path[off - 1] = 'z';
	instance_name(path, b);
	assert_safe(b);
	assert_memory_equal(a, b, INSTANCE_NAME_PREFIX);
	assert_string_not_equal(a, b);
	/* deterministic */
	instance_name(path, a);
	assert_string_equal(a, b);
}

static void test_cut_never_splits_an_escape(void **state)
{
	char path[512], name[INSTANCE_NAME_MAX + 1];
	const char *h;

	/* "+20" codes straddling the cut point at every alignment */
	for (int shift = 0; shift < 3; shift++) {
		path[0] = '/';
		memset(path + 1, 'x', shift);
		memset(path + 1 + shift, ' ', 200);
		path[201 + shift] = '\0';
		instance_name(path, name);
		assert_safe(name);
		h = strstr(name, "+h");
		assert_non_null(h);
		/* what precedes the marker is whole codes: x's then "+20"s */
		assert_int_equal((size_t)(h - name - shift) % 3, 0);
	}
}

static void test_long_names_stay_distinct(void **state)
{
	/* 2000 paths sharing a 200-byte prefix: all names distinct */
	enum { N = 2000 };
	char (*names)[INSTANCE_NAME_MAX + 1] = calloc(N, sizeof(*names));
	char path[300];

	assert_non_null(names);
	for (int i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "/%0200d/leaf-%d", 0, i);
		instance_name(path, names[i]);
		assert_safe(names[i]);
	}
	for (int i = 0; i < N; i++)
		for (int j = i + 1; j < N; j++)
			if (strcmp(names[i], names[j]) == 0)
				fail_msg("collision: %d and %d give %s", i, j, names[i]);
	free(names);
}

static void test_short_names_injective_exhaustive(void **state)
{
	/* every path of one or two components over a nasty alphabet */
	static const char alphabet[] = { 'a', '_', '+', '-', '.', ' ', '"', '\n', '\x80', '\xff', 'h', '2', 'b', 'f', '5' };
	enum { A = sizeof(alphabet) };
	char (*names)[INSTANCE_NAME_MAX + 1];
	char path[8];
	size_t n = 0, total = A + A * A + A * A * A + A * A;

	names = calloc(total, sizeof(*names));
	assert_non_null(names);
	for (size_t i = 0; i < A; i++) {
		snprintf(path, sizeof(path), "/%c", alphabet[i]);
		instance_name(path, names[n++]);
		for (size_t j = 0; j < A; j++) {
			snprintf(path, sizeof(path), "/%c%c", alphabet[i], alphabet[j]);
			instance_name(path, names[n++]);
			snprintf(path, sizeof(path), "/%c/%c", alphabet[i], alphabet[j]);
			instance_name(path, names[n++]);
			for (size_t k = 0; k < A; k++) {
				snprintf(path, sizeof(path), "/%c%c%c", alphabet[i], alphabet[j], alphabet[k]);
				instance_name(path, names[n++]);
			}
		}
	}
	assert_int_equal(n, total);
	for (size_t i = 0; i < n; i++) {
		assert_safe(names[i]);
		assert_string_not_equal(names[i], "root");
		assert_string_not_equal(names[i], "self");
		for (size_t j = i + 1; j < n; j++)
			if (strcmp(names[i], names[j]) == 0)
				fail_msg("collision at %zu/%zu: %s", i, j, names[i]);
	}
	free(names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_vectors),
		cmocka_unit_test(test_sha256_million_a),
		cmocka_unit_test(test_root),
		cmocka_unit_test(test_plain_paths),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_reserved_names),
		cmocka_unit_test(test_separator_and_underscore_differ),
		cmocka_unit_test(test_exact_limit_is_not_hashed),
		cmocka_unit_test(test_one_over_limit_is_hashed),
		cmocka_unit_test(test_255_byte_components),
		cmocka_unit_test(test_cut_never_splits_an_escape),
		cmocka_unit_test(test_long_names_stay_distinct),
		cmocka_unit_test(test_short_names_injective_exhaustive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
