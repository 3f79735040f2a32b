// SPDX-License-Identifier: GPL-2.0-only
/* Requests on the wire: decoded back with protobuf-c after decompression. */
#include "memcg_bpf_config.h"

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "base/macros.h"
#include "wire/batch_encode.h"
#include "wire/encoders.h"
#include "wire/label_cache.h"
#include "proto/otlp_metrics.pb-c.h"
#include "proto/remote_write.pb-c.h"
#include "proto/remote_write_v2.pb-c.h"
#include "sampling/sample_table.h"
#include "item_labels.h"

static const struct stat_def *cols[3];
static const struct label_pair statics[] = { { "zone", "z1" } };
static const struct series_opts opts = { .host = "h1", .labels = statics, .nr_labels = 1 };

/* A set of n cgroups x 3 stats, plus stale markers for one vanished cgroup. */
static void build(struct series_set *set, size_t n, bool with_stale)
{
	struct stale_tracker *st = stale_tracker_new();
	struct sample_table t;
	struct snapshot *s;
	char path[64];

	cols[0] = stat_lookup("anon");
	cols[1] = stat_lookup("pgfault");
	cols[2] = stat_lookup("usage");
	for (int round = with_stale ? 0 : 1; round < 2; round++) {
		sample_table_init(&t, cols, 3);
		t.timestamp_ns = 1700000000123456789ULL + round * 1000000000ULL;
		for (size_t i = 0; i < n + (round == 0); i++) {
			struct sample_row *r;

			snprintf(path, sizeof(path), "/grp-%zu", round == 0 && i == n ? 999 : i);
			r = sample_table_add(&t, i + 1, path, 1);
			r->values[0] = 4096 * i;
			r->values[1] = 7 + i;
			r->values[2] = 1ULL << 40;
		}
		assert_int_equal(snapshot_from_table(&t, NULL, NULL, &s), 0);
		sample_table_free(&t);
		series_set_init(set);
		assert_int_equal(series_set_build(set, &opts, s, st), 0);
		snapshot_free(s);
		if (round == 0)
			series_set_free(set);
	}
	stale_tracker_free(st);
}

static uint8_t *unsnappy(const struct payload *p, size_t *len)
{
	uint8_t *out;

	assert_int_equal(snappy_uncompressed_length((const char *)p->body, p->len, len), SNAPPY_OK);
	out = malloc(*len);
	assert_int_equal(snappy_uncompress((const char *)p->body, p->len, (char *)out, len), SNAPPY_OK);
	assert_int_equal(*len, p->raw_len);
	return out;
}

static void test_remote_write_v1(void **state)
{
	struct series_set set;
	struct payload_list pl = { 0 };
	struct batch_limits lim = { 0 };
	size_t len, stale = 0;
	uint8_t *raw;
	Prometheus__WriteRequest *req;

	build(&set, 4, true);
	assert_int_equal(batch_encode(&set, WIRE_REMOTE_WRITE, COMPRESSION_DEFAULT, &lim, &pl), 0);
	assert_int_equal(pl.n, 1);
	assert_int_equal(pl.p[0].compression, COMPRESSION_SNAPPY);
	raw = unsnappy(&pl.p[0], &len);
	req = prometheus__write_request__unpack(NULL, len, raw);
	assert_non_null(req);
	assert_int_equal(req->n_timeseries, 4 * 3 + 3);
	for (size_t i = 0; i < req->n_timeseries; i++) {
		Prometheus__TimeSeries *ts = req->timeseries[i];

		assert_int_equal(ts->n_labels, 4);
		assert_string_equal(ts->labels[0]->name, "__name__");
		for (size_t k = 1; k < ts->n_labels; k++)
			assert_true(strcmp(ts->labels[k - 1]->name, ts->labels[k]->name) < 0);
		assert_int_equal(ts->n_samples, 1);
		assert_int_equal(ts->samples[0]->timestamp, 1700000001123); /* ms, truncated */
		if (isnan(ts->samples[0]->value)) {
			uint64_t bits;

			memcpy(&bits, &ts->samples[0]->value, 8);
			assert_int_equal(bits, 0x7ff0000000000002ULL);
			assert_string_equal(ts->labels[1]->value, "/grp-999");
			stale++;
		}
	}
	assert_int_equal(stale, 3);
	/* stat-major: the 4 cgroups' anon, then their pgfault, then their usage */
	assert_string_equal(req->timeseries[8]->labels[0]->value, "memcg_usage_bytes");
	assert_string_equal(req->timeseries[8]->labels[1]->value, "/grp-0");
	assert_true(req->timeseries[8]->samples[0]->value == (double)(1ULL << 40));
	assert_string_equal(req->timeseries[1]->labels[0]->value, "memcg_anon_bytes");
	assert_string_equal(req->timeseries[1]->labels[1]->value, "/grp-1");
	prometheus__write_request__free_unpacked(req, NULL);
	free(raw);
	payload_list_free(&pl);
	series_set_free(&set);
}

/*
 * Two intervals waiting together go out in one remote write 1.0 request:
 * the first interval's series, then the second's; split only by the limits.
 */
static void test_intervals_packed_into_one_request(void **state)
{
	struct series_set a, b;
	const struct series_set *sets[] = { &a, &b };
	struct payload_list pl = { 0 };
	struct batch_limits lim = { 0 };
	Prometheus__WriteRequest *req;
	size_t len;
	uint8_t *raw;

	build(&a, 4, false);
	build(&b, 4, false);
	b.ts_ms = a.ts_ms + 1000;
	assert_int_equal(batch_encode_sets(sets, 2, WIRE_REMOTE_WRITE, COMPRESSION_DEFAULT, &lim, &pl), 0);
	assert_int_equal(pl.n, 1);
	assert_int_equal(pl.p[0].nr_samples, a.nr_items + b.nr_items);
	raw = unsnappy(&pl.p[0], &len);
	req = prometheus__write_request__unpack(NULL, len, raw);
	assert_non_null(req);
	assert_int_equal(req->n_timeseries, a.nr_items + b.nr_items);
	for (size_t i = 0; i < req->n_timeseries; i++)
		assert_int_equal(req->timeseries[i]->samples[0]->timestamp, i < a.nr_items ? a.ts_ms : b.ts_ms);
	prometheus__write_request__free_unpacked(req, NULL);
	free(raw);
	/* a limit between the two: two requests, the second holding the rest of a and all of b */
	payload_list_clear(&pl);
	lim.max_samples = a.nr_items - 2;
	assert_int_equal(batch_encode_sets(sets, 2, WIRE_REMOTE_WRITE, COMPRESSION_DEFAULT, &lim, &pl), 0);
	assert_int_equal(pl.n, 3);
	assert_int_equal(pl.p[0].nr_samples + pl.p[1].nr_samples + pl.p[2].nr_samples, a.nr_items + b.nr_items);
	/* remote write 2.0 joins no intervals */
	payload_list_clear(&pl);
	lim.max_samples = 0;
	assert_int_equal(batch_encode_sets(sets, 2, WIRE_REMOTE_WRITE_V2, COMPRESSION_DEFAULT, &lim, &pl), 0);
	assert_int_equal(pl.n, 2);
	payload_list_free(&pl);
	series_set_free(&a);
	series_set_free(&b);
}

static void test_split_by_samples_and_bytes(void **state)
{
	struct series_set set;
	struct payload_list pl = { 0 };
	struct batch_limits lim = { .max_samples = 10 };
	size_t total = 0;

	build(&set, 100, false); /* 300 items */
	assert_int_equal(batch_encode(&set, WIRE_REMOTE_WRITE, COMPRESSION_SNAPPY, &lim, &pl), 0);
	assert_int_equal(pl.n, 30);
	for (size_t i = 0; i < pl.n; i++) {
		assert_int_equal(pl.p[i].nr_samples, 10);
		total += pl.p[i].nr_samples;
	}
	assert_int_equal(total, 300);
	payload_list_clear(&pl);

	lim.max_samples = 100000;
	lim.max_bytes = 1000;
	assert_int_equal(batch_encode(&set, WIRE_REMOTE_WRITE, COMPRESSION_SNAPPY, &lim, &pl), 0);
	assert_true(pl.n > 1);
	total = 0;
	for (size_t i = 0; i < pl.n; i++) {
		assert_true(pl.p[i].raw_len <= 1000);
		total += pl.p[i].nr_samples;
	}
	assert_int_equal(total, 300);
	payload_list_free(&pl);
	series_set_free(&set);
}

