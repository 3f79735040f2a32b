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

/* ":<lineno>" into @buf (a row's site is "file:line"; snprintf costs a row more than the rest). */
static void line_suffix(uint64_t lineno, char buf[24])
{
	char digits[21];
	size_t n = 0;

	do
		digits[n++] = (char)('0' + lineno % 10);
	while ((lineno /= 10));
	buf[0] = ':';
	for (size_t i = 0; i < n; i++)
		buf[1 + i] = digits[n - 1 - i];
	buf[1 + n] = '\0';
}

/*
 * A row as the kernel gave it (GET_NEXT writes it here), with its site
 * "file:line": the table's names point into it, unless the kernel may have
 * cut one (then all three are copies in t->text, at @at).
 */
struct bin_row {
	struct allocinfo_abi_tag_data d;
	char site[ALLOCINFO_ABI_STR + 24];
	bool cut;
	size_t at[3]; /* site, module, func */
};

/* Room for @n rows in t->bin. */
static int reserve(struct allocinfo_table *t, size_t n)
{
	size_t cap = t->bin_cap ? t->bin_cap : 256;
	void *bin;

	if (n <= t->bin_cap)
		return 0;
	while (cap < n)
		cap *= 2;
	bin = realloc(t->bin, cap * sizeof(struct bin_row));
	if (!bin)
		return -ENOMEM;
	t->bin = bin;
	t->bin_cap = cap;
	return 0;
}

/* Copies of @b's names into t->text: whole from the text where it has them, else marked. */
static int put_cut_names(struct allocinfo_table *t, const struct allocinfo_names *names, struct bin_row *b)
{
	const struct allocinfo_abi_tag *tag = &b->d.tag;
	const struct alloc_row *whole = text_row(names, tag);
	char line[24];

	line_suffix(tag->lineno, line);
	if (whole) {
		b->at[0] = put(t, "", whole->site, "");
		b->at[1] = put(t, "", whole->module, "");
		b->at[2] = put(t, "", whole->func, "");
	} else {
		b->at[0] = put(t, maybe_cut(tag->filename) ? MARK_CUT : "", tag->filename, line);
		b->at[1] = put(t, maybe_cut(tag->modname) ? MARK_CUT : "", tag->modname, "");
		b->at[2] = put(t, maybe_cut(tag->function) ? MARK_CUT : "", tag->function, "");
	}
	for (int k = 0; k < 3; k++)
		if (b->at[k] == SIZE_MAX)
			return -ENOMEM;
	return 0;
}

/* The table's rows from the @n rows in t->bin. */
static int fill_rows(struct allocinfo_table *t, const struct allocinfo_names *names, size_t n)
{
	struct bin_row *bin = t->bin;

	if (n > t->cap_rows) {
		void *rows = realloc(t->rows, n * sizeof(*t->rows));

		if (!rows)
			return -ENOMEM;
		t->rows = rows;
		t->cap_rows = n;
	}
	for (size_t i = 0; i < n; i++) {
		struct allocinfo_abi_tag *tag = &bin[i].d.tag;
		struct alloc_row *r = &t->rows[i];
		size_t len;

		/* the kernel ends each name with a NUL; a row that did not must not run past it */
		tag->modname[ALLOCINFO_ABI_STR - 1] = tag->function[ALLOCINFO_ABI_STR - 1] =
			tag->filename[ALLOCINFO_ABI_STR - 1] = '\0';
		/* the text's signed bytes: a sum below 0 (CPUs racing) comes as a huge u64 */
		r->bytes = (int64_t)bin[i].d.counter.bytes;
		r->calls = bin[i].d.counter.calls;
		r->accurate = bin[i].d.counter.accurate;
		bin[i].cut = maybe_cut(tag->modname) || maybe_cut(tag->function) || maybe_cut(tag->filename);
		if (bin[i].cut) {
			if (put_cut_names(t, names, &bin[i]))
				return -ENOMEM;
			continue;
		}
		len = strlen(tag->filename);
		memcpy(bin[i].site, tag->filename, len);
		line_suffix(tag->lineno, bin[i].site + len);
		r->site = bin[i].site;
		r->module = tag->modname;
		r->func = tag->function;
	}
	for (size_t i = 0; i < n; i++) /* t->text has stopped moving */
		if (bin[i].cut) {
			t->rows[i].site = t->text + bin[i].at[0];
			t->rows[i].module = t->text + bin[i].at[1];
			t->rows[i].func = t->text + bin[i].at[2];
		}
	t->nr_rows = n;
	return 0;
}

/* One walk: every row with bytes >= 1; -EAGAIN when the content id moved meanwhile. */
static int walk(const struct allocinfo_ioctl_io *io, struct allocinfo_names *names, struct allocinfo_table *t,
		char *why, size_t why_len)
{
	struct allocinfo_abi_content_id before, after;
	struct allocinfo_abi_get_at at = { .pos = 0 };
	size_t n = 0;
	int err;

	t->nr_rows = t->text_len = 0;
	err = io->request(io->ctx, ALLOCINFO_ABI_IOC_CONTENT_ID, &before);
	if (err == -ENOTTY) {
		snprintf(why, why_len, "no binary interface on this file (" ALLOCINFO_PATH " has one from Linux 7.3)");
		return -EOPNOTSUPP;
	}
	if (err)
		goto fail;
	if (!names->valid || names->content_id != before.id) {
		/* the set of sites changed: their whole names from the text, once */
		err = io->read_text(io->ctx, &names->text, why, why_len);
		if (err)
			return err;
		names->content_id = before.id;
		names->valid = true;
	}
	at.filter.mask = ALLOCINFO_ABI_FILTER_MIN_SIZE;
	at.filter.min_size = 1;
	err = io->request(io->ctx, ALLOCINFO_ABI_IOC_GET_AT, &at);
	if (!err && !(err = reserve(t, 1)))
		((struct bin_row *)t->bin)[n++].d = at.data;
	while (!err) { /* each row straight into place */
		err = reserve(t, n + 1);
		if (!err)
			err = io->request(io->ctx, ALLOCINFO_ABI_IOC_GET_NEXT, &((struct bin_row *)t->bin)[n].d);
		if (!err)
			n++;
	}
	if (err != -ENOENT)
		goto fail;
	err = io->request(io->ctx, ALLOCINFO_ABI_IOC_CONTENT_ID, &after);
	if (!err)
		err = fill_rows(t, names, n);
	if (err)
		goto fail;
	return after.id == before.id ? 0 : -EAGAIN;
fail:
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
