// SPDX-License-Identifier: GPL-2.0-only
#include "series/duplicate_series.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

/* The value of @it's label @name, or "" */
static const char *item_label(const struct series_set *set, const struct series_item *it, const char *name)
{
	for (uint32_t k = 0; k < it->nr_labels; k++) {
		struct label_pair l;
		struct label_len len;

		series_item_label(set, it, k, &l, &len);
		if (strcmp(l.name, name) == 0)
			return l.value;
	}
	return "";
}

/* One warning per ten minutes at most, naming the first series that was there twice. */
static void warn_duplicates(const struct series_set *set, const struct series_item *first, size_t dropped)
{
	static int64_t next_warn_ms;

	if (set->ts_ms < next_warn_ms)
		return;
	next_warn_ms = set->ts_ms + 600000;
	mb_warn("%zu series of an interval came twice with the same labels (first: %s{cgroup=\"%s\"}): the "
		"later ones were dropped and counted (memcg_bpf_sender_dropped_samples_total, reason "
		"duplicate_series); this warning repeats at most every 10 minutes",
		dropped, first->name, item_label(set, first, "cgroup"));
}

/*
 * Drops every item whose key an earlier item has: two rows with the same
 * labels (series_key.h: the same key means the same label set) would put
 * two samples of one series into a request, which receivers reject whole.
 * O(n): an open-addressing table of item indices, at most half full, probed
 * from the key's low bits (keyed, so spread). Sets nr_duplicates; 0 or
 * -ENOMEM with @set unchanged.
 */
int drop_duplicate_series(struct series_set *set)
{
	size_t nslots = 64, kept = 0, kept_rows = 0, mask;
	struct series_item first_dup = { 0 };
	uint32_t *slots;

	while (nslots < 2 * set->nr_items)
		nslots <<= 1;
	slots = calloc(nslots, sizeof(*slots)); /* item index + 1; 0: empty */
	if (!slots)
		return -ENOMEM;
	mask = nslots - 1;
	for (size_t i = 0; i < set->nr_items; i++) {
		const struct series_item *it = &set->items[i];
		size_t h = it->key.lo & mask;
		bool dup = false;

		for (; slots[h]; h = (h + 1) & mask)
			if (series_key_equal(&set->items[slots[h] - 1].key, &it->key)) {
				dup = true;
				break;
			}
		if (dup) {
			if (kept == i) /* nothing dropped before: the first */
				first_dup = *it;
			if (it->stale)
				set->nr_stale--;
			else if (it->stat)
				set->nr_values--;
			continue;
		}
		set->items[kept] = *it;
		slots[h] = (uint32_t)kept + 1;
		kept++;
		if (i < set->nr_row_items)
			kept_rows++;
	}
	free(slots);
	set->nr_row_items = kept_rows;
	set->nr_duplicates = set->nr_items - kept;
	set->nr_items = kept;
	if (set->nr_duplicates)
		warn_duplicates(set, &first_dup, set->nr_duplicates);
	return 0;
}
