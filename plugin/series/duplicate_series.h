/* SPDX-License-Identifier: GPL-2.0-only */
/* The check a built series set gets for series it holds twice. Internal to series/. */
#ifndef MEMCG_BPF_DUPLICATE_SERIES_H
#define MEMCG_BPF_DUPLICATE_SERIES_H

#include "series/series_set.h"

int drop_duplicate_series(struct series_set *set);

#endif
