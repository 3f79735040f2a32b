// SPDX-License-Identifier: GPL-2.0-only
#include "wire/snappy_template.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

#include "wire/pb_write.h"

/* What each raw byte is: static, the j-th byte of a timestamp, a byte of a value. */
#define CLASS_STATIC 0
#define CLASS_TS 1 /* + j */
#define CLASS_VALUE 255

/* A varint of a length at most: the room a block keeps before its elements until it is complete. */
#define LEN_ROOM 10
/* Snappy compresses its input this many bytes at a time, each on its own. */
#define SNAPPY_FRAGMENT 65536

/*
 * Writing elements to @t->z, literal bytes taken from @raw with their
 * classes in @class, byte 0 of which is byte @raw_off of the block's raw
 * bytes; the bytes rewrite() reads start at @base of @raw. The literal not
 * written yet is @t's (it may go on in the next bytes compressed).
 */
struct writer {
	struct snappy_template *t;
	const uint8_t *raw;
	const uint8_t *class;
	size_t raw_off, base;
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
	if (t->nr_runs == t->runs_cap) {
		size_t n = t->runs_cap ? 2 * t->runs_cap : 1024;
		void *p = realloc(t->runs, n * sizeof(*t->runs));

		if (!p) {
			w->err = -ENOMEM;
			return;
		}
		t->runs = p;
		t->runs_cap = n;
	}
	t->runs[t->nr_runs++] = (struct snappy_run){ z_at, raw_at, 1 };
}

/* Writes the pending literal; its bytes that change become runs. */
static void flush_literal(struct writer *w)
{
	struct snappy_template *t = w->t;
	size_t n = t->lit_len, m = n - 1, z_at;
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
	z_at = t->z.len;
	put(w, w->raw + t->lit_from, n);
	for (size_t i = 0; i < n; i++)
		if (w->class[t->lit_from + i] != CLASS_STATIC)
			add_run(w, (uint32_t)(z_at + i), (uint32_t)(w->raw_off + t->lit_from + i));
	t->lit_len = 0;
}

static void literal(struct writer *w, size_t from, size_t n)
{
	struct snappy_template *t = w->t;

	if (t->lit_len && t->lit_from + t->lit_len != from)
		flush_literal(w);
	if (!t->lit_len)
		t->lit_from = from;
	t->lit_len += n;
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
 * Writes the elements of block @z (snappy's, of the @len raw bytes from
 * @w->base) again into @w: the same, except that a copy's bytes that are
 * not copyable() become literals. Its last literal stays open. -EINVAL: not
 * a block this reader knows (cannot be: snappy's).
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
			literal(w, w->base + pos, l);
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
		for (size_t b = w->base + pos, run = b, end = b + l; b <= end; b++) {
			bool ok = b < end && copyable(w->class, b, off);

			if (b < end && ok == copyable(w->class, run, off))
				continue;
			if (copyable(w->class, run, off))
				copy(w, run, b - run, off);
			else
				literal(w, run, b - run);
			run = b;
		}
		pos += l;
	}
	return w->err ? w->err : pos == len ? 0 : -EINVAL;
}

void snappy_template_begin(struct snappy_template *t)
{
	t->z.len = 0;
	t->nr_runs = 0;
	t->raw_len = t->done = 0;
	t->pending.len = 0;
	t->lit_len = 0;
	t->err = byte_buf_reserve(&t->z, LEN_ROOM);
	if (!t->err)
		t->z.len = LEN_ROOM;
}

/* Compresses @m bytes @in (whole fragments, or the last) and writes their elements through @w. */
static int write_compressed(struct writer *w, const uint8_t *in, size_t m)
{
	size_t zmax = snappy_max_compressed_length(m);
	uint8_t *z = malloc(zmax ? zmax : 1);
	int err;

	if (!z)
		return -ENOMEM;
	err = snappy_compress((const char *)in, m, (char *)z, &zmax) == SNAPPY_OK ? 0 : -EAGAIN;
	if (!err)
		err = rewrite(w, z, zmax, m);
	free(z);
	return err == -EINVAL ? -EAGAIN : err;
}

/* The classes of a piece's bytes, from where its @n samples lie. */
static void mark_classes(uint8_t *class, size_t len, const struct sample_slot *slots, size_t n, size_t ts_len)
{
	memset(class, CLASS_STATIC, len);
	for (size_t i = 0; i < n; i++) {
		memset(class + slots[i].ts_at, CLASS_TS, ts_len);
		for (size_t j = 0; j < ts_len; j++)
			class[slots[i].ts_at + j] += (uint8_t)j;
		if (slots[i].value_at != SAMPLE_SLOT_NONE)
			memset(class + slots[i].value_at, CLASS_VALUE, 8);
	}
}

