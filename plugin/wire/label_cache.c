// SPDX-License-Identifier: GPL-2.0-only
#include "wire/label_cache.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/byte_arena.h"

#define MIN_SLOTS 64
#define BYTES_CHUNK (256 * 1024)

struct entry {
	struct series_key key;
	uint32_t pass; /* the last pass that used it */
	uint32_t len;
	uint8_t *data; /* in the map's arena */
	uint32_t name_at; /* label_blob's */
};

/*
 * One format's series: the entries one after another, found through an
 * index of entry numbers (open addressing on the key, at most half full; 0
 * is an empty slot, else the entry's number + 1), their bytes in an arena.
 * Per entry that is 40 bytes, 8 to 16 of index and the bytes
 * themselves (rounded up to 8): no pointer-sized slots left empty, no
 * malloc header per series. The bytes of series that are gone stay in the
 * arena until they are a quarter of it.
 */
struct blob_map {
	struct entry *entries;
	size_t n, cap;
	uint32_t *index;
	size_t nslots;
	size_t used;         /* entries the current pass used */
	struct byte_arena bytes;
	size_t live_bytes;   /* the arena's bytes that entries hold, as rounded by it */
};

struct label_cache {
	struct blob_map map[LABEL_CACHE_FORMATS];
	struct symbol_dict symbols;
	uint32_t pass;
	struct byte_buf tmp; /* one new series' bytes */
};

struct label_cache *label_cache_new(void)
{
	struct label_cache *c = calloc(1, sizeof(*c));

	if (c)
		c->pass = 1;
	return c;
}

static void map_clear(struct blob_map *m)
{
	free(m->entries);
	free(m->index);
	byte_arena_free(&m->bytes);
	memset(m, 0, sizeof(*m));
}

void label_cache_free(struct label_cache *c)
{
	if (!c)
		return;
	for (size_t f = 0; f < LABEL_CACHE_FORMATS; f++)
		map_clear(&c->map[f]);
	symbol_dict_free(&c->symbols);
	byte_buf_free(&c->tmp);
	free(c);
}

static size_t rounded(size_t len)
{
	return (len + 7) & ~(size_t)7;
}

static uint32_t *slot_of(uint32_t *index, size_t nslots, const struct entry *entries, const struct series_key *k)
{
	size_t mask = nslots - 1, i = k->lo & mask;

	while (index[i] && !series_key_equal(&entries[index[i] - 1].key, k))
		i = (i + 1) & mask;
	return &index[i];
}

/* An index of @nslots for the entries; the old one stays when there is no memory. */
static int index_rebuild(struct blob_map *m, size_t nslots)
{
	uint32_t *index = calloc(nslots, sizeof(*index));

	if (!index)
		return -ENOMEM;
	for (size_t e = 0; e < m->n; e++)
		*slot_of(index, nslots, m->entries, &m->entries[e].key) = (uint32_t)(e + 1);
	free(m->index);
	m->index = index;
	m->nslots = nslots;
	return 0;
}

static size_t nslots_for(size_t n)
{
	size_t nslots = MIN_SLOTS;

	while (nslots < 2 * n)
		nslots <<= 1;
	return nslots;
}

/* The live bytes moved into one new chunk, when the dead are a quarter of the arena; else nothing. */
static void compact_bytes(struct blob_map *m)
{
	struct byte_arena fresh = { .chunk_size = m->live_bytes > BYTES_CHUNK ? m->live_bytes : BYTES_CHUNK };

	if (m->bytes.handed_out - m->live_bytes <= m->bytes.handed_out / 4)
		return;
	if (!byte_arena_alloc(&fresh, 0)) /* the one chunk: the copies below all fit in it */
		return;
	for (size_t e = 0; e < m->n; e++) {
		uint8_t *to = byte_arena_alloc(&fresh, m->entries[e].len);

		memcpy(to, m->entries[e].data, m->entries[e].len);
		m->entries[e].data = to;
	}
	fresh.chunk_size = BYTES_CHUNK;
	byte_arena_free(&m->bytes);
	m->bytes = fresh;
}

/* Drops the entries pass @pass did not use; without memory for a new index they stay till the next pass. */
static void map_end_pass(struct blob_map *m, uint32_t pass)
{
	size_t kept = 0, nslots = nslots_for(m->used);
	uint32_t *index;

	if (m->used == m->n)
		return;
	if (!m->used) {
		map_clear(m);
		return;
	}
	index = calloc(nslots, sizeof(*index));
	if (!index)
		return;
	for (size_t e = 0; e < m->n; e++) {
		if (m->entries[e].pass != pass) {
			m->live_bytes -= rounded(m->entries[e].len);
			continue;
		}
		m->entries[kept] = m->entries[e];
		*slot_of(index, nslots, m->entries, &m->entries[kept].key) = (uint32_t)(kept + 1);
		kept++;
	}
	m->n = kept;
	free(m->index);
	m->index = index;
	m->nslots = nslots;
	compact_bytes(m);
}

