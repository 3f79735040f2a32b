// SPDX-License-Identifier: GPL-2.0-only
/*
 * u64 key -> pointer, open addressing. A slot is empty when its value is
 * NULL, which is why values must not be NULL and why every key, 0 too, can
 * be stored. The capacity is a power of two and at least twice the count, so
 * every probe run ends at an empty slot.
 */
#include "base/u64_map.h"

#include <errno.h>
#include <stdlib.h>

#define MIN_CAPACITY 16

struct slot {
	uint64_t key;
	void *value; /* NULL: empty */
};

struct u64_map {
	struct slot *slots;
	size_t mask; /* capacity - 1 */
	size_t count;
};

uint64_t u64_map_home(uint64_t key)
{
	/* half of MurmurHash3's finaliser: inode numbers are dense, spread them */
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return key;
}

static size_t home_of(const struct u64_map *m, uint64_t key)
{
	return (size_t)u64_map_home(key) & m->mask;
}

/* The slot holding @key, or the empty slot where it would go. */
static size_t find_slot(const struct u64_map *m, uint64_t key)
{
	size_t i = home_of(m, key);

	while (m->slots[i].value && m->slots[i].key != key)
		i = (i + 1) & m->mask;
	return i;
}

static int resize(struct u64_map *m, size_t capacity)
{
	struct slot *old = m->slots;
	size_t old_capacity = m->mask + 1;

	m->slots = calloc(capacity, sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		return -ENOMEM;
	}
	m->mask = capacity - 1;
	for (size_t i = 0; i < old_capacity; i++)
		if (old[i].value)
			m->slots[find_slot(m, old[i].key)] = old[i];
	free(old);
	return 0;
}

int u64_map_new(size_t expected, struct u64_map **out)
{
	struct u64_map *m;
	size_t capacity = MIN_CAPACITY;

	*out = NULL;
	while (capacity / 2 < expected && capacity <= SIZE_MAX / 4)
		capacity *= 2;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->slots = calloc(capacity, sizeof(*m->slots));
	if (!m->slots) {
		free(m);
		return -ENOMEM;
	}
	m->mask = capacity - 1;
	*out = m;
	return 0;
}

void u64_map_free(struct u64_map *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m);
}

void *u64_map_get(const struct u64_map *m, uint64_t key)
{
	return m->slots[find_slot(m, key)].value;
}

int u64_map_put(struct u64_map *m, uint64_t key, void *value)
{
	size_t i;

	if (!value)
		return -EINVAL;
	i = find_slot(m, key);
	if (!m->slots[i].value) {
		if (2 * (m->count + 1) > m->mask + 1) {
			int err = resize(m, 2 * (m->mask + 1));

			if (err)
				return err;
			i = find_slot(m, key);
		}
		m->slots[i].key = key;
		m->count++;
	}
	m->slots[i].value = value;
	return 0;
}

/* Empties slot @hole, moving later entries of its probe run back into it. */
static void remove_at(struct u64_map *m, size_t hole)
{
	for (size_t j = (hole + 1) & m->mask; m->slots[j].value; j = (j + 1) & m->mask) {
		size_t home = home_of(m, m->slots[j].key);

		/* the entry at j may fill the hole unless its home lies cyclically in (hole, j] */
		if (((j - home) & m->mask) >= ((j - hole) & m->mask)) {
			m->slots[hole] = m->slots[j];
			hole = j;
		}
	}
	m->slots[hole].value = NULL;
	m->count--;
}

void *u64_map_remove(struct u64_map *m, uint64_t key)
{
	size_t i = find_slot(m, key);
	void *value = m->slots[i].value;

	if (value)
		remove_at(m, i);
	return value;
}

size_t u64_map_count(const struct u64_map *m)
{
	return m->count;
}

size_t u64_map_capacity(const struct u64_map *m)
{
	return m->mask + 1;
}

bool u64_map_next(const struct u64_map *m, size_t *pos, uint64_t *key, void **value)
{
	for (size_t i = *pos; i <= m->mask; i++) {
		if (!m->slots[i].value)
			continue;
		*key = m->slots[i].key;
		*value = m->slots[i].value;
		*pos = i + 1;
		return true;
	}
	*pos = m->mask + 1;
	return false;
}

/*
 * The walk starts just after an empty slot, which no probe run crosses and
 * which no backward shift fills: a removal at i only moves entries from
 * further along i's run, that is from slots the walk has yet to visit, into
 * i. So the walk looks at slot i again after a removal, and sees every entry
 * exactly once.
 */
size_t u64_map_remove_if(struct u64_map *m, bool (*drop)(uint64_t key, void *value, void *arg), void *arg)
{
	size_t start = 0, removed = 0;

	while (m->slots[start].value)
		start++; /* there is an empty slot: the map is at most half full */
	for (size_t step = 1; step <= m->mask + 1;) {
		size_t i = (start + step) & m->mask;
		struct slot *s = &m->slots[i];

		if (s->value && drop(s->key, s->value, arg)) {
			remove_at(m, i);
			removed++;
			continue;
		}
		step++;
	}
	return removed;
}
