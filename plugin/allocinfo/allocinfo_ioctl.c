// SPDX-License-Identifier: GPL-2.0-only
#include "allocinfo/allocinfo_ioctl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(struct allocinfo_abi_tag) == 200, "struct allocinfo_tag is 200 bytes");
_Static_assert(sizeof(struct allocinfo_abi_counter) == 24, "struct allocinfo_counter is 24 bytes");
_Static_assert(sizeof(struct allocinfo_abi_tag_data) == 224, "struct allocinfo_tag_data is 224 bytes");
_Static_assert(sizeof(struct allocinfo_abi_filter) == 232, "struct allocinfo_filter is 232 bytes");
_Static_assert(sizeof(struct allocinfo_abi_get_at) == 464, "struct allocinfo_get_at is 464 bytes");

#define WALK_TRIES 10
#define MARK_CUT "..."

void allocinfo_names_free(struct allocinfo_names *n)
{
	allocinfo_table_free(&n->text);
	memset(n, 0, sizeof(*n));
}

/* What the kernel leaves of @s in a 64-byte field: its last 63 bytes. */
static const char *kernel_cut(const char *s)
{
	size_t len = strlen(s);

	return len >= ALLOCINFO_ABI_STR ? s + len - (ALLOCINFO_ABI_STR - 1) : s;
}

/* A field the kernel filled up: the name may have been longer. */
static bool maybe_cut(const char *field)
{
	return strnlen(field, ALLOCINFO_ABI_STR) == ALLOCINFO_ABI_STR - 1;
}

/* The text row this ioctl row is, by the names as the kernel cuts them; NULL when none. */
static const struct alloc_row *text_row(const struct allocinfo_names *n, const struct allocinfo_abi_tag *tag)
{
	char site[ALLOCINFO_ABI_STR + 24];

	for (size_t i = 0; i < n->text.nr_rows; i++) {
		const struct alloc_row *r = &n->text.rows[i];
		const char *colon = strrchr(r->site, ':');

		if (!colon || strtoull(colon + 1, NULL, 10) != tag->lineno)
			continue;
		snprintf(site, sizeof(site), "%.*s", (int)(colon - r->site), r->site);
		if (!strcmp(kernel_cut(site), tag->filename) && !strcmp(kernel_cut(r->func), tag->function) &&
		    !strcmp(kernel_cut(r->module), tag->modname))
			return r;
	}
	return NULL;
}

/* Appends @mark, @s and @suffix as one string to t->text; the offset of the copy, or SIZE_MAX. */
static size_t put(struct allocinfo_table *t, const char *mark, const char *s, const char *suffix)
{
	size_t at = t->text_len, lm = strlen(mark), ls = strlen(s), lx = strlen(suffix);
	size_t n = lm + ls + lx + 1;

	if (t->text_cap - t->text_len < n) {
		size_t cap = t->text_cap ? t->text_cap : 1 << 16;
		char *p;

		while (cap - t->text_len < n)
			cap *= 2;
		p = realloc(t->text, cap);
		if (!p)
			return SIZE_MAX;
		t->text = p;
		t->text_cap = cap;
	}
	memcpy(t->text + at, mark, lm);
	memcpy(t->text + at + lm, s, ls);
	memcpy(t->text + at + lm + ls, suffix, lx + 1);
	t->text_len += n;
	return at;
}

/* Where a row's names are in t->text while it grows (pointers are set at the end). */
struct name_offs {
	size_t at[3]; /* site, module, func */
};