static void test_remote_write_v2_symbols(void **state)
{
	struct series_set set;
	struct payload_list pl = { 0 };
	struct batch_limits lim = { 0 };
	size_t len;
	uint8_t *raw;
	Io__Prometheus__Write__V2__Request *req;

	build(&set, 4, true);
	assert_int_equal(batch_encode(&set, WIRE_REMOTE_WRITE_V2, COMPRESSION_DEFAULT, &lim, &pl), 0);
	raw = unsnappy(&pl.p[0], &len);
	req = io__prometheus__write__v2__request__unpack(NULL, len, raw);
	assert_non_null(req);
	assert_true(req->n_symbols > 1);
	assert_string_equal(req->symbols[0], "");
	for (size_t i = 0; i < req->n_symbols; i++)
		for (size_t j = i + 1; j < req->n_symbols; j++)
			assert_true(strcmp(req->symbols[i], req->symbols[j]) != 0);
	assert_int_equal(req->n_timeseries, 15);
	for (size_t i = 0; i < req->n_timeseries; i++) {
		Io__Prometheus__Write__V2__TimeSeries *ts = req->timeseries[i];

		assert_int_equal(ts->n_labels_refs, 8);
		for (size_t k = 0; k < ts->n_labels_refs; k++)
			assert_true(ts->labels_refs[k] < req->n_symbols);
		assert_string_equal(req->symbols[ts->labels_refs[0]], "__name__");
		for (size_t k = 2; k < ts->n_labels_refs; k += 2)
			assert_true(strcmp(req->symbols[ts->labels_refs[k - 2]], req->symbols[ts->labels_refs[k]]) < 0);
		assert_int_equal(ts->samples[0]->timestamp, 1700000001123);
		assert_non_null(ts->metadata);
	}
	assert_int_equal(req->timeseries[4]->metadata->type, /* pgfault of the first cgroup */
			 IO__PROMETHEUS__WRITE__V2__METADATA__METRIC_TYPE__METRIC_TYPE_COUNTER);
	assert_string_equal(req->symbols[req->timeseries[0]->metadata->unit_ref], "bytes");
	io__prometheus__write__v2__request__free_unpacked(req, NULL);
	free(raw);
	payload_list_free(&pl);
	series_set_free(&set);
}

static uint8_t *ungzip(const struct payload *p, size_t *len)
{
	uint8_t *out = malloc(p->raw_len + 1);
	z_stream z;

	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)p->body;
	z.avail_in = (uInt)p->len;
	z.next_out = out;
	z.avail_out = (uInt)p->raw_len + 1;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	*len = z.total_out;
	inflateEnd(&z);
	return out;
}

/* @p's protobuf: its body decompressed (gzip or zstd), raw_len bytes. */
static uint8_t *decompressed(const struct payload *p)
{
	uint8_t *raw;
	size_t len;

	if (p->compression == COMPRESSION_GZIP) {
		raw = ungzip(p, &len);
	} else {
		raw = malloc(p->raw_len ? p->raw_len : 1);
		len = ZSTD_decompress(raw, p->raw_len, p->body, p->len);
		assert_false(ZSTD_isError(len));
	}
	assert_int_equal(len, p->raw_len);
	return raw;
}

static void check_otlp(const uint8_t *raw, size_t len)
{
	Opentelemetry__Proto__Metrics__V1__ExportMetricsServiceRequest *req;
	Opentelemetry__Proto__Metrics__V1__ScopeMetrics *sm;
	size_t points = 0, stale = 0;

	req = opentelemetry__proto__metrics__v1__export_metrics_service_request__unpack(NULL, len, raw);
	assert_non_null(req);
	assert_int_equal(req->n_resource_metrics, 1);
	assert_int_equal(req->resource_metrics[0]->resource->n_attributes, 3);
	assert_string_equal(req->resource_metrics[0]->resource->attributes[0]->key, "host.name");
	assert_string_equal(req->resource_metrics[0]->resource->attributes[0]->value->string_value, "h1");
	/* by default the host: unique per host */
	assert_string_equal(req->resource_metrics[0]->resource->attributes[1]->key, "service.instance.id");
	assert_string_equal(req->resource_metrics[0]->resource->attributes[1]->value->string_value, "h1");
	assert_string_equal(req->resource_metrics[0]->resource->attributes[2]->key, "service.name");
	assert_string_equal(req->resource_metrics[0]->resource->attributes[2]->value->string_value, "memcg_bpf");
	sm = req->resource_metrics[0]->scope_metrics[0];
	/* the scope: the plugin, at the package's version */
	assert_string_equal(sm->scope->name, "memcg_bpf");
	assert_string_equal(sm->scope->version, PACKAGE_VERSION);
	assert_int_equal(sm->n_metrics, 3);
	for (size_t m = 0; m < sm->n_metrics; m++) {
		Opentelemetry__Proto__Metrics__V1__Metric *met = sm->metrics[m];
		Opentelemetry__Proto__Metrics__V1__NumberDataPoint **dp;
		size_t n;

		if (strcmp(met->name, "memcg_pgfault_total") == 0) {
			assert_int_equal(met->data_case, OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_SUM);
			assert_true(met->sum->is_monotonic);
			assert_string_equal(met->unit, "{fault}");
			dp = met->sum->data_points;
			n = met->sum->n_data_points;
		} else {
			assert_int_equal(met->data_case, OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_GAUGE);
			assert_string_equal(met->unit, "By");
			dp = met->gauge->data_points;
			n = met->gauge->n_data_points;
		}
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(dp[i]->time_unix_nano, 1700000001123000000ULL);
			/* counters: since the series was first seen (the first interval); gauges: none */
			assert_int_equal(dp[i]->start_time_unix_nano,
					 met->data_case == OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_SUM
						 ? 1700000000123000000ULL
						 : 0);
			/* cgroup and host, where the dashboard's queries look for them; zone */
			assert_int_equal(dp[i]->n_attributes, 3);
			assert_string_equal(dp[i]->attributes[0]->key, "cgroup");
			assert_string_equal(dp[i]->attributes[1]->key, "host");
			assert_string_equal(dp[i]->attributes[1]->value->string_value, "h1");
			assert_string_equal(dp[i]->attributes[2]->key, "zone");
			if (dp[i]->flags & 1) {
				assert_int_equal(dp[i]->value_case,
						 OPENTELEMETRY__PROTO__METRICS__V1__NUMBER_DATA_POINT__VALUE__NOT_SET);
				stale++;
			}
			points++;
		}
	}
	assert_int_equal(points, 15);
	assert_int_equal(stale, 3);
	opentelemetry__proto__metrics__v1__export_metrics_service_request__free_unpacked(req, NULL);
}

static void test_otlp_gzip_and_zstd(void **state)
{
	struct series_set set;
	struct payload_list pl = { 0 };
	struct batch_limits lim = { 0 };
	size_t len;
	uint8_t *raw;

	build(&set, 4, true);
	assert_int_equal(batch_encode(&set, WIRE_OTLP, COMPRESSION_DEFAULT, &lim, &pl), 0);
	assert_int_equal(pl.p[0].compression, COMPRESSION_GZIP);
	raw = ungzip(&pl.p[0], &len);
	assert_int_equal(len, pl.p[0].raw_len);
	check_otlp(raw, len);
	free(raw);
	payload_list_clear(&pl);

	assert_int_equal(batch_encode(&set, WIRE_OTLP, COMPRESSION_ZSTD, &lim, &pl), 0);
	raw = malloc(pl.p[0].raw_len);
	len = ZSTD_decompress(raw, pl.p[0].raw_len, pl.p[0].body, pl.p[0].len);
	assert_false(ZSTD_isError(len));
	check_otlp(raw, len);
	free(raw);
	payload_list_free(&pl);
	series_set_free(&set);
}

static void check_repacks_otlp(const struct payload_list *pl);

