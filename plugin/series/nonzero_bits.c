// SPDX-License-Identifier: GPL-2.0-only
#include "series/nonzero_bits.h"

#include <stdlib.h>

/*
 * The nonzero bits of the items from nr_nonzero_known on (one spare word:
 * a reader may take 64 bits at any offset). Without memory they stay
 * unknown, which costs only speed.
 */
void mark_nonzero_bits(struct series_set *set)
{
	size_t words = set->nr_items / 64 + 2;

	if (words > set->nonzero_words) {
		void *p = realloc(set->nonzero, words * sizeof(*set->nonzero));

		if (!p) {
			set->nr_nonzero_known = 0;
			return;
		}
		set->nonzero = p;
		set->nonzero_words = words;
	}
	for (size_t i = set->nr_nonzero_known; i < set->nr_items; i++)
		put_nonzero_bit(set, i);
	set->nonzero[set->nr_items / 64 + 1] = 0;
	set->nr_nonzero_known = set->nr_items;
}
