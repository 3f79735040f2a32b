// SPDX-License-Identifier: GPL-2.0-only
/* The self-metric table: what goes to collectd, what goes on the wire. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/macros.h"
#include "series/self_metrics.h"
#include "series/snapshot.h"

static const char *const reasons[] = { "queue_full", "rejected" };
static const char *const stages[] = { "series", "post" };

static struct self_values sender_values(void)
{
	struct self_values v = { .sending = true, .batches_sent = 3, .samples_sent = 30, .retries = 1,
				 .bytes_sent = 999, .nr_drop_reasons = 2, .last_send_latency_s = 0.25,
				 .queue_length = 2, .spool_batches = 5, .spool_bytes = 4096,
				 .backend = SAMPLER_TEXT };

	v.drop_reasons[0] = reasons[0];
	v.drop_reasons[1] = reasons[1];
	v.dropped_batches[1] = 7;
	v.dropped_samples[1] = 70;
	v.nr_cpu_stages = 2;
	v.cpu_stages[0] = stages[0];
	v.cpu_stages[1] = stages[1];
	v.sender_cpu_s[0] = 0.5;
	v.sender_cpu_s[1] = 0.0125;
	return v;
}

struct seen {
	size_t n, wire;
	char collectd[40][64];
	double value[40];
};

static void record(const struct self_metric_def *m, const char *reason, double value, void *arg)
{
	struct seen *s = arg;

	assert_true(s->n < 40);
	assert_non_null(m->type);
	if (reason)
		snprintf(s->collectd[s->n], sizeof(s->collectd[0]), "%s-%s-%s", m->type, m->type_instance, reason);
	else
		snprintf(s->collectd[s->n], sizeof(s->collectd[0]), "%s-%s", m->type, m->type_instance);
	s->value[s->n++] = value;
	s->wire += m->wire_name != NULL;
}

static double value_of(const struct seen *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->collectd[i], name) == 0)
			return s->value[i];
	fail_msg("%s was not dispatched", name);
	return -1;
}

static void test_sampler_values_go_to_collectd(void **state)
{
	struct self_values v = { .sampled = true, .cgroups_seen = 9, .cgroups_selected = 4, .cgroups_kept = 3,
				 .cgroups_cut = 1, .cut_parents = 1, .sample_s = 0.5, .sample_cpu_s = 0.25,
				 .sample_cpu_total_s = 7.5, .sample_errors = 2, .backend = SAMPLER_BPF };
	struct seen s = { 0 };

	self_metrics_each(&v, record, &s);
	assert_int_equal(s.n, 14);
	assert_int_equal(s.wire, 5 + 4); /* the budget's; skipped, duration, CPU, errors */
	assert_true(value_of(&s, "count-cgroups_seen") == 9);
	assert_true(value_of(&s, "count-cgroups_selected") == 4);
	assert_true(value_of(&s, "count-cgroups_kept") == 3);
	assert_true(value_of(&s, "count-cgroups_cut") == 1);
	assert_true(value_of(&s, "count-cgroup_parents_cut") == 1);
	assert_true(value_of(&s, "duration-sample") == 0.5);
	assert_true(value_of(&s, "duration-sample_cpu") == 0.25);
	/* seconds; the collectd glue scales it to milliseconds (collectd_scale) */
	assert_true(value_of(&s, "total_time_in_ms-sample_cpu") == 7.5);
	assert_true(value_of(&s, "derive-sample_errors") == 2);
	assert_true(value_of(&s, "gauge-backend-bpf") == 1);
	assert_true(value_of(&s, "gauge-backend-text") == 0);
	assert_true(value_of(&s, "gauge-backend-bpf_core") == 0);
}

static void test_failed_walk_gives_counters_only(void **state)
{
	struct self_values v = { .sampled = false, .sample_cpu_total_s = 1, .sample_errors = 1,
				 .backend = SAMPLER_TEXT };
	struct seen s = { 0 };

	self_metrics_each(&v, record, &s);
	assert_int_equal(s.n, 5);
	assert_true(value_of(&s, "total_time_in_ms-sample_cpu") == 1);
	assert_true(value_of(&s, "derive-sample_errors") == 1);
	assert_true(value_of(&s, "gauge-backend-text") == 1);
}

