// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prometheus remote write 2.0: io.prometheus.write.v2.Request. Every string
 * of a request goes once into its symbols table, symbols[0] is "" and
 * labels_refs hold (name, value) index pairs in label-name order. Metadata:
 * the type (counter or gauge) and the unit ("bytes") where known.
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

struct symtab {
	const char **sym;  /* index -> string */
	uint32_t *len;     /* index -> its length */
	size_t n, cap;
	uint32_t *slots;   /* hash -> index + 1, 0 empty */
	size_t nslots;
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int symtab_init(struct symtab *t, size_t max)
{
	t->nslots = 16;
	while (t->nslots < 2 * (max + 1))
		t->nslots <<= 1;
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	t->cap = max + 1;
	t->sym = calloc(t->cap, sizeof(*t->sym));
	t->len = calloc(t->cap, sizeof(*t->len));
	t->n = 0;
	return t->slots && t->sym && t->len ? 0 : -ENOMEM;
}

static uint32_t symtab_ref(struct symtab *t, const char *s, uint32_t len)
{
	size_t mask = t->nslots - 1, i = fnv1a(s) & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t v = t->slots[i];

		if (!v)
			break;
		if (t->sym[v - 1] == s || (t->len[v - 1] == len && memcmp(t->sym[v - 1], s, len) == 0))
			return v - 1;
	}
	/* capacity was sized for every string of the range: no overflow */
	t->sym[t->n] = s;
	t->len[t->n] = len;
	t->slots[i] = (uint32_t)++t->n;
	return (uint32_t)(t->n - 1);
}

static void symtab_free(struct symtab *t)
{
	free(t->slots);
	free(t->sym);
	free(t->len);
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
			  uint32_t unit_ref)
{
	return (it->nr_labels ? pb_len_field_size(refs_bytes) : 0) +
	       rw_sample_field_size(it->value, set->ts_ms) + pb_len_field_size(metadata_size(unit_ref));
}

int remote_write_v2_encode(const struct series_set *set, size_t from, size_t to, struct byte_buf *raw)
{
	size_t n = to - from, nl = 0, ri = 0, total = 0;
	struct symtab tab = { 0 };
	uint32_t *refs = NULL, *unit = NULL, *refs_bytes = NULL, bytes_ref = 0;
	uint8_t *p;
	int err = -ENOMEM;

	for (size_t i = from; i < to; i++)
		nl += set->items[i].nr_labels;
	refs = malloc((nl ? 2 * nl : 1) * sizeof(*refs));
	unit = malloc((n ? n : 1) * sizeof(*unit));
	refs_bytes = malloc((n ? n : 1) * sizeof(*refs_bytes));
	if (!refs || !unit || !refs_bytes || symtab_init(&tab, 2 * nl + 2))
		goto free_arrays;
	symtab_ref(&tab, "", 0); /* symbols[0] is always the empty string */

	/* first pass: symbols in order of first use, refs, sizes */
	for (size_t k = 0; k < n; k++) {
		const struct series_item *it = &set->items[from + k];
		size_t first = ri;

		for (uint32_t j = 0; j < it->nr_labels; j++) {
			const struct label_pair *l = &set->labels[it->label_off + j];
			const struct label_len *len = &set->label_lens[it->label_off + j];

			refs[ri++] = symtab_ref(&tab, l->name, len->name);
			refs[ri++] = symtab_ref(&tab, l->value, len->value);
		}
		unit[k] = 0;
		if (it->bytes) {
			if (!bytes_ref)
				bytes_ref = symtab_ref(&tab, "bytes", 5);
			unit[k] = bytes_ref;
		}
		refs_bytes[k] = (uint32_t)refs_size(refs + first, ri - first);
		total += pb_len_field_size(series_size(set, it, refs_bytes[k], unit[k]));
	}
	for (size_t s = 0; s < tab.n; s++)
		total += pb_len_field_size(tab.len[s]);

	err = byte_buf_reserve(raw, total + 1);
	if (err)
		goto free_arrays;
	p = raw->data;
	for (size_t s = 0; s < tab.n; s++)
		p = pb_len_field(p, 4, tab.sym[s], tab.len[s]);
	ri = 0;
	for (size_t k = 0; k < n; k++) {
		const struct series_item *it = &set->items[from + k];

		p = pb_len_header(p, 5, series_size(set, it, refs_bytes[k], unit[k]));
		if (it->nr_labels) {
			p = pb_len_header(p, 1, refs_bytes[k]);
			for (uint32_t j = 0; j < 2 * it->nr_labels; j++)
				p = pb_varint(p, refs[ri++]);
		}
		p = rw_sample_field(p, 2, it->value, set->ts_ms);
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
	symtab_free(&tab);
	free(refs_bytes);
	free(unit);
	free(refs);
	return err;
}
