// SPDX-License-Identifier: GPL-2.0-only
/*
 * Patchable snappy blocks (wire/snappy_template.h) over data made to tempt
 * snappy into copies across the samples: repeated records, values that
 * repeat (zeros, equal values), timestamps equal to static bytes nearby.
 * After every patch with new values and a new timestamp, the block must
 * decompress to the raw bytes. Fixed seeds: the same cases on every run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <snappy-c.h>

#include "wire/snappy_template.h"

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* @n records: a header drawn from a few, an 8-byte value (or none), a 6-byte timestamp. */
static uint8_t *make_raw(size_t n, size_t *len, struct sample_slot *slots, uint64_t *seed)
{
	static const char *const head[] = { "\x0a\x14\x0a\x08__name__", "\x0a\x0e\x0a\x06cgroup", "ab", "" };
	uint8_t *raw = malloc(n * 40), *p = raw;

	for (size_t i = 0; i < n; i++) {
		const char *h = head[rng(seed) % 4];
		size_t hl = strlen(h);

		memcpy(p, h, hl);
		p += hl;
		*p++ = 0x09;
		slots[i].value_at = rng(seed) % 5 == 0 ? SAMPLE_SLOT_NONE : (uint32_t)(p - raw);
		if (slots[i].value_at != SAMPLE_SLOT_NONE)
			p += 8;
		*p++ = 0x10;
		slots[i].ts_at = (uint32_t)(p - raw);
		p += 6;
	}
	*len = (size_t)(p - raw);
	return raw;
}

/* New samples: values from a small set (so equal ones abound), one timestamp everywhere. */
static void write_samples(uint8_t *raw, const struct sample_slot *slots, size_t n, uint64_t *seed, int round)
{
	static const uint64_t values[] = { 0, 0x40b0000000000000ULL, 0x0a0a0a0a0a0a0a0aULL, 0x10101010101010ULL };
	uint8_t ts[6] = { 0x0a, 0x0e, 0x0a, 0x06, (uint8_t)round, 0x10 }; /* like the headers' bytes */

	for (size_t i = 0; i < n; i++) {
		uint64_t v = rng(seed) % 3 ? values[rng(seed) % 4] : rng(seed);

		if (slots[i].value_at != SAMPLE_SLOT_NONE)
			memcpy(raw + slots[i].value_at, &v, 8);
		memcpy(raw + slots[i].ts_at, ts, 6);
	}
}

static void assert_block_holds(const struct snappy_template *t, const uint8_t *raw, size_t len)
{
	size_t out_len = 0;
	uint8_t *out;

	assert_int_equal(snappy_uncompressed_length((const char *)t->z.data, t->z.len, &out_len), SNAPPY_OK);
	assert_int_equal(out_len, len);
	out = malloc(len);
	assert_int_equal(snappy_uncompress((const char *)t->z.data, t->z.len, (char *)out, &out_len), SNAPPY_OK);
	assert_memory_equal(out, raw, len);
	free(out);
}

/* Rounds of new samples written into @raw and patched into @t: the block must hold @raw after each. */
static void assert_patches_hold(struct snappy_template *t, uint8_t *raw, size_t len, const struct sample_slot *slots,
				size_t n, uint64_t *seed)
{
	for (int round = 1; round < 5; round++) {
		write_samples(raw, slots, n, seed, round);
		snappy_template_patch(t, raw);
		assert_block_holds(t, raw, len);
	}
}

static void test_patched_blocks_decompress_to_the_raw_bytes(void **state)
{
	for (uint64_t seed = 1; seed <= 40; seed++) {
		size_t n = 50 + (size_t)(seed * 997 % 9000), len;
		struct sample_slot *slots = malloc(n * sizeof(*slots));
		uint64_t s = seed * 0x9e3779b97f4a7c15ULL;
		uint8_t *raw = make_raw(n, &len, slots, &s);
		struct snappy_template t = { 0 };

		write_samples(raw, slots, n, &s, 0);
		assert_int_equal(snappy_template_build(&t, raw, len, slots, n, 6), 0);
		assert_block_holds(&t, raw, len);
		assert_patches_hold(&t, raw, len, slots, n, &s);
		snappy_template_free(&t);
		free(raw);
		free(slots);
	}
}

/*
 * The same block built in pieces (snappy_template_begin/add/end), cut at
 * record boundaries into pieces of a few records to thousands: the block
 * snappy_template_build() makes of the whole, byte for byte, patched from
 * the whole raw bytes.
 */
static void test_blocks_built_in_pieces(void **state)
{
	for (uint64_t seed = 1; seed <= 40; seed++) {
		size_t n = 50 + (size_t)(seed * 997 % 9000), len, piece = 1 + (size_t)(seed * 7919 % 3000);
		struct sample_slot *slots = malloc(n * sizeof(*slots)), *rel = malloc(n * sizeof(*rel));
		uint64_t s = seed * 0x9e3779b97f4a7c15ULL;
		uint8_t *raw = make_raw(n, &len, slots, &s);
		struct snappy_template t = { 0 }, whole = { 0 };

		write_samples(raw, slots, n, &s, 0);
		snappy_template_begin(&t);
		for (size_t a = 0; a < n; a += piece) {
			size_t b = n - a > piece ? a + piece : n;
			/* a record ends with its 6-byte timestamp: the piece is records a .. b - 1 */
			size_t from = a ? slots[a - 1].ts_at + 6 : 0, to = slots[b - 1].ts_at + 6;

			for (size_t i = a; i < b; i++) {
				rel[i].ts_at = slots[i].ts_at - (uint32_t)from;
				rel[i].value_at = slots[i].value_at == SAMPLE_SLOT_NONE ? SAMPLE_SLOT_NONE
											 : slots[i].value_at - (uint32_t)from;
			}
			snappy_template_add(&t, raw + from, to - from, rel + a, b - a, 6);
		}
		assert_int_equal(snappy_template_end(&t), 0);
		assert_int_equal(t.raw_len, len);
		assert_block_holds(&t, raw, len);
		/* byte for byte the block of the whole, runs and all */
		assert_int_equal(snappy_template_build(&whole, raw, len, slots, n, 6), 0);
		assert_int_equal(t.z.len, whole.z.len);
		assert_memory_equal(t.z.data, whole.z.data, t.z.len);
		assert_int_equal(t.nr_runs, whole.nr_runs);
		assert_memory_equal(t.runs, whole.runs, t.nr_runs * sizeof(*t.runs));
		snappy_template_free(&whole);
		assert_patches_hold(&t, raw, len, slots, n, &s);
		snappy_template_free(&t);
		free(raw);
		free(rel);
		free(slots);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_patched_blocks_decompress_to_the_raw_bytes),
		cmocka_unit_test(test_blocks_built_in_pieces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
