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
 *
 * Written directly with pb_write.h, like remote write: a series' attribute
 * fields are encoded once and kept by the label cache (wire/label_cache.h);
 * each interval writes the points around them. The bytes are those
 * protobuf-c packs for the same message (proto/otlp_metrics.proto, checked
 * by test_batch_encode); fields go in field number order, a proto3 scalar
 * or string equal to its zero value is not written, a oneof member that is
 * set always is:
 *   ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
 *   ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; }
 *   Resource        { repeated KeyValue attributes = 1; }
 *   ScopeMetrics    { InstrumentationScope scope = 1; repeated Metric metrics = 2; }
 *   InstrumentationScope { string name = 1; string version = 2; }
 *   Metric          { string name = 1; string unit = 3; oneof { Gauge gauge = 5; Sum sum = 7; } }
 *   Gauge           { repeated NumberDataPoint data_points = 1; }
 *   Sum             { repeated NumberDataPoint data_points = 1;
 *                     AggregationTemporality aggregation_temporality = 2; bool is_monotonic = 3; }
 *   NumberDataPoint { fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3;
 *                     oneof { double as_double = 4; } repeated KeyValue attributes = 7; uint32 flags = 8; }
 *   KeyValue        { string key = 1; AnyValue value = 2; }
 *   AnyValue        { oneof { string string_value = 1; } }
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wire/encoders.h"
#include "wire/pb_write.h"

#define OTLP_SCOPE_NAME "memcg_bpf"
#define OTLP_SCOPE_VERSION "0.1.0"
#define OTLP_SERVICE_NAME "memcg_bpf"
#define AGGREGATION_TEMPORALITY_CUMULATIVE 2
#define DATA_POINT_FLAGS_NO_RECORDED_VALUE 1

/* Bytes of a KeyValue message with a string value. */
static size_t kv_size(size_t klen, size_t vlen)
{
	return (klen ? pb_len_field_size(klen) : 0) + pb_len_field_size(pb_len_field_size(vlen));
}

/* Writes a KeyValue with a string value as field @field. */
static uint8_t *kv_field(uint8_t *p, unsigned int field, const char *k, size_t klen, const char *v, size_t vlen)
{
	p = pb_len_header(p, field, kv_size(klen, vlen));
	if (klen)
		p = pb_len_field(p, 1, k, klen);
	p = pb_len_header(p, 2, pb_len_field_size(vlen));
	return pb_len_field(p, 1, v, vlen);
}

static size_t kv_field_size(size_t klen, size_t vlen)
{
	return pb_len_field_size(kv_size(klen, vlen));
}

static bool attribute(const struct label_pair *l)
{
	return strcmp(l->name, "__name__") != 0 && strcmp(l->name, "host") != 0;
}

/* The attribute fields of a new series' data point, kept by the label cache. */
static int encode_attributes(struct label_cache *c, const struct series_set *set, const struct series_item *it,
			     struct byte_buf *out)
{
	size_t n = 0;
	uint8_t *p;
	int err;

	(void)c;
	for (uint32_t j = 0; j < it->nr_labels; j++) {
		const struct label_len *len = &set->label_lens[it->label_off + j];

		if (attribute(&set->labels[it->label_off + j]))
			n += kv_field_size(len->name, len->value);
	}
	err = byte_buf_reserve(out, out->len + n);
	if (err)
		return err;
	p = out->data + out->len;
	for (uint32_t j = 0; j < it->nr_labels; j++) {
		const struct label_pair *l = &set->labels[it->label_off + j];
		const struct label_len *len = &set->label_lens[it->label_off + j];

		if (attribute(l))
			p = kv_field(p, 7, l->name, len->name, l->value, len->value);
	}
	out->len = (size_t)(p - out->data);
	return 0;
}

/* A NumberDataPoint's fields but the attributes. */
struct point {
	uint64_t start_ns, time_ns;
	bool stale;
};

static struct point point_of(const struct series_set *set, const struct series_item *it)
{
	return (struct point){
		.start_ns = it->counter ? (uint64_t)it->start_ms * 1000000u : 0, /* series_set.h */
		.time_ns = (uint64_t)set->ts_ms * 1000000u,
		.stale = it->stale,
	};
}

static size_t point_size(const struct point *pt, const struct label_blob *attrs)
{
	return (pt->start_ns ? 9 : 0) + (pt->time_ns ? 9 : 0) + (pt->stale ? 2 : 9) + attrs->len;
}

static uint8_t *point_field(uint8_t *p, const struct point *pt, double value, const struct label_blob *attrs)
{
	p = pb_len_header(p, 1, point_size(pt, attrs));
	if (pt->start_ns)
		p = pb_fixed64(p, 2, pt->start_ns);
	if (pt->time_ns)
		p = pb_fixed64(p, 3, pt->time_ns);
	if (!pt->stale)
		p = pb_double(p, 4, value);
	memcpy(p, attrs->data, attrs->len);
	p += attrs->len;
	if (pt->stale) {
		p = pb_tag(p, 8, PB_VARINT);
		p = pb_varint(p, DATA_POINT_FLAGS_NO_RECORDED_VALUE);
	}
	return p;
}

/* One Metric of the request: its items, grouped by name in order of first appearance. */
struct metric {
	const char *name;
	size_t name_len;
	const char *unit;
	bool counter;
	size_t first, count, fill; /* into the point order */
	size_t data_size;          /* of its Gauge or Sum message */
};

