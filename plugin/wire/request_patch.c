// SPDX-License-Identifier: GPL-2.0-only
#include "wire/request_patch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wire/pb_write.h"

static void kept_request_free(struct kept_request *r)
{
	byte_buf_free(&r->raw);
	free(r->slots);
	free(r->room);
	free(r->patch);
	snappy_template_free(&r->block);
}

/*
 * Maps each run of @r's block to the sample field it lies in (runs and
 * samples both come in the protobuf's order), into @r->patch. False when a
 * run is not within one field: then the block is patched from @raw.
 */
static bool map_runs(struct kept_request *r, size_t ts_len)
{
	const struct snappy_template *t = &r->block;
	size_t n = r->to - r->from, s = 0;
	struct block_patch *patch = malloc((t->nr_runs ? t->nr_runs : 1) * sizeof(*patch));

	free(r->patch);
	r->patch = NULL;
	r->nr_patch = 0;
	if (!patch)
		return false;
	for (size_t i = 0; i < t->nr_runs; i++) {
		const struct snappy_run *run = &t->runs[i];
		uint32_t at[2], len[2] = { 8, (uint32_t)ts_len };
		int f;

		/* the first sample whose fields do not all end before the run */
		for (; s < n; s++) {
			const struct sample_slot *sl = &r->slots[s];
			uint32_t end = sl->ts_at + len[RUN_TS];

			if (sl->value_at != SAMPLE_SLOT_NONE && sl->value_at + len[RUN_VALUE] > end)
				end = sl->value_at + len[RUN_VALUE];
			if (run->raw_at < end)
				break;
		}
		if (s == n) {
			free(patch);
			return false;
		}
		at[RUN_VALUE] = r->slots[s].value_at;
		at[RUN_TS] = r->slots[s].ts_at;
		for (f = 0; f < 2; f++)
			if (at[f] != SAMPLE_SLOT_NONE && run->raw_at >= at[f] && run->raw_at + run->len <= at[f] + len[f])
				break;
		if (f == 2) {
			free(patch);
			return false;
		}
		patch[i] = (struct block_patch){ run->z_at, (uint32_t)s, (uint8_t)run->len, (uint8_t)f,
						 (uint8_t)(run->raw_at - at[f]) };
	}
	r->patch = patch;
	r->nr_patch = t->nr_runs;
	return true;
}

/* The bits of which slots have room for a value; NULL without memory. */
static uint64_t *room_bits(const struct sample_slot *slots, size_t n)
{
	uint64_t *room = calloc(n / 64 + 2, sizeof(*room));

	for (size_t k = 0; room && k < n; k++)
		if (slots[k].value_at != SAMPLE_SLOT_NONE)
			room[k / 64] |= 1ULL << (k % 64);
	return room;
}

/* 64 bits of @b from bit @at on (@b has a word to spare past them). */
static inline uint64_t bits_at(const uint64_t *b, size_t at)
{
	size_t w = at / 64, s = at % 64;

	return s ? b[w] >> s | b[w + 1] << (64 - s) : b[w];
}

/* Whether a value of @set's items [r->from, r->to) is not 0 where @r left it out. */
static bool needs_room(const struct kept_request *r, const struct series_set *set)
{
	size_t n = r->to - r->from;

	if (set->nr_nonzero_known < r->to) {
		for (size_t i = r->from; i < r->to; i++)
			if (set->items[i].value != 0 && !kept_request_has_room(r, i - r->from))
				return true;
		return false;
	}
	for (size_t k = 0; k < n; k += 64) {
		uint64_t want = bits_at(set->nonzero, r->from + k) & ~r->room[k / 64];

		if (n - k < 64)
			want &= (1ULL << (n - k)) - 1;
		if (want)
			return true;
	}
	return false;
}

void kept_requests_clear(struct kept_requests *k)
{
	for (size_t i = 0; i < k->nr; i++)
		kept_request_free(&k->req[i]);
	free(k->req);
	memset(k, 0, sizeof(*k));
}

/* Request @at of @k, appended when it is @k->nr (what it held is the caller's to replace); NULL without memory. */
static struct kept_request *kept_slot(struct kept_requests *k, size_t at)
{
	if (at == k->nr && k->nr == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 8;
		void *p = realloc(k->req, cap * sizeof(*k->req));

		if (!p)
			return NULL;
		k->req = p;
		k->cap = cap;
	}
	if (at == k->nr)
		memset(&k->req[k->nr++], 0, sizeof(k->req[0]));
	return &k->req[at];
}

/* @r holds items [@from, @to) at @ts_ms, with room where @slots have values; no block yet. */
static int kept_begin(struct kept_request *r, size_t from, size_t to, const struct sample_slot *slots,
		      int64_t ts_ms)
{
	free(r->room);
	r->room = room_bits(slots, to - from);
	if (!r->room)
		return -ENOMEM;
	r->from = from;
	r->to = to;
	r->ts_ms = ts_ms;
	r->has_block = false;
	r->direct = false;
	return 0;
}

/* Whether @r's block, whose samples lie at @slots, can be patched directly; then only that is kept. */
static bool keep_direct(struct kept_request *r, struct sample_slot *slots, size_t ts_len)
{
	r->slots = slots; /* map_runs() reads them */
	r->direct = r->has_block && map_runs(r, ts_len);
	r->slots = NULL;
	if (!r->direct)
		return false;
	/* the block is all that is patched and sent: no protobuf, nor where samples lie in it */
	byte_buf_free(&r->raw);
	snappy_template_forget_runs(&r->block);
	return true;
}

