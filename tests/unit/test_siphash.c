// SPDX-License-Identifier: GPL-2.0-only
/*
 * SipHash: the byte form against the published SipHash-2-4 vectors (key
 * 00..0f), the word stream's 128-bit keys (a kept prefix continued equals
 * the whole, one word changed changes the key), and the process key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base/siphash.h"

static const struct siphash_key reference_key = { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL };

static void test_bytes_match_the_published_vectors(void **state)
{
	uint8_t msg[15];

	for (int i = 0; i < 15; i++)
		msg[i] = (uint8_t)i;
	/* the paper's appendix, and the first entry of the reference vectors */
	assert_true(siphash_bytes(&reference_key, msg, 15, 2, 4) == 0xa129ca6149be45e5ULL);
	assert_true(siphash_bytes(&reference_key, msg, 0, 2, 4) == 0x726fdb47dd0e0e31ULL);
	/* the other rounds give another function */
	assert_true(siphash_bytes(&reference_key, msg, 15, 1, 3) != 0xa129ca6149be45e5ULL);
}

static void stream(const struct siphash_key *k, const uint64_t *w, size_t n, uint64_t out[2])
{
	struct siphash s;

	siphash_begin(&s, k);
	for (size_t i = 0; i < n; i++)
		siphash_word(&s, w[i]);
	siphash_end128(s, &out[0], &out[1]);
}

static void test_word_stream(void **state)
{
	const uint64_t w[4] = { 1, 2, 3, 4 };
	uint64_t whole[2], forked[2], other[2], changed[2];
	struct siphash s;
	uint64_t w2[4] = { 1, 2, 3, 5 };

	stream(&reference_key, w, 4, whole);
	siphash_begin(&s, &reference_key);
	siphash_word(&s, 1);
	siphash_word(&s, 2);
	{
		struct siphash copy = s; /* a prefix kept and continued twice */

		siphash_word(&copy, 3);
		siphash_word(&copy, 4);
		siphash_end128(copy, &forked[0], &forked[1]);
	}
	assert_true(whole[0] == forked[0] && whole[1] == forked[1]);
	stream(&reference_key, w2, 4, changed);
	assert_true(whole[0] != changed[0] && whole[1] != changed[1]);
	stream(siphash_process_key(), w, 4, other);
	assert_true(whole[0] != other[0] || whole[1] != other[1]);
	/* two halves that differ: a 128-bit result */
	assert_true(whole[0] != whole[1]);
}

static void test_process_key_is_drawn_once(void **state)
{
	const struct siphash_key *a = siphash_process_key(), *b = siphash_process_key();

	assert_ptr_equal(a, b);
	assert_true(a->k0 != 0 || a->k1 != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_match_the_published_vectors),
		cmocka_unit_test(test_word_stream),
		cmocka_unit_test(test_process_key_is_drawn_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