/* every figure of the sender goes to collectd and on the wire */
static void test_sender_values_go_both_ways(void **state)
{
	struct self_values v = sender_values();
	struct seen s = { 0 };

	self_metrics_each(&v, record, &s);
	assert_int_equal(s.n, 5 + 4 + 2 * 2 + 4 + 2);
	assert_int_equal(s.wire, 2 + 4 + 2 * 2 + 4 + 2); /* the sampler's CPU and errors, every interval */
	assert_true(value_of(&s, "derive-sender_batches_sent") == 3);
	assert_true(value_of(&s, "derive-sender_dropped_batches-rejected") == 7);
	assert_true(value_of(&s, "derive-sender_dropped_samples-rejected") == 70);
	assert_true(value_of(&s, "derive-sender_dropped_samples-queue_full") == 0);
	assert_true(value_of(&s, "duration-sender_last_send_latency") == 0.25);
	assert_true(value_of(&s, "count-sender_queue_length") == 2);
	assert_true(value_of(&s, "count-sender_spool_batches") == 5);
	assert_true(value_of(&s, "bytes-sender_spool_bytes") == 4096);
	/* the collectd glue scales these to milliseconds (collectd_scale) */
	assert_true(value_of(&s, "total_time_in_ms-sender_cpu-series") == 0.5);
	assert_true(value_of(&s, "total_time_in_ms-sender_cpu-post") == 0.0125);
}

static void test_wire_names(void **state)
{
	static const struct {
		const char *name, *label, *label_value;
		double value;
		bool counter;
	} want[] = {
		{ "memcg_bpf_cgroups_seen", NULL, NULL, 12, false },
		{ "memcg_bpf_cgroups_selected", NULL, NULL, 11, false },
		{ "memcg_bpf_cgroups_kept", NULL, NULL, 10, false },
		{ "memcg_bpf_cgroups_cut", NULL, NULL, 1, false },
		{ "memcg_bpf_cgroup_parents_cut", NULL, NULL, 1, false },
		{ "memcg_bpf_cgroups_skipped", NULL, NULL, 1, false },
		{ "memcg_bpf_sample_duration_seconds", NULL, NULL, 0.5, false },
		{ "memcg_bpf_sample_cpu_seconds_total", NULL, NULL, 7.5, true },
		{ "memcg_bpf_sample_errors_total", NULL, NULL, 2, true },
		{ "memcg_bpf_sender_batches_sent_total", NULL, NULL, 3, true },
		{ "memcg_bpf_sender_samples_sent_total", NULL, NULL, 30, true },
		{ "memcg_bpf_sender_retries_total", NULL, NULL, 1, true },
		{ "memcg_bpf_sender_bytes_sent_total", NULL, NULL, 999, true },
		{ "memcg_bpf_sender_dropped_batches_total", "reason", "queue_full", 0, true },
		{ "memcg_bpf_sender_dropped_batches_total", "reason", "rejected", 7, true },
		{ "memcg_bpf_sender_dropped_samples_total", "reason", "queue_full", 0, true },
		{ "memcg_bpf_sender_dropped_samples_total", "reason", "rejected", 70, true },
		{ "memcg_bpf_sender_last_send_latency_seconds", NULL, NULL, 0.25, false },
		{ "memcg_bpf_sender_queue_length", NULL, NULL, 2, false },
		{ "memcg_bpf_sender_spool_batches", NULL, NULL, 5, false },
		{ "memcg_bpf_sender_spool_bytes", NULL, NULL, 4096, false },
		{ "memcg_bpf_sender_cpu_seconds_total", "stage", "series", 0.5, true },
		{ "memcg_bpf_sender_cpu_seconds_total", "stage", "post", 0.0125, true },
		{ "memcg_bpf_backend_info", "backend", "bpf-core", 1, false },
	};
	struct self_values v = sender_values();
	struct snapshot snap = { 0 };

	/* the sampler's figures on the wire: not the values dispatched to collectd, nor the per-backend gauges */
	v.sampled = true;
	v.cgroups_seen = 12;
	v.cgroups_selected = 11;
	v.cgroups_kept = 10;
	v.cgroups_cut = 1;
	v.cut_parents = 1;
	v.cgroups_skipped = 1;
	v.values_dispatched = 99;
	v.sample_s = 0.5;
	v.sample_cpu_s = 0.25;
	v.sample_cpu_total_s = 7.5;
	v.sample_errors = 2;
	v.backend = SAMPLER_BPF_CORE;
	v.backend_reason = SAMPLER_REASON_NO_KFUNCS;
	self_metrics_to_snapshot(&v, &snap);
	assert_int_equal(snap.nr_self, ARRAY_SIZE(want));
	for (size_t i = 0; i < snap.nr_self; i++) {
		assert_string_equal(snap.self[i].name, want[i].name);
		if (want[i].label) {
			assert_string_equal(snap.self[i].label, want[i].label);
			assert_string_equal(snap.self[i].label_value, want[i].label_value);
		} else {
			assert_null(snap.self[i].label);
			assert_null(snap.self[i].label_value);
		}
		assert_true(snap.self[i].value == want[i].value);
		assert_int_equal(snap.self[i].counter, want[i].counter);
	}
	/* the info series' second label: why this backend runs */
	assert_string_equal(snap.self[snap.nr_self - 1].label2, "reason");
	assert_string_equal(snap.self[snap.nr_self - 1].label2_value, "no_kfuncs");
	/* without a reason given: configured */
	memset(&snap, 0, sizeof(snap));
	v.backend_reason = NULL;
	self_metrics_to_snapshot(&v, &snap);
	assert_string_equal(snap.self[snap.nr_self - 1].label2_value, "configured");
}