int kept_requests_put(struct kept_requests *k, size_t at, size_t from, size_t to, struct byte_buf *raw,
		      struct sample_slot *slots, int64_t ts_ms)
{
	size_t ts_len = pb_varint_size((uint64_t)ts_ms);
	struct kept_request *r = kept_slot(k, at);
	int err = r ? kept_begin(r, from, to, slots, ts_ms) : -ENOMEM;
	struct byte_buf swap;

	if (err) {
		free(slots);
		return err;
	}
	free(r->slots);
	r->slots = NULL;
	r->raw_len = raw->len;
	if (k->compression == COMPRESSION_SNAPPY) {
		err = snappy_template_build(&r->block, raw->data, raw->len, slots, to - from, ts_len);
		if (err && err != -EAGAIN) {
			free(slots);
			return err;
		}
		r->has_block = !err;
		if (keep_direct(r, slots, ts_len)) {
			free(slots);
			return 0;
		}
	}
	/* the request takes the protobuf as it lies; @raw gets the request's old buffer */
	r->slots = slots;
	swap = r->raw;
	r->raw = *raw;
	*raw = swap;
	raw->len = 0;
	return 0;
}

int kept_requests_put_pieces(struct kept_requests *k, size_t at, size_t from, size_t to, size_t piece,
			     struct sample_slot *slots, int64_t ts_ms, kept_piece_fn enc, void *ctx)
{
	size_t ts_len = pb_varint_size((uint64_t)ts_ms);
	struct kept_request *r = kept_slot(k, at);
	int err, built;

	if (!r)
		return -ENOMEM;
	snappy_template_begin(&r->block);
	for (size_t a = from; a < to; a += piece) {
		size_t b = to - a > piece ? a + piece : to, off = r->block.raw_len;
		struct sample_slot *s = slots + (a - from);
		const struct byte_buf *raw;

		err = enc(ctx, a, b, s, &raw);
		if (err)
			return err;
		snappy_template_add(&r->block, raw->data, raw->len, s, b - a, ts_len);
		for (size_t i = 0; i < b - a; i++) { /* from the piece's start to the request's */
			s[i].ts_at += (uint32_t)off;
			if (s[i].value_at != SAMPLE_SLOT_NONE)
				s[i].value_at += (uint32_t)off;
		}
	}
	built = snappy_template_end(&r->block);
	if (built && built != -EAGAIN)
		return built;
	err = kept_begin(r, from, to, slots, ts_ms);
	if (err)
		return err;
	r->has_block = !built;
	r->raw_len = r->block.raw_len;
	free(r->slots);
	r->slots = NULL;
	return keep_direct(r, slots, ts_len) ? 0 : -EAGAIN;
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* @n bytes from @src to @dst; the usual sizes as fixed-size copies (single moves, no call). */
static inline void copy_small(uint8_t *dst, const uint8_t *src, size_t n)
{
	switch (n) {
	case 6:
		memcpy(dst, src, 6);
		break;
	case 8:
		memcpy(dst, src, 8);
		break;
	default:
		memcpy(dst, src, n);
	}
}

/* The samples of @set written into @r's block where its patches say (@r->direct). */
static void patch_block(struct kept_request *r, const struct series_set *set, const uint8_t *ts)
{
	uint8_t *z = r->block.z.data;

	for (size_t i = 0; i < r->nr_patch; i++) {
		const struct block_patch *bp = &r->patch[i];
		uint8_t value[8];
		uint64_t bits;

		if (bp->field == RUN_TS) {
			memcpy(z + bp->z_at, ts + bp->off, bp->len);
			continue;
		}
		memcpy(&bits, &set->items[r->from + bp->slot].value, sizeof(bits));
		put_le64(value, bits);
		copy_small(z + bp->z_at, value + bp->off, bp->len);
	}
}

bool kept_request_patch(struct kept_request *r, const struct series_set *set)
{
	uint8_t ts[10];
	size_t ts_len;

	if (pb_varint_size((uint64_t)set->ts_ms) != pb_varint_size((uint64_t)r->ts_ms))
		return false;
	/* remote write left out the values that were 0: one that is not 0 now needs room */
	if (needs_room(r, set))
		return false;
	ts_len = (size_t)(pb_varint(ts, (uint64_t)set->ts_ms) - ts);
	r->ts_ms = set->ts_ms;
	if (r->direct) {
		patch_block(r, set, ts);
		return true;
	}
	for (size_t i = r->from; i < r->to; i++) {
		const struct sample_slot *s = &r->slots[i - r->from];
		uint8_t value[8];
		uint64_t bits;

		if (s->value_at != SAMPLE_SLOT_NONE) {
			memcpy(&bits, &set->items[i].value, sizeof(bits));
			put_le64(value, bits);
			copy_small(r->raw.data + s->value_at, value, 8);
		}
		copy_small(r->raw.data + s->ts_at, ts, ts_len);
	}
	return true;
}

const struct byte_buf *kept_request_block(struct kept_request *r)
{
	if (!r->has_block)
		return NULL;
	if (!r->direct) /* else patched already */
		snappy_template_patch(&r->block, r->raw.data);
	return &r->block.z;
}
