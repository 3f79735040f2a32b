// SPDX-License-Identifier: GPL-2.0-only
#include "series/self_metrics.h"

#include "base/macros.h"

#define GET(field)                                                                            \
	static double get_##field(const struct self_values *v, size_t i)                      \
	{                                                                                     \
		return (double)v->field;                                                      \
	}
#define GET_PER(field)                                                                        \
	static double get_##field(const struct self_values *v, size_t i)                      \
	{                                                                                     \
		return (double)v->field[i];                                                   \
	}

GET(cgroups_seen)
GET(cgroups_selected)
GET(cgroups_skipped)
GET(values_dispatched)
GET(cgroups_kept)
GET(cgroups_cut)
GET(cut_parents)
GET(sample_s)
GET(sample_cpu_s)
GET(sample_cpu_total_s)
GET(sample_errors)
GET(batches_sent)
GET(samples_sent)
GET(retries)
GET(bytes_sent)
GET_PER(dropped_batches)
GET_PER(dropped_samples)
GET_PER(sender_cpu_s)
GET(last_send_latency_s)
GET(queue_length)
GET(spool_batches)
GET(spool_bytes)

static double get_backend_bpf(const struct self_values *v, size_t i)
{
	return v->backend == SAMPLER_BPF;
}

static double get_backend_text(const struct self_values *v, size_t i)
{
	return v->backend == SAMPLER_TEXT;
}

static double get_backend_bpf_core(const struct self_values *v, size_t i)
{
	return v->backend == SAMPLER_BPF_CORE;
}

#define SAMPLE_GAUGE(type, ti, field) { type, ti, NULL, NULL, false, SELF_PER_NONE, 0, SELF_SAMPLE, get_##field }
#define SAMPLE_WIRE_GAUGE(ti, wire, unit, field) { "count", ti, wire, unit, false, SELF_PER_NONE, 0, SELF_SAMPLE, \
						  get_##field }
#define SENDER_COUNTER(ti, wire, unit, field) { "derive", ti, wire, unit, true, SELF_PER_NONE, 0, SELF_SENDER, \
						get_##field }
#define SENDER_GAUGE(type, ti, wire, unit, field) { type, ti, wire, unit, false, SELF_PER_NONE, 0, SELF_SENDER, \
						    get_##field }
#define SENDER_DROPS(ti, wire, unit, field) { "derive", ti, wire, unit, true, SELF_PER_DROP_REASON, 0, SELF_SENDER, \
					      get_##field }

