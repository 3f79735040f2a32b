// SPDX-License-Identifier: GPL-2.0-only
#include "series/string_arena.h"

#include <stdlib.h>
#include <string.h>

#include "series/label_escape.h"
#include "series/series_set.h"

#define ARENA_CHUNK (64 * 1024)

struct arena_chunk {
	struct arena_chunk *next;
	size_t size, used;
	char data[];
};

static void *arena_alloc(struct series_set *set, size_t n)
{
	struct arena_chunk *c = set->arena;

	n = (n + 7) & ~(size_t)7;
	if (!c || c->size - c->used < n) {
		size_t size = n > ARENA_CHUNK ? n : ARENA_CHUNK;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->size = size;
		c->used = 0;
		c->next = set->arena;
		set->arena = c;
	}
	c->used += n;
	return c->data + c->used - n;
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
	while (set->arena) {
		struct arena_chunk *next = set->arena->next;

		free(set->arena);
		set->arena = next;
	}
}

/* Keeps the first chunk, frees the others. */
void series_arena_reset(struct series_set *set)
{
	struct arena_chunk *keep = NULL;

	while (set->arena) {
		struct arena_chunk *next = set->arena->next;

		if (!next && set->arena->size == ARENA_CHUNK) {
			keep = set->arena;
			keep->used = 0;
		} else {
			free(set->arena);
		}
		set->arena = next;
	}
	set->arena = keep;
}