/* A row from the kernel's @d: whole names from the text where the kernel may have cut them. */
static int add_row(struct allocinfo_table *t, const struct allocinfo_names *names,
		   const struct allocinfo_abi_tag_data *d, struct name_offs **offs)
{
	const struct allocinfo_abi_tag *tag = &d->tag;
	bool cut = maybe_cut(tag->modname) || maybe_cut(tag->function) || maybe_cut(tag->filename);
	const struct alloc_row *whole = cut ? text_row(names, tag) : NULL;
	struct alloc_row *r;
	struct name_offs *o;
	char line[24];

	if (t->nr_rows == t->cap_rows) {
		size_t cap = t->cap_rows ? t->cap_rows * 2 : 256;
		void *rows = realloc(t->rows, cap * sizeof(*t->rows));
		void *more = realloc(*offs, cap * sizeof(**offs));

		if (rows)
			t->rows = rows;
		if (more)
			*offs = more;
		if (!rows || !more)
			return -ENOMEM;
		t->cap_rows = cap;
	}
	r = &t->rows[t->nr_rows];
	o = &(*offs)[t->nr_rows];
	/* the text's signed bytes: a sum below 0 (CPUs racing) comes as a huge u64 */
	r->bytes = (int64_t)d->counter.bytes;
	r->calls = d->counter.calls;
	r->accurate = d->counter.accurate;
	snprintf(line, sizeof(line), ":%llu", (unsigned long long)tag->lineno);
	if (whole) {
		o->at[0] = put(t, "", whole->site, "");
		o->at[1] = put(t, "", whole->module, "");
		o->at[2] = put(t, "", whole->func, "");
	} else {
		o->at[0] = put(t, maybe_cut(tag->filename) ? MARK_CUT : "", tag->filename, line);
		o->at[1] = put(t, maybe_cut(tag->modname) ? MARK_CUT : "", tag->modname, "");
		o->at[2] = put(t, maybe_cut(tag->function) ? MARK_CUT : "", tag->function, "");
	}
	for (int k = 0; k < 3; k++)
		if (o->at[k] == SIZE_MAX)
			return -ENOMEM;
	t->nr_rows++;
	return 0;
}

/* One walk: every row with bytes >= 1; -EAGAIN when the content id moved meanwhile. */
static int walk(const struct allocinfo_ioctl_io *io, struct allocinfo_names *names, struct allocinfo_table *t,
		char *why, size_t why_len)
{
	struct allocinfo_abi_content_id before, after;
	struct allocinfo_abi_get_at at = { .pos = 0 };
	struct allocinfo_abi_tag_data d;
	struct name_offs *offs = NULL;
	int err;

	t->nr_rows = t->text_len = 0;
	/* as many as t->rows holds: add_row() grows both together */
	offs = malloc((t->cap_rows ? t->cap_rows : 1) * sizeof(*offs));
	if (!offs)
		return -ENOMEM;
	err = io->request(io->ctx, ALLOCINFO_ABI_IOC_CONTENT_ID, &before);
	if (err == -ENOTTY) {
		free(offs);
		snprintf(why, why_len, "no binary interface on this file (" ALLOCINFO_PATH " has one from Linux 7.3)");
		return -EOPNOTSUPP;
	}
	if (err)
		goto fail;
	if (!names->valid || names->content_id != before.id) {
		/* the set of sites changed: their whole names from the text, once */
		err = io->read_text(io->ctx, &names->text, why, why_len);
		if (err) {
			free(offs);
			return err;
		}
		names->content_id = before.id;
		names->valid = true;
	}
	at.filter.mask = ALLOCINFO_ABI_FILTER_MIN_SIZE;
	at.filter.min_size = 1;
	err = io->request(io->ctx, ALLOCINFO_ABI_IOC_GET_AT, &at);
	for (d = at.data; !err; err = io->request(io->ctx, ALLOCINFO_ABI_IOC_GET_NEXT, &d)) {
		/* the kernel ends each name with a NUL; a row that did not must not run past it */
		d.tag.modname[ALLOCINFO_ABI_STR - 1] = d.tag.function[ALLOCINFO_ABI_STR - 1] =
			d.tag.filename[ALLOCINFO_ABI_STR - 1] = '\0';
		err = add_row(t, names, &d, &offs);
		if (err)
			break;
	}
	if (err != -ENOENT)
		goto fail;
	err = io->request(io->ctx, ALLOCINFO_ABI_IOC_CONTENT_ID, &after);
	if (err)
		goto fail;
	for (size_t i = 0; i < t->nr_rows; i++) {
		t->rows[i].site = t->text + offs[i].at[0];
		t->rows[i].module = t->text + offs[i].at[1];
		t->rows[i].func = t->text + offs[i].at[2];
	}
	free(offs);
	return after.id == before.id ? 0 : -EAGAIN;
fail:
	free(offs);
	t->nr_rows = 0;
	snprintf(why, why_len, "the binary interface of " ALLOCINFO_PATH ": %s", strerror(-err));
	return err;
}

int allocinfo_read_ioctl(const struct allocinfo_ioctl_io *io, struct allocinfo_names *names,
			 struct allocinfo_table *t, char *why, size_t why_len)
{
	int err = -EAGAIN;

	t->version_major = t->version_minor = 0;
	for (int i = 0; i < WALK_TRIES && err == -EAGAIN; i++)
		err = walk(io, names, t, why, why_len);
	if (err == -EAGAIN)
		snprintf(why, why_len, "the allocation profile's call sites kept changing (modules loaded or "
			 "unloaded) during %d walks", WALK_TRIES);
	return err;
}
