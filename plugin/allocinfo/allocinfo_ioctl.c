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

/* A field the kernel filled up: the name may have been longer. */
static bool maybe_cut(const char *field)
{
	return strnlen(field, ALLOCINFO_ABI_STR) == ALLOCINFO_ABI_STR - 1;
}

/* Whether @name, of @len bytes, is @field once the kernel cut it to its last 63 bytes. */
static bool cut_equals(const char *name, size_t len, const char *field)
{
	size_t from = len >= ALLOCINFO_ABI_STR ? len - (ALLOCINFO_ABI_STR - 1) : 0;

	return strlen(field) == len - from && !memcmp(name + from, field, len - from);
}

/* Whether text row @r has the names of @tag once the kernel cut them (and its line). */
static bool cuts_to(const struct alloc_row *r, const struct allocinfo_abi_tag *tag)
{
	const char *colon = strrchr(r->site, ':');

	if (!colon || strtoull(colon + 1, NULL, 10) != tag->lineno)
		return false;
	return cut_equals(r->site, (size_t)(colon - r->site), tag->filename) &&
	       cut_equals(r->func, strlen(r->func), tag->function) &&
	       cut_equals(r->module, strlen(r->module), tag->modname);
}

/*
 * The text rows that @tag's cut names could be: how many, and the first in
 * *@first. One completes the names; more (sites whose names differ only
 * before their last 63 bytes, at the same line) leave the ioctl unable to
 * tell them apart.
 */
static size_t text_rows(const struct allocinfo_names *n, const struct allocinfo_abi_tag *tag,
			const struct alloc_row **first)
{
	size_t count = 0;

	*first = NULL;
	for (size_t i = 0; i < n->text.nr_rows; i++) {
		if (!cuts_to(&n->text.rows[i], tag))
			continue;
		if (!count++)
			*first = &n->text.rows[i];
	}
	return count;
}

/* Copies the kernel's cut of @s (its last 63 bytes) into the 64-byte field @field. */
static void cut_into(char field[ALLOCINFO_ABI_STR], const char *s, size_t len)
{
	size_t from = len >= ALLOCINFO_ABI_STR ? len - (ALLOCINFO_ABI_STR - 1) : 0;

	memcpy(field, s + from, len - from);
	field[len - from] = '\0';
}

/* The tag of text row @r as the kernel would give it (names cut to their last 63 bytes). */
static void tag_of(const struct alloc_row *r, struct allocinfo_abi_tag *tag)
{
	const char *colon = strrchr(r->site, ':');

	memset(tag, 0, sizeof(*tag));
	cut_into(tag->filename, r->site, colon ? (size_t)(colon - r->site) : strlen(r->site));
	cut_into(tag->function, r->func, strlen(r->func));
	cut_into(tag->modname, r->module, strlen(r->module));
	tag->lineno = colon ? strtoull(colon + 1, NULL, 10) : 0;
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
	size_t row;   /* its row in the table; SIZE_MAX: taken from the text */
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

/* Copies of @b's names into t->text: whole from the text row @whole, else (NULL) marked. */
static int put_cut_names(struct allocinfo_table *t, const struct alloc_row *whole, struct bin_row *b)
{
	const struct allocinfo_abi_tag *tag = &b->d.tag;
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

/* Room for @n rows in t->rows. */
static int reserve_rows(struct allocinfo_table *t, size_t n)
{
	struct alloc_row *rows;

	if (n <= t->cap_rows)
		return 0;
	rows = realloc(t->rows, n * sizeof(*t->rows));
	if (!rows)
		return -ENOMEM;
	t->rows = rows;
	t->cap_rows = n;
	return 0;
}

/*
 * The text's rows whose cut names another text row shares (the ioctl cannot
 * tell them apart: fill_rows() leaves them out), as the text gives them,
 * after the *@n rows of @t. Their names point into the reader's text, which
 * lasts until its next read, as the table's rows do.
 */
static int add_text_rows(struct allocinfo_table *t, const struct allocinfo_names *names, size_t *n)
{
	const struct allocinfo_table *text = &names->text;

	for (size_t i = 0; i < text->nr_rows; i++) {
		const struct alloc_row *r = &text->rows[i], *first;
		struct allocinfo_abi_tag tag;

		if (r->bytes <= 0)
			continue;
		tag_of(r, &tag);
		if (text_rows(names, &tag, &first) < 2)
			continue;
		if (reserve_rows(t, *n + 1))
			return -ENOMEM;
		t->rows[(*n)++] = *r;
	}
	return 0;
}

/*
 * The table's rows from the @n rows in t->bin. A row whose names the kernel
 * may have cut is completed from the one text row they fit (marked when
 * none fits); when more than one fits, those sites are taken from the text
 * instead, all of them (add_text_rows()).
 */
static int fill_rows(struct allocinfo_table *t, const struct allocinfo_names *names, size_t n)
{
	struct bin_row *bin = t->bin;
	bool ambiguous = false;
	size_t rows = 0;

	if (reserve_rows(t, n))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct allocinfo_abi_tag *tag = &bin[i].d.tag;
		struct alloc_row *r = &t->rows[rows];
		const struct alloc_row *whole;
		size_t len;

		/* the kernel ends each name with a NUL; a row that did not must not run past it */
		tag->modname[ALLOCINFO_ABI_STR - 1] = tag->function[ALLOCINFO_ABI_STR - 1] =
			tag->filename[ALLOCINFO_ABI_STR - 1] = '\0';
		bin[i].row = SIZE_MAX;
		bin[i].cut = maybe_cut(tag->modname) || maybe_cut(tag->function) || maybe_cut(tag->filename);
		if (bin[i].cut && text_rows(names, tag, &whole) > 1) {
			ambiguous = true;
			continue;
		}
		/* the text's signed bytes: a sum below 0 (CPUs racing) comes as a huge u64 */
		r->bytes = (int64_t)bin[i].d.counter.bytes;
		r->calls = bin[i].d.counter.calls;
		r->accurate = bin[i].d.counter.accurate;
		bin[i].row = rows++;
		if (bin[i].cut) {
			if (put_cut_names(t, whole, &bin[i]))
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
		if (bin[i].cut && bin[i].row != SIZE_MAX) {
			t->rows[bin[i].row].site = t->text + bin[i].at[0];
			t->rows[bin[i].row].module = t->text + bin[i].at[1];
			t->rows[bin[i].row].func = t->text + bin[i].at[2];
		}
	if (ambiguous && add_text_rows(t, names, &rows))
		return -ENOMEM;
	t->nr_rows = rows;
	return 0;
}

/* Whether one of the @n rows in t->bin has cut names that more than one text row fits. */
static bool any_ambiguous(const struct allocinfo_table *t, const struct allocinfo_names *names, size_t n)
{
	const struct bin_row *bin = t->bin;
	const struct alloc_row *first;

	for (size_t i = 0; i < n; i++) {
		const struct allocinfo_abi_tag *tag = &bin[i].d.tag;

		if ((maybe_cut(tag->modname) || maybe_cut(tag->function) || maybe_cut(tag->filename)) &&
		    text_rows(names, tag, &first) > 1)
			return true;
	}
	return false;
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
	if (err)
		goto fail;
	/* sites the ioctl cannot tell apart come from the text: a read of it now, not the last one's */
	if (any_ambiguous(t, names, n)) {
		err = io->read_text(io->ctx, &names->text, why, why_len);
		if (err)
			return err;
	}
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
