// SPDX-License-Identifier: GPL-2.0-only
/*
 * OTLP/HTTP protobuf: one ExportMetricsServiceRequest per batch with one
 * ResourceMetrics, one ScopeMetrics (scope "memcg_bpf") and one Metric per
 * metric name: a Gauge, or a cumulative monotonic Sum for counters, with
 * the series' UCUM unit (series/metric_names.h: "By", "s", "{page}").
 *
 * Following the OpenTelemetry semantic conventions (README, "OTLP"):
 *  - the resource is the host's plugin: host.name (the host),
 *    service.instance.id (ServiceInstanceId, by default the host as well:
 *    unique per host, so two hosts never merge where a receiver keys series
 *    on service.name and service.instance.id, as Prometheus' job and
 *    instance) and service.name "memcg_bpf";
 *  - each data point carries the series' labels but __name__ as attributes,
 *    the identity labels under their semantic-convention names
 *    (attribute_names[] below), every other label under its own name. The
 *    label host stays on every point next to the resource's host.name, so
 *    that a receiver that turns resource attributes into something else
 *    (Prometheus: target_info) still has it where the shipped dashboard and
 *    rules look for it.
 *
 * A point has the time in ns and the value as a double; a stale marker is a
 * point with no value and flag NO_RECORDED_VALUE. A Sum's points have
 * start_time_unix_nano: the time the plugin first saw the series (its
 * cgroup's first sample since it last appeared; for the plugin's own
 * counters, its first interval), so a cgroup that vanished and came back
 * starts a new cumulative series.
 *
 * Written directly with pb_write.h, like remote write: a series' attribute
 * fields are encoded once and kept by the label cache (wire/label_cache.h);
 * each interval writes the points around them, a piece at a time, into a
 * sink (wire/encoders.h) that compresses them as they come: no request is
 * ever whole in memory, nor kept from one interval to the next (the
 * sizes of its messages come first, from the label cache's bytes and the
 * points' fields, so each length is known before it is written). The bytes are those
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
#include "memcg_bpf_config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macros.h"
#include "wire/encoders.h"
#include "wire/pb_write.h"

#define OTLP_SCOPE_NAME "memcg_bpf"
#define OTLP_SCOPE_VERSION PACKAGE_VERSION /* the package's: configure.ac */
#define OTLP_SERVICE_NAME "memcg_bpf"
#define AGGREGATION_TEMPORALITY_CUMULATIVE 2
#define DATA_POINT_FLAGS_NO_RECORDED_VALUE 1

/*
 * Labels sent under another name: the identity labels (series/cgroup_labels.h)
 * as the semantic conventions name them. "container" is k8s.container.name
 * in a series of a Kubernetes pod (one with pod_uid, pod or namespace),
 * container.name elsewhere (docker, podman). systemd.unit is no semantic
 * convention (there is none for a systemd unit): a name in the same style.
 */
static const struct {
	const char *label, *attribute, *outside_k8s;
} attribute_names[] = {
	{ "container", "k8s.container.name", "container.name" },
	{ "container_id", "container.id", NULL },
	{ "namespace", "k8s.namespace.name", NULL },
	{ "pod", "k8s.pod.name", NULL },
	{ "pod_uid", "k8s.pod.uid", NULL },
	{ "unit", "systemd.unit", NULL },
};

const char *otlp_attribute_name(const char *label, bool k8s)
{
	for (size_t i = 0; i < ARRAY_SIZE(attribute_names); i++)
		if (label[0] == attribute_names[i].label[0] && strcmp(label, attribute_names[i].label) == 0)
			return k8s || !attribute_names[i].outside_k8s ? attribute_names[i].attribute
								      : attribute_names[i].outside_k8s;
	return label;
}

/* Whether a series with labels @l describes a Kubernetes pod's cgroup. */
static bool k8s_series(const struct label_pair *l, uint32_t n)
{
	for (uint32_t j = 0; j < n; j++)
		if (strcmp(l[j].name, "pod_uid") == 0 || strcmp(l[j].name, "pod") == 0 ||
		    strcmp(l[j].name, "namespace") == 0)
			return true;
	return false;
}

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
	return strcmp(l->name, "__name__") != 0;
}

