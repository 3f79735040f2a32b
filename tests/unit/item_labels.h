/* SPDX-License-Identifier: GPL-2.0-only */
/* A series item's labels for the tests: by position and by name (series_item_label()). */
#ifndef MEMCG_BPF_TEST_ITEM_LABELS_H
#define MEMCG_BPF_TEST_ITEM_LABELS_H

#include <string.h>

#include "series/series_set.h"

static inline struct label_pair item_label_at(const struct series_set *set, const struct series_item *it, uint32_t k)
{
	struct label_pair l;
	struct label_len len;

	series_item_label(set, it, k, &l, &len);
	return l;
}

/* The value of @it's label @name; NULL without one. */
static inline const char *item_label(const struct series_set *set, const struct series_item *it, const char *name)
{
	for (uint32_t k = 0; k < it->nr_labels; k++)
		if (strcmp(item_label_at(set, it, k).name, name) == 0)
			return item_label_at(set, it, k).value;
	return NULL;
}

#endif
