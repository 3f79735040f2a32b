// SPDX-License-Identifier: GPL-2.0-only
#include "wire/snappy_template.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

/* What each raw byte is: static, the j-th byte of a timestamp, a byte of a value. */
#define CLASS_STATIC 0
#define CLASS_TS 1 /* + j */
#define CLASS_VALUE 255

/* The block being written: elements appended to @t->z, literal bytes taken from @raw. */
struct writer {
	struct snappy_template *t;
	const uint8_t *raw;
	const uint8_t *class;
	size_t lit_from, lit_len; /* the literal not written yet */
	size_t runs_cap;
	int err;
};

static void put(struct writer *w, const void *p, size_t n)
{
	struct byte_buf *z = &w->t->z;

	if (w->err)
		return;
	if (z->len + n > z->cap && (w->err = byte_buf_reserve(z, 2 * (z->len + n))))
		return;
	memcpy(z->data + z->len, p, n);
	z->len += n;
}

static void put_varint(struct writer *w, size_t v)
{
	uint8_t b[10];
	size_t n = 0;

	for (; v >= 0x80; v >>= 7)
		b[n++] = (uint8_t)(v | 0x80);
	b[n++] = (uint8_t)v;
	put(w, b, n);
}

static void add_run(struct writer *w, uint32_t z_at, uint32_t raw_at)
{
	struct snappy_template *t = w->t;
	struct snappy_run *last = t->nr_runs ? &t->runs[t->nr_runs - 1] : NULL;

	if (w->err)
		return;
	if (last && last->raw_at + last->len == raw_at && last->z_at + last->len == z_at) {
		last->len++;
		return;
	}
	if (t->nr_runs == w->runs_cap) {
		size_t n = w->runs_cap ? 2 * w->runs_cap : 1024;
		void *p = realloc(t->runs, n * sizeof(*t->runs));

		if (!p) {
			w->err = -ENOMEM;
			return;
		}
		t->runs = p;
		w->runs_cap = n;
	}
	t->runs[t->nr_runs++] = (struct snappy_run){ z_at, raw_at, 1 };
}

/* Writes the pending literal; its bytes that change become runs. */
static void flush_literal(struct writer *w)
{
	size_t n = w->lit_len, m = n - 1, z_at;
	uint8_t tag[5];
	size_t nb = 0;

	if (!n)
		return;
	if (m < 60) {
		tag[nb++] = (uint8_t)(m << 2);
	} else {
		size_t bytes = m < 0x100 ? 1 : m < 0x10000 ? 2 : m < 0x1000000 ? 3 : 4;

		tag[nb++] = (uint8_t)((59 + bytes) << 2);
		for (size_t i = 0; i < bytes; i++)
			tag[nb++] = (uint8_t)(m >> (8 * i));
	}
	put(w, tag, nb);
	z_at = w->t->z.len;
	put(w, w->raw + w->lit_from, n);
	for (size_t i = 0; i < n; i++)
		if (w->class[w->lit_from + i] != CLASS_STATIC)
			add_run(w, (uint32_t)(z_at + i), (uint32_t)(w->lit_from + i));
	w->lit_len = 0;
}

static void literal(struct writer *w, size_t from, size_t n)
{
	if (w->lit_len && w->lit_from + w->lit_len != from)
		flush_literal(w);
	if (!w->lit_len)
		w->lit_from = from;
	w->lit_len += n;
}

/* Raw bytes [pos, pos + n) as copies from @off bytes back. */
static void copy(struct writer *w, size_t pos, size_t n, size_t off)
{
	if (n < 4) { /* a copy costs 3 bytes or more */
		literal(w, pos, n);
		return;
	}
	flush_literal(w);
	while (n) {
		size_t k = n > 64 ? 64 : n;
		uint8_t e[5] = { (uint8_t)((k - 1) << 2 | (off < 0x10000 ? 2 : 3)), (uint8_t)off, (uint8_t)(off >> 8),
				 (uint8_t)(off >> 16), (uint8_t)(off >> 24) };

		put(w, e, off < 0x10000 ? 3 : 5);
		n -= k;
	}
}

/* Whether raw byte @b may be copied from @off bytes back and stay right when the samples change. */
static bool copyable(const uint8_t *class, size_t b, size_t off)
{
	return class[b] != CLASS_VALUE && class[b] == class[b - off];
}