/*
 * Compresses the @m pending bytes after the open literal's and appends
 * their elements. @t->pending holds, from its start: the bytes of the
 * literal not written yet (compressed already), then the bytes not
 * compressed yet, with their classes in @t->pending_class.
 */
static int compress_pending(struct snappy_template *t, size_t m)
{
	size_t keep = t->lit_len, from;
	struct writer w = { .t = t, .raw = t->pending.data, .class = t->pending_class.data,
			    .raw_off = t->done - keep, .base = keep };
	int err;

	/* the open literal, if any, starts at 0: the last call left it there */
	err = write_compressed(&w, t->pending.data + keep, m);
	if (err)
		return err;
	/* keep the literal still open and what is not compressed yet */
	from = t->lit_len ? t->lit_from : keep + m;
	t->pending.len -= from;
	memmove(t->pending.data, t->pending.data + from, t->pending.len);
	memmove(t->pending_class.data, t->pending_class.data + from, t->pending.len);
	t->lit_from = 0;
	t->done += m;
	return 0;
}

void snappy_template_add(struct snappy_template *t, const uint8_t *raw, size_t len,
			 const struct sample_slot *slots, size_t n, size_t ts_len)
{
	size_t at = t->pending.len, fresh;

	if (t->err)
		return;
	t->err = byte_buf_reserve(&t->pending, at + len);
	if (!t->err)
		t->err = byte_buf_reserve(&t->pending_class, at + len);
	if (t->err)
		return;
	memcpy(t->pending.data + at, raw, len);
	mark_classes(t->pending_class.data + at, len, slots, n, ts_len);
	t->pending.len = at + len;
	t->raw_len += len;
	/* whole fragments, where snappy would cut the whole: the same elements */
	fresh = t->pending.len - t->lit_len;
	if (fresh >= SNAPPY_FRAGMENT)
		t->err = compress_pending(t, fresh / SNAPPY_FRAGMENT * SNAPPY_FRAGMENT);
}

int snappy_template_end(struct snappy_template *t)
{
	struct writer w = { .t = t };
	uint8_t len[LEN_ROOM];
	size_t k, shift;

	if (!t->err && t->pending.len > t->lit_len)
		t->err = compress_pending(t, t->pending.len - t->lit_len);
	if (!t->err) { /* the last literal, all that @pending holds now */
		w.raw = t->pending.data;
		w.class = t->pending_class.data;
		w.raw_off = t->done - t->lit_len;
		flush_literal(&w);
		t->err = w.err;
	}
	byte_buf_free(&t->pending); /* a piece's worth: not kept between requests */
	byte_buf_free(&t->pending_class);
	if (t->err)
		return t->err;
	/* the raw length before the elements, which move back over the rest of the room */
	k = (size_t)(pb_varint(len, t->raw_len) - len);
	shift = LEN_ROOM - k;
	memcpy(t->z.data, len, k);
	memmove(t->z.data + k, t->z.data + LEN_ROOM, t->z.len - LEN_ROOM);
	t->z.len -= shift;
	for (size_t i = 0; i < t->nr_runs; i++)
		t->runs[i].z_at -= (uint32_t)shift;
	return 0;
}

int snappy_template_build(struct snappy_template *t, const uint8_t *raw, size_t len,
			  const struct sample_slot *slots, size_t n, size_t ts_len)
{
	uint8_t *class = malloc(len ? len : 1);
	struct writer w = { .t = t, .raw = raw, .class = class };

	/* all at once, from where @raw lies: no copy of it, as a piece would take */
	snappy_template_begin(t);
	if (!class && !t->err)
		t->err = -ENOMEM;
	if (!t->err) {
		mark_classes(class, len, slots, n, ts_len);
		t->err = write_compressed(&w, raw, len);
	}
	if (!t->err) {
		flush_literal(&w);
		t->err = w.err;
		t->raw_len = t->done = len;
	}
	free(class);
	return snappy_template_end(t);
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
	t->nr_runs = t->runs_cap = 0;
}

void snappy_template_free(struct snappy_template *t)
{
	byte_buf_free(&t->z);
	byte_buf_free(&t->pending);
	byte_buf_free(&t->pending_class);
	snappy_template_forget_runs(t);
}
