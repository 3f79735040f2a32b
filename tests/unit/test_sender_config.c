// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sender's keys of the <Plugin memcg_bpf> block (URL, Format,
 * Compression, Label, limits, TLS and auth), the checks that run after the
 * last line (plugin_config_finish), and the metric names the sender ships.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/macros.h"
#include "series/metric_names.h"
#include "sending/sender_config.h"

#include "config_fixture.h"

#define URL(c) assert_int_equal(SET((c), "URL", S("http://127.0.0.1:9090/api/v1/write")), 0)

/* ---- defaults and every key */

static void test_sender_off_by_default(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(plugin_config_finish(c), 0);
	assert_int_equal(c->sender.nr_urls, 0);
	assert_int_equal(c->sender.format, WIRE_REMOTE_WRITE);
	assert_int_equal(c->sender.compression, COMPRESSION_DEFAULT);
	assert_int_equal(c->sender.max_samples, SENDER_DEFAULT_MAX_SAMPLES);
	assert_int_equal(c->sender.max_bytes, SENDER_DEFAULT_MAX_BYTES);
	assert_int_equal(c->sender.queue_length, SENDER_DEFAULT_QUEUE_LENGTH);
	assert_true(c->sender.timeout_s == SENDER_DEFAULT_TIMEOUT_S);
	assert_true(c->sender.connect_timeout_s == SENDER_DEFAULT_CONNECT_TIMEOUT_S);
	assert_true(c->sender.verify_peer);
	/* the identity labels are on; kubelet's directories at their defaults */
	assert_true(c->sender.unit_label);
	assert_true(c->sender.pod_uid_label);
	assert_true(c->sender.container_id_label);
	assert_true(c->sender.pod_name_labels);
	assert_true(c->sender.container_name_label);
	assert_null(c->sender.pod_log_dir);
	assert_null(c->sender.container_log_dir);
	assert_null(c->sender.ca_cert);
	assert_null(c->sender.bearer_token_file);
	assert_int_equal(errors_logged + warnings_logged, 0);
}

static void test_all_sender_keys(void **state)
{
	struct plugin_config *c = *state;
	const struct sender_config *s = &c->sender;

	assert_int_equal(SET(c, "URL", S("https://a:9090/api/v1/write"), S("HTTP://b/api/v1/write")), 0);
	assert_int_equal(SET(c, "URL", S("https://c/api/v1/write")), 0);
	assert_int_equal(SET(c, "Format", S("OTLP")), 0);
	assert_int_equal(SET(c, "Compression", S("zstd")), 0);
	assert_int_equal(SET(c, "Label", S("dc"), S("eu-1")), 0);
	assert_int_equal(SET(c, "Label", S("_team2"), S("mm")), 0);
	assert_int_equal(SET(c, "UnitLabel", B(false)), 0);
	assert_int_equal(SET(c, "ContainerIdLabel", S("no")), 0);
	assert_int_equal(SET(c, "PodUidLabel", B(false)), 0);
	assert_int_equal(SET(c, "PodNameLabels", S("off")), 0);
	assert_int_equal(SET(c, "ContainerNameLabel", B(false)), 0);
	assert_int_equal(SET(c, "PodLogDir", S("/srv/pods")), 0);
	assert_int_equal(SET(c, "ContainerLogDir", S("/srv/containers")), 0);
	assert_int_equal(SET(c, "MaxSamplesPerSend", N(500)), 0);
	assert_int_equal(SET(c, "MaxBytesPerSend", N(1024)), 0);
	assert_int_equal(SET(c, "QueueLength", N(3)), 0);
	assert_int_equal(SET(c, "BatchSendDeadline", N(0)), 0);
	assert_int_equal(SET(c, "Timeout", N(2.5)), 0);
	assert_int_equal(SET(c, "ConnectTimeout", N(0.5)), 0);
	assert_int_equal(SET(c, "CACert", S("/ca.pem")), 0);
	assert_int_equal(SET(c, "ClientCert", S("/c.pem")), 0);
	assert_int_equal(SET(c, "ClientKey", S("/k.pem")), 0);
	assert_int_equal(SET(c, "BearerTokenFile", S("/token")), 0);
	assert_int_equal(SET(c, "VerifyPeer", B(true)), 0);
	assert_int_equal(SET(c, "ServiceInstanceId", S("node-7")), 0);
	assert_int_equal(plugin_config_finish(c), 0);
	assert_int_equal(errors_logged, 0);

	assert_int_equal(s->nr_urls, 3);
	assert_string_equal(s->urls[0], "https://a:9090/api/v1/write");
	assert_string_equal(s->urls[2], "https://c/api/v1/write");
	assert_int_equal(s->format, WIRE_OTLP);
	assert_int_equal(s->compression, COMPRESSION_ZSTD);
	assert_int_equal(s->nr_labels, 2);
	assert_string_equal(s->labels[1].name, "_team2");
	assert_string_equal(s->labels[1].value, "mm");
	assert_false(s->unit_label);
	assert_false(s->container_id_label);
	assert_false(s->pod_uid_label);
	assert_false(s->pod_name_labels);
	assert_false(s->container_name_label);
	assert_string_equal(s->pod_log_dir, "/srv/pods");
	assert_string_equal(s->container_log_dir, "/srv/containers");
	assert_int_equal(s->max_samples, 500);
	assert_int_equal(s->max_bytes, 1024);
	assert_int_equal(s->queue_length, 3);
	assert_true(s->batch_deadline_s == 0);
	assert_true(s->timeout_s == 2.5);
	assert_true(s->connect_timeout_s == 0.5);
	assert_string_equal(s->ca_cert, "/ca.pem");
	assert_string_equal(s->client_cert, "/c.pem");
	assert_string_equal(s->client_key, "/k.pem");
	assert_string_equal(s->bearer_token_file, "/token");
	assert_string_equal(s->service_instance_id, "node-7");
}

