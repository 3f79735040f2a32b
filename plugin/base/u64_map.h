/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A map from 64-bit keys to non-NULL pointers: open addressing with linear
 * probing, at most half full (it doubles before it would be fuller), and
 * removal by backward shift, so no tombstones. Every key is allowed, 0
 * included. The one u64-keyed table of the project: cgroup id -> node in the
 * cgroup index, cgroup id -> per-cgroup state in the text backend.
 *
 * Not thread-safe; the map never frees the values it holds.
 */
#ifndef MEMCG_BPF_U64_MAP_H
#define MEMCG_BPF_U64_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct u64_map;

/* A map with room for @expected keys before it first grows. 0 or -ENOMEM. */
int u64_map_new(size_t expected, struct u64_map **out);
/* Frees the map (not its values); NULL is fine. */
void u64_map_free(struct u64_map *m);

/* The value of @key, or NULL. */
void *u64_map_get(const struct u64_map *m, uint64_t key);
/*
 * Sets @key to @value, replacing any value it had. 0, -EINVAL for a NULL
 * @value, or -ENOMEM (the map is unchanged).
 */
int u64_map_put(struct u64_map *m, uint64_t key, void *value);
/* Removes @key; returns the value it had, or NULL when it was not there. */
void *u64_map_remove(struct u64_map *m, uint64_t key);
size_t u64_map_count(const struct u64_map *m);

/*
 * Iteration in no particular order, from *@pos = 0: the next entry's key and
 * value, false after the last. The map must not change meanwhile (see
 * u64_map_remove_if() for removing while walking).
 */
bool u64_map_next(const struct u64_map *m, size_t *pos, uint64_t *key, void **value);
/*
 * Calls @drop once for every entry and removes those it returns true for
 * (it may free their value). @drop may read the map but not change it.
 * Returns the number removed.
 */
size_t u64_map_remove_if(struct u64_map *m, bool (*drop)(uint64_t key, void *value, void *arg), void *arg);

/*
 * Where a key's probe starts: u64_map_home(key) & (u64_map_capacity(m) - 1).
 * For tests that need keys which collide.
 */
uint64_t u64_map_home(uint64_t key);
size_t u64_map_capacity(const struct u64_map *m);

#endif
