/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A series' identity from interval to interval: SipHash-1-3 (128 bits,
 * base/siphash.h) under the process's random key, over the series' whole
 * label set, __name__ included. The caches that keep a series' bytes across
 * intervals (wire/label_cache.h) are keyed by it.
 *
 * The words hashed are an injective framing of the labels: each string is
 * its length, then its bytes in whole words (the last one zero-padded); the
 * labels other than __name__ in their sorted order, then a word no length
 * can be (~0), then __name__'s value. Two different label sets are two
 * different word streams, so they share a key only by a collision of the
 * keyed hash: about n^2 / 2^129 for n series, and not something a tenant
 * who names cgroups can aim at without the key. A set of series is still
 * checked for equal keys when it is built (duplicate_series.c), which catches
 * two rows with the same labels.
 */
#ifndef MEMCG_BPF_SERIES_KEY_H
#define MEMCG_BPF_SERIES_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/siphash.h"
#include "series/label_pair.h"

struct series_key {
	uint64_t lo, hi;
};

/* The lengths of a label's name and value (strlen), kept next to it. */
struct label_len {
	uint32_t name, value;
};

static inline bool series_key_equal(const struct series_key *a, const struct series_key *b)
{
	return a->lo == b->lo && a->hi == b->hi;
}

/* The hash state after the @n labels @l (lengths @len) except the one at @skip (__name__). */
struct siphash series_key_labels(const struct label_pair *l, const struct label_len *len, size_t n, size_t skip);

/* The key of the series whose other labels gave @labels and whose __name__ is @name. */
struct series_key series_key_finish(struct siphash labels, const char *name, size_t len);

#endif