/* The attribute name of a label and its length. */
static const char *attribute_name(const struct label_pair *l, const struct label_len *len, bool k8s,
				  size_t *name_len)
{
	const char *name = otlp_attribute_name(l->name, k8s);

	*name_len = name == l->name ? len->name : strlen(name);
	return name;
}

/*
 * The attribute fields of a new series' data point, kept by the label
 * cache: __name__ is none, so a cgroup's series (@cgroup) share them.
 */
static int encode_attributes(struct label_cache *c, const struct series_set *set, const struct series_item *it,
			     bool cgroup, struct byte_buf *out, uint32_t *name_at)
{
	struct label_pair labels[SERIES_ITEM_MAX_LABELS];
	struct label_len lens[SERIES_ITEM_MAX_LABELS];
	size_t n = 0, name_len;
	uint8_t *p;
	bool k8s;
	int err;

	(void)c;
	(void)cgroup;
	(void)name_at; /* LABEL_BLOB_WHOLE: nothing to add */
	for (uint32_t j = 0; j < it->nr_labels; j++)
		series_item_label(set, it, j, &labels[j], &lens[j]);
	k8s = k8s_series(labels, it->nr_labels);
	for (uint32_t j = 0; j < it->nr_labels; j++)
		if (attribute(&labels[j])) {
			attribute_name(&labels[j], &lens[j], k8s, &name_len);
			n += kv_field_size(name_len, lens[j].value);
		}
	err = byte_buf_reserve(out, out->len + n);
	if (err)
		return err;
	p = out->data + out->len;
	for (uint32_t j = 0; j < it->nr_labels; j++)
		if (attribute(&labels[j])) {
			const char *name = attribute_name(&labels[j], &lens[j], k8s, &name_len);

			p = kv_field(p, 7, name, name_len, labels[j].value, lens[j].value);
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

/* The resource's attributes, in the order they are written. */
struct resource {
	const char *host, *instance_id;
};

static struct resource resource_of(const struct series_set *set)
{
	struct resource r = { .host = set->host ? set->host : "" };

	r.instance_id = set->instance_id && set->instance_id[0] ? set->instance_id : r.host;
	return r;
}

static size_t resource_size(const struct resource *r)
{
	return kv_field_size(strlen("host.name"), strlen(r->host)) +
	       kv_field_size(strlen("service.instance.id"), strlen(r->instance_id)) +
	       kv_field_size(strlen("service.name"), strlen(OTLP_SERVICE_NAME));
}

static uint8_t *resource_field(uint8_t *p, const struct resource *r)
{
	p = pb_len_header(p, 1, resource_size(r));
	p = kv_field(p, 1, "host.name", strlen("host.name"), r->host, strlen(r->host));
	p = kv_field(p, 1, "service.instance.id", strlen("service.instance.id"), r->instance_id,
		     strlen(r->instance_id));
	return kv_field(p, 1, "service.name", strlen("service.name"), OTLP_SERVICE_NAME, strlen(OTLP_SERVICE_NAME));
}

static size_t scope_size(void)
{
	return pb_len_field_size(strlen(OTLP_SCOPE_NAME)) + pb_len_field_size(strlen(OTLP_SCOPE_VERSION));
}

/*
 * A request's protobuf on its way to the sink: gathered in @piece and
 * handed over whenever the next field would not fit.
 */
struct piece_writer {
	struct byte_buf *piece;
	const struct piece_sink *sink;
	size_t handed; /* bytes handed to the sink so far */
};

/* Hands the piece gathered up to @p to the sink; the piece is empty after. 0 or a negative errno. */
static int hand_over(struct piece_writer *w, uint8_t *p)
{
	struct byte_buf *b = w->piece;
	int err = 0;

	b->len = (size_t)(p - b->data);
	if (b->len)
		err = w->sink->put(w->sink->ctx, b->data, b->len);
	w->handed += err ? 0 : b->len;
	b->len = 0;
	return err;
}

/* piece_room()'s slow path: the piece handed over, and room for @need bytes made. */
static uint8_t *piece_hand_over(struct piece_writer *w, uint8_t *p, size_t need, int *err)
{
	*err = hand_over(w, p);
	if (!*err)
		*err = byte_buf_reserve(w->piece, need > ENCODE_PIECE_BYTES ? need : ENCODE_PIECE_BYTES);
	return *err ? NULL : w->piece->data;
}

/* Where the next @need bytes go (@p, while they fit); the piece gathered so far handed over first when they would not. */
static inline uint8_t *piece_room(struct piece_writer *w, uint8_t *p, size_t need, int *err)
{
	if ((size_t)(w->piece->data + w->piece->cap - p) >= need)
		return p;
	return piece_hand_over(w, p, need, err);
}

/*
 * The metrics of items [from, from + n): @met (grown as needed, *@nm of
 * them) and each item's in @metric_of. *@grouped: each metric's items
 * come one after another, in the order of the metrics (the stat-major
 * order of series_set_build(), but for stale markers and self metrics).
 */
static int group_metrics(const struct series_set *set, size_t from, size_t n, const struct label_blob *b,
			 struct metric **met, size_t *nm, uint32_t *metric_of, bool *grouped)
{
	size_t cap = 0;

	*nm = 0;
	*grouped = true;
	for (size_t k = 0; k < n; k++) {
		const struct series_item *it = &set->items[from + k];
		struct point pt = point_of(set, it);
		size_t m = find_metric(*met, *nm, it);

		if (m == *nm) {
			if (m == cap) {
				struct metric *grown = realloc(*met, (cap = cap ? cap * 2 : 32) * sizeof(**met));

				if (!grown)
					return -ENOMEM;
				*met = grown;
			}
			(*met)[m] = (struct metric){ .name = it->name, .name_len = strlen(it->name),
						     .unit = it->unit, .counter = it->counter };
			if (it->counter) /* aggregation_temporality, is_monotonic */
				(*met)[m].data_size = 2 + 2;
			(*nm)++;
		}
		*grouped = *grouped && m == *nm - 1;
		metric_of[k] = (uint32_t)m;
		(*met)[m].count++;
		(*met)[m].data_size += pb_len_field_size(point_size(&pt, &b[k]));
	}
	return 0;
}

/* The bytes before the first Metric's: headers, the resource and the scope. */
#define HEADER_ROOM 16
static size_t prefix_size(const struct resource *res)
{
	return 3 * HEADER_ROOM + pb_len_field_size(resource_size(res)) + pb_len_field_size(scope_size());
}

static size_t metric_header_size(const struct metric *m)
{
	return 2 * HEADER_ROOM + pb_len_field_size(m->name_len) + (m->unit ? pb_len_field_size(strlen(m->unit)) : 0);
}

/* The most bytes a point takes but its attributes: its header and its fields (point_field()). */
#define POINT_ROOM (HEADER_ROOM + 3 * 9 + 2)

/* Writes the request of items [from, from + n), its metrics @met and the points in @order (NULL: in item order), through @w. */
static int write_request(struct piece_writer *w, const struct series_set *set, size_t from,
			 const struct label_blob *b, const struct metric *met, size_t nm, const uint32_t *order,
			 size_t rm_size, size_t sm_size)
{
	struct resource res = resource_of(set);
	int err = byte_buf_reserve(w->piece, ENCODE_PIECE_BYTES);
	uint8_t *p;

	if (err)
		return err;
	p = piece_room(w, w->piece->data, prefix_size(&res), &err);
	if (!p)
		return err;
	p = pb_len_header(p, 1, rm_size);
	p = resource_field(p, &res);
	p = pb_len_header(p, 2, sm_size);
	p = pb_len_header(p, 1, scope_size());
	p = pb_len_field(p, 1, OTLP_SCOPE_NAME, strlen(OTLP_SCOPE_NAME));
	p = pb_len_field(p, 2, OTLP_SCOPE_VERSION, strlen(OTLP_SCOPE_VERSION));
	for (size_t m = 0; m < nm; m++) {
		const struct metric *mt = &met[m];

		if (!(p = piece_room(w, p, metric_header_size(mt), &err)))
			return err;
		p = pb_len_header(p, 2, metric_size(mt));
		p = pb_len_field(p, 1, mt->name, mt->name_len);
		if (mt->unit)
			p = pb_len_field(p, 3, mt->unit, strlen(mt->unit));
		p = pb_len_header(p, mt->counter ? 7 : 5, mt->data_size);
		for (size_t j = mt->first; j < mt->first + mt->count; j++) {
			size_t k = order ? order[j] : j;
			const struct series_item *it = &set->items[from + k];
			struct point pt = point_of(set, it);

			if (!(p = piece_room(w, p, POINT_ROOM + b[k].len, &err)))
				return err;
			p = point_field(p, &pt, it->value, &b[k]);
		}
		if (mt->counter) {
			if (!(p = piece_room(w, p, HEADER_ROOM, &err)))
				return err;
			p = pb_tag(p, 2, PB_VARINT);
			p = pb_varint(p, AGGREGATION_TEMPORALITY_CUMULATIVE);
			p = pb_tag(p, 3, PB_VARINT);
			p = pb_varint(p, 1);
		}
	}
	return hand_over(w, p); /* the last piece: @p is where the request ends */
}

/* Room in @w's arrays for @n items. */
static int work_reserve(struct otlp_work *w, size_t n)
{
	void *a, *m, *o;

	if (n <= w->cap)
		return 0;
	a = realloc(w->attrs, n * sizeof(*w->attrs));
	if (a)
		w->attrs = a;
	m = realloc(w->metric_of, n * sizeof(*w->metric_of));
	if (m)
		w->metric_of = m;
	o = realloc(w->order, n * sizeof(*w->order));
	if (o)
		w->order = o;
	if (!a || !m || !o)
		return -ENOMEM;
	w->cap = n;
	return 0;
}

int otlp_encode(const struct series_set *set, size_t from, size_t to, struct label_cache *c,
		struct otlp_work *w, const struct piece_sink *sink)
{
	size_t n = to - from, nm = 0, sm_size, rm_size, total;
	struct piece_writer pw = { .piece = &w->piece, .sink = sink };
	struct resource res = resource_of(set);
	struct metric *met = NULL;
	int err = work_reserve(w, n ? n : 1);
	bool grouped;

	if (!err)
		err = label_cache_get(c, WIRE_OTLP, set, from, to, encode_attributes, true, w->attrs);
	if (!err)
		err = group_metrics(set, from, n, w->attrs, &met, &nm, w->metric_of, &grouped);
	if (err)
		goto free_metrics;

	/* the sizes, and the order of the points (by metric) */
	sm_size = pb_len_field_size(scope_size());
	for (size_t m = 0; m < nm; m++) {
		met[m].first = m ? met[m - 1].first + met[m - 1].count : 0;
		sm_size += pb_len_field_size(metric_size(&met[m]));
	}
	for (size_t k = 0; k < n && !grouped; k++) {
		struct metric *m = &met[w->metric_of[k]];

		w->order[m->first + m->fill++] = (uint32_t)k;
	}
	rm_size = pb_len_field_size(resource_size(&res)) + pb_len_field_size(sm_size);
	total = pb_len_field_size(rm_size);

	err = sink->start(sink->ctx, total);
	if (!err)
		err = write_request(&pw, set, from, w->attrs, met, nm, grouped ? NULL : w->order, rm_size, sm_size);
	if (!err && pw.handed != total)
		err = -EFAULT;
free_metrics:
	free(met);
	return err;
}

void otlp_work_free(struct otlp_work *w)
{
	byte_buf_free(&w->piece);
	free(w->attrs);
	free(w->metric_of);
	free(w->order);
	*w = (struct otlp_work){ 0 };
}
