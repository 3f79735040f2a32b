/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The strings remote write 2.0 series refer to, interned across intervals:
 * each distinct label name or value gets a global id that stays while the
 * dictionary is kept, so a series' labels are cached as global ids
 * (wire/label_cache.h) and never hashed again. A request's symbols table is
 * then built from the ids alone: symbol_dict_ref() hands out the request's
 * own indices in order of first use, as the encoder always did.
 *
 * Ids are never freed one by one; the label cache clears the dictionary
 * when it holds more than twice the strings of the series still sent
 * (symbol_dict_bloated), which bounds it under cgroup churn.
 */
#ifndef MEMCG_BPF_SYMBOL_DICT_H
#define MEMCG_BPF_SYMBOL_DICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbol_dict {
	char **str;        /* id -> its string (owned, NUL terminated) */
	uint32_t *len;     /* id -> its length */
	uint32_t *req;     /* id -> the request it last got an index in */
	uint32_t *local;   /* id -> that index */
	uint32_t *pass;    /* id -> the pass it was last referred to in */
	uint32_t *order;   /* this request's symbols: index -> id */
	size_t n, cap;
	uint32_t *slots;   /* hash -> id + 1, 0 empty */
	size_t nslots;
	uint32_t cur_req, cur_pass;
	size_t nr_order;   /* symbols of the current request */
	size_t nr_live;    /* ids referred to in the current pass */
};

/* The global id of @s (@len bytes), interned when new. 0 or -ENOMEM. */
int symbol_dict_intern(struct symbol_dict *d, const char *s, uint32_t len, uint32_t *id);
/* Starts a pass of the label cache: no id referred to yet. */
void symbol_dict_new_pass(struct symbol_dict *d);
/* Starts a request: no symbols yet. */
void symbol_dict_new_request(struct symbol_dict *d);
/* The current request's index of id @id, assigned at its first use. */
static inline uint32_t symbol_dict_ref(struct symbol_dict *d, uint32_t id)
{
	if (d->req[id] != d->cur_req) {
		d->req[id] = d->cur_req;
		d->local[id] = (uint32_t)d->nr_order;
		d->order[d->nr_order++] = id;
		if (d->pass[id] != d->cur_pass) {
			d->pass[id] = d->cur_pass;
			d->nr_live++;
		}
	}
	return d->local[id];
}
/* True when most ids are no longer referred to: time to clear. */
bool symbol_dict_bloated(const struct symbol_dict *d);
/* Forgets every string; the dictionary stays usable. */
void symbol_dict_clear(struct symbol_dict *d);
void symbol_dict_free(struct symbol_dict *d);

#endif
