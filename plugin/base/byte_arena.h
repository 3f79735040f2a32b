/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bump allocation in chunks that never move: what is handed out stays where
 * it is until the arena is reset or freed, all at once. For many small
 * blocks that live and die together (a series set's strings, the label
 * cache's bytes), without malloc's header on each and without holes.
 */
#ifndef MEMCG_BPF_BYTE_ARENA_H
#define MEMCG_BPF_BYTE_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct byte_arena {
	struct arena_chunk *head; /* the newest chunk; each links to the one before */
	size_t chunk_size;        /* 0: 64 KiB; a larger block gets a chunk of its own size */
	size_t handed_out;        /* bytes handed out since the last reset, alignment included */
};

/* @n bytes aligned to 8; NULL when out of memory. */
void *byte_arena_alloc(struct byte_arena *a, size_t n);
/* Forgets everything handed out; keeps the oldest chunk (when of the usual size) for reuse. */
void byte_arena_reset(struct byte_arena *a);
void byte_arena_free(struct byte_arena *a);

#endif