static void test_basic_auth_keys(void **state)
{
	struct plugin_config *c = *state;

	URL(c);
	assert_int_equal(SET(c, "BasicAuthUser", S("u")), 0);
	assert_int_equal(SET(c, "BasicAuthPasswordFile", S("/pw")), 0);
	assert_int_equal(plugin_config_finish(c), 0);
	assert_string_equal(c->sender.basic_auth_user, "u");
	assert_string_equal(c->sender.basic_auth_password_file, "/pw");
}

/* ---- one error per bad line */

static void test_bad_url(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(SET(c, "URL", S("ftp://x/")), -EINVAL);
	assert_one_error("URL \"ftp://x/\"", "http:// or https://");
	assert_int_equal(c->sender.nr_urls, 0);
	assert_int_equal(plugin_config_finish(c), -EINVAL);
	assert_int_equal(errors_logged, 1);
}

static void test_too_many_urls(void **state)
{
	struct plugin_config *c = *state;
	char u[64];

	for (int i = 0; i < SENDER_MAX_URLS; i++) {
		snprintf(u, sizeof(u), "http://h%d/api/v1/write", i);
		assert_int_equal(SET(c, "URL", S(u)), 0);
	}
	assert_int_equal(SET(c, "URL", S("http://one-too-many/")), -E2BIG);
	assert_one_error("URL \"http://one-too-many/\"", "more than 8 URLs");
}

static void test_unknown_format(void **state)
{
	struct plugin_config *c = *state;

	URL(c);
	assert_int_equal(SET(c, "Format", S("influx")), -EINVAL);
	assert_one_error("Format \"influx\"", "remote_write, remote_write_v2, otlp");
	assert_int_equal(c->sender.format, WIRE_REMOTE_WRITE);
	assert_int_equal(plugin_config_finish(c), -EINVAL);
	assert_int_equal(errors_logged, 1);
}

static void test_unknown_compression(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(SET(c, "Compression", S("lz4")), -EINVAL);
	assert_one_error("Compression \"lz4\"", "default, snappy, gzip, zstd, none");
}

