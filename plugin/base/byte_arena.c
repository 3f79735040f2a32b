// SPDX-License-Identifier: GPL-2.0-only
#include "base/byte_arena.h"

#include <stdlib.h>

#define ARENA_DEFAULT_CHUNK (64 * 1024)

struct arena_chunk {
	struct arena_chunk *prev;
	size_t size, used;
	_Alignas(8) unsigned char data[];
};

static size_t chunk_size_of(const struct byte_arena *a)
{
	return a->chunk_size ? a->chunk_size : ARENA_DEFAULT_CHUNK;
}

void *byte_arena_alloc(struct byte_arena *a, size_t n)
{
	struct arena_chunk *c = a->head;

	n = (n + 7) & ~(size_t)7;
	if (!c || c->size - c->used < n) {
		size_t size = n > chunk_size_of(a) ? n : chunk_size_of(a);

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->size = size;
		c->used = 0;
		c->prev = a->head;
		a->head = c;
	}
	c->used += n;
	a->handed_out += n;
	return c->data + c->used - n;
}

void byte_arena_reset(struct byte_arena *a)
{
	struct arena_chunk *keep = NULL;

	while (a->head) {
		struct arena_chunk *prev = a->head->prev;

		if (!prev && a->head->size == chunk_size_of(a)) {
			keep = a->head;
			keep->used = 0;
		} else {
			free(a->head);
		}
		a->head = prev;
	}
	a->head = keep;
	a->handed_out = 0;
}

void byte_arena_free(struct byte_arena *a)
{
	byte_arena_reset(a);
	free(a->head);
	a->head = NULL;
}
