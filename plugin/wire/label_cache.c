// SPDX-License-Identifier: GPL-2.0-only
#include "wire/label_cache.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MIN_SLOTS 64

struct entry {
	struct series_key key;
	uint32_t pass;   /* last pass that used it; 0: the slot is empty */
	uint32_t len;
	uint8_t *data;
};

/* One format's series: open addressing on the key, at most half full. */
struct blob_map {
	struct entry *slots;
	size_t nslots, n;
	size_t used; /* entries the current pass used */
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
	for (size_t i = 0; i < m->nslots; i++)
		free(m->slots[i].data);
	free(m->slots);
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

static struct entry *slot_of(struct entry *slots, size_t nslots, const struct series_key *k)
{
	size_t mask = nslots - 1, i = k->lo & mask;

	while (slots[i].pass && !series_key_equal(&slots[i].key, k))
		i = (i + 1) & mask;
	return &slots[i];
}

/* Moves the entries used in pass @keep (all when 0) into a table of @nslots; frees the others. */
static int map_rehash(struct blob_map *m, size_t nslots, uint32_t keep)
{
	struct entry *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	m->n = 0;
	for (size_t i = 0; i < m->nslots; i++) {
		struct entry *e = &m->slots[i];

		if (!e->pass)
			continue;
		if (keep && e->pass != keep) {
			free(e->data);
			continue;
		}
		*slot_of(slots, nslots, &e->key) = *e;
		m->n++;
	}
	free(m->slots);
	m->slots = slots;
	m->nslots = nslots;
	return 0;
}

void label_cache_begin_pass(struct label_cache *c)
{
	if (++c->pass == 0) /* after 2^32 passes: 0 marks an empty slot */
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
	for (size_t f = 0; f < LABEL_CACHE_FORMATS; f++) {
		struct blob_map *m = &c->map[f];
		size_t nslots = MIN_SLOTS;

		if (m->used == m->n)
			continue;
		if (!m->used) {
			map_clear(m);
			continue;
		}
		while (nslots < 2 * m->used)
			nslots <<= 1;
		/* without memory for a smaller table the dead entries stay till the next pass */
		map_rehash(m, nslots, c->pass);
	}
}

static int map_reserve(struct blob_map *m, size_t more)
{
	size_t nslots = m->nslots ? m->nslots : MIN_SLOTS;

	while (nslots < 2 * (m->n + more))
		nslots <<= 1;
	return nslots == m->nslots ? 0 : map_rehash(m, nslots, 0);
}

int label_cache_get(struct label_cache *c, enum wire_format f, const struct series_set *set, size_t from,
		    size_t to, label_encode_fn enc, struct label_blob *out)
{
	struct blob_map *m = &c->map[f];
	int err = map_reserve(m, to - from);

	if (err)
		return err;
	for (size_t i = from; i < to; i++) {
		const struct series_item *it = &set->items[i];
		struct entry *e = slot_of(m->slots, m->nslots, &it->key);

		if (!e->pass) {
			c->tmp.len = 0;
			err = enc(c, set, it, &c->tmp);
			if (err)
				return err;
			e->data = malloc(c->tmp.len ? c->tmp.len : 1);
			if (!e->data)
				return -ENOMEM;
			memcpy(e->data, c->tmp.data, c->tmp.len);
			e->len = (uint32_t)c->tmp.len;
			e->key = it->key;
			m->n++;
		}
		if (e->pass != c->pass) {
			e->pass = c->pass;
			m->used++;
		}
		out[i - from] = (struct label_blob){ e->data, e->len };
	}
	return 0;
}

struct symbol_dict *label_cache_symbols(struct label_cache *c)
{
	return &c->symbols;
}

size_t label_cache_size(const struct label_cache *c, enum wire_format f)
{
	return c->map[f].n;
}
