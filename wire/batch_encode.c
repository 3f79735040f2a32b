// SPDX-License-Identifier: GPL-2.0-only
#include "wire/batch_encode.h"
#include "wire/compress.h"
#include "wire/encoders.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

size_t batch_item_size(const struct series_set *set, size_t i, enum wire_format f)
{
	const struct series_item *it = &set->items[i];
	/* upper bounds of the protobuf framing for labels under 16 KiB */
	size_t n = 0, per_label = f == WIRE_OTLP ? 12 : 9;

	for (uint32_t k = 0; k < it->nr_labels; k++) {
		const struct label_len *l = &set->label_lens[it->label_off + k];

		n += l->name + l->value + per_label;
	}
	return n + (f == WIRE_OTLP ? 40 : 26);
}

static int push_payload(struct payload_list *out, const struct payload *p)
{
	if (out->n == out->cap) {
		size_t cap = out->cap ? out->cap * 2 : 8;
		void *np = realloc(out->p, cap * sizeof(*out->p));

		if (!np)
			return -ENOMEM;
		out->p = np;
		out->cap = cap;
	}
	out->p[out->n++] = *p;
	return 0;
}

static int encode_range(const struct series_set *set, size_t from, size_t to, enum wire_format f,
			enum compression c, struct payload_list *out)
{
	struct byte_buf *raw = &out->raw, z = { 0 };
	struct payload p = { .format = f, .compression = c, .nr_samples = to - from };
	int err;

	switch (f) {
	case WIRE_REMOTE_WRITE:
		err = remote_write_encode(set, from, to, raw);
		break;
	case WIRE_REMOTE_WRITE_V2:
		err = remote_write_v2_encode(set, from, to, raw);
		break;
	case WIRE_OTLP:
		err = otlp_encode(set, from, to, raw);
		break;
	default:
		err = -EINVAL;
	}
	if (err)
		goto free_bufs;
	err = compress_body(c, raw->data, raw->len, &z);
	if (err)
		goto free_bufs;
	p.body = z.data;
	p.len = z.len;
	p.raw_len = raw->len;
	err = push_payload(out, &p);
	if (err)
		goto free_bufs;
	z.data = NULL;
free_bufs:
	byte_buf_free(&z);
	return err;
}

int batch_encode(const struct series_set *set, enum wire_format f, enum compression c,
		 const struct batch_limits *lim, struct payload_list *out)
{
	size_t from = 0, bytes = 0;
	size_t max_samples = lim->max_samples ? lim->max_samples : BATCH_DEFAULT_MAX_SAMPLES;
	size_t max_bytes = lim->max_bytes ? lim->max_bytes : BATCH_DEFAULT_MAX_BYTES;
	int err;

	c = compression_effective(f, c);
	for (size_t i = 0; i < set->nr_items; i++) {
		size_t sz = batch_item_size(set, i, f);

		if (i > from && (i - from == max_samples || bytes + sz > max_bytes)) {
			err = encode_range(set, from, i, f, c, out);
			if (err)
				return err;
			from = i;
			bytes = 0;
		}
		bytes += sz;
	}
	if (set->nr_items > from)
		return encode_range(set, from, set->nr_items, f, c, out);
	return 0;
}

void payload_list_clear(struct payload_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->p[i].body);
	l->n = 0;
}

void payload_list_free(struct payload_list *l)
{
	payload_list_clear(l);
	byte_buf_free(&l->raw);
	free(l->p);
	l->p = NULL;
	l->cap = 0;
}