/* The OTLP request of one interval of @paths (anon, pgfault, pressure_some) with @o, decoded. */
static Opentelemetry__Proto__Metrics__V1__ExportMetricsServiceRequest *
otlp_of(const struct series_opts *o, const char *const *paths, size_t n, struct payload_list *pl)
{
	const struct stat_def *c[3] = { stat_lookup("anon"), stat_lookup("pgfault"), stat_lookup("pressure_some") };
	Opentelemetry__Proto__Metrics__V1__ExportMetricsServiceRequest *req;
	struct batch_limits lim = { 0 };
	struct series_set set;
	struct sample_table t;
	struct snapshot *s;

	sample_table_init(&t, c, 3);
	t.timestamp_ns = 1700000000123456789ULL;
	for (size_t i = 0; i < n; i++) {
		struct sample_row *r = sample_table_add(&t, i + 1, paths[i], 2);

		r->values[0] = 4096;
		r->values[1] = 7;
		r->values[2] = 1500000;
	}
	assert_int_equal(snapshot_from_table(&t, NULL, NULL, &s), 0);
	sample_table_free(&t);
	snapshot_add_self(s, "memcg_bpf_sender_last_send_latency_seconds", NULL, NULL, 0.5, false, "s");
	series_set_init(&set);
	assert_int_equal(series_set_build(&set, o, s, NULL), 0);
	snapshot_free(s);
	assert_int_equal(batch_encode(&set, WIRE_OTLP, COMPRESSION_NONE, &lim, pl), 0);
	assert_int_equal(pl->n, 1);
	check_repacks_otlp(pl);
	series_set_free(&set);
	req = opentelemetry__proto__metrics__v1__export_metrics_service_request__unpack(NULL, pl->p[0].len,
											 pl->p[0].body);
	assert_non_null(req);
	return req;
}

/* The value of attribute @key among @n, or NULL. */
static const char *attr(Opentelemetry__Proto__Metrics__V1__KeyValue **kv, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(kv[i]->key, key) == 0)
			return kv[i]->value->string_value;
	return NULL;
}

static Opentelemetry__Proto__Metrics__V1__Metric *metric(Opentelemetry__Proto__Metrics__V1__ExportMetricsServiceRequest *req,
							 const char *name)
{
	Opentelemetry__Proto__Metrics__V1__ScopeMetrics *sm = req->resource_metrics[0]->scope_metrics[0];

	for (size_t m = 0; m < sm->n_metrics; m++)
		if (strcmp(sm->metrics[m]->name, name) == 0)
			return sm->metrics[m];
	fail_msg("no metric %s", name);
	return NULL;
}

#define DOCKER_ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/*
 * The identity labels go out under their semantic-convention names:
 * container_id as container.id, unit as systemd.unit; the Kubernetes labels
 * as k8s.*; "container" as k8s.container.name in a pod's series and as
 * container.name elsewhere. Other labels keep their names; host stays next
 * to the resource's host.name; no attribute is named after a label that
 * was renamed.
 */
static void test_otlp_semantic_attribute_names(void **state)
{
	static const struct label_pair pod[] = { { "container", "app" }, { "namespace", "ns1" }, { "pod", "web-0" },
						 { "pod_uid", "1234-5678" }, { "zone", "z1" } };
	static const struct label_pair docker[] = { { "container", "db" } };
	static const char *const paths[] = { "/system.slice/docker-" DOCKER_ID ".scope" };
	const struct series_opts k8s_opts = { .host = "h1", .labels = pod, .nr_labels = ARRAY_SIZE(pod),
					      .unit_label = true, .container_id_label = true };
	const struct series_opts docker_opts = { .host = "h2", .labels = docker, .nr_labels = 1,
						 .unit_label = true, .container_id_label = true };
	static const char *const renamed[] = { "container", "container_id", "namespace", "pod", "pod_uid", "unit" };
	Opentelemetry__Proto__Metrics__V1__ExportMetricsServiceRequest *req;
	Opentelemetry__Proto__Metrics__V1__NumberDataPoint *dp;
	struct payload_list pl = { 0 };

	req = otlp_of(&k8s_opts, paths, 1, &pl);
	dp = metric(req, "memcg_anon_bytes")->gauge->data_points[0];
	assert_string_equal(attr(dp->attributes, dp->n_attributes, "k8s.container.name"), "app");
	assert_string_equal(attr(dp->attributes, dp->n_attributes, "k8s.namespace.name"), "ns1");
	assert_string_equal(attr(dp->attributes, dp->n_attributes, "k8s.pod.name"), "web-0");
	assert_string_equal(attr(dp->attributes, dp->n_attributes, "k8s.pod.uid"), "1234-5678");
	assert_string_equal(attr(dp->attributes, dp->n_attributes, "container.id"), DOCKER_ID);
	assert_string_equal(attr(dp->attributes, dp->n_attributes, "systemd.unit"), "docker-" DOCKER_ID ".scope");
	assert_string_equal(attr(dp->attributes, dp->n_attributes, "cgroup"), paths[0]);
	assert_string_equal(attr(dp->attributes, dp->n_attributes, "host"), "h1");
	assert_string_equal(attr(dp->attributes, dp->n_attributes, "zone"), "z1");
	assert_null(attr(dp->attributes, dp->n_attributes, "container.name"));
	assert_int_equal(dp->n_attributes, 9);
	for (size_t i = 0; i < ARRAY_SIZE(renamed); i++)
		assert_null(attr(dp->attributes, dp->n_attributes, renamed[i]));
	assert_null(attr(dp->attributes, dp->n_attributes, "__name__"));
	opentelemetry__proto__metrics__v1__export_metrics_service_request__free_unpacked(req, NULL);
	payload_list_clear(&pl);

	req = otlp_of(&docker_opts, paths, 1, &pl);
	dp = metric(req, "memcg_pgfault_total")->sum->data_points[0];
	assert_string_equal(attr(dp->attributes, dp->n_attributes, "container.name"), "db");
	assert_null(attr(dp->attributes, dp->n_attributes, "k8s.container.name"));
	assert_string_equal(attr(dp->attributes, dp->n_attributes, "container.id"), DOCKER_ID);
	assert_string_equal(attr(dp->attributes, dp->n_attributes, "host"), "h2");
	assert_int_equal(dp->n_attributes, 5); /* cgroup, container.id, container.name, host, systemd.unit */
	opentelemetry__proto__metrics__v1__export_metrics_service_request__free_unpacked(req, NULL);
	payload_list_free(&pl);

	assert_string_equal(otlp_attribute_name("container", false), "container.name");
	assert_string_equal(otlp_attribute_name("cgroup", true), "cgroup");
	assert_string_equal(otlp_attribute_name("host", true), "host");
}

/*
 * MaxBytesPerSend holds for OTLP with the renamed attributes, whose names
 * are longer than the labels' (k8s.namespace.name for namespace).
 * (batch_item_size() counts the names that are sent; its other margins
 * were wide enough to absorb the difference here even without that.)
 */
static void test_otlp_split_by_bytes_with_renamed_attributes(void **state)
{
	static const struct label_pair pod[] = { { "container", "c" }, { "namespace", "n" }, { "pod", "p" },
						 { "pod_uid", "u" } };
	const struct stat_def *c[3] = { stat_lookup("anon"), stat_lookup("pgfault"), stat_lookup("usage") };
	const struct series_opts o = { .host = "h", .labels = pod, .nr_labels = ARRAY_SIZE(pod),
				       .unit_label = true, .container_id_label = true };
	struct batch_limits lim = { .max_samples = 100000, .max_bytes = 1500 };
	struct payload_list pl = { 0 };
	struct series_set set;
	struct sample_table t;
	struct snapshot *s;
	size_t total = 0;
	char path[128];

	sample_table_init(&t, c, 3);
	t.timestamp_ns = 1700000000123456789ULL;
	for (size_t i = 0; i < 50; i++) {
		struct sample_row *r;

		snprintf(path, sizeof(path), "/k/docker-%s.scope/%zu", DOCKER_ID, i);
		r = sample_table_add(&t, i + 1, path, 3);
		r->values[0] = r->values[1] = r->values[2] = 1;
	}
	assert_int_equal(snapshot_from_table(&t, NULL, NULL, &s), 0);
	sample_table_free(&t);
	series_set_init(&set);
	assert_int_equal(series_set_build(&set, &o, s, NULL), 0);
	snapshot_free(s);
	assert_int_equal(batch_encode(&set, WIRE_OTLP, COMPRESSION_NONE, &lim, &pl), 0);
	assert_true(pl.n > 1);
	for (size_t i = 0; i < pl.n; i++) {
		if (pl.p[i].raw_len > lim.max_bytes)
			fail_msg("request %zu: %zu bytes > MaxBytesPerSend %zu", i, pl.p[i].raw_len, lim.max_bytes);
		total += pl.p[i].nr_samples;
	}
	assert_int_equal(total, 150);
	payload_list_free(&pl);
	series_set_free(&set);
}

/*
 * service.instance.id: the host unless ServiceInstanceId names another;
 * two hosts' requests differ in host.name and service.instance.id.
 */
