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
	free(t->text);
	memset(t, 0, sizeof(*t));
}

/* Larger first: bytes, then calls; then the names, so that equal counts rank alike everywhere. */
static int cmp_rows(const void *a, const void *b)
{
	const struct alloc_row *x = *(const struct alloc_row *const *)a, *y = *(const struct alloc_row *const *)b;
	int c;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	c = strcmp(x->site, y->site);
	if (!c)
		c = strcmp(x->module, y->module);
	return c ? c : strcmp(x->func, y->func);
}

int allocinfo_top(const struct allocinfo_table *t, size_t n, const struct alloc_row **top,
		  struct alloc_other *other)
{
	const struct alloc_row **all;
	size_t k = n < t->nr_rows ? n : t->nr_rows;

	memset(other, 0, sizeof(*other));
	other->accurate = true;
	all = malloc((t->nr_rows ? t->nr_rows : 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (size_t i = 0; i < t->nr_rows; i++)
		all[i] = &t->rows[i];
	qsort(all, t->nr_rows, sizeof(*all), cmp_rows);
	memcpy(top, all, k * sizeof(*all));
	for (size_t i = k; i < t->nr_rows; i++) {
		other->sites++;
		/* in unsigned: a sum past INT64_MAX wraps (only made-up files get there) */
		other->bytes = (int64_t)((uint64_t)other->bytes + (uint64_t)all[i]->bytes);
		other->calls += all[i]->calls;
		other->accurate &= all[i]->accurate;
	}
	free(all);
	return (int)k;
}
