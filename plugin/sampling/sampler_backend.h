/* SPDX-License-Identifier: GPL-2.0-only */
/* What a sampler backend implements; private to sampler*.c. */
#ifndef MEMCG_BPF_SAMPLER_BACKEND_H
#define MEMCG_BPF_SAMPLER_BACKEND_H

#include <stddef.h>

#include "sampling/cgroup_mount.h"
#include "sampling/sampler.h"

struct oom_tracker;

struct sampler_backend_ops {
	const char *name;
	/*
	 * Prepares to sample s->stats under s->mount. Drops the stats this
	 * kernel lacks with sampler_drop_stat(). Returns 0; or -EOPNOTSUPP
	 * with @why set when this kernel cannot run the backend (auto then
	 * tries the next one); or another negative errno.
	 */
	int (*open)(struct sampler *s, char *why, size_t why_len);
	/* Fills @t (already reset). Returns 0 or a negative errno. */
	int (*sample)(struct sampler *s, struct sample_table *t);
	/* sampler_rank_only(); NULL: every cgroup is read whole. */
	int (*rank_only)(struct sampler *s, const struct sample_table *t, const bool *ships);
	/* Frees s->priv; safe when open failed. */
	void (*close)(struct sampler *s);
};

struct sampler {
	const struct sampler_backend_ops *ops;
	enum sampler_backend backend; /* which one ops is */
	void *priv;
	struct cgroup_mount mount;
	int max_depth;
	bool strict_stats;
	const struct stat_def **stats; /* sampled columns: the shown ones, then hidden inputs */
	size_t nr_stats;               /* all columns: what the backends sample */
	size_t nr_shown;               /* the first nr_shown columns are the table's stats */
	bool quiet_drops;              /* a missing stat is worth a notice, not a warning */
	bool backend_chosen;           /* the configuration named the backend (not auto) */
	const char *reason;            /* why this backend runs: sampler_backend_reason() */
	bool check_failed;             /* the last try_checked() failed its start-up check */
	const struct stat_def **node_columns; /* the per-node columns asked for (stat_on_node()) */
	size_t nr_node_columns;
	const struct stat_def **excluded; /* left out before the backend opens (bpf-core check) */
	size_t nr_excluded;
	struct derived_column *derived;
	size_t nr_derived;
	struct oom_tracker *oom; /* the bpf backends: fills the oom_victims_local column */
	size_t oom_column;
};

/* A derived stat's column and the columns of its inputs. */
struct derived_column {
	size_t column;
	size_t input[STAT_MAX_INPUTS];
};

extern const struct sampler_backend_ops sampler_bpf_ops;
extern const struct sampler_backend_ops sampler_bpf_core_ops;
extern const struct sampler_backend_ops sampler_text_ops;


/*
 * Removes column @i, logging that the running kernel lacks it and why
 * (a hidden input column goes without a word: its derived stat says it).
 * Returns -ENOENT when strict_stats is set (the caller must fail), else 0.
 */
int sampler_drop_stat(struct sampler *s, size_t i, const char *why);

#endif
