/* SPDX-License-Identifier: GPL-2.0-only */
/* A series set's nonzero bits (series/series_set.h: nonzero). Internal to series/. */
#ifndef MEMCG_BPF_NONZERO_BITS_H
#define MEMCG_BPF_NONZERO_BITS_H

#include <stddef.h>
#include <stdint.h>

#include "series/series_set.h"

/* Bit @i of @set's nonzero bits, from items[@i] (the bits have room for it). */
static inline void put_nonzero_bit(struct series_set *set, size_t i)
{
	uint64_t bit = 1ULL << (i % 64);

	if (set->items[i].value != 0)
		set->nonzero[i / 64] |= bit;
	else
		set->nonzero[i / 64] &= ~bit;
}

void mark_nonzero_bits(struct series_set *set);

#endif
