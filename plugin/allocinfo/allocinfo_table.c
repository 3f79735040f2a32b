// SPDX-License-Identifier: GPL-2.0-only
#include "allocinfo/allocinfo.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void allocinfo_table_init(struct allocinfo_table *t)
{
	memset(t, 0, sizeof(*t));
}

void allocinfo_table_free(struct allocinfo_table *t)
{
	free(t->rows);
	free(t->sites);
	free(t->bin);
	free(t->text);
	memset(t, 0, sizeof(*t));
}

/* By name: site, module, func. */
static int cmp_names(const struct alloc_row *x, const struct alloc_row *y)
{
	int c = strcmp(x->site, y->site);

	if (!c)
		c = strcmp(x->module, y->module);
	return c ? c : strcmp(x->func, y->func);
}

/* Larger first: bytes, then calls; then the names, so that equal counts rank alike everywhere. */
static int cmp_rows(const void *a, const void *b)
{
	const struct alloc_row *x = *(const struct alloc_row *const *)a, *y = *(const struct alloc_row *const *)b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return cmp_names(x, y);
}

/* FNV-1a over the three names (each with its NUL): where a site's slot search starts. */
static uint64_t name_hash(const struct alloc_row *r)
{
	const char *names[3] = { r->site, r->module, r->func };
	uint64_t h = 14695981039346656037ull;

	for (int k = 0; k < 3; k++) {
		const unsigned char *p = (const unsigned char *)names[k];

		do
			h = (h ^ *p) * 1099511628211ull;
		while (*p++);
	}
	return h;
}

/* Sums that stop at the type's largest value instead of wrapping. */
static int64_t add_bytes(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static uint64_t add_calls(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/*
 * Whether a row holds memory. The kernel sums a site's per-CPU counters
 * into a signed number as it prints them; below 0 means the CPUs' counts
 * raced (a free counted before its allocation), not memory held: such a row
 * holds none, as a row of 0 bytes, and both are left out (the binary
 * reader's MIN_SIZE 1 leaves the zeros in the kernel; its negatives come as
 * numbers above INT64_MAX and read as the text's).
 */
static bool holds_memory(const struct alloc_row *r)
{
	return r->bytes > 0;
}

/*
 * The call sites of @t that hold memory, one row per (site, module, func):
 * the kernel lists some twice (two tags at one line, e.g. a macro used twice
 * there), and their series are one. Into t->sites (@n of them), in the
 * order first seen: grouped by a hash of the names, linear probing, at most
 * half full.
 */
static int merge_sites(struct allocinfo_table *t, size_t *n)
{
	struct alloc_row *sites = realloc(t->sites, (t->nr_rows ? t->nr_rows : 1) * sizeof(*sites));
	size_t nr_slots = 16, held = 0, *slots;

	if (!sites)
		return -ENOMEM;
	t->sites = sites;
	for (size_t i = 0; i < t->nr_rows; i++)
		held += holds_memory(&t->rows[i]);
	while (nr_slots < 2 * held)
		nr_slots *= 2;
	slots = malloc(nr_slots * sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	memset(slots, 0xff, nr_slots * sizeof(*slots)); /* SIZE_MAX: empty */
	*n = 0;
	for (size_t i = 0; i < t->nr_rows; i++) {
		const struct alloc_row *row = &t->rows[i];
		struct alloc_row *same;
		size_t at;

		if (!holds_memory(row))
			continue;
		at = (size_t)name_hash(row) & (nr_slots - 1);
		while (slots[at] != SIZE_MAX && cmp_names(&sites[slots[at]], row))
			at = (at + 1) & (nr_slots - 1);
		if (slots[at] == SIZE_MAX) {
			slots[at] = *n;
			sites[(*n)++] = *row;
			continue;
		}
		same = &sites[slots[at]];
		same->bytes = add_bytes(same->bytes, row->bytes);
		same->calls = add_calls(same->calls, row->calls);
		same->accurate &= row->accurate;
	}
	free(slots);
	return 0;
}

/* Whether @x ranks below @y. */
static bool ranks_below(const struct alloc_row *x, const struct alloc_row *y)
{
	return cmp_rows(&x, &y) > 0;
}

/* Restores the heap @h of @n (its root the lowest-ranked) below @i. */
static void sift_down(const struct alloc_row **h, size_t n, size_t i)
{
	for (;;) {
		size_t low = i, l = 2 * i + 1, r = l + 1;
		const struct alloc_row *swap;

		if (l < n && ranks_below(h[l], h[low]))
			low = l;
		if (r < n && ranks_below(h[r], h[low]))
			low = r;
		if (low == i)
			return;
		swap = h[i];
		h[i] = h[low];
		h[low] = swap;
		i = low;
	}
}

/*
 * The @n highest-ranked of the @nr @sites into @top, in rank order: a heap
 * of the best so far whose root is the one to beat (most sites are turned
 * away by one comparison), then sorted. Returns how many.
 */
static size_t select_top(const struct alloc_row *sites, size_t nr, size_t n, const struct alloc_row **top)
{
	size_t k = 0;

	for (size_t i = 0; i < nr && n; i++) {
		if (k < n) {
			top[k++] = &sites[i];
			for (size_t c = k - 1; c && ranks_below(top[c], top[(c - 1) / 2]); c = (c - 1) / 2) {
				const struct alloc_row *swap = top[c];

				top[c] = top[(c - 1) / 2];
				top[(c - 1) / 2] = swap;
			}
		} else if (ranks_below(top[0], &sites[i])) {
			top[0] = &sites[i];
			sift_down(top, k, 0);
		}
	}
	qsort(top, k, sizeof(*top), cmp_rows);
	return k;
}

int allocinfo_top(struct allocinfo_table *t, size_t n, const struct alloc_row **top, struct alloc_other *other)
{
	bool *in_top;
	size_t k, nr;

	memset(other, 0, sizeof(*other));
	other->accurate = true;
	if (merge_sites(t, &nr))
		return -ENOMEM;
	in_top = calloc(nr ? nr : 1, sizeof(*in_top));
	if (!in_top)
		return -ENOMEM;
	k = select_top(t->sites, nr, n, top);
	for (size_t i = 0; i < k; i++)
		in_top[top[i] - t->sites] = true;
	/* the rest, summed without wrapping (only made-up files come near) */
	for (size_t i = 0; i < nr; i++) {
		if (in_top[i])
			continue;
		other->bytes = add_bytes(other->bytes, t->sites[i].bytes);
		other->calls = add_calls(other->calls, t->sites[i].calls);
		other->accurate &= t->sites[i].accurate;
	}
	other->sites = nr - k;
	free(in_top);
	return (int)k;
}
