/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SipHash (Aumasson and Bernstein), keyed with a secret drawn once per
 * process: the hash of anything a tenant can choose (cgroup names end up in
 * label values) cannot be steered into collisions by someone who does not
 * know the key, and differs from one agent to the next.
 *
 * Two uses:
 *   - siphash_bytes(): the 64-bit hash of a byte string, for hash tables
 *     (c and d rounds as given: SipHash-1-3 in the tables, 2-4 in the test
 *     against the published vector);
 *   - the word stream (siphash_begin / siphash_word / siphash_end128):
 *     SipHash-1-3 with the 128-bit output, over 64-bit words the caller
 *     frames itself (series/series_key.c), so that a prefix's state can be
 *     kept and continued with several suffixes.
 */
#ifndef MEMCG_BPF_SIPHASH_H
#define MEMCG_BPF_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

struct siphash_key {
	uint64_t k0, k1;
};

struct siphash {
	uint64_t v0, v1, v2, v3;
};

/*
 * The process's key: 128 random bits from getrandom(2) (/dev/urandom where
 * that fails), drawn at the first call; thread-safe.
 */
const struct siphash_key *siphash_process_key(void);

uint64_t siphash_bytes(const struct siphash_key *k, const void *data, size_t len, unsigned int c_rounds,
		       unsigned int d_rounds);

/* SipHash-1-3, 128-bit output, over whole words. */
void siphash_begin(struct siphash *s, const struct siphash_key *k);
void siphash_word(struct siphash *s, uint64_t m);
void siphash_end128(struct siphash s, uint64_t *lo, uint64_t *hi);

#endif