void label_cache_begin_pass(struct label_cache *c)
{
	if (++c->pass == 0) /* after 2^32 passes: 0 marks an entry no pass used */
		c->pass = 1;
	for (size_t f = 0; f < LABEL_CACHE_FORMATS; f++)
		c->map[f].used = 0;
	symbol_dict_new_pass(&c->symbols);
}

void label_cache_end_pass(struct label_cache *c)
{
	if (symbol_dict_bloated(&c->symbols)) {
		/* the 2.0 series hold ids of the strings: both go */
		map_clear(&c->map[WIRE_REMOTE_WRITE_V2]);
		symbol_dict_clear(&c->symbols);
	}
	for (size_t f = 0; f < LABEL_CACHE_FORMATS; f++)
		map_end_pass(&c->map[f], c->pass);
}

/* Room for @more entries, and an index at most half full with them. */
static int map_reserve(struct blob_map *m, size_t more)
{
	size_t nslots = nslots_for(m->n + more);

	if (m->n + more >= UINT32_MAX)
		return -EOVERFLOW;
	if (m->n + more > m->cap) {
		size_t cap = m->cap ? m->cap : MIN_SLOTS;
		void *p;

		while (cap < m->n + more)
			cap *= 2;
		p = realloc(m->entries, cap * sizeof(*m->entries));
		if (!p)
			return -ENOMEM;
		m->entries = p;
		m->cap = cap;
	}
	if (!m->bytes.chunk_size)
		m->bytes.chunk_size = BYTES_CHUNK;
	return nslots <= m->nslots ? 0 : index_rebuild(m, nslots);
}

/* A new entry for @it (for its cgroup's run with @cgroup) under @key, its bytes encoded by @enc. */
static int map_add(struct label_cache *c, struct blob_map *m, const struct series_set *set,
		   const struct series_item *it, bool cgroup, const struct series_key *key, label_encode_fn enc)
{
	struct entry *e;
	int err = map_reserve(m, 1);

	if (err)
		return err;
	e = &m->entries[m->n];
	c->tmp.len = 0;
	e->name_at = LABEL_BLOB_WHOLE;
	err = enc(c, set, it, cgroup, &c->tmp, &e->name_at);
	if (err)
		return err;
	e->data = byte_arena_alloc(&m->bytes, c->tmp.len);
	if (!e->data)
		return -ENOMEM;
	memcpy(e->data, c->tmp.data, c->tmp.len);
	e->len = (uint32_t)c->tmp.len;
	e->key = *key;
	e->pass = 0;
	m->live_bytes += rounded(e->len);
	*slot_of(m->index, m->nslots, m->entries, key) = (uint32_t)++m->n;
	return 0;
}

/* The entry of @key in @m, added (its bytes encoded by @enc) when it has none; its index, or a negative errno. */
static int64_t entry_of(struct label_cache *c, struct blob_map *m, const struct series_set *set,
			const struct series_item *it, bool cgroup, const struct series_key *key, label_encode_fn enc)
{
	uint32_t *slot = slot_of(m->index, m->nslots, m->entries, key);

	if (!*slot) {
		int err = map_add(c, m, set, it, cgroup, key, enc);

		if (err)
			return err;
		slot = slot_of(m->index, m->nslots, m->entries, key); /* the index may have grown */
	}
	return *slot - 1;
}

int label_cache_get(struct label_cache *c, enum wire_format f, const struct series_set *set, size_t from,
		    size_t to, label_encode_fn enc, bool per_cgroup, struct label_blob *out)
{
	struct blob_map *m = &c->map[f];
	/* a cgroup's series come once per stat: its entry is looked up once (+1; 0 for not yet) */
	uint32_t *run_entry = NULL;
	int err = map_reserve(m, 0);

	if (!err && per_cgroup && !(run_entry = calloc(set->nr_cgroup_runs ? set->nr_cgroup_runs : 1,
						      sizeof(*run_entry))))
		err = -ENOMEM;
	for (size_t i = from; i < to && !err; i++) {
		const struct series_item *it = &set->items[i];
		bool cgroup = per_cgroup && it->cgroup_run != SERIES_OWN_RUN;
		const struct series_key *key = cgroup ? &set->cgroup_keys[it->cgroup_run] : &it->key;
		int64_t at = cgroup && run_entry[it->cgroup_run] ? run_entry[it->cgroup_run] - 1
							       : entry_of(c, m, set, it, cgroup, key, enc);
		struct entry *e;

		if (at < 0) {
			err = (int)at;
			break;
		}
		if (cgroup)
			run_entry[it->cgroup_run] = (uint32_t)at + 1;
		e = &m->entries[at];
		if (e->pass != c->pass) {
			e->pass = c->pass;
			m->used++;
		}
		out[i - from] = (struct label_blob){ e->data, e->len, e->name_at };
	}
	free(run_entry);
	return err;
}

struct symbol_dict *label_cache_symbols(struct label_cache *c)
{
	return &c->symbols;
}

size_t label_cache_size(const struct label_cache *c, enum wire_format f)
{
	return c->map[f].n;
}