/* Format x Compression: what finish accepts, and its message otherwise. */
static void check_combo(const char *format, const char *comp, const char *why)
{
	struct plugin_config c;

	errors_logged = 0;
	assert_int_equal(plugin_config_init(&c), 0);
	assert_int_equal(SET(&c, "URL", S("http://x/")), 0);
	assert_int_equal(SET(&c, "Format", S(format)), 0);
	assert_int_equal(SET(&c, "Compression", S(comp)), 0);
	if (!why) {
		assert_int_equal(plugin_config_finish(&c), 0);
		assert_int_equal(errors_logged, 0);
	} else {
		assert_int_equal(plugin_config_finish(&c), -EINVAL);
		assert_int_equal(errors_logged, 1);
		if (!strstr(last_error, "Compression \"") || !strstr(last_error, comp) || !strstr(last_error, why))
			fail_msg("%s + %s: error \"%s\" lacks \"%s\"", format, comp, last_error, why);
	}
	plugin_config_free(&c);
}

static void test_compression_for_format(void **state)
{
	check_combo("remote_write", "default", NULL);
	check_combo("remote_write", "snappy", NULL);
	check_combo("remote_write", "zstd", NULL);
	check_combo("remote_write", "gzip", "remote_write takes snappy");
	check_combo("remote_write", "none", "remote_write takes snappy");
	check_combo("remote_write_v2", "default", NULL);
	check_combo("remote_write_v2", "snappy", NULL);
	check_combo("remote_write_v2", "zstd", "remote_write_v2 takes snappy only");
	check_combo("remote_write_v2", "gzip", "remote_write_v2 takes snappy only");
	check_combo("otlp", "default", NULL);
	check_combo("otlp", "gzip", NULL);
	check_combo("otlp", "zstd", NULL);
	check_combo("otlp", "none", NULL);
	check_combo("otlp", "snappy", "otlp takes gzip, zstd or none");
}

static void test_compression_effective(void **state)
{
	assert_int_equal(compression_effective(WIRE_REMOTE_WRITE, COMPRESSION_DEFAULT), COMPRESSION_SNAPPY);
	assert_int_equal(compression_effective(WIRE_REMOTE_WRITE_V2, COMPRESSION_DEFAULT), COMPRESSION_SNAPPY);
	assert_int_equal(compression_effective(WIRE_OTLP, COMPRESSION_DEFAULT), COMPRESSION_GZIP);
	assert_int_equal(compression_effective(WIRE_OTLP, COMPRESSION_NONE), COMPRESSION_NONE);
	assert_string_equal(wire_format_name(WIRE_REMOTE_WRITE_V2), "remote_write_v2");
	assert_string_equal(compression_name(COMPRESSION_ZSTD), "zstd");
	assert_string_equal(wire_format_name((enum wire_format)99), "?");
}

static void bad_label(const char *name, const char *value, const char *why)
{
	struct plugin_config c;

	errors_logged = 0;
	assert_int_equal(plugin_config_init(&c), 0);
	assert_int_equal(SET(&c, "Label", S(name), S(value)), -EINVAL);
	assert_int_equal(errors_logged, 1);
	if (!strstr(last_error, "Label \"") || !strstr(last_error, why))
		fail_msg("Label %s %s: error \"%s\" lacks \"%s\"", name, value, last_error, why);
	assert_int_equal(c.sender.nr_labels, 0);
	plugin_config_free(&c);
}

static void test_label_name_rules(void **state)
{
	struct plugin_config *c = *state;

	bad_label("", "v", "not a label name");
	bad_label("1dc", "v", "not a label name");
	bad_label("d-c", "v", "not a label name");
	bad_label("d.c", "v", "not a label name");
	bad_label("dé", "v", "not a label name");
	bad_label("__name__", "v", "not starting with \"__\"");
	bad_label("__x", "v", "not starting with \"__\"");
	bad_label("cgroup", "v", "the plugin sets this label itself");
	bad_label("host", "v", "the plugin sets this label itself");
	bad_label("reason", "v", "the plugin sets this label itself");
	bad_label("node", "v", "the plugin sets this label itself"); /* per-node stats */
	bad_label("unit", "v", "the plugin sets this label itself");
	bad_label("container_id", "v", "the plugin sets this label itself");
	bad_label("pod_uid", "v", "the plugin sets this label itself");
	bad_label("namespace", "v", "the plugin sets this label itself");
	bad_label("pod", "v", "the plugin sets this label itself");
	bad_label("container", "v", "the plugin sets this label itself");
	bad_label("dc", "", "must not be empty");

	/* twice */
	errors_logged = 0;
	assert_int_equal(SET(c, "Label", S("dc"), S("a")), 0);
	assert_int_equal(SET(c, "Label", S("dc"), S("b")), -EINVAL);
	assert_one_error("Label \"dc\"", "given twice");
	/* one string, three strings */
	errors_logged = 0;
	assert_int_equal(SET(c, "Label", S("x")), -EINVAL);
	assert_one_error("Label", "expects a name and a value, got 1");
	errors_logged = 0;
	assert_int_equal(SET(c, "Label", S("x"), S("y"), S("z")), -EINVAL);
	assert_one_error("Label", "got 3");
	assert_int_equal(c->sender.nr_labels, 1);
	assert_string_equal(c->sender.labels[0].value, "a");
}

