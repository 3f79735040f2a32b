/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The plugin's observations of itself, as one table that both outputs read:
 * collectd (plugin_instance "self", TYPE-TYPE_INSTANCE) and the wire
 * (memcg_bpf_sender_*, through the snapshot). A figure added here goes both
 * ways; the glue fills a plain struct self_values from the sampler and the
 * sender's stats each interval.
 *
 * The sampler's figures have wire names (memcg_bpf_cgroups_*,
 * memcg_bpf_sample_*, and memcg_bpf_backend_info{backend,reason}, the one
 * running and why), but for the values dispatched to collectd and the
 * per-backend gauges, which go to collectd alone.
 */
#ifndef MEMCG_BPF_SELF_METRICS_H
#define MEMCG_BPF_SELF_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sampling/sampler.h"
#include "series/snapshot.h"

/*
 * 5 (the budget's) + 4 (the sample's) + 1 (the backend) + 4 + 2 x 8 + 4 + 4
 * wire values at most: within SNAPSHOT_MAX_SELF.
 */
#define SELF_MAX_DROP_REASONS 8
#define SELF_MAX_CPU_STAGES 4

struct self_values {
	/* the sampler's */
	bool sampled; /* this interval's walk succeeded: the five below are valid */
	uint64_t cgroups_seen, cgroups_selected, cgroups_skipped, values_dispatched;
	uint64_t cgroups_kept, cgroups_cut, cut_parents; /* the budget's (sampling/cgroup_budget.h) */
	double sample_s;
	double sample_cpu_s; /* the sampling thread's CPU for the walk */
	double sample_cpu_total_s; /* ... for every walk since start */
	uint64_t sample_errors; /* walks that failed, since start */
	enum sampler_backend backend; /* the one running */
	const char *backend_reason;   /* why: sampler_backend_reason() (a static string) */

	/* the sender's (sending/sender.h, struct sender_stats) */
	bool sending; /* a sender runs: the rest is valid */
	uint64_t batches_sent, samples_sent, retries, bytes_sent;
	size_t nr_drop_reasons;
	const char *drop_reasons[SELF_MAX_DROP_REASONS]; /* static strings */
	uint64_t dropped_batches[SELF_MAX_DROP_REASONS];
	uint64_t dropped_samples[SELF_MAX_DROP_REASONS];
	double last_send_latency_s;
	uint64_t queue_length, spool_batches, spool_bytes;
	size_t nr_cpu_stages;
	const char *cpu_stages[SELF_MAX_CPU_STAGES]; /* static strings */
	double sender_cpu_s[SELF_MAX_CPU_STAGES];   /* the sender thread's CPU per stage, since start */
};

enum self_source {
	SELF_SAMPLE, /* when the walk succeeded (sampled) */
	SELF_SAMPLER, /* every interval */
	SELF_SENDER, /* when a sender runs (sending) */
};

/* A figure that comes once per drop reason or per CPU stage; on the wire, with a label. */
enum self_per {
	SELF_PER_NONE,
	SELF_PER_DROP_REASON, /* label "reason" */
	SELF_PER_CPU_STAGE,   /* label "stage" */
};

struct self_metric_def {
	const char *type;          /* collectd type: count, duration, derive, gauge, bytes, total_time_in_ms */
	const char *type_instance; /* per reason or stage: TYPE_INSTANCE-REASON */
	const char *wire_name;     /* NULL: collectd only */
	const char *wire_unit;     /* on the wire, OTLP's UCUM unit (metric_names.h): "By", "s", "{batch}" */
	bool counter;              /* DERIVE in collectd, a counter on the wire; else a gauge */
	enum self_per per;
	double collectd_scale;     /* the collectd value is the wire value times this (0: 1) */
	enum self_source source;
	double (*get)(const struct self_values *v, size_t i);
};

/* The wire label of @m's per-values ("reason", "stage"), or NULL. */
const char *self_metric_label(const struct self_metric_def *m);

/* @label: the drop reason's or the stage's name, or NULL. */
typedef void (*self_metric_fn)(const struct self_metric_def *m, const char *label, double value, void *arg);

/* Calls @fn for every self metric @v has a value for, in table order. */
void self_metrics_each(const struct self_values *v, self_metric_fn fn, void *arg);
/* Appends to @snap every self metric of @v that has a wire name. */
void self_metrics_to_snapshot(const struct self_values *v, struct snapshot *snap);

#endif
