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
	snappy_template_free(&r->block);
}

void kept_requests_clear(struct kept_requests *k)
{
	for (size_t i = 0; i < k->nr; i++)
		kept_request_free(&k->req[i]);
	free(k->req);
	memset(k, 0, sizeof(*k));
}

int kept_requests_put(struct kept_requests *k, size_t at, size_t from, size_t to, const struct byte_buf *raw,
		      struct sample_slot *slots, int64_t ts_ms)
{
	struct kept_request *r;
	int err;

	if (at == k->nr && k->nr == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 8;
		void *p = realloc(k->req, cap * sizeof(*k->req));

		if (!p) {
			free(slots);
			return -ENOMEM;
		}
		k->req = p;
		k->cap = cap;
	}
	if (at == k->nr)
		memset(&k->req[k->nr++], 0, sizeof(*r));
	r = &k->req[at];
	free(r->slots);
	r->slots = slots;
	r->from = from;
	r->to = to;
	r->ts_ms = ts_ms;
	r->has_block = false;
	err = byte_buf_reserve(&r->raw, raw->len ? raw->len : 1);
	if (err)
		return err;
	memcpy(r->raw.data, raw->data, raw->len);
	r->raw.len = raw->len;
	if (k->compression != COMPRESSION_SNAPPY || k->format == WIRE_OTLP)
		return 0;
	err = snappy_template_build(&r->block, r->raw.data, r->raw.len, slots, to - from,
				    pb_varint_size((uint64_t)ts_ms));
	r->has_block = !err;
	return err == -EAGAIN ? 0 : err;
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

bool kept_request_patch(struct kept_request *r, const struct series_set *set, enum wire_format f)
{
	bool varint_ts = f != WIRE_OTLP;
	uint8_t ts[10];
	size_t ts_len;

	if (varint_ts && pb_varint_size((uint64_t)set->ts_ms) != pb_varint_size((uint64_t)r->ts_ms))
		return false;
	/* remote write left out the values that were 0: one that is not 0 now needs room */
	for (size_t i = r->from; varint_ts && i < r->to; i++)
		if (set->items[i].value != 0 && r->slots[i - r->from].value_at == SAMPLE_SLOT_NONE)
			return false;
	if (varint_ts) {
		ts_len = (size_t)(pb_varint(ts, (uint64_t)set->ts_ms) - ts);
	} else {
		put_le64(ts, (uint64_t)set->ts_ms * 1000000u);
		ts_len = 8;
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
	r->ts_ms = set->ts_ms;
	return true;
}

const struct byte_buf *kept_request_block(struct kept_request *r)
{
	if (!r->has_block)
		return NULL;
	snappy_template_patch(&r->block, r->raw.data);
	return &r->block.z;
}
