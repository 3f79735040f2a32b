/* SPDX-License-Identifier: GPL-2.0-only */
/* One label of a series: a name and a value, both NUL-terminated. */
#ifndef MEMCG_BPF_LABEL_PAIR_H
#define MEMCG_BPF_LABEL_PAIR_H

/* Static labels (Label keys) a series may carry besides its own. */
#define SERIES_MAX_STATIC_LABELS 32

struct label_pair {
	const char *name;
	const char *value;
};

#endif