static void test_too_many_labels(void **state)
{
	struct plugin_config *c = *state;
	char name[16];

	for (int i = 0; i < SENDER_MAX_LABELS; i++) {
		snprintf(name, sizeof(name), "l%d", i);
		assert_int_equal(SET(c, "Label", S(name), S("v")), 0);
	}
	assert_int_equal(SET(c, "Label", S("last"), S("v")), -E2BIG);
	assert_one_error("Label \"last\"", "more than 32 labels");
}

/* BatchSendDeadline not given: 5 s, or 0 with a SpoolDir (nothing waits that a crash would lose) */
static void test_batch_deadline_default(void **state)
{
	static const struct {
		const char *spool_dir;
		double given; /* < 0: not given */
		double want;
	} cases[] = {
		{ NULL, -1, SENDER_DEFAULT_BATCH_DEADLINE_S },
		{ "/var/spool/x", -1, 0 },
		{ "/var/spool/x", 3, 3 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct plugin_config *c;

		setup(state);
		c = *state;
		assert_int_equal(SET(c, "URL", S("http://a/api/v1/write")), 0);
		if (cases[i].spool_dir)
			assert_int_equal(SET(c, "SpoolDir", S(cases[i].spool_dir)), 0);
		if (cases[i].given >= 0)
			assert_int_equal(SET(c, "BatchSendDeadline", N(cases[i].given)), 0);
		assert_int_equal(plugin_config_finish(c), 0);
		assert_true(c->sender.batch_deadline_s == cases[i].want);
		assert_int_equal(errors_logged + warnings_logged, 0);
		teardown(state);
	}
}

/* BatchSendDeadline: how many intervals share a request */
static void test_batch_intervals(void **state)
{
	static const struct {
		double deadline_s, interval_s;
		size_t queue_length;
		enum wire_format format;
		size_t nr_values, want;
	} cases[] = {
		/* not configured (not through the plugin's config), or the interval unknown: each on its own */
		{ SENDER_BATCH_DEADLINE_UNSET, 1, 16, WIRE_REMOTE_WRITE, 100, 1 },
		{ 5, 0, 16, WIRE_REMOTE_WRITE, 100, 1 },
		/* 5 s: the oldest waits 5 intervals, 6 share; at most half the queue (+1) */
		{ 5, 1, 16, WIRE_REMOTE_WRITE, 100, 6 },
		{ 5, 1, 4, WIRE_REMOTE_WRITE, 100, 3 },
		/* 19,034 samples an interval (1,000 cgroups): two fit 50,000 */
		{ 5, 1, 16, WIRE_REMOTE_WRITE, 19034, 2 },
		/* one interval fills a request: no waiting */
		{ 5, 1, 16, WIRE_REMOTE_WRITE, 50000, 1 },
		{ 5, 1, 16, WIRE_REMOTE_WRITE, 190034, 1 },
		/* intervals slower than the deadline (collectd's default 10 s) */
		{ 5, 10, 16, WIRE_REMOTE_WRITE, 100, 1 },
		{ 5, 2.5, 16, WIRE_OTLP, 100, 3 },
		/* off, and remote write 2.0 (its requests join nothing) */
		{ 0, 1, 16, WIRE_REMOTE_WRITE, 100, 1 },
		{ 5, 1, 16, WIRE_REMOTE_WRITE_V2, 100, 1 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sender_config c;

		sender_config_init(&c);
		c.batch_deadline_s = cases[i].deadline_s;
		c.interval_s = cases[i].interval_s;
		c.queue_length = cases[i].queue_length;
		c.format = cases[i].format;
		assert_int_equal(sender_config_batch_intervals(&c, cases[i].nr_values), cases[i].want);
		sender_config_free(&c);
	}
}

static void test_limits_out_of_range(void **state)
{
	struct plugin_config *c = *state;
	static const struct {
		const char *key;
		double bad;
		const char *why;
	} cases[] = {
		{ "MaxSamplesPerSend", 0, "MaxSamplesPerSend 0: must be from 1 to 1000000" },
		{ "MaxSamplesPerSend", -5, "MaxSamplesPerSend -5: must be from 1 to 1000000" },
		{ "MaxSamplesPerSend", 1000001, "MaxSamplesPerSend 1000001: must be from 1 to 1000000" },
		{ "MaxBytesPerSend", 1023, "MaxBytesPerSend 1023: must be from 1024 to 67108864" },
		{ "MaxBytesPerSend", 67108865, "MaxBytesPerSend 67108865: must be from 1024 to 67108864" },
		{ "QueueLength", 0, "QueueLength 0: must be from 1 to 10000" },
		{ "QueueLength", 10001, "QueueLength 10001: must be from 1 to 10000" },
		{ "BatchSendDeadline", -1, "BatchSendDeadline -1: must be from 0 (every interval on its own) to 3600" },
		{ "BatchSendDeadline", 3601, "BatchSendDeadline 3601: must be from 0" },
		{ "Timeout", 0, "Timeout 0: must be from 0.1 to 3600 seconds" },
		{ "Timeout", -1, "Timeout -1: must be from 0.1" },
		{ "Timeout", 0.0004, "Timeout 0.0004: must be from 0.1 to 3600" }, /* was "no timeout" */
		{ "Timeout", 3601, "Timeout 3601: must be from 0.1 to 3600" },
		{ "ConnectTimeout", 0, "ConnectTimeout 0: must be from 0.1" },
		{ "ConnectTimeout", 0.05, "ConnectTimeout 0.05: must be from 0.1" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		errors_logged = 0;
		assert_int_equal(SET(c, cases[i].key, N(cases[i].bad)), -EINVAL);
		assert_one_error(cases[i].why, NULL);
	}
	/* the bounds themselves are fine; the rejected lines changed nothing before */
	errors_logged = 0;
	assert_int_equal(c->sender.max_samples, SENDER_DEFAULT_MAX_SAMPLES);
	assert_int_equal(SET(c, "MaxSamplesPerSend", N(1000000)), 0);
	assert_int_equal(SET(c, "MaxSamplesPerSend", N(1)), 0);
	assert_int_equal(SET(c, "MaxBytesPerSend", N(67108864)), 0);
	assert_int_equal(SET(c, "QueueLength", N(10000)), 0);
	assert_true(c->sender.batch_deadline_s == SENDER_BATCH_DEADLINE_UNSET);
	assert_int_equal(SET(c, "BatchSendDeadline", N(2.5)), 0);
	assert_true(c->sender.batch_deadline_s == 2.5);
	assert_int_equal(SET(c, "Timeout", N(3600)), 0);
	assert_int_equal(errors_logged, 0);
	assert_int_equal(c->sender.max_samples, 1);
	/* wrong types */
	assert_int_equal(SET(c, "MaxSamplesPerSend", N(2.5)), -EINVAL);
	assert_one_error("MaxSamplesPerSend", "not a whole number");
	errors_logged = 0;
	assert_int_equal(SET(c, "MaxSamplesPerSend", S("2000")), -EINVAL);
	assert_one_error("MaxSamplesPerSend", "got a string");
	errors_logged = 0;
	assert_int_equal(SET(c, "VerifyPeer", S("maybe")), -EINVAL);
	assert_one_error("VerifyPeer", "not true or false");
}

static void test_empty_paths(void **state)
{
	static const char *const keys[] = { "CACert", "ClientCert", "ClientKey", "BearerTokenFile", "ServiceInstanceId",
					     "BasicAuthUser", "BasicAuthPasswordFile" };
	struct plugin_config *c = *state;

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		errors_logged = 0;
		assert_int_equal(SET(c, keys[i], S("")), -EINVAL);
		assert_one_error(keys[i], "must not be empty");
	}
}

/* kubelet's directories: absolute paths only */
static void test_kubelet_dirs_absolute(void **state)
{
	static const char *const keys[] = { "PodLogDir", "ContainerLogDir" };
	struct plugin_config *c = *state;

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		errors_logged = 0;
		assert_int_equal(SET(c, keys[i], S("var/log/pods")), -EINVAL);
		assert_one_error(keys[i], "must be an absolute path");
	}
}

/* ---- checks after the last line */

static void finish_fails_with(struct plugin_config *c, const char *needle1, const char *needle2)
{
	errors_logged = 0;
	assert_int_equal(plugin_config_finish(c), -EINVAL);
	assert_one_error(needle1, needle2);
}

static void test_sender_keys_need_url(void **state)
{
	struct plugin_config *c = *state;

	assert_int_equal(SET(c, "Format", S("otlp")), 0);
	finish_fails_with(c, "URL", "no URL to send to");
}

static void test_client_cert_without_key(void **state)
{
	struct plugin_config *c = *state;

	URL(c);
	assert_int_equal(SET(c, "ClientCert", S("/c.pem")), 0);
	finish_fails_with(c, "ClientCert", "ClientCert and ClientKey go together");
}

static void test_client_key_without_cert(void **state)
{
	struct plugin_config *c = *state;

	URL(c);
	assert_int_equal(SET(c, "ClientKey", S("/k.pem")), 0);
	finish_fails_with(c, "ClientKey", "ClientCert and ClientKey go together");
}

static void test_basic_auth_half(void **state)
{
	struct plugin_config *c = *state;

	URL(c);
	assert_int_equal(SET(c, "BasicAuthUser", S("u")), 0);
	finish_fails_with(c, "BasicAuthUser", "BasicAuthUser and BasicAuthPasswordFile go together");
}

static void test_bearer_and_basic(void **state)
{
	struct plugin_config *c = *state;

	URL(c);
	assert_int_equal(SET(c, "BasicAuthUser", S("u")), 0);
	assert_int_equal(SET(c, "BasicAuthPasswordFile", S("/pw")), 0);
	assert_int_equal(SET(c, "BearerTokenFile", S("/t")), 0);
	finish_fails_with(c, "BearerTokenFile", "cannot be used together with BasicAuthUser");
}

static void test_connect_timeout_longer(void **state)
{
	struct plugin_config *c = *state;

	URL(c);
	assert_int_equal(SET(c, "Timeout", N(2)), 0);
	assert_int_equal(SET(c, "ConnectTimeout", N(3)), 0);
	finish_fails_with(c, "ConnectTimeout 3", "longer than Timeout 2");
}

/* service.instance.id is OTLP's: refused with another format (empty: test_empty_paths) */
static void test_service_instance_id_needs_otlp(void **state)
{
	struct plugin_config *c = *state;

	URL(c);
	assert_int_equal(SET(c, "ServiceInstanceId", S("node-7")), 0);
	finish_fails_with(c, "ServiceInstanceId", "given with Format \"remote_write\"");
}

static void test_every_finish_error_counted(void **state)
{
	struct plugin_config *c = *state;

	URL(c);
	assert_int_equal(SET(c, "Format", S("remote_write_v2")), 0);
	assert_int_equal(SET(c, "Compression", S("gzip")), 0);
	assert_int_equal(SET(c, "ClientKey", S("/k")), 0);
	assert_int_equal(plugin_config_finish(c), -EINVAL);
	assert_int_equal(errors_logged, 2);
	assert_int_equal(c->errors, 2);
}

/* ---- metric names */

static void test_metric_names(void **state)
{
	static const struct {
		const char *stat, *name;
	} want[] = {
		{ "anon", "memcg_anon_bytes" },        { "usage", "memcg_usage_bytes" },
		{ "file_dirty", "memcg_file_dirty_bytes" }, { "pgfault", "memcg_pgfault_total" },
		{ "oom_kill", "memcg_oom_kill_total" }, { "workingset_refault_file", "memcg_workingset_refault_file_total" },
	};
	const struct stat_def *cat;
	char buf[METRIC_NAME_MAX];
	size_t n;

	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const struct stat_def *d = stat_lookup(want[i].stat);

		assert_non_null(d);
		assert_int_equal(metric_name(d, buf, sizeof(buf)), strlen(want[i].name));
		assert_string_equal(buf, want[i].name);
	}
	/* every catalog entry: a valid, unique name with the suffix its kind calls for */
	cat = stat_catalog(&n);
	for (size_t i = 0; i < n; i++) {
		size_t len;

		assert_true(metric_name(&cat[i], buf, sizeof(buf)) > 0);
		assert_true(label_name_valid(buf)); /* metric names use the same characters here */
		assert_memory_equal(buf, "memcg_", 6);
		len = strlen(buf);
		if (cat[i].type == STAT_COUNTER)
			assert_string_equal(buf + len - 6, "_total");
		else if (cat[i].unit == STAT_UNIT_BYTES)
			assert_string_equal(buf + len - 6, "_bytes");
		/*
		 * its OTLP unit adds nothing where a receiver appends units to
		 * names: "bytes" and "seconds" are in the name, a count is an
		 * annotation in curly braces (dropped), never "1" (a ratio)
		 */
		if (cat[i].unit == STAT_UNIT_BYTES)
			assert_string_equal(metric_unit(&cat[i]), "By");
		else if (cat[i].unit == STAT_UNIT_MICROSECONDS)
			assert_true(strcmp(metric_unit(&cat[i]), "s") == 0 && strstr(buf, "_seconds_total"));
		else
			assert_true(metric_unit(&cat[i])[0] == '{' &&
				    metric_unit(&cat[i])[strlen(metric_unit(&cat[i])) - 1] == '}');
		for (size_t j = 0; j < i; j++) {
			char other[METRIC_NAME_MAX];

			metric_name(&cat[j], other, sizeof(other));
			assert_string_not_equal(buf, other);
		}
	}
}