static const struct self_metric_def self_metrics[] = {
	SAMPLE_WIRE_GAUGE("cgroups_seen", "memcg_bpf_cgroups_seen", "{cgroup}", cgroups_seen),
	/* the budget's: selected (what it was given), kept, cut, and the parents of cut children */
	SAMPLE_WIRE_GAUGE("cgroups_selected", "memcg_bpf_cgroups_selected", "{cgroup}", cgroups_selected),
	SAMPLE_WIRE_GAUGE("cgroups_kept", "memcg_bpf_cgroups_kept", "{cgroup}", cgroups_kept),
	SAMPLE_WIRE_GAUGE("cgroups_cut", "memcg_bpf_cgroups_cut", "{cgroup}", cgroups_cut),
	SAMPLE_WIRE_GAUGE("cgroup_parents_cut", "memcg_bpf_cgroup_parents_cut", "{cgroup}", cut_parents),
	SAMPLE_WIRE_GAUGE("cgroups_skipped", "memcg_bpf_cgroups_skipped", "{cgroup}", cgroups_skipped),
	SAMPLE_GAUGE("count", "values_dispatched", values_dispatched),
	{ "duration", "sample", "memcg_bpf_sample_duration_seconds", "s", false, SELF_PER_NONE, 0, SELF_SAMPLE,
	  get_sample_s },
	SAMPLE_GAUGE("duration", "sample_cpu", sample_cpu_s),
	/* milliseconds, as sender_cpu: a DERIVE is an integer */
	{ "total_time_in_ms", "sample_cpu", "memcg_bpf_sample_cpu_seconds_total", "s", true, SELF_PER_NONE, 1000,
	  SELF_SAMPLER, get_sample_cpu_total_s },
	{ "derive", "sample_errors", "memcg_bpf_sample_errors_total", "{error}", true, SELF_PER_NONE, 0, SELF_SAMPLER,
	  get_sample_errors },
	{ "gauge", "backend-bpf", NULL, NULL, false, SELF_PER_NONE, 0, SELF_SAMPLER, get_backend_bpf },
	{ "gauge", "backend-text", NULL, NULL, false, SELF_PER_NONE, 0, SELF_SAMPLER, get_backend_text },
	{ "gauge", "backend-bpf_core", NULL, NULL, false, SELF_PER_NONE, 0, SELF_SAMPLER, get_backend_bpf_core },
	SENDER_COUNTER("sender_batches_sent", "memcg_bpf_sender_batches_sent_total", "{batch}", batches_sent),
	SENDER_COUNTER("sender_samples_sent", "memcg_bpf_sender_samples_sent_total", "{sample}", samples_sent),
	SENDER_COUNTER("sender_retries", "memcg_bpf_sender_retries_total", "{retry}", retries),
	SENDER_COUNTER("sender_bytes_sent", "memcg_bpf_sender_bytes_sent_total", "By", bytes_sent),
	SENDER_DROPS("sender_dropped_batches", "memcg_bpf_sender_dropped_batches_total", "{batch}", dropped_batches),
	SENDER_DROPS("sender_dropped_samples", "memcg_bpf_sender_dropped_samples_total", "{sample}", dropped_samples),
	SENDER_GAUGE("duration", "sender_last_send_latency", "memcg_bpf_sender_last_send_latency_seconds",
		     "s", last_send_latency_s),
	SENDER_GAUGE("count", "sender_queue_length", "memcg_bpf_sender_queue_length", "{interval}", queue_length),
	SENDER_GAUGE("count", "sender_spool_batches", "memcg_bpf_sender_spool_batches", "{batch}", spool_batches),
	SENDER_GAUGE("bytes", "sender_spool_bytes", "memcg_bpf_sender_spool_bytes", "By", spool_bytes),
	/* seconds on the wire, milliseconds in collectd (a DERIVE is an integer) */
	{ "total_time_in_ms", "sender_cpu", "memcg_bpf_sender_cpu_seconds_total", "s", true, SELF_PER_CPU_STAGE, 1000,
	  SELF_SENDER, get_sender_cpu_s },
};

const char *self_metric_label(const struct self_metric_def *m)
{
	switch (m->per) {
	case SELF_PER_NONE:
		return NULL;
	case SELF_PER_DROP_REASON:
		return "reason";
	case SELF_PER_CPU_STAGE:
		return "stage";
	}
	return NULL;
}

static bool has_values(const struct self_values *v, enum self_source source)
{
	switch (source) {
	case SELF_SAMPLE:
		return v->sampled;
	case SELF_SAMPLER:
		return true;
	case SELF_SENDER:
		return v->sending;
	}
	return false;
}

void self_metrics_each(const struct self_values *v, self_metric_fn fn, void *arg)
{
	for (size_t i = 0; i < ARRAY_SIZE(self_metrics); i++) {
		const struct self_metric_def *m = &self_metrics[i];

		if (!has_values(v, m->source))
			continue;
		switch (m->per) {
		case SELF_PER_NONE:
			fn(m, NULL, m->get(v, 0), arg);
			break;
		case SELF_PER_DROP_REASON:
			for (size_t r = 0; r < v->nr_drop_reasons && r < SELF_MAX_DROP_REASONS; r++)
				fn(m, v->drop_reasons[r], m->get(v, r), arg);
			break;
		case SELF_PER_CPU_STAGE:
			for (size_t c = 0; c < v->nr_cpu_stages && c < SELF_MAX_CPU_STAGES; c++)
				fn(m, v->cpu_stages[c], m->get(v, c), arg);
			break;
		}
	}
}

static void add_to_snapshot(const struct self_metric_def *m, const char *label, double value, void *arg)
{
	if (m->wire_name)
		snapshot_add_self(arg, m->wire_name, self_metric_label(m), label, value, m->counter, m->wire_unit);
}

void self_metrics_to_snapshot(const struct self_values *v, struct snapshot *snap)
{
	self_metrics_each(v, add_to_snapshot, snap);
	/* collectd has one gauge per backend (backend-bpf, ...); the wire one info series */
	snapshot_add_info(snap, "memcg_bpf_backend_info", "backend", sampler_backend_name(v->backend), "reason",
			  v->backend_reason ? v->backend_reason : SAMPLER_REASON_CONFIGURED);
}
