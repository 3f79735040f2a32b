// SPDX-License-Identifier: GPL-2.0-only
/* Prometheus remote write 1.0: prometheus.WriteRequest. */
#include <errno.h>
#include <stdlib.h>

#include "batch_encode.h"
#include "remote_write.pb-c.h"

int remote_write_encode(const struct series_set *set, size_t from, size_t to, struct byte_buf *raw)
{
	size_t n = to - from, nl = 0, li = 0;
	Prometheus__WriteRequest req = PROMETHEUS__WRITE_REQUEST__INIT;
	Prometheus__TimeSeries *ts = NULL, **ts_p = NULL;
	Prometheus__Label *lab = NULL, **lab_p = NULL;
	Prometheus__Sample *smp = NULL, **smp_p = NULL;
	int err = -ENOMEM;

	for (size_t i = from; i < to; i++)
		nl += set->items[i].nr_labels;
	ts = calloc(n ? n : 1, sizeof(*ts));
	ts_p = calloc(n ? n : 1, sizeof(*ts_p));
	smp = calloc(n ? n : 1, sizeof(*smp));
	smp_p = calloc(n ? n : 1, sizeof(*smp_p));
	lab = calloc(nl ? nl : 1, sizeof(*lab));
	lab_p = calloc(nl ? nl : 1, sizeof(*lab_p));
	if (!ts || !ts_p || !smp || !smp_p || !lab || !lab_p)
		goto free_arrays;
	for (size_t k = 0; k < n; k++) {
		const struct series_item *it = &set->items[from + k];

		prometheus__time_series__init(&ts[k]);
		ts_p[k] = &ts[k];
		ts[k].n_labels = it->nr_labels;
		ts[k].labels = &lab_p[li];
		for (uint32_t j = 0; j < it->nr_labels; j++, li++) {
			const struct label_pair *l = &set->labels[it->label_off + j];

			prometheus__label__init(&lab[li]);
			lab[li].name = (char *)l->name;
			lab[li].value = (char *)l->value;
			lab_p[li] = &lab[li];
		}
		prometheus__sample__init(&smp[k]);
		smp[k].value = it->value;
		smp[k].timestamp = set->ts_ms;
		smp_p[k] = &smp[k];
		ts[k].n_samples = 1;
		ts[k].samples = &smp_p[k];
	}
	req.n_timeseries = n;
	req.timeseries = ts_p;
	err = byte_buf_reserve(raw, prometheus__write_request__get_packed_size(&req) + 1);
	if (err)
		goto free_arrays;
	raw->len = prometheus__write_request__pack(&req, raw->data);
	err = 0;
free_arrays:
	free(lab_p);
	free(lab);
	free(smp_p);
	free(smp);
	free(ts_p);
	free(ts);
	return err;
}
