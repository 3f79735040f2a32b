// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prometheus remote write 2.0: io.prometheus.write.v2.Request. Every string
 * of a request goes once into its symbols table, symbols[0] is "" and
 * labels_refs hold (name, value) index pairs in label-name order. Metadata:
 * the type (counter or gauge) and the unit ("bytes") where known.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "batch_encode.h"
#include "remote_write_v2.pb-c.h"

struct symtab {
	char **sym;        /* index -> string */
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
	t->n = 0;
	return t->slots && t->sym ? 0 : -ENOMEM;
}

static uint32_t symtab_ref(struct symtab *t, const char *s)
{
	size_t mask = t->nslots - 1, i = fnv1a(s) & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t v = t->slots[i];

		if (!v)
			break;
		if (strcmp(t->sym[v - 1], s) == 0)
			return v - 1;
	}
	/* capacity was sized for every string of the range: no overflow */
	t->sym[t->n] = (char *)s;
	t->slots[i] = (uint32_t)++t->n;
	return (uint32_t)(t->n - 1);
}

int remote_write_v2_encode(const struct series_set *set, size_t from, size_t to, struct byte_buf *raw)
{
	size_t n = to - from, nl = 0, ri = 0;
	Io__Prometheus__Write__V2__Request req = IO__PROMETHEUS__WRITE__V2__REQUEST__INIT;
	Io__Prometheus__Write__V2__TimeSeries *ts = NULL, **ts_p = NULL;
	Io__Prometheus__Write__V2__Sample *smp = NULL, **smp_p = NULL;
	Io__Prometheus__Write__V2__Metadata *md = NULL;
	struct symtab tab = { 0 };
	uint32_t *refs = NULL;
	int err = -ENOMEM;

	for (size_t i = from; i < to; i++)
		nl += set->items[i].nr_labels;
	ts = calloc(n ? n : 1, sizeof(*ts));
	ts_p = calloc(n ? n : 1, sizeof(*ts_p));
	smp = calloc(n ? n : 1, sizeof(*smp));
	smp_p = calloc(n ? n : 1, sizeof(*smp_p));
	md = calloc(n ? n : 1, sizeof(*md));
	refs = calloc(nl ? 2 * nl : 1, sizeof(*refs));
	if (!ts || !ts_p || !smp || !smp_p || !md || !refs || symtab_init(&tab, 2 * nl + 2))
		goto free_arrays;
	symtab_ref(&tab, ""); /* symbols[0] is always the empty string */
	for (size_t k = 0; k < n; k++) {
		const struct series_item *it = &set->items[from + k];

		io__prometheus__write__v2__time_series__init(&ts[k]);
		ts_p[k] = &ts[k];
		ts[k].labels_refs = &refs[ri];
		ts[k].n_labels_refs = 2 * it->nr_labels;
		for (uint32_t j = 0; j < it->nr_labels; j++) {
			const struct label_pair *l = &set->labels[it->label_off + j];

			refs[ri++] = symtab_ref(&tab, l->name);
			refs[ri++] = symtab_ref(&tab, l->value);
		}
		io__prometheus__write__v2__sample__init(&smp[k]);
		smp[k].value = it->value;
		smp[k].timestamp = set->ts_ms;
		smp_p[k] = &smp[k];
		ts[k].n_samples = 1;
		ts[k].samples = &smp_p[k];
		io__prometheus__write__v2__metadata__init(&md[k]);
		md[k].type = it->counter ? IO__PROMETHEUS__WRITE__V2__METADATA__METRIC_TYPE__METRIC_TYPE_COUNTER
					 : IO__PROMETHEUS__WRITE__V2__METADATA__METRIC_TYPE__METRIC_TYPE_GAUGE;
		if (it->bytes)
			md[k].unit_ref = symtab_ref(&tab, "bytes");
		ts[k].metadata = &md[k];
	}
	req.n_symbols = tab.n;
	req.symbols = tab.sym;
	req.n_timeseries = n;
	req.timeseries = ts_p;
	err = byte_buf_reserve(raw, io__prometheus__write__v2__request__get_packed_size(&req) + 1);
	if (err)
		goto free_arrays;
	raw->len = io__prometheus__write__v2__request__pack(&req, raw->data);
	err = 0;
free_arrays:
	free(tab.slots);
	free(tab.sym);
	free(refs);
	free(md);
	free(smp_p);
	free(smp);
	free(ts_p);
	free(ts);
	return err;
}