/*
 * Every wire figure has an OTLP unit that a receiver appending units to
 * names finds in the name already: By with "_bytes", s with "_seconds",
 * else an annotation in curly braces (dropped there), never "1".
 */
static void test_wire_units(void **state)
{
	struct self_values v = sender_values();
	struct snapshot snap = { 0 };

	self_metrics_to_snapshot(&v, &snap);
	assert_true(snap.nr_self > 0);
	for (size_t i = 0; i < snap.nr_self; i++) {
		const char *name = snap.self[i].name, *unit = snap.self[i].unit;

		assert_non_null(unit);
		if (strstr(name, "_bytes"))
			assert_string_equal(unit, "By");
		else if (strstr(name, "_seconds"))
			assert_string_equal(unit, "s");
		else if (unit[0] != '{' || unit[strlen(unit) - 1] != '}')
			fail_msg("%s: unit %s is neither By, s nor an annotation", name, unit);
	}
}

static void test_no_sender_only_the_sampler_on_the_wire(void **state)
{
	struct self_values v = { .sampled = true, .cgroups_seen = 1 };
	struct snapshot snap = { 0 };

	self_metrics_to_snapshot(&v, &snap);
	assert_int_equal(snap.nr_self, 5 + 4 + 1);
	for (size_t i = 0; i < snap.nr_self; i++)
		assert_false(strncmp(snap.self[i].name, "memcg_bpf_sender", 16) == 0);
	v.sampled = false; /* a failed walk: the counters and the backend only */
	snap.nr_self = 0;
	self_metrics_to_snapshot(&v, &snap);
	assert_int_equal(snap.nr_self, 3);
	assert_string_equal(snap.self[0].name, "memcg_bpf_sample_cpu_seconds_total");
	assert_string_equal(snap.self[1].name, "memcg_bpf_sample_errors_total");
	assert_string_equal(snap.self[2].name, "memcg_bpf_backend_info");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sampler_values_go_to_collectd),
		cmocka_unit_test(test_failed_walk_gives_counters_only),
		cmocka_unit_test(test_sender_values_go_both_ways),
		cmocka_unit_test(test_wire_names),
		cmocka_unit_test(test_wire_units),
		cmocka_unit_test(test_no_sender_only_the_sampler_on_the_wire),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
