// SPDX-License-Identifier: GPL-2.0-only
#include "wire/symbol_dict.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/siphash.h"

/* Slack over twice the live strings before the dictionary is cleared. */
#define SYMBOL_DICT_SLACK 1024

/* Keyed: the strings are label values a tenant may choose (base/siphash.h). */
static uint64_t string_hash(const char *s, uint32_t len)
{
	return siphash_bytes(siphash_process_key(), s, len, 1, 3);
}

static int grow_ids(struct symbol_dict *d)
{
	size_t cap = d->cap ? 2 * d->cap : 256;
	void *p;

#define GROW(field)                                                   \
	do {                                                          \
		p = realloc(d->field, cap * sizeof(*d->field));       \
		if (!p)                                               \
			return -ENOMEM;                               \
		d->field = p;                                         \
	} while (0)
	GROW(str);
	GROW(len);
	GROW(req);
	GROW(local);
	GROW(pass);
	GROW(order);
#undef GROW
	d->cap = cap;
	return 0;
}

static void place(struct symbol_dict *d, uint32_t id)
{
	size_t mask = d->nslots - 1, i = string_hash(d->str[id], d->len[id]) & mask;

	while (d->slots[i])
		i = (i + 1) & mask;
	d->slots[i] = id + 1;
}

static int grow_slots(struct symbol_dict *d)
{
	size_t n = d->nslots ? 2 * d->nslots : 512;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	free(d->slots);
	d->slots = s;
	d->nslots = n;
	for (size_t id = 0; id < d->n; id++)
		place(d, (uint32_t)id);
	return 0;
}

int symbol_dict_intern(struct symbol_dict *d, const char *s, uint32_t len, uint32_t *id)
{
	size_t mask, i;
	int err;

	if (2 * (d->n + 1) > d->nslots && (err = grow_slots(d)))
		return err;
	mask = d->nslots - 1;
	for (i = string_hash(s, len) & mask; d->slots[i]; i = (i + 1) & mask) {
		uint32_t v = d->slots[i] - 1;

		if (d->len[v] == len && memcmp(d->str[v], s, len) == 0) {
			*id = v;
			return 0;
		}
	}
	if (d->n == d->cap && (err = grow_ids(d)))
		return err;
	d->str[d->n] = malloc(len + 1);
	if (!d->str[d->n])
		return -ENOMEM;
	memcpy(d->str[d->n], s, len);
	d->str[d->n][len] = '\0';
	d->len[d->n] = len;
	d->req[d->n] = 0;
	d->pass[d->n] = 0;
	d->slots[i] = (uint32_t)d->n + 1;
	*id = (uint32_t)d->n++;
	return 0;
}

void symbol_dict_new_pass(struct symbol_dict *d)
{
	d->cur_pass++;
	d->nr_live = 0;
}

void symbol_dict_new_request(struct symbol_dict *d)
{
	d->cur_req++;
	d->nr_order = 0;
}

bool symbol_dict_bloated(const struct symbol_dict *d)
{
	return d->n > 2 * d->nr_live + SYMBOL_DICT_SLACK;
}

void symbol_dict_clear(struct symbol_dict *d)
{
	for (size_t id = 0; id < d->n; id++)
		free(d->str[id]);
	d->n = 0;
	if (d->slots)
		memset(d->slots, 0, d->nslots * sizeof(*d->slots));
}

void symbol_dict_free(struct symbol_dict *d)
{
	symbol_dict_clear(d);
	free(d->str);
	free(d->len);
	free(d->req);
	free(d->local);
	free(d->pass);
	free(d->order);
	free(d->slots);
	memset(d, 0, sizeof(*d));
}
