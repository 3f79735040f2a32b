// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prometheus remote write 1.0: prometheus.WriteRequest (proto/remote_write.proto),
 * written directly with pb_write.h from the set's labels and their cached
 * lengths: no message structs, no per-sample allocation. The bytes are those
 * protobuf-c packs for the same message (checked by test_batch_encode):
 *   WriteRequest { repeated TimeSeries timeseries = 1; }
 *   TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
 *   Label        { string name = 1; string value = 2; }
 *   Sample       { double value = 1; int64 timestamp = 2; }   (wire/rw_sample.h)
 * proto3: a string that is empty, a double that is 0 and an int64 that is 0
 * are not written.
 */
#include <errno.h>
#include <stdlib.h>

#include "wire/encoders.h"
#include "wire/pb_write.h"
#include "wire/rw_sample.h"

static size_t label_size(const struct label_len *l)
{
	return (l->name ? pb_len_field_size(l->name) : 0) + (l->value ? pb_len_field_size(l->value) : 0);
}

static size_t series_size(const struct series_set *set, const struct series_item *it)
{
	size_t n = rw_sample_field_size(it->value, set->ts_ms);

	for (uint32_t k = 0; k < it->nr_labels; k++)
		n += pb_len_field_size(label_size(&set->label_lens[it->label_off + k]));
	return n;
}

static uint8_t *write_series(uint8_t *p, const struct series_set *set, const struct series_item *it, size_t size)
{
	p = pb_len_header(p, 1, size);
	for (uint32_t k = 0; k < it->nr_labels; k++) {
		const struct label_pair *l = &set->labels[it->label_off + k];
		const struct label_len *len = &set->label_lens[it->label_off + k];

		p = pb_len_header(p, 1, label_size(len));
		if (len->name)
			p = pb_len_field(p, 1, l->name, len->name);
		if (len->value)
			p = pb_len_field(p, 2, l->value, len->value);
	}
	return rw_sample_field(p, 2, it->value, set->ts_ms);
}

int remote_write_encode(const struct series_set *set, size_t from, size_t to, struct byte_buf *raw)
{
	size_t total = 0;
	uint32_t *size;
	uint8_t *p;
	int err;

	size = malloc((to > from ? to - from : 1) * sizeof(*size));
	if (!size)
		return -ENOMEM;
	for (size_t i = from; i < to; i++) {
		size[i - from] = (uint32_t)series_size(set, &set->items[i]);
		total += pb_len_field_size(size[i - from]);
	}
	err = byte_buf_reserve(raw, total + 1);
	if (err)
		goto free_size;
	p = raw->data;
	for (size_t i = from; i < to; i++)
		p = write_series(p, set, &set->items[i], size[i - from]);
	raw->len = (size_t)(p - raw->data);
	err = raw->len == total ? 0 : -EFAULT;
free_size:
	free(size);
	return err;
}
