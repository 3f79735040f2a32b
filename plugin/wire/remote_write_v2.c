// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prometheus remote write 2.0: io.prometheus.write.v2.Request. Every string
 * of a request goes once into its symbols table, symbols[0] is "" and
 * labels_refs hold (name, value) index pairs in label-name order. Metadata:
 * the type (counter or gauge) and the unit ("bytes") where known.
 *
 * The symbols table is per request, so what is kept across intervals (the
 * label cache, wire/label_cache.h) is each series' labels as global string
 * ids (wire/symbol_dict.h): a request maps them to its own indices in order
 * of first use with two array lookups per string, no hashing or comparing
 * of strings; only a new series' strings are interned. Keeping the refs
 * themselves would need one symbol order for every request, that is every
 * request carrying every string of all series (or refs that change when a
 * request is cut differently); the ids keep each request's table to the
 * strings its own series use, as before.
 *
 * Written directly with pb_write.h; the bytes are those protobuf-c packs for
 * the same message (checked by test_batch_encode):
 *   Request    { repeated string symbols = 4; repeated TimeSeries timeseries = 5; }
 *   TimeSeries { repeated uint32 labels_refs = 1 (packed); repeated Sample samples = 2;
 *                Metadata metadata = 5; int64 created_timestamp = 6 (0: not written); }
 *   Sample     { double value = 1; int64 timestamp = 2; }     (wire/rw_sample.h)
 *   Metadata   { MetricType type = 1; uint32 help_ref = 3; uint32 unit_ref = 4; }
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wire/encoders.h"
#include "wire/pb_write.h"
#include "wire/rw_sample.h"

/* Metadata.MetricType */
#define METRIC_TYPE_COUNTER 1
#define METRIC_TYPE_GAUGE 2

/*
 * The global ids of a new series' label names and values, kept by the
 * label cache; of a new cgroup with @cgroup: all but __name__'s, and in
 * *@name_at the bytes of those before its place.
 */
static int encode_label_ids(struct label_cache *c, const struct series_set *set, const struct series_item *it,
			    bool cgroup, struct byte_buf *out, uint32_t *name_at)
{
	struct symbol_dict *d = label_cache_symbols(c);
	uint32_t *ids, n = 0;
	int err = byte_buf_reserve(out, out->len + 2 * it->nr_labels * sizeof(uint32_t));

	if (err)
		return err;
	ids = (uint32_t *)(out->data + out->len);
	for (uint32_t j = 0; j < it->nr_labels && !err; j++) {
		struct label_pair l;
		struct label_len len;

		if (cgroup && j == it->name_at) {
			*name_at = n * (uint32_t)sizeof(uint32_t);
			continue;
		}
		series_item_label(set, it, j, &l, &len);
		err = symbol_dict_intern(d, l.name, len.name, &ids[n]);
		if (!err)
			err = symbol_dict_intern(d, l.value, len.value, &ids[n + 1]);
		n += 2;
	}
	out->len += n * sizeof(uint32_t);
	return err;
}

/*
 * The global ids of @it's labels, from its blob @b (with its own __name__
 * where @b is its cgroup's), into @ids (2 per label). @name_id caches the
 * id of the last name (a set's items come stat by stat).
 */
static int label_ids(struct symbol_dict *d, const struct series_item *it, const struct label_blob *b,
		     uint32_t name_key_id, const char **last_name, uint32_t *name_id, uint32_t *ids)
{
	const uint32_t *kept = (const uint32_t *)b->data;
	size_t before = b->name_at / sizeof(uint32_t);
	int err;

	if (b->name_at == LABEL_BLOB_WHOLE) {
		memcpy(ids, kept, 2 * it->nr_labels * sizeof(*ids));
		return 0;
	}
	if (it->name != *last_name) {
		err = symbol_dict_intern(d, it->name, it->name_len, name_id);
		if (err)
			return err;
		*last_name = it->name;
	}
	memcpy(ids, kept, before * sizeof(*ids));
	ids[before] = name_key_id;
	ids[before + 1] = *name_id;
	memcpy(ids + before + 2, kept + before, b->len - before * sizeof(*ids));
	return 0;
}

static size_t metadata_size(uint32_t unit_ref)
{
	return 2 /* type: never 0 */ + (unit_ref ? 1 + pb_varint_size(unit_ref) : 0);
}

static size_t refs_size(const uint32_t *refs, size_t n)
{
	size_t b = 0;

	for (size_t i = 0; i < n; i++)
		b += pb_varint_size(refs[i]);
	return b;
}

/* Bytes of one TimeSeries message; @refs_bytes is its packed labels_refs payload. */
static size_t series_size(const struct series_set *set, const struct series_item *it, size_t refs_bytes,
			  uint32_t unit_ref, const struct sample_slot *slot)
{
	return (it->nr_labels ? pb_len_field_size(refs_bytes) : 0) +
	       rw_sample_field_size(rw_value_written(it->value, slot), set->ts_ms) +
	       pb_len_field_size(metadata_size(unit_ref));
}

