// SPDX-License-Identifier: GPL-2.0-only
/*
 * OTLP/HTTP protobuf: one ExportMetricsServiceRequest per batch with one
 * ResourceMetrics (resource attributes host.name and service.name), one
 * ScopeMetrics (scope "memcg_bpf") and one Metric per metric name: a Gauge,
 * or a cumulative monotonic Sum for counters. Each data point carries the
 * series' labels except __name__ and host as attributes, the time in ns,
 * the value as a double; a stale marker is a point with no value and flag
 * NO_RECORDED_VALUE. A Sum's points have start_time_unix_nano: the time the
 * plugin first saw the series (its cgroup's first sample since it last
 * appeared; for the plugin's own counters, its first interval), so a
 * cgroup that vanished and came back starts a new cumulative series.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wire/encoders.h"
#include "proto/otlp_metrics.pb-c.h"

#define OTLP(x) Opentelemetry__Proto__Metrics__V1__##x
#define OTLP_SCOPE_VERSION "0.1.0"

static void set_string_kv(OTLP(KeyValue) *kv, OTLP(AnyValue) *av, const char *k, const char *v)
{
	opentelemetry__proto__metrics__v1__key_value__init(kv);
	opentelemetry__proto__metrics__v1__any_value__init(av);
	av->value_case = OPENTELEMETRY__PROTO__METRICS__V1__ANY_VALUE__VALUE_STRING_VALUE;
	av->string_value = (char *)v;
	kv->key = (char *)k;
	kv->value = av;
}

int otlp_encode(const struct series_set *set, size_t from, size_t to, struct byte_buf *raw)
{
	size_t n = to - from, nl = 0, ai = 0, nm = 0;
	OTLP(ExportMetricsServiceRequest) req = OPENTELEMETRY__PROTO__METRICS__V1__EXPORT_METRICS_SERVICE_REQUEST__INIT;
	OTLP(ResourceMetrics) rm = OPENTELEMETRY__PROTO__METRICS__V1__RESOURCE_METRICS__INIT, *rm_p = &rm;
	OTLP(Resource) res = OPENTELEMETRY__PROTO__METRICS__V1__RESOURCE__INIT;
	OTLP(ScopeMetrics) sm = OPENTELEMETRY__PROTO__METRICS__V1__SCOPE_METRICS__INIT, *sm_p = &sm;
	OTLP(InstrumentationScope) scope = OPENTELEMETRY__PROTO__METRICS__V1__INSTRUMENTATION_SCOPE__INIT;
	OTLP(KeyValue) rkv[2], *rkv_p[2];
	OTLP(AnyValue) rav[2];
	OTLP(Metric) *met = NULL, **met_p = NULL;
	OTLP(Gauge) *gauge = NULL;
	OTLP(Sum) *sum = NULL;
	OTLP(NumberDataPoint) *dp = NULL, **dp_p = NULL;
	OTLP(KeyValue) *kv = NULL, **kv_p = NULL;
	OTLP(AnyValue) *av = NULL;
	size_t *first = NULL, *count = NULL, *fill = NULL, *metric_of = NULL;
	int err = -ENOMEM;

	for (size_t i = from; i < to; i++)
		nl += set->items[i].nr_labels;
	met = calloc(n ? n : 1, sizeof(*met));
	met_p = calloc(n ? n : 1, sizeof(*met_p));
	gauge = calloc(n ? n : 1, sizeof(*gauge));
	sum = calloc(n ? n : 1, sizeof(*sum));
	dp = calloc(n ? n : 1, sizeof(*dp));
	dp_p = calloc(n ? n : 1, sizeof(*dp_p));
	kv = calloc(nl ? nl : 1, sizeof(*kv));
	kv_p = calloc(nl ? nl : 1, sizeof(*kv_p));
	av = calloc(nl ? nl : 1, sizeof(*av));
	first = calloc(n ? n : 1, sizeof(*first));
	count = calloc(n ? n : 1, sizeof(*count));
	fill = calloc(n ? n : 1, sizeof(*fill));
	metric_of = calloc(n ? n : 1, sizeof(*metric_of));
	if (!met || !met_p || !gauge || !sum || !dp || !dp_p || !kv || !kv_p || !av || !first || !count ||
	    !fill || !metric_of)
		goto free_arrays;

	/* group the items by metric name (names are shared pointers within a set) */
	for (size_t k = 0; k < n; k++) {
		const struct series_item *it = &set->items[from + k];
		size_t m = nm;

		for (size_t j = nm; j-- > 0;)
			if (met[j].name == it->name || strcmp(met[j].name, it->name) == 0) {
				m = j;
				break;
			}
		if (m == nm) {
			opentelemetry__proto__metrics__v1__metric__init(&met[m]);
			met[m].name = (char *)it->name;
			if (it->bytes)
				met[m].unit = "By";
			else if (it->counter)
				met[m].unit = "1";
			if (it->counter) {
				opentelemetry__proto__metrics__v1__sum__init(&sum[m]);
				sum[m].aggregation_temporality =
					OPENTELEMETRY__PROTO__METRICS__V1__AGGREGATION_TEMPORALITY__AGGREGATION_TEMPORALITY_CUMULATIVE;
				sum[m].is_monotonic = 1;
				met[m].data_case = OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_SUM;
				met[m].sum = &sum[m];
			} else {
				opentelemetry__proto__metrics__v1__gauge__init(&gauge[m]);
				met[m].data_case = OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_GAUGE;
				met[m].gauge = &gauge[m];
			}
			met_p[m] = &met[m];
			nm++;
		}
		metric_of[k] = m;
		count[m]++;
	}
	for (size_t m = 1; m < nm; m++)
		first[m] = first[m - 1] + count[m - 1];

	for (size_t k = 0; k < n; k++) {
		const struct series_item *it = &set->items[from + k];
		size_t m = metric_of[k], slot = first[m] + fill[m]++;
		OTLP(NumberDataPoint) *p = &dp[k];

		opentelemetry__proto__metrics__v1__number_data_point__init(p);
		p->time_unix_nano = (uint64_t)set->ts_ms * 1000000u;
		if (it->counter) /* cumulative: since the series was first seen (series_set.h) */
			p->start_time_unix_nano = (uint64_t)it->start_ms * 1000000u;
		if (it->stale) {
			p->flags = OPENTELEMETRY__PROTO__METRICS__V1__DATA_POINT_FLAGS__DATA_POINT_FLAGS_NO_RECORDED_VALUE_MASK;
		} else {
			p->value_case = OPENTELEMETRY__PROTO__METRICS__V1__NUMBER_DATA_POINT__VALUE_AS_DOUBLE;
			p->as_double = it->value;
		}
		p->attributes = &kv_p[ai];
		for (uint32_t j = 0; j < it->nr_labels; j++) {
			const struct label_pair *l = &set->labels[it->label_off + j];

			if (strcmp(l->name, "__name__") == 0 || strcmp(l->name, "host") == 0)
				continue;
			set_string_kv(&kv[ai], &av[ai], l->name, l->value);
			kv_p[ai] = &kv[ai];
			ai++;
			p->n_attributes++;
		}
		dp_p[slot] = p;
	}
	for (size_t m = 0; m < nm; m++) {
		if (met[m].data_case == OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_SUM) {
			sum[m].n_data_points = count[m];
			sum[m].data_points = &dp_p[first[m]];
		} else {
			gauge[m].n_data_points = count[m];
			gauge[m].data_points = &dp_p[first[m]];
		}
	}

	set_string_kv(&rkv[0], &rav[0], "host.name", set->host ? set->host : "");
	set_string_kv(&rkv[1], &rav[1], "service.name", "memcg_bpf");
	rkv_p[0] = &rkv[0];
	rkv_p[1] = &rkv[1];
	res.n_attributes = 2;
	res.attributes = rkv_p;
	scope.name = "memcg_bpf";
	scope.version = OTLP_SCOPE_VERSION;
	sm.scope = &scope;
	sm.n_metrics = nm;
	sm.metrics = met_p;
	rm.resource = &res;
	rm.n_scope_metrics = 1;
	rm.scope_metrics = &sm_p;
	req.n_resource_metrics = 1;
	req.resource_metrics = &rm_p;

	err = byte_buf_reserve(raw, opentelemetry__proto__metrics__v1__export_metrics_service_request__get_packed_size(&req) + 1);
	if (err)
		goto free_arrays;
	raw->len = opentelemetry__proto__metrics__v1__export_metrics_service_request__pack(&req, raw->data);
	err = 0;
free_arrays:
	free(metric_of);
	free(fill);
	free(count);
	free(first);
	free(av);
	free(kv_p);
	free(kv);
	free(dp_p);
	free(dp);
	free(sum);
	free(gauge);
	free(met_p);
	free(met);
	return err;
}