static void test_metric_name_other_gauge(void **state)
{
	const struct stat_def d = { .name = "nr_things", .unit = STAT_UNIT_COUNT, .type = STAT_GAUGE };
	char buf[METRIC_NAME_MAX];

	assert_int_equal(metric_name(&d, buf, sizeof(buf)), 15);
	assert_string_equal(buf, "memcg_nr_things");
}

static void test_metric_name_too_long(void **state)
{
	const struct stat_def *d = stat_lookup("anon");
	char buf[17];

	assert_int_equal(metric_name(d, buf, sizeof(buf)), 16); /* "memcg_anon_bytes" */
	assert_int_equal(metric_name(d, buf, 10), -ENAMETOOLONG);
	assert_int_equal(metric_name(d, buf, 16), -ENAMETOOLONG); /* no room for the NUL */
}

static void test_label_names(void **state)
{
	assert_true(label_name_valid("a"));
	assert_true(label_name_valid("_"));
	assert_true(label_name_valid("__name__"));
	assert_true(label_name_valid("Z9_x"));
	assert_false(label_name_valid(NULL));
	assert_false(label_name_valid(""));
	assert_false(label_name_valid("9a"));
	assert_false(label_name_valid("a b"));
	assert_false(label_name_valid("a:b")); /* ':' is for metric names only */
	assert_true(label_name_allowed_static("dc"));
	assert_true(label_name_allowed_static("_dc"));
	assert_false(label_name_allowed_static("__dc"));
	assert_false(label_name_allowed_static("__name__"));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_sender_off_by_default),
		T(test_all_sender_keys),
		T(test_basic_auth_keys),
		T(test_bad_url),
		T(test_too_many_urls),
		T(test_unknown_format),
		T(test_unknown_compression),
		T(test_compression_for_format),
		T(test_compression_effective),
		T(test_label_name_rules),
		T(test_too_many_labels),
		T(test_limits_out_of_range),
		cmocka_unit_test(test_batch_intervals),
		cmocka_unit_test(test_batch_deadline_default),
		T(test_empty_paths),
		T(test_kubelet_dirs_absolute),
		T(test_sender_keys_need_url),
		T(test_client_cert_without_key),
		T(test_client_key_without_cert),
		T(test_basic_auth_half),
		T(test_bearer_and_basic),
		T(test_connect_timeout_longer),
		T(test_service_instance_id_needs_otlp),
		T(test_every_finish_error_counted),
		T(test_metric_names),
		T(test_metric_name_other_gauge),
		T(test_metric_name_too_long),
		T(test_label_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
