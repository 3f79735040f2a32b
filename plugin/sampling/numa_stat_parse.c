// SPDX-License-Identifier: GPL-2.0-only
#include "sampling/numa_stat_parse.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NUMA_PARSE_MAX_NODE 1024

struct numa_key {
	char *name;
	size_t len;
	/* (node, slot) pairs wanted of this line */
	unsigned int *nodes;
	size_t *slots;
	size_t nr;
};

struct numa_stat_parser {
	struct numa_key *keys;
	size_t nr_keys;
	size_t hint;      /* the key after the last one found: lines come in the same order */
	uint64_t multiplier;
	uint64_t bad;
};

static bool key_ok(const char *k)
{
	return k[0] && !strpbrk(k, " =\n");
}

static struct numa_key *key_of(struct numa_stat_parser *p, const char *name)
{
	for (size_t i = 0; i < p->nr_keys; i++)
		if (strcmp(p->keys[i].name, name) == 0)
			return &p->keys[i];
	return NULL;
}

int numa_stat_parser_new(const char *const *keys, const unsigned int *nodes, const size_t *slots, size_t nr,
			 uint64_t multiplier, struct numa_stat_parser **out)
{
	struct numa_stat_parser *p;
	int err = -ENOMEM;

	*out = NULL;
	for (size_t i = 0; i < nr; i++)
		if (!key_ok(keys[i]) || nodes[i] >= NUMA_PARSE_MAX_NODE)
			return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->multiplier = multiplier ? multiplier : 1;
	p->keys = calloc(nr ? nr : 1, sizeof(*p->keys));
	if (!p->keys)
		goto fail;
	for (size_t i = 0; i < nr; i++) {
		struct numa_key *k = key_of(p, keys[i]);

		if (!k) {
			k = &p->keys[p->nr_keys++];
			k->name = strdup(keys[i]);
			k->len = strlen(keys[i]);
			k->nodes = calloc(nr, sizeof(*k->nodes));
			k->slots = calloc(nr, sizeof(*k->slots));
			if (!k->name || !k->nodes || !k->slots)
				goto fail;
		}
		k->nodes[k->nr] = nodes[i];
		k->slots[k->nr++] = slots[i];
	}
	*out = p;
	return 0;
fail:
	numa_stat_parser_free(p);
	return err;
}

void numa_stat_parser_free(struct numa_stat_parser *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_keys; i++) {
		free(p->keys[i].name);
		free(p->keys[i].nodes);
		free(p->keys[i].slots);
	}
	free(p->keys);
	free(p);
}

uint64_t numa_stat_parser_bad_values(const struct numa_stat_parser *p)
{
	return p->bad;
}

/* The wanted key whose name is @name (@len bytes), trying the hint first. */
static struct numa_key *find_key(struct numa_stat_parser *p, const char *name, size_t len)
{
	for (size_t n = 0; n < p->nr_keys; n++) {
		size_t i = (p->hint + n) % p->nr_keys;
		struct numa_key *k = &p->keys[i];

		if (k->len == len && memcmp(k->name, name, len) == 0) {
			p->hint = i + 1;
			return k;
		}
	}
	return NULL;
}

/* A decimal at [@s, @end); false when none or it overflows. */
static bool parse_dec(const char *s, const char *end, uint64_t *v)
{
	uint64_t x = 0;

	if (s == end)
		return false;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return true;
}

/* The wanted values of one line's " N<id>=<value>" tokens, from @s to @end. */
static size_t parse_nodes(struct numa_stat_parser *p, const struct numa_key *k, const char *s, const char *end,
			  uint64_t *values)
{
	size_t set = 0;

	while (s < end) {
		const char *tok = s, *tok_end = memchr(s, ' ', (size_t)(end - s)), *eq;
		uint64_t node, v;

		if (!tok_end)
			tok_end = end;
		s = tok_end + 1;
		eq = memchr(tok, '=', (size_t)(tok_end - tok));
		if (tok[0] != 'N' || !eq || !parse_dec(tok + 1, eq, &node))
			continue;
		for (size_t i = 0; i < k->nr; i++) {
			if (k->nodes[i] != node)
				continue;
			if (!parse_dec(eq + 1, tok_end, &v) || v > UINT64_MAX / p->multiplier) {
				p->bad++;
				continue;
			}
			values[k->slots[i]] = v * p->multiplier;
			set++;
		}
	}
	return set;
}

size_t numa_stat_parse(struct numa_stat_parser *p, const char *buf, size_t len, uint64_t *values)
{
	const char *s = buf, *end = buf + len;
	size_t set = 0;

	while (s < end && p->nr_keys) {
		const char *eol = memchr(s, '\n', (size_t)(end - s)), *name_end, *nodes;
		const struct numa_key *k;

		if (!eol)
			eol = end;
		name_end = s;
		while (name_end < eol && *name_end != ' ' && *name_end != '=')
			name_end++;
		k = find_key(p, s, (size_t)(name_end - s));
		if (k) {
			/* v1: "key=sum N0=..."; the sum is not a node's */
			nodes = *name_end == '=' ? memchr(name_end, ' ', (size_t)(eol - name_end)) : name_end;
			if (nodes)
				set += parse_nodes(p, k, nodes + 1, eol, values);
		}
		s = eol + 1;
	}
	return set;
}

int numa_stat_has_key(const char *buf, size_t len, const char *key)
{
	const char *s = buf, *end = buf + len;
	size_t klen = strlen(key);

	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));

		if (!eol)
			eol = end;
		if ((size_t)(eol - s) > klen && memcmp(s, key, klen) == 0 && (s[klen] == ' ' || s[klen] == '='))
			return 1;
		s = eol + 1;
	}
	return 0;
}