static size_t metric_size(const struct metric *m)
{
	return pb_len_field_size(m->name_len) + (m->unit ? pb_len_field_size(strlen(m->unit)) : 0) +
	       pb_len_field_size(m->data_size);
}

/* The index of @it's metric among @nm; @nm when it has none yet. Names are mostly shared pointers. */
static size_t find_metric(const struct metric *met, size_t nm, const struct series_item *it)
{
	for (size_t j = nm; j-- > 0;)
		if (met[j].name == it->name)
			return j;
	for (size_t j = nm; j-- > 0;)
		if (strcmp(met[j].name, it->name) == 0)
			return j;
	return nm;
}

static size_t resource_size(const struct series_set *set)
{
	return kv_field_size(strlen("host.name"), set->host ? strlen(set->host) : 0) +
	       kv_field_size(strlen("service.name"), strlen(OTLP_SERVICE_NAME));
}

static size_t scope_size(void)
{
	return pb_len_field_size(strlen(OTLP_SCOPE_NAME)) + pb_len_field_size(strlen(OTLP_SCOPE_VERSION));
}

int otlp_encode(const struct series_set *set, size_t from, size_t to, struct label_cache *c,
		struct byte_buf *raw)
{
	size_t n = to - from, nm = 0, sm_size, rm_size, total;
	struct label_blob *b = NULL;
	struct metric *met = NULL;
	size_t *metric_of = NULL, *order = NULL;
	const char *host = set->host ? set->host : "";
	uint8_t *p;
	int err = -ENOMEM;

	b = malloc((n ? n : 1) * sizeof(*b));
	met = malloc((n ? n : 1) * sizeof(*met));
	metric_of = malloc((n ? n : 1) * sizeof(*metric_of));
	order = malloc((n ? n : 1) * sizeof(*order));
	if (!b || !met || !metric_of || !order)
		goto free_arrays;
	err = label_cache_get(c, WIRE_OTLP, set, from, to, encode_attributes, b);
	if (err)
		goto free_arrays;

	/* metrics, their points' sizes, and the order of the points (by metric) */
	for (size_t k = 0; k < n; k++) {
		const struct series_item *it = &set->items[from + k];
		struct point pt = point_of(set, it);
		size_t m = find_metric(met, nm, it);

		if (m == nm) {
			met[m] = (struct metric){ .name = it->name, .name_len = strlen(it->name),
						  .counter = it->counter };
			if (it->unit)
				met[m].unit = it->unit;
			else if (it->counter)
				met[m].unit = "1";
			if (it->counter) /* aggregation_temporality, is_monotonic */
				met[m].data_size = 2 + 2;
			nm++;
		}
		metric_of[k] = m;
		met[m].count++;
		met[m].data_size += pb_len_field_size(point_size(&pt, &b[k]));
	}
	sm_size = pb_len_field_size(scope_size());
	for (size_t m = 0; m < nm; m++) {
		met[m].first = m ? met[m - 1].first + met[m - 1].count : 0;
		sm_size += pb_len_field_size(metric_size(&met[m]));
	}
	for (size_t k = 0; k < n; k++) {
		struct metric *m = &met[metric_of[k]];

		order[m->first + m->fill++] = k;
	}
	rm_size = pb_len_field_size(resource_size(set)) + pb_len_field_size(sm_size);
	total = pb_len_field_size(rm_size);

	err = byte_buf_reserve(raw, total + 1);
	if (err)
		goto free_arrays;
	p = raw->data;
	p = pb_len_header(p, 1, rm_size);
	p = pb_len_header(p, 1, resource_size(set));
	p = kv_field(p, 1, "host.name", strlen("host.name"), host, strlen(host));
	p = kv_field(p, 1, "service.name", strlen("service.name"), OTLP_SERVICE_NAME, strlen(OTLP_SERVICE_NAME));
	p = pb_len_header(p, 2, sm_size);
	p = pb_len_header(p, 1, scope_size());
	p = pb_len_field(p, 1, OTLP_SCOPE_NAME, strlen(OTLP_SCOPE_NAME));
	p = pb_len_field(p, 2, OTLP_SCOPE_VERSION, strlen(OTLP_SCOPE_VERSION));
	for (size_t m = 0; m < nm; m++) {
		const struct metric *mt = &met[m];

		p = pb_len_header(p, 2, metric_size(mt));
		p = pb_len_field(p, 1, mt->name, mt->name_len);
		if (mt->unit)
			p = pb_len_field(p, 3, mt->unit, strlen(mt->unit));
		p = pb_len_header(p, mt->counter ? 7 : 5, mt->data_size);
		for (size_t j = mt->first; j < mt->first + mt->count; j++) {
			const struct series_item *it = &set->items[from + order[j]];
			struct point pt = point_of(set, it);

			p = point_field(p, &pt, it->value, &b[order[j]]);
		}
		if (mt->counter) {
			p = pb_tag(p, 2, PB_VARINT);
			p = pb_varint(p, AGGREGATION_TEMPORALITY_CUMULATIVE);
			p = pb_tag(p, 3, PB_VARINT);
			p = pb_varint(p, 1);
		}
	}
	raw->len = (size_t)(p - raw->data);
	err = raw->len == total ? 0 : -EFAULT;
free_arrays:
	free(order);
	free(metric_of);
	free(met);
	free(b);
	return err;
}
