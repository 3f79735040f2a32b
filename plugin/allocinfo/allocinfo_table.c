// SPDX-License-Identifier: GPL-2.0-only
#include "allocinfo/allocinfo.h"

#include <errno.h>
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

static int cmp_by_name(const void *a, const void *b)
{
	return cmp_names(*(const struct alloc_row *const *)a, *(const struct alloc_row *const *)b);
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

/*
 * The call sites of @t that hold memory, one row per (site, module, func):
 * the kernel lists some twice (two tags at one line, e.g. a macro used twice
 * there), and their series are one. A row of 0 bytes is left out, as the
 * binary reader's MIN_SIZE 1 leaves it in the kernel: both readers rank the
 * same rows. Into t->sites; pointers to them in @out.
 */
static int merge_sites(struct allocinfo_table *t, const struct alloc_row **out, size_t *n)
{
	struct alloc_row *sites = realloc(t->sites, (t->nr_rows ? t->nr_rows : 1) * sizeof(*sites));
	size_t held = 0;

	if (!sites)
		return -ENOMEM;
	t->sites = sites;
	for (size_t i = 0; i < t->nr_rows; i++)
		if (t->rows[i].bytes)
			out[held++] = &t->rows[i];
	qsort(out, held, sizeof(*out), cmp_by_name);
	*n = 0;
	for (size_t i = 0; i < held; i++) {
		struct alloc_row *last = *n ? &sites[*n - 1] : NULL;

		if (last && !cmp_names(last, out[i])) {
			last->bytes = (int64_t)((uint64_t)last->bytes + (uint64_t)out[i]->bytes);
			last->calls += out[i]->calls;
			last->accurate &= out[i]->accurate;
			continue;
		}
		sites[(*n)++] = *out[i];
	}
	for (size_t i = 0; i < *n; i++)
		out[i] = &sites[i];
	return 0;
}

int allocinfo_top(struct allocinfo_table *t, size_t n, const struct alloc_row **top, struct alloc_other *other)
{
	const struct alloc_row **all;
	size_t k, nr;

	memset(other, 0, sizeof(*other));
	other->accurate = true;
	all = malloc((t->nr_rows ? t->nr_rows : 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	if (merge_sites(t, all, &nr)) {
		free(all);
		return -ENOMEM;
	}
	qsort(all, nr, sizeof(*all), cmp_rows);
	k = n < nr ? n : nr;
	memcpy(top, all, k * sizeof(*all));
	for (size_t i = k; i < nr; i++) {
		other->sites++;
		/* in unsigned: a sum past INT64_MAX wraps (only made-up files get there) */
		other->bytes = (int64_t)((uint64_t)other->bytes + (uint64_t)all[i]->bytes);
		other->calls += all[i]->calls;
		other->accurate &= all[i]->accurate;
	}
	free(all);
	return (int)k;
}
