/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The <Plugin memcg_bpf> block, parsed without collectd: the glue turns each
 * oconfig item into a key and a list of plain values and hands it to
 * plugin_config_set(). One table holds every key, its value shape and its
 * setter, so new keys (the sender's URL, Format, ...) are new rows.
 *
 * A rejected line logs one error that names the key, the value and the
 * reason; further rejected lines of the same key (a repeated mistake) are
 * counted, not logged again, and plugin_config_finish() sums them up in one
 * warning. A key that takes one value given twice is an error; Stat, Cgroup,
 * URL and Label may repeat.
 */
#ifndef MEMCG_BPF_PLUGIN_CONFIG_H
#define MEMCG_BPF_PLUGIN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "sampling/cgroup_budget.h"
#include "sampling/cgroup_filter.h"
#include "sampling/sampler.h"
#include "sending/sender_config.h"
#include "sampling/stat_catalog.h"

#define PLUGIN_CONFIG_MAX_STATS STAT_SELECTION_MAX
#define PLUGIN_CONFIG_MAX_NUMA_STATS STAT_SELECTION_MAX
#define PLUGIN_CONFIG_ALLOC_TOP 50
#define PLUGIN_CONFIG_ALLOC_TOP_MAX 1000
#define PLUGIN_CONFIG_ALLOC_INTERVAL_S 60
#define PLUGIN_CONFIG_MAX_KEYS 64
#define PLUGIN_CONFIG_MAX_UNKNOWN 8
/*
 * SelfInterval's default: collectd's own default Interval, so that at
 * Interval 10 and above the self values go with every read, and at
 * Interval 1 the ~30 of them cost collectd a tenth of what they would.
 */
#define PLUGIN_CONFIG_SELF_INTERVAL_S 10.0

enum cfg_value_type {
	CFG_STRING,
	CFG_NUMBER,
	CFG_BOOLEAN,
};

/* One value of a config line, as collectd's parser typed it. */
struct cfg_value {
	enum cfg_value_type type;
	const char *string;
	double number;
	bool boolean;
};

struct plugin_config {
	enum sampler_backend backend;
	char *cgroup_root;
	const struct stat_def *stats[PLUGIN_CONFIG_MAX_STATS];
	size_t nr_stats;                /* 0 until Stat is given or finish() picks the default */
	const struct stat_def *numa_stats[PLUGIN_CONFIG_MAX_NUMA_STATS]; /* NumaStat: per-node templates */
	size_t nr_numa_stats;           /* 0: none (the default) */
	struct cgroup_filter *filter;   /* Cgroup patterns */
	bool default_stats;             /* no Stat given, or Stat "default": the default set in it */
	bool ignore_selected;
	int max_depth;                  /* < 0: unlimited */
	struct cgroup_budget_limits budget; /* MaxChildren, MaxCgroups (0: no limit) */
	bool include_root;
	bool dispatch_values;           /* default: true without a URL, false with one */
	bool dispatch_values_given;
	bool report_self;
	double self_interval_s;         /* SelfInterval: self values into collectd this often (seconds) */
	bool values_per_cgroup;         /* dispatch one value list per cgroup (type memcg_bpf) */
	bool alloc_info;                /* AllocInfo: ship the kernel's allocation profile */
	unsigned int alloc_top;         /* AllocInfoTop: call sites shipped */
	double alloc_interval_s;        /* AllocInfoInterval: seconds between reads */
	char *alloc_file;               /* AllocInfoFile: ALLOCINFO_PATH by default */
	struct sender_config sender;    /* URL, Format, ...: the sender is on when nr_urls > 0 */
	unsigned int sender_keys;       /* sender keys given (they need a URL) */
	unsigned int errors;            /* lines rejected so far */
	/*
	 * Checks a URL when it is read (the glue sets curl's URL parser here);
	 * NULL: only the scheme is checked. 0, or -EINVAL with a reason in @why.
	 */
	int (*check_url)(const char *url, char *why, size_t len);
	/* per key of the table: lines seen, lines rejected (only the first is logged) */
	unsigned int key_lines[PLUGIN_CONFIG_MAX_KEYS];
	unsigned int key_errors[PLUGIN_CONFIG_MAX_KEYS];
	char *unknown[PLUGIN_CONFIG_MAX_UNKNOWN]; /* unknown keys already reported */
	size_t nr_unknown;
};

/* Sets the defaults. Returns 0 or -ENOMEM. */
int plugin_config_init(struct plugin_config *c);
/*
 * Applies one line. Returns 0, or a negative errno after logging one error
 * naming @key (unknown key, wrong value type, bad value); the error is also
 * counted in c->errors.
 */
int plugin_config_set(struct plugin_config *c, const char *key, const struct cfg_value *values,
		      size_t nr_values);
/*
 * Validates after the last line and fills in what was left out. Returns
 * -EINVAL, without logging again, when any line was rejected.
 */
int plugin_config_finish(struct plugin_config *c);
/* The sampler options this configuration asks for (borrowing from @c). */
void plugin_config_sampler_opts(const struct plugin_config *c, struct sampler_opts *opts);
/* Frees what @c owns; safe on a zeroed or already freed config. */
void plugin_config_free(struct plugin_config *c);

/*
 * Every how many reads of @interval_s seconds the self values go to
 * collectd: SelfInterval rounded up to whole intervals (a SelfInterval
 * within 1% above a whole number of them rounds down), at least 1.
 */
unsigned int plugin_config_self_every(const struct plugin_config *c, double interval_s);

/* "Backend", "CgroupRoot", ... as a ", "-separated list, for messages. */
const char *plugin_config_keys(void);

#endif