int remote_write_v2_encode(const struct series_set *set, size_t from, size_t to, struct label_cache *c,
			   struct byte_buf *raw, struct sample_slot *slots)
{
	struct symbol_dict *d = label_cache_symbols(c);
	size_t n = to - from, nl = 0, ri = 0, total = 0;
	uint32_t *refs = NULL, *unit = NULL, *refs_bytes = NULL, empty_id, bytes_id, bytes_ref = 0;
	uint32_t seconds_id, seconds_ref = 0, name_key_id, name_id = 0, ids[2 * SERIES_ITEM_MAX_LABELS];
	const char *last_name = NULL;
	struct label_blob *b = NULL;
	uint8_t *p;
	int err = -ENOMEM;

	for (size_t i = from; i < to; i++)
		nl += set->items[i].nr_labels;
	refs = malloc((nl ? 2 * nl : 1) * sizeof(*refs));
	unit = malloc((n ? n : 1) * sizeof(*unit));
	refs_bytes = malloc((n ? n : 1) * sizeof(*refs_bytes));
	b = malloc((n ? n : 1) * sizeof(*b));
	if (!refs || !unit || !refs_bytes || !b)
		goto free_arrays;
	err = label_cache_get(c, WIRE_REMOTE_WRITE_V2, set, from, to, encode_label_ids, true, b);
	if (!err)
		err = symbol_dict_intern(d, "__name__", 8, &name_key_id);
	if (!err)
		err = symbol_dict_intern(d, "", 0, &empty_id);
	if (!err)
		err = symbol_dict_intern(d, "bytes", 5, &bytes_id);
	if (!err)
		err = symbol_dict_intern(d, "seconds", 7, &seconds_id);
	if (err)
		goto free_arrays;
	symbol_dict_new_request(d);
	symbol_dict_ref(d, empty_id); /* symbols[0] is always the empty string */

	/* first pass: the request's symbols in order of first use, refs, sizes */
	for (size_t k = 0; k < n; k++) {
		const struct series_item *it = &set->items[from + k];
		size_t first = ri;

		err = label_ids(d, it, &b[k], name_key_id, &last_name, &name_id, ids);
		if (err)
			goto free_arrays;
		for (uint32_t j = 0; j < 2 * it->nr_labels; j++)
			refs[ri++] = symbol_dict_ref(d, ids[j]);
		unit[k] = 0;
		/* metadata units as Prometheus names them; OTLP's "By" and "s" in series_item */
		if (it->unit && strcmp(it->unit, "By") == 0) {
			if (!bytes_ref)
				bytes_ref = symbol_dict_ref(d, bytes_id);
			unit[k] = bytes_ref;
		} else if (it->unit && strcmp(it->unit, "s") == 0) {
			if (!seconds_ref)
				seconds_ref = symbol_dict_ref(d, seconds_id);
			unit[k] = seconds_ref;
		}
		refs_bytes[k] = (uint32_t)refs_size(refs + first, ri - first);
		total += pb_len_field_size(series_size(set, it, refs_bytes[k], unit[k], slots ? &slots[k] : NULL));
	}
	for (size_t s = 0; s < d->nr_order; s++)
		total += pb_len_field_size(d->len[d->order[s]]);

	err = byte_buf_reserve(raw, total + 1);
	if (err)
		goto free_arrays;
	p = raw->data;
	for (size_t s = 0; s < d->nr_order; s++)
		p = pb_len_field(p, 4, d->str[d->order[s]], d->len[d->order[s]]);
	ri = 0;
	for (size_t k = 0; k < n; k++) {
		const struct series_item *it = &set->items[from + k];

		p = pb_len_header(p, 5, series_size(set, it, refs_bytes[k], unit[k], slots ? &slots[k] : NULL));
		if (it->nr_labels) {
			p = pb_len_header(p, 1, refs_bytes[k]);
			for (uint32_t j = 0; j < 2 * it->nr_labels; j++)
				p = pb_varint(p, refs[ri++]);
		}
		p = rw_sample_field(p, 2, it->value, set->ts_ms, slots ? &slots[k] : NULL, raw->data);
		p = pb_len_header(p, 5, metadata_size(unit[k]));
		p = pb_tag(p, 1, PB_VARINT);
		p = pb_varint(p, it->counter ? METRIC_TYPE_COUNTER : METRIC_TYPE_GAUGE);
		if (unit[k]) {
			p = pb_tag(p, 4, PB_VARINT);
			p = pb_varint(p, unit[k]);
		}
	}
	raw->len = (size_t)(p - raw->data);
	err = raw->len == total ? 0 : -EFAULT;
free_arrays:
	free(b);
	free(refs_bytes);
	free(unit);
	free(refs);
	return err;
}
