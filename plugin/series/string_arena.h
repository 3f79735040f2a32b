/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The strings a series set owns (metric names, escaped label values) live
 * in its arena (base/byte_arena.h: chunks of 64 KiB), freed all at once
 * when the set is built again (the first chunk is kept for the next build)
 * or freed.
 * Internal to series/: the rest of the code sees struct series_set only.
 */
#ifndef MEMCG_BPF_STRING_ARENA_H
#define MEMCG_BPF_STRING_ARENA_H

#include <stddef.h>

struct series_set;

char *series_arena_strdup(struct series_set *set, const char *s);
char *series_arena_escape(struct series_set *set, const char *s, size_t *out_len);
void series_arena_reset(struct series_set *set);
void series_arena_free(struct series_set *set);

#endif