static void test_otlp_service_instance_id(void **state)
{
	static const char *const paths[] = { "/a" };
	const struct series_opts a = { .host = "host-a" }, b = { .host = "host-b" },
				 given = { .host = "host-a", .instance_id = "5f1c0d2e-uuid" };
	const struct series_opts *opts_of[] = { &a, &b, &given };
	static const char *const want[][2] = { { "host-a", "host-a" }, { "host-b", "host-b" },
					       { "host-a", "5f1c0d2e-uuid" } };

	for (size_t i = 0; i < ARRAY_SIZE(opts_of); i++) {
		Opentelemetry__Proto__Metrics__V1__ExportMetricsServiceRequest *req;
		Opentelemetry__Proto__Metrics__V1__Resource *res;
		struct payload_list pl = { 0 };

		req = otlp_of(opts_of[i], paths, 1, &pl);
		res = req->resource_metrics[0]->resource;
		assert_int_equal(res->n_attributes, 3);
		assert_string_equal(attr(res->attributes, res->n_attributes, "host.name"), want[i][0]);
		assert_string_equal(attr(res->attributes, res->n_attributes, "service.instance.id"), want[i][1]);
		assert_string_equal(attr(res->attributes, res->n_attributes, "service.name"), "memcg_bpf");
		opentelemetry__proto__metrics__v1__export_metrics_service_request__free_unpacked(req, NULL);
		payload_list_free(&pl);
	}
}

/*
 * Units in UCUM as the conventions want them: bytes "By", seconds "s",
 * counts an annotation of what is counted (never "1", which is a ratio and
 * makes Prometheus append _ratio to a gauge's name).
 */
static void test_otlp_units(void **state)
{
	static const char *const paths[] = { "/a" };
	const struct series_opts o = { .host = "h1" };
	Opentelemetry__Proto__Metrics__V1__ExportMetricsServiceRequest *req;
	Opentelemetry__Proto__Metrics__V1__Metric *m;
	struct payload_list pl = { 0 };

	req = otlp_of(&o, paths, 1, &pl);
	assert_string_equal(metric(req, "memcg_anon_bytes")->unit, "By");
	m = metric(req, "memcg_pgfault_total");
	assert_string_equal(m->unit, "{fault}");
	assert_int_equal(m->data_case, OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_SUM);
	m = metric(req, "memcg_pressure_some_seconds_total");
	assert_string_equal(m->unit, "s");
	assert_true(m->sum->data_points[0]->as_double == 1.5); /* µs shipped in seconds */
	m = metric(req, "memcg_bpf_sender_last_send_latency_seconds");
	assert_string_equal(m->unit, "s");
	assert_int_equal(m->data_case, OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_GAUGE);
	opentelemetry__proto__metrics__v1__export_metrics_service_request__free_unpacked(req, NULL);
	payload_list_free(&pl);
}

static ProtobufCMessage *unpack(enum wire_format f, const struct payload *p)
{
	switch (f) {
	case WIRE_REMOTE_WRITE:
		return (ProtobufCMessage *)prometheus__write_request__unpack(NULL, p->len, p->body);
	case WIRE_REMOTE_WRITE_V2:
		return (ProtobufCMessage *)io__prometheus__write__v2__request__unpack(NULL, p->len, p->body);
	case WIRE_OTLP:
		return (ProtobufCMessage *)opentelemetry__proto__metrics__v1__export_metrics_service_request__unpack(
			NULL, p->len, p->body);
	}
	return NULL;
}

/* Each request of @pl (uncompressed), decoded with protobuf-c and packed again, comes out byte for byte. */
static void check_repacks(enum wire_format f, const struct payload_list *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		ProtobufCMessage *m = unpack(f, &pl->p[i]);
		uint8_t *again;
		size_t len;

		assert_non_null(m);
		len = protobuf_c_message_get_packed_size(m);
		assert_int_equal(len, pl->p[i].len);
		again = malloc(len ? len : 1);
		assert_int_equal(protobuf_c_message_pack(m, again), len);
		if (memcmp(again, pl->p[i].body, len) != 0)
			fail_msg("format %d request %zu: bytes differ from protobuf-c's", f, i);
		free(again);
		protobuf_c_message_free_unpacked(m, NULL);
	}
}

static void check_repacks_otlp(const struct payload_list *pl)
{
	check_repacks(WIRE_OTLP, pl);
}

/* @a and @b hold the same requests, byte for byte. */
static void assert_same_payloads(const struct payload_list *a, const struct payload_list *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		assert_int_equal(a->p[i].len, b->p[i].len);
		assert_int_equal(a->p[i].nr_samples, b->p[i].nr_samples);
		assert_memory_equal(a->p[i].body, b->p[i].body, a->p[i].len);
	}
}

static const struct label_pair upper[] = { { "Zone", "z1" }, { "rack", "r\xff" } };
static const struct series_opts upper_opts = { .host = "h1", .labels = upper, .nr_labels = 2 };

/*
 * Interval @round: cgroups [first, first + n) with a value 0 (not written in
 * proto3), missing stats, small and large varints, and two self metrics.
 */
static void build_round(struct series_set *set, struct stale_tracker *st, int round, size_t first, size_t n)
{
	struct sample_table t;
	struct snapshot *snap;
	char path[64];

	cols[0] = stat_lookup("anon");
	cols[1] = stat_lookup("pgfault");
	cols[2] = stat_lookup("usage");
	sample_table_init(&t, cols, 3);
	t.timestamp_ns = 1700000000123456789ULL + round * 1000000000ULL;
	for (size_t i = first; i < first + n; i++) {
		struct sample_row *r;

		snprintf(path, sizeof(path), "/g/%zu\xc3\xa9", i);
		r = sample_table_add(&t, i + 1, path, 2);
		r->values[0] = i == 3 ? 0 : 4096 * i + round;
		r->values[1] = (i + round) % 4 == 1 ? SAMPLE_VALUE_MISSING : (uint64_t)1 << (i * 3 % 60);
		r->values[2] = 1;
	}
	assert_int_equal(snapshot_from_table(&t, NULL, NULL, &snap), 0);
	sample_table_free(&t);
	snapshot_add_self(snap, "memcg_bpf_sender_retries_total", NULL, NULL, round, true, "{retry}");
	snapshot_add_self(snap, "memcg_bpf_sender_dropped_batches_total", "reason", "queue_full", 2, true, "{batch}");
	assert_int_equal(series_set_build(set, &upper_opts, snap, st), 0);
	snapshot_free(snap);
}

/*
 * The encoders are written by hand (pb_write.h): the bytes must be exactly
 * what protobuf-c packs for the same message. Decoded with protobuf-c and
 * packed again, each request must come out byte for byte. The set has a
 * value 0, stale NaNs, small and large varints, a static label that sorts
 * before __name__ and several requests.
 */
static void test_hand_encoding_matches_protobuf_c(void **state)
{
	struct batch_limits lim = { .max_samples = 7, .max_bytes = 1 << 20 };
	struct stale_tracker *st = stale_tracker_new();
	struct series_set set;

	series_set_init(&set);
	build_round(&set, st, 0, 0, 20);
	build_round(&set, st, 1, 0, 15);
	assert_true(set.nr_stale > 0);
	for (int f = WIRE_REMOTE_WRITE; f <= WIRE_OTLP; f++) {
		struct payload_list pl = { 0 };

		assert_int_equal(batch_encode(&set, (enum wire_format)f, COMPRESSION_NONE, &lim, &pl), 0);
		assert_true(pl.n > 2);
		check_repacks((enum wire_format)f, &pl);
		payload_list_free(&pl);
	}
	series_set_free(&set);
	stale_tracker_free(st);
}

/*
 * A payload list kept across intervals keeps the series' label bytes: while
 * cgroups come and go (stale markers for the gone), each interval's requests
 * are byte for byte those of a fresh list (nothing kept) and those protobuf-c
 * packs; the cache holds the series of the last call only. The last round
 * packs two intervals in one call.
 */
