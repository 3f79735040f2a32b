// SPDX-License-Identifier: GPL-2.0-only
#include "series/string_arena.h"

#include <stdlib.h>
#include <string.h>

#include "base/byte_arena.h"
#include "series/label_escape.h"
#include "series/series_set.h"

static void *arena_alloc(struct series_set *set, size_t n)
{
	return byte_arena_alloc(&set->arena, n);
}

char *series_arena_strdup(struct series_set *set, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena_alloc(set, n);

	if (p)
		memcpy(p, s, n);
	return p;
}

/* Escaped copy of @s; its length in @out_len. */
char *series_arena_escape(struct series_set *set, const char *s, size_t *out_len)
{
	size_t len = strlen(s), need = label_escape(s, len, NULL, 0) + 1;
	char *p = arena_alloc(set, need);

	if (p)
		*out_len = label_escape(s, len, p, need);
	return p;
}

void series_arena_free(struct series_set *set)
{
	byte_arena_free(&set->arena);
}

void series_arena_reset(struct series_set *set)
{
	byte_arena_reset(&set->arena);
}