static size_t read_le(const uint8_t *p, size_t n)
{
	size_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (size_t)p[i] << (8 * i);
	return v;
}

/*
 * Writes the block @z (snappy's, of @len raw bytes) again into @w: the same
 * elements, except that a copy's bytes that are not copyable() become
 * literals. -EINVAL: not a block this reader knows (cannot be: snappy's).
 */
static int rewrite(struct writer *w, const uint8_t *z, size_t zlen, size_t len)
{
	size_t q = 0, pos = 0, shift = 0, total = 0;

	do { /* the preamble: the raw length as a varint */
		if (q >= zlen || shift > 35)
			return -EINVAL;
		total |= (size_t)(z[q] & 0x7f) << shift;
		shift += 7;
	} while (z[q++] & 0x80);
	if (total != len)
		return -EINVAL;
	put_varint(w, len);
	while (q < zlen && !w->err) {
		uint8_t tag = z[q++];
		size_t l, off, need = (tag & 3) == 1 ? 1 : (tag & 3) == 2 ? 2 : (tag & 3) == 3 ? 4 : 0;

		if ((tag & 3) == 0 && (tag >> 2) >= 60)
			need = (tag >> 2) - 59;
		if (q + need > zlen)
			return -EINVAL;
		if ((tag & 3) == 0) {
			l = (need ? read_le(z + q, need) : (size_t)(tag >> 2)) + 1;
			q += need + l;
			if (pos + l > len || q > zlen)
				return -EINVAL;
			literal(w, pos, l);
			pos += l;
			continue;
		}
		if ((tag & 3) == 1) {
			l = ((tag >> 2) & 7) + 4;
			off = (size_t)(tag >> 5) << 8 | z[q];
		} else {
			l = (tag >> 2) + 1;
			off = read_le(z + q, need);
		}
		q += need;
		if (!off || off > pos || pos + l > len)
			return -EINVAL;
		for (size_t b = pos, run = pos; b <= pos + l; b++) {
			bool ok = b < pos + l && copyable(w->class, b, off);

			if (b < pos + l && ok == copyable(w->class, run, off))
				continue;
			if (copyable(w->class, run, off))
				copy(w, run, b - run, off);
			else
				literal(w, run, b - run);
			run = b;
		}
		pos += l;
	}
	flush_literal(w);
	return w->err ? w->err : pos == len ? 0 : -EINVAL;
}

int snappy_template_build(struct snappy_template *t, const uint8_t *raw, size_t len,
			  const struct sample_slot *slots, size_t n, size_t ts_len)
{
	size_t zmax = snappy_max_compressed_length(len);
	uint8_t *class = calloc(len ? len : 1, 1), *z = malloc(zmax);
	struct writer w = { .t = t, .raw = raw, .class = class, .runs_cap = t->nr_runs };
	int err = -ENOMEM;

	t->z.len = 0;
	t->nr_runs = 0;
	if (!class || !z)
		goto free_tmp;
	for (size_t i = 0; i < n; i++) {
		memset(class + slots[i].ts_at, CLASS_TS, ts_len);
		for (size_t j = 0; j < ts_len; j++)
			class[slots[i].ts_at + j] += (uint8_t)j;
		if (slots[i].value_at != SAMPLE_SLOT_NONE)
			memset(class + slots[i].value_at, CLASS_VALUE, 8);
	}
	err = snappy_compress((const char *)raw, len, (char *)z, &zmax) == SNAPPY_OK ? 0 : -EAGAIN;
	if (!err)
		err = rewrite(&w, z, zmax, len);
	if (err == -EINVAL)
		err = -EAGAIN;
free_tmp:
	free(z);
	free(class);
	return err;
}

void snappy_template_patch(struct snappy_template *t, const uint8_t *raw)
{
	for (size_t i = 0; i < t->nr_runs; i++) {
		const struct snappy_run *r = &t->runs[i];

		if (r->len == 8) /* a value: one move, no call */
			memcpy(t->z.data + r->z_at, raw + r->raw_at, 8);
		else
			memcpy(t->z.data + r->z_at, raw + r->raw_at, r->len);
	}
}

void snappy_template_forget_runs(struct snappy_template *t)
{
	free(t->runs);
	t->runs = NULL;
	t->nr_runs = 0;
}

void snappy_template_free(struct snappy_template *t)
{
	byte_buf_free(&t->z);
	free(t->runs);
	t->runs = NULL;
	t->nr_runs = 0;
}