static int cmp_key(const void *a, const void *b)
{
	const struct series_key *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/*
 * What the label cache should hold after encoding @sets in any format: an
 * entry per cgroup for the items that share its labels, per series for the
 * others.
 */
static size_t cache_entries(const struct series_set *const *sets, size_t nr)
{
	struct series_key *keys = NULL;
	size_t n = 0, distinct = 0;

	for (size_t s = 0; s < nr; s++) {
		keys = realloc(keys, (n + sets[s]->nr_items) * sizeof(*keys));
		assert_non_null(keys);
		for (size_t i = 0; i < sets[s]->nr_items; i++) {
			const struct series_item *it = &sets[s]->items[i];
			keys[n++] = it->cgroup_run != SERIES_OWN_RUN ? sets[s]->cgroup_keys[it->cgroup_run] : it->key;
		}
	}
	qsort(keys, n, sizeof(*keys), cmp_key);
	for (size_t i = 0; i < n; i++)
		distinct += i == 0 || !series_key_equal(&keys[i - 1], &keys[i]);
	free(keys);
	return distinct;
}

static void test_kept_labels_across_intervals(void **state)
{
	static const size_t first[] = { 0, 5, 5, 12, 0, 30 }, count[] = { 20, 20, 10, 25, 3, 10 };
	struct batch_limits lim = { .max_samples = 9, .max_bytes = 1 << 20 };

	for (int f = WIRE_REMOTE_WRITE; f <= WIRE_OTLP; f++) {
		struct stale_tracker *st = stale_tracker_new();
		struct series_set set[2];
		struct payload_list kept = { 0 };

		series_set_init(&set[0]);
		series_set_init(&set[1]);
		for (int round = 0; round < (int)ARRAY_SIZE(first); round++) {
			const struct series_set *sets[] = { &set[0], &set[1] };
			size_t nr = round == ARRAY_SIZE(first) - 1 ? 2 : 1, items = 0;
			struct payload_list fresh = { 0 };

			build_round(&set[0], st, round, first[round], count[round]);
			if (nr == 2)
				build_round(&set[1], st, round + 1, first[round] + 2, count[round]);
			payload_list_clear(&kept);
			assert_int_equal(batch_encode_sets(sets, nr, (enum wire_format)f, COMPRESSION_NONE, &lim, &kept), 0);
			assert_int_equal(batch_encode_sets(sets, nr, (enum wire_format)f, COMPRESSION_NONE, &lim, &fresh), 0);
			assert_same_payloads(&kept, &fresh);
			check_repacks((enum wire_format)f, &kept);
			/* the series (or cgroups) of this call, no more: stale, self and new ones included */
			for (size_t s = 0; s < nr; s++)
				items += set[s].nr_items;
			assert_int_equal(label_cache_size(kept.cache, (enum wire_format)f), cache_entries(sets, nr));
			assert_true(label_cache_size(kept.cache, (enum wire_format)f) < items);
			if (round == 2)
				assert_true(set[0].nr_stale > 0);
			payload_list_free(&fresh);
		}
		payload_list_free(&kept);
		series_set_free(&set[0]);
		series_set_free(&set[1]);
		stale_tracker_free(st);
	}
}

/*
 * Remote write 2.0 under churn: every interval brings 400 new cgroups and
 * loses the last ones. The strings kept for it are cleared when mostly dead,
 * so they stay bounded, and the requests stay those of a fresh list.
 */
static void test_v2_strings_bounded_under_churn(void **state)
{
	struct batch_limits lim = { 0 };
	struct stale_tracker *st = stale_tracker_new();
	struct series_set set;
	struct payload_list kept = { 0 };
	size_t most = 0;

	series_set_init(&set);
	for (int round = 0; round < 12; round++) {
		struct payload_list fresh = { 0 };

		build_round(&set, st, round, 400 * (size_t)round, 400);
		payload_list_clear(&kept);
		assert_int_equal(batch_encode(&set, WIRE_REMOTE_WRITE_V2, COMPRESSION_NONE, &lim, &kept), 0);
		assert_int_equal(batch_encode(&set, WIRE_REMOTE_WRITE_V2, COMPRESSION_NONE, &lim, &fresh), 0);
		assert_same_payloads(&kept, &fresh);
		if (label_cache_symbols(kept.cache)->n > most)
			most = label_cache_symbols(kept.cache)->n;
		payload_list_free(&fresh);
	}
	/* about 800 strings live (400 cgroups and the 400 gone, stale); never all 4800 seen */
	assert_true(most < 2 * 820 + 1024 + 820);
	payload_list_free(&kept);
	series_set_free(&set);
	stale_tracker_free(st);
}

/* A list that encoded one format and then another keeps only the other's series. */
static void test_kept_labels_follow_the_format(void **state)
{
	struct batch_limits lim = { 0 };
	struct stale_tracker *st = stale_tracker_new();
	struct series_set set;
	const struct series_set *sets[] = { &set };
	struct payload_list pl = { 0 };

	series_set_init(&set);
	build_round(&set, st, 0, 0, 10);
	assert_int_equal(batch_encode(&set, WIRE_REMOTE_WRITE_V2, COMPRESSION_NONE, &lim, &pl), 0);
	assert_int_equal(label_cache_size(pl.cache, WIRE_REMOTE_WRITE_V2), cache_entries(sets, 1));
	payload_list_clear(&pl);
	/* the fallback to 1.0 */
	assert_int_equal(batch_encode(&set, WIRE_REMOTE_WRITE, COMPRESSION_NONE, &lim, &pl), 0);
	assert_int_equal(label_cache_size(pl.cache, WIRE_REMOTE_WRITE_V2), 0);
	assert_int_equal(label_cache_size(pl.cache, WIRE_REMOTE_WRITE), cache_entries(sets, 1));
	assert_true(label_cache_size(pl.cache, WIRE_REMOTE_WRITE) < set.nr_items); /* per cgroup */
	check_repacks(WIRE_REMOTE_WRITE, &pl);
	payload_list_free(&pl);
	series_set_free(&set);
	stale_tracker_free(st);
}

static void test_compression_rules(void **state)
{
	char why[128];

	assert_int_equal(compression_check(WIRE_REMOTE_WRITE, COMPRESSION_DEFAULT, why, sizeof(why)), 0);
	assert_int_equal(compression_check(WIRE_REMOTE_WRITE, COMPRESSION_ZSTD, why, sizeof(why)), 0);
	assert_int_equal(compression_check(WIRE_REMOTE_WRITE, COMPRESSION_GZIP, why, sizeof(why)), -EINVAL);
	assert_int_equal(compression_check(WIRE_REMOTE_WRITE_V2, COMPRESSION_ZSTD, why, sizeof(why)), -EINVAL);
	assert_int_equal(compression_check(WIRE_OTLP, COMPRESSION_SNAPPY, why, sizeof(why)), -EINVAL);
	assert_int_equal(compression_check(WIRE_OTLP, COMPRESSION_NONE, why, sizeof(why)), 0);
}

/*
 * Interval @round of a steady tree of @n cgroups: the same stats present
 * every time, values that move, one that is 0 in odd rounds only (remote
 * write leaves it out), and a timestamp whose varint grows at round 3
 * (2^42 ms). Rows @late and @late2 (none: SIZE_MAX) have their anon 0
 * before round 2. Checks the set's nonzero bits.
 */
static void build_late_round(struct series_set *set, struct stale_tracker *st, int round, size_t n, size_t late,
			size_t late2)
{
	struct sample_table t;
	struct snapshot *snap;
	char path[64];

	cols[0] = stat_lookup("anon");
	cols[1] = stat_lookup("pgfault");
	cols[2] = stat_lookup("usage");
	sample_table_init(&t, cols, 3);
	t.timestamp_ns = ((1ULL << 42) - 2500 + 1000ULL * (uint64_t)round) * 1000000ULL;
	for (size_t i = 0; i < n; i++) {
		struct sample_row *r;

		snprintf(path, sizeof(path), "/s/%zu", i);
		r = sample_table_add(&t, i + 1, path, 2);
		r->values[0] = (i == 3 && round % 2) || ((i == late || i == late2) && round < 2) ? 0
											   : 4096 * i + (uint64_t)round;
		r->values[1] = i % 4 == 1 ? SAMPLE_VALUE_MISSING : ((uint64_t)1 << (i * 3 % 60)) + (uint64_t)round;
		r->values[2] = (uint64_t)round * 3 + i;
	}
	assert_int_equal(snapshot_from_table(&t, NULL, NULL, &snap), 0);
	sample_table_free(&t);
	snapshot_add_self(snap, "memcg_bpf_sender_retries_total", NULL, NULL, round, true, "{retry}");
	assert_int_equal(series_set_build(set, &upper_opts, snap, st), 0);
	assert_int_equal(set->nr_nonzero_known, set->nr_items);
	for (size_t i = 0; i < set->nr_items; i++)
		assert_int_equal(set->nonzero[i / 64] >> (i % 64) & 1, set->items[i].value != 0);
	snapshot_free(snap);
}

static void build_steady_round(struct series_set *set, struct stale_tracker *st, int round, size_t n)
{
	build_late_round(set, st, round, n, SIZE_MAX, SIZE_MAX);
}

/*
 * Each request of @pl holds the message a fresh list without compression
 * encodes for @set: decompressed (snappy) when @snappy, decoded with
 * protobuf-c and packed again, it is that list's request byte for byte. (A
 * kept request may write a value of 0 that proto3 leaves out: the same
 * message, other bytes.)
 */
static void check_same_messages(const struct series_set *set, enum wire_format f, const struct batch_limits *lim,
				const struct payload_list *pl, bool snappy)
{
	struct payload_list plain = { 0 };

	assert_int_equal(batch_encode(set, f, COMPRESSION_NONE, lim, &plain), 0);
	check_repacks(f, &plain);
	assert_int_equal(plain.n, pl->n);
	for (size_t i = 0; i < pl->n; i++) {
		struct payload p = pl->p[i];
		uint8_t *raw = snappy ? unsnappy(&pl->p[i], &p.len) : NULL, *again;
		ProtobufCMessage *m;
		size_t len;

		p.body = raw ? raw : p.body;
		m = unpack(f, &p);
		assert_non_null(m);
		len = protobuf_c_message_get_packed_size(m);
		again = malloc(len ? len : 1);
		assert_int_equal(protobuf_c_message_pack(m, again), len);
		assert_int_equal(len, plain.p[i].len);
		assert_memory_equal(again, plain.p[i].body, len);
		free(again);
		protobuf_c_message_free_unpacked(m, NULL);
		free(raw);
	}
	payload_list_free(&plain);
}

static size_t raw_bytes(const struct payload_list *pl)
{
	size_t n = 0;

	for (size_t i = 0; i < pl->n; i++)
		n += pl->p[i].raw_len;
	return n;
}

/*
 * The steady state: a set that keeps its shape gets its kept requests
 * patched (wire/request_patch.h). Each interval's requests hold the
 * messages of a fresh list, through a value turning 0 and back and a
 * timestamp varint that grows, uncompressed and with snappy (remote
 * write: kept blocks, patched). OTLP keeps no request: each interval's is
 * encoded anew, with the same messages.
 */
static void test_steady_requests_patched(void **state)
{
	static const enum compression comp[] = { COMPRESSION_NONE, COMPRESSION_SNAPPY };
	struct batch_limits lim = { .max_samples = 9, .max_bytes = 1 << 20 };

	for (int f = WIRE_REMOTE_WRITE; f <= WIRE_OTLP; f++) {
		for (size_t k = 0; k < (f == WIRE_OTLP ? 1 : ARRAY_SIZE(comp)); k++) {
			struct stale_tracker *st = stale_tracker_new();
			struct payload_list kept = { 0 };
			struct series_set set;
			uint64_t shape = 0;

			series_set_init(&set);
			for (int round = 0; round < 6; round++) {
				struct payload_list fresh = { 0 };

				build_steady_round(&set, st, round, 12);
				if (round == 1)
					shape = set.shape;
				if (round >= 1)
					assert_true(set.shape == shape); /* patched from here on */
				payload_list_clear(&kept);
				assert_int_equal(batch_encode(&set, (enum wire_format)f, comp[k], &lim, &kept), 0);
				if (f == WIRE_OTLP)
					assert_int_equal(kept.kept.nr, 0);
				else
					assert_true(kept.kept.shape == set.shape && kept.kept.nr == kept.n);
				assert_int_equal(batch_encode(&set, (enum wire_format)f, comp[k], &lim, &fresh), 0);
				check_same_messages(&set, (enum wire_format)f, &lim, &kept, comp[k] == COMPRESSION_SNAPPY);
				check_same_messages(&set, (enum wire_format)f, &lim, &fresh, comp[k] == COMPRESSION_SNAPPY);
				/* round 1: /s/3's anon turned 0; remote write keeps its room (a 9-byte field) */
				if (round == 1)
					assert_int_equal(raw_bytes(&kept), raw_bytes(&fresh) + (f == WIRE_OTLP ? 0 : 9));
				if (comp[k] == COMPRESSION_SNAPPY) {
					for (size_t i = 0; i < kept.kept.nr; i++) {
						assert_true(kept.kept.req[i].has_block == (f != WIRE_OTLP));
						/* its samples written into the block, not into the protobuf */
						assert_true(kept.kept.req[i].direct == (f != WIRE_OTLP));
					}
				}
				payload_list_free(&fresh);
			}
			payload_list_free(&kept);
			series_set_free(&set);
			stale_tracker_free(st);
		}
	}
}

/*
 * The same for requests larger than a piece (remote write 1.0 + snappy is
 * encoded and compressed 2,048 items at a time, wire/batch_encode.c): 2,000
 * cgroups, 5,000 samples a request, so requests of three pieces and of
 * one; every block patched directly and holding a fresh list's messages,
 * through a value turning 0 and back and the timestamp's varint growing.
 */
static void test_steady_requests_in_pieces(void **state)
{
	struct batch_limits lim = { .max_samples = 5000, .max_bytes = 1 << 24 };
	struct stale_tracker *st = stale_tracker_new();
	struct payload_list kept = { 0 };
	struct series_set set;

	series_set_init(&set);
	for (int round = 0; round < 6; round++) {
		build_steady_round(&set, st, round, 2000);
		payload_list_clear(&kept);
		assert_int_equal(batch_encode(&set, WIRE_REMOTE_WRITE, COMPRESSION_SNAPPY, &lim, &kept), 0);
		assert_int_equal(kept.n, 2);
		assert_true(kept.kept.req[0].to - kept.kept.req[0].from == 5000);
		check_same_messages(&set, WIRE_REMOTE_WRITE, &lim, &kept, true);
		for (size_t i = 0; i < kept.kept.nr; i++)
			assert_true(kept.kept.req[i].direct);
		/* no more than a piece of protobuf was in memory at once */
		assert_true(kept.raw.cap < kept.p[0].raw_len / 2);
	}
	payload_list_free(&kept);
	series_set_free(&set);
	stale_tracker_free(st);
}

/*
 * OTLP requests larger than a piece (wire/encoders.h: ENCODE_PIECE_BYTES)
 * are handed to the compressor piece by piece: 6,000 cgroups, in two
 * requests of four pieces and of two. With gzip and zstd each body
 * decompresses to the request encoded without compression, byte for
 * byte, which protobuf-c packs the same (check_same_messages); gzip's body
 * is also the one deflate makes of the whole protobuf at once, and zstd's
 * frame says its content size (pledged). Nothing of a request is kept:
 * the piece buffer stays at its size.
 */
static void test_otlp_streamed_in_pieces(void **state)
{
	static const enum compression comp[] = { COMPRESSION_GZIP, COMPRESSION_ZSTD };
	struct batch_limits lim = { .max_samples = 12000, .max_bytes = 1 << 24 };
	struct stale_tracker *st = stale_tracker_new();
	struct payload_list plain = { 0 };
	struct series_set set;

	series_set_init(&set);
	build_steady_round(&set, st, 0, 6000);
	build_steady_round(&set, st, 1, 6000);
	assert_int_equal(batch_encode(&set, WIRE_OTLP, COMPRESSION_NONE, &lim, &plain), 0);
	check_same_messages(&set, WIRE_OTLP, &lim, &plain, false);
	assert_int_equal(plain.n, 2);
	assert_true(plain.p[0].raw_len > 3 * ENCODE_PIECE_BYTES && plain.p[1].raw_len > ENCODE_PIECE_BYTES);
	for (size_t k = 0; k < ARRAY_SIZE(comp); k++) {
		struct payload_list pl = { 0 };

		assert_int_equal(batch_encode(&set, WIRE_OTLP, comp[k], &lim, &pl), 0);
		assert_int_equal(pl.n, plain.n);
		for (size_t i = 0; i < pl.n; i++) {
			uint8_t *raw = decompressed(&pl.p[i]);

			assert_int_equal(pl.p[i].raw_len, plain.p[i].len);
			assert_int_equal(pl.p[i].nr_samples, plain.p[i].nr_samples);
			assert_memory_equal(raw, plain.p[i].body, plain.p[i].len);
			if (comp[k] == COMPRESSION_ZSTD)
				assert_int_equal(ZSTD_getFrameContentSize(pl.p[i].body, pl.p[i].len), plain.p[i].len);
			if (comp[k] == COMPRESSION_GZIP) {
				struct compressor whole = { 0 };
				struct byte_buf z = { 0 };

				assert_int_equal(compress_body(&whole, COMPRESSION_GZIP, raw, plain.p[i].len, &z), 0);
				assert_int_equal(z.len, pl.p[i].len);
				assert_memory_equal(z.data, pl.p[i].body, z.len);
				byte_buf_free(&z);
				compressor_free(&whole);
			}
			free(raw);
		}
		assert_int_equal(pl.otlp.piece.cap, ENCODE_PIECE_BYTES);
		assert_int_equal(pl.kept.nr, 0);
		payload_list_free(&pl);
	}
	payload_list_free(&plain);
	series_set_free(&set);
	stale_tracker_free(st);
}

/*
 * A value that stops being 0 (round 2) where a kept request left it out,
 * in requests that start and end inside the words of the set's nonzero
 * bits: those requests are encoded again (9 bytes more each), the others
 * patched, and every request holds a fresh list's messages.
 */
static void test_steady_value_needs_room(void **state)
{
	struct batch_limits lim = { .max_samples = 70, .max_bytes = 1 << 20 };

	for (int f = WIRE_REMOTE_WRITE; f <= WIRE_REMOTE_WRITE_V2; f++) {
		struct stale_tracker *st = stale_tracker_new();
		struct payload_list kept = { 0 };
		size_t before[8] = { 0 };
		struct series_set set;

		series_set_init(&set);
		for (int round = 0; round < 5; round++) {
			struct payload_list fresh = { 0 };
			size_t grew = 0;

			build_late_round(&set, st, round, 90, 50, 80);
			payload_list_clear(&kept);
			assert_int_equal(batch_encode(&set, (enum wire_format)f, COMPRESSION_SNAPPY, &lim, &kept), 0);
			assert_int_equal(batch_encode(&set, (enum wire_format)f, COMPRESSION_SNAPPY, &lim, &fresh), 0);
			check_same_messages(&set, (enum wire_format)f, &lim, &kept, true);
			assert_true(kept.n >= 4 && kept.n <= ARRAY_SIZE(before));
			for (size_t i = 0; i < kept.n; i++) {
				if (round == 2 && kept.p[i].raw_len == before[i] + 9)
					grew++;
				else if (round == 2 || round == 4) /* round 3: the timestamp's varint grows */
					assert_int_equal(kept.p[i].raw_len, before[i]);
				before[i] = kept.p[i].raw_len;
			}
			if (round == 2)
				assert_int_equal(grew, 2); /* rows 50 and 80: two requests */
			payload_list_free(&fresh);
		}
		payload_list_free(&kept);
		series_set_free(&set);
		stale_tracker_free(st);
	}
}

/*
 * @pl's requests (snappy blocks decompressed) joined into one message
 * (remote write 1.0 and OTLP: a message's encodings concatenated are the
 * message of all their repeated fields), decoded and packed again by
 * protobuf-c; its length in @len. Every request within @lim.
 */
static uint8_t *joined_message(enum wire_format f, const struct payload_list *pl, const struct batch_limits *lim,
			       size_t *len)
{
	struct payload all = { .format = f };
	uint8_t *cat = NULL, *again;
	ProtobufCMessage *m;
	size_t n = 0;

	for (size_t i = 0; i < pl->n; i++) {
		size_t rl = pl->p[i].len;
		uint8_t *raw = pl->p[i].compression == COMPRESSION_SNAPPY ? unsnappy(&pl->p[i], &rl) : NULL;

		assert_true(pl->p[i].nr_samples <= lim->max_samples && pl->p[i].raw_len <= lim->max_bytes);
		assert_int_equal(rl, pl->p[i].raw_len);
		cat = realloc(cat, n + rl);
		memcpy(cat + n, raw ? raw : pl->p[i].body, rl);
		n += rl;
		free(raw);
	}
	all.body = cat;
	all.len = n;
	m = unpack(f, &all);
	assert_non_null(m);
	*len = protobuf_c_message_get_packed_size(m);
	again = malloc(*len ? *len : 1);
	assert_int_equal(protobuf_c_message_pack(m, again), *len);
	protobuf_c_message_free_unpacked(m, NULL);
	free(cat);
	return again;
}

/*
 * Intervals that wait together (a collector that fell behind), built one
 * after another into the same set, are patched from the kept requests and
 * joined up to the limits (batch_join): the same series and samples as
 * encoding them from their labels, through a value turning 0 and back and
 * a timestamp varint that grows (rounds 1 to 4). Not joined: remote write
 * 2.0, a set of another shape, and anything while no requests are kept.
 * OTLP keeps no requests: every set is encoded anew and joined, its
 * protobuf streamed into the joined request's compression.
 */
static void test_intervals_joined_from_kept(void **state)
{
	static const struct {
		enum wire_format f;
		enum compression c;
	} combos[] = {
		{ WIRE_REMOTE_WRITE, COMPRESSION_SNAPPY }, { WIRE_REMOTE_WRITE, COMPRESSION_NONE },
		{ WIRE_OTLP, COMPRESSION_NONE }, { WIRE_OTLP, COMPRESSION_ZSTD }, { WIRE_OTLP, COMPRESSION_GZIP },
	};
	static const size_t max_samples[] = { 80, 1000 }; /* two intervals per request; all four */

	for (size_t k = 0; k < ARRAY_SIZE(combos); k++) {
		for (size_t m = 0; m < ARRAY_SIZE(max_samples); m++) {
			struct batch_limits lim = { .max_samples = max_samples[m], .max_bytes = 1 << 20 };
			enum wire_format f = combos[k].f;
			struct stale_tracker *st = stale_tracker_new(), *st_fresh = stale_tracker_new();
			struct series_set set, fresh_sets[5], other;
			const struct series_set *four[4];
			struct payload_list kept = { 0 }, fresh = { 0 };
			size_t a_len, b_len, samples = 0;
			uint8_t *a, *b;

			series_set_init(&set);
			series_set_init(&other);
			build_steady_round(&set, st, 0, 12);
			if (f != WIRE_OTLP) { /* OTLP joins any set: each is encoded anew */
				assert_int_equal(batch_join(&set, f, combos[k].c, &lim, &kept), -ESTALE); /* nothing kept */
				assert_int_equal(batch_encode(&set, f, combos[k].c, &lim, &kept), 0);
				payload_list_clear(&kept);
			}
			for (int round = 0; round < 5; round++) {
				series_set_init(&fresh_sets[round]);
				build_steady_round(&fresh_sets[round], st_fresh, round, 12);
			}
			for (int round = 1; round < 5; round++) {
				build_steady_round(&set, st, round, 12);
				four[round - 1] = &fresh_sets[round];
				samples += set.nr_items;
				assert_int_equal(batch_join(&set, f, combos[k].c, &lim, &kept), 0);
			}
			assert_int_equal(batch_join_flush(f, combos[k].c, &kept), 0);
			assert_int_equal(kept.n, max_samples[m] == 80 ? 2 : 1);
			assert_int_equal(kept.p[0].nr_samples + (kept.n > 1 ? kept.p[1].nr_samples : 0), samples);
			/* another shape: a set of its own (OTLP: joined all the same, to a request of its own here) */
			build_steady_round(&other, NULL, 1, 11);
			assert_int_equal(batch_join(&other, f, combos[k].c, &lim, &kept), f == WIRE_OTLP ? 0 : -ESTALE);
			/* each interval encoded on its own: the requests the kept ones were cut as */
			for (int i = 0; i < 4; i++)
				assert_int_equal(batch_encode(four[i], f, COMPRESSION_NONE, &lim, &fresh), 0);
			if (combos[k].c == COMPRESSION_ZSTD || combos[k].c == COMPRESSION_GZIP) {
				for (size_t i = 0; i < kept.n; i++) {
					uint8_t *raw = decompressed(&kept.p[i]);

					kept.p[i].body = raw;
					kept.p[i].len = kept.p[i].raw_len;
					kept.p[i].compression = COMPRESSION_NONE;
				}
			}
			a = joined_message(f, &kept, &lim, &a_len);
			b = joined_message(f, &fresh, &lim, &b_len);
			assert_int_equal(a_len, b_len);
			assert_memory_equal(a, b, a_len);
			free(a);
			free(b);
			if (combos[k].c == COMPRESSION_ZSTD || combos[k].c == COMPRESSION_GZIP)
				for (size_t i = 0; i < kept.n; i++)
					free((void *)kept.p[i].body);
			payload_list_free(&kept);
			payload_list_free(&fresh);
			for (int round = 0; round < 5; round++)
				series_set_free(&fresh_sets[round]);
			series_set_free(&set);
			series_set_free(&other);
			stale_tracker_free(st);
			stale_tracker_free(st_fresh);
		}
	}
	/* 2.0: never joined */
	{
		struct batch_limits lim = { 0 };
		struct stale_tracker *st = stale_tracker_new();
		struct payload_list pl = { 0 };
		struct series_set set;

		series_set_init(&set);
		build_steady_round(&set, st, 0, 12);
		assert_int_equal(batch_encode(&set, WIRE_REMOTE_WRITE_V2, COMPRESSION_SNAPPY, &lim, &pl), 0);
		build_steady_round(&set, st, 1, 12);
		assert_int_equal(batch_join(&set, WIRE_REMOTE_WRITE_V2, COMPRESSION_SNAPPY, &lim, &pl), -ESTALE);
		payload_list_free(&pl);
		series_set_free(&set);
		stale_tracker_free(st);
	}
}

/* Under the user slice a tenant names: two names the unkeyed hash of old gave one key, an escape's text and its byte. */
#define TENANT "/user.slice/user-1000.slice/user@1000.service/app.slice/"
static const char *const hostile[] = {
	TENANT ".<\"C5OpC]];Y],(7", TENANT "aF8w@(lW\"\"D&\"SWH", TENANT "x\\xff", TENANT "x\xff",
};

/* Interval @round: the hostile names, 30 churning cgroups, and in odd rounds one path twice. */
static void build_hostile_round(struct series_set *set, struct stale_tracker *st, int round)
{
	struct sample_table t;
	struct snapshot *snap;
	char path[64];
	size_t id = 1;

	cols[0] = stat_lookup("anon");
	cols[1] = stat_lookup("pgfault");
	sample_table_init(&t, cols, 2);
	t.timestamp_ns = 1700000000123456789ULL + round * 1000000000ULL;
	for (size_t i = 0; i < ARRAY_SIZE(hostile) + 30 + (round & 1); i++) {
		struct sample_row *r;

		if (i < ARRAY_SIZE(hostile))
			snprintf(path, sizeof(path), "%s", hostile[i]);
		else if (i < ARRAY_SIZE(hostile) + 30)
			snprintf(path, sizeof(path), "/c/%zu", 7 * (size_t)round + i);
		/* else: the last path again */
		r = sample_table_add(&t, id++, path, 4);
		r->values[0] = 4096 * i + round;
		r->values[1] = (i + round) % 3 ? 10 + i : SAMPLE_VALUE_MISSING;
	}
	assert_int_equal(snapshot_from_table(&t, NULL, NULL, &snap), 0);
	sample_table_free(&t);
	snapshot_add_self(snap, "memcg_bpf_sender_retries_total", NULL, NULL, round, true, "{retry}");
	assert_int_equal(series_set_build(set, &opts, snap, st), 0);
	if (round & 1)
		assert_true(set->nr_duplicates >= 1); /* anon at least: the row given twice */
	else
		assert_int_equal(set->nr_duplicates, 0);
	snapshot_free(snap);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends "name=value,...@timestamp" of one sample to @keys. */
static void add_sample_key(char **keys, size_t *n, char *labels, int64_t ts)
{
	size_t len = strlen(labels) + 32;

	keys[*n] = malloc(len);
	assert_non_null(keys[*n]);
	snprintf(keys[(*n)++], len, "%s@%lld", labels, (long long)ts);
}

/* No two samples of the requests in @pl have the same label set and timestamp. */
static void assert_no_sample_twice(enum wire_format f, const struct payload_list *pl)
{
	size_t cap = 4096, n = 0;
	char **keys = calloc(cap, sizeof(*keys));

	for (size_t i = 0; i < pl->n; i++) {
		ProtobufCMessage *m = unpack(f, &pl->p[i]);

		assert_non_null(m);
		if (f == WIRE_REMOTE_WRITE) {
			Prometheus__WriteRequest *req = (Prometheus__WriteRequest *)m;

			for (size_t s = 0; s < req->n_timeseries; s++) {
				Prometheus__TimeSeries *ts = req->timeseries[s];
				char labels[1024] = "";

				for (size_t l = 0; l < ts->n_labels; l++)
					snprintf(labels + strlen(labels), sizeof(labels) - strlen(labels), "%s=%s,",
						 ts->labels[l]->name, ts->labels[l]->value);
				for (size_t k = 0; k < ts->n_samples; k++) {
					assert_true(n < cap);
					add_sample_key(keys, &n, labels, ts->samples[k]->timestamp);
				}
			}
		} else {
			Io__Prometheus__Write__V2__Request *req = (Io__Prometheus__Write__V2__Request *)m;

			for (size_t s = 0; s < req->n_timeseries; s++) {
				Io__Prometheus__Write__V2__TimeSeries *ts = req->timeseries[s];
				char labels[1024] = "";

				for (size_t l = 0; l + 1 < ts->n_labels_refs; l += 2)
					snprintf(labels + strlen(labels), sizeof(labels) - strlen(labels), "%s=%s,",
						 req->symbols[ts->labels_refs[l]], req->symbols[ts->labels_refs[l + 1]]);
				for (size_t k = 0; k < ts->n_samples; k++) {
					assert_true(n < cap);
					add_sample_key(keys, &n, labels, ts->samples[k]->timestamp);
				}
			}
		}
		protobuf_c_message_free_unpacked(m, NULL);
	}
	assert_true(n > 0);
	qsort(keys, n, sizeof(*keys), cmp_str);
	for (size_t i = 0; i + 1 < n; i++)
		if (strcmp(keys[i], keys[i + 1]) == 0)
			fail_msg("format %d: one sample twice: %s", f, keys[i]);
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
}

/*
 * Across churn, with names a tenant picks and a path given twice, a remote
 * write request never holds two samples with the same label set and
 * timestamp, and every hostile cgroup keeps a series of its own.
 */
static void test_no_sample_twice_under_churn(void **state)
{
	struct batch_limits lim = { .max_samples = 17, .max_bytes = 1 << 20 };

	for (int f = WIRE_REMOTE_WRITE; f <= WIRE_REMOTE_WRITE_V2; f++) {
		struct stale_tracker *st = stale_tracker_new();
		struct payload_list kept = { 0 };
		struct series_set set;

		series_set_init(&set);
		for (int round = 0; round < 8; round++) {
			size_t hostile_anon = 0;

			build_hostile_round(&set, st, round);
			for (size_t i = 0; i < set.nr_items; i++) {
				struct label_pair l = item_label_at(&set, &set.items[i], 1), *cgroup = &l;

				if (!set.items[i].stale && set.items[i].stat == cols[0] &&
				    strcmp(cgroup->name, "cgroup") == 0 && strncmp(cgroup->value, TENANT, strlen(TENANT)) == 0)
					hostile_anon++;
			}
			assert_int_equal(hostile_anon, ARRAY_SIZE(hostile));
			payload_list_clear(&kept);
			assert_int_equal(batch_encode(&set, (enum wire_format)f, COMPRESSION_NONE, &lim, &kept), 0);
			assert_true(kept.n > 2);
			assert_no_sample_twice((enum wire_format)f, &kept);
		}
		payload_list_free(&kept);
		series_set_free(&set);
		stale_tracker_free(st);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_remote_write_v1),
		cmocka_unit_test(test_intervals_packed_into_one_request),
		cmocka_unit_test(test_split_by_samples_and_bytes),
		cmocka_unit_test(test_remote_write_v2_symbols),
		cmocka_unit_test(test_otlp_gzip_and_zstd),
		cmocka_unit_test(test_otlp_semantic_attribute_names),
		cmocka_unit_test(test_otlp_service_instance_id),
		cmocka_unit_test(test_otlp_split_by_bytes_with_renamed_attributes),
		cmocka_unit_test(test_otlp_units),
		cmocka_unit_test(test_hand_encoding_matches_protobuf_c),
		cmocka_unit_test(test_kept_labels_across_intervals),
		cmocka_unit_test(test_kept_labels_follow_the_format),
		cmocka_unit_test(test_v2_strings_bounded_under_churn),
		cmocka_unit_test(test_compression_rules),
		cmocka_unit_test(test_steady_requests_patched),
		cmocka_unit_test(test_steady_requests_in_pieces),
		cmocka_unit_test(test_otlp_streamed_in_pieces),
		cmocka_unit_test(test_steady_value_needs_room),
		cmocka_unit_test(test_intervals_joined_from_kept),
		cmocka_unit_test(test_no_sample_twice_under_churn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
