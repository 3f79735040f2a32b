// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prometheus remote write 1.0: prometheus.WriteRequest (proto/remote_write.proto),
 * written directly with pb_write.h: no message structs, no per-sample
 * allocation. A series' Label fields are encoded once, when it first
 * appears, and kept by the label cache (wire/label_cache.h); each interval
 * writes the TimeSeries header, copies them and adds the Sample. The bytes are those
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

static size_t label_field_size(const struct label_len *len)
{
	return pb_len_field_size(label_size(len));
}

static uint8_t *label_field(uint8_t *p, const struct label_pair *l, const struct label_len *len)
{
	p = pb_len_header(p, 1, label_size(len));
	if (len->name)
		p = pb_len_field(p, 1, l->name, len->name);
	if (len->value)
		p = pb_len_field(p, 2, l->value, len->value);
	return p;
}

static struct label_len name_label_len(const struct series_item *it)
{
	return (struct label_len){ sizeof("__name__") - 1, it->name_len };
}

/*
 * The Label fields of a new series, kept by the label cache; of a new
 * cgroup with @cgroup: all but __name__, and where it goes in *@name_at.
 */
static int encode_labels(struct label_cache *c, const struct series_set *set, const struct series_item *it,
			 bool cgroup, struct byte_buf *out, uint32_t *name_at)
{
	struct label_pair l[SERIES_ITEM_MAX_LABELS];
	struct label_len len[SERIES_ITEM_MAX_LABELS];
	size_t n = 0;
	uint8_t *p, *start;
	int err;

	(void)c;
	for (uint32_t k = 0; k < it->nr_labels; k++) {
		series_item_label(set, it, k, &l[k], &len[k]);
		n += label_field_size(&len[k]);
	}
	err = byte_buf_reserve(out, out->len + n);
	if (err)
		return err;
	start = p = out->data + out->len;
	for (uint32_t k = 0; k < it->nr_labels; k++) {
		if (cgroup && k == it->name_at) {
			*name_at = (uint32_t)(p - start);
			continue;
		}
		p = label_field(p, &l[k], &len[k]);
	}
	out->len = (size_t)(p - out->data);
	return 0;
}

/* The bytes of @it's labels: @b's, with its own __name__ where @b is its cgroup's. */
static size_t labels_size(const struct series_item *it, const struct label_blob *b)
{
	struct label_len name = name_label_len(it);

	return b->len + (b->name_at == LABEL_BLOB_WHOLE ? 0 : label_field_size(&name));
}

static uint8_t *labels_field(uint8_t *p, const struct series_item *it, const struct label_blob *b)
{
	struct label_pair name = { "__name__", it->name };
	struct label_len name_len = name_label_len(it);

	if (b->name_at == LABEL_BLOB_WHOLE) {
		memcpy(p, b->data, b->len);
		return p + b->len;
	}
	memcpy(p, b->data, b->name_at);
	p = label_field(p + b->name_at, &name, &name_len);
	memcpy(p, b->data + b->name_at, b->len - b->name_at);
	return p + b->len - b->name_at;
}

static size_t series_size(const struct series_set *set, const struct series_item *it, const struct label_blob *b,
			  const struct sample_slot *slot)
{
	return labels_size(it, b) + rw_sample_field_size(rw_value_written(it->value, slot), set->ts_ms);
}

int remote_write_encode(const struct series_set *set, size_t from, size_t to, struct label_cache *c,
			struct byte_buf *raw, struct sample_slot *slots)
{
	struct label_blob *b;
	size_t total = 0;
	uint8_t *p;
	int err;

	b = malloc((to > from ? to - from : 1) * sizeof(*b));
	if (!b)
		return -ENOMEM;
	err = label_cache_get(c, WIRE_REMOTE_WRITE, set, from, to, encode_labels, true, b);
	if (err)
		goto free_blobs;
	for (size_t i = from; i < to; i++)
		total += pb_len_field_size(series_size(set, &set->items[i], &b[i - from], slots ? &slots[i - from] : NULL));
	err = byte_buf_reserve(raw, total + 1);
	if (err)
		goto free_blobs;
	p = raw->data;
	for (size_t i = from; i < to; i++) {
		const struct series_item *it = &set->items[i];

		p = pb_len_header(p, 1, series_size(set, it, &b[i - from], slots ? &slots[i - from] : NULL));
		p = labels_field(p, it, &b[i - from]);
		p = rw_sample_field(p, 2, it->value, set->ts_ms, slots ? &slots[i - from] : NULL,
				    raw->data);
	}
	raw->len = (size_t)(p - raw->data);
	err = raw->len == total ? 0 : -EFAULT;
free_blobs:
	free(b);
	return err;
}
