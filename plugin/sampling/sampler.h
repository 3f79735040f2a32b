/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sampler: fills a sample_table with the selected stats of every cgroup
 * below a root. Three backends produce the same table:
 *   bpf      - a sleepable cgroup iterator calling the memcg kfuncs (Linux >= 7.0)
 *   bpf-core - the same walk reading the counters with CO-RE (Linux 6.1 to
 *              6.19), checked against memory.stat before it is used
 *   text     - memory.stat and the other memory.* files (cgroup v2 or v1)
 * Derived stats (working_set) are computed here from their inputs, which
 * are sampled as hidden columns when nobody asked for them.
 * "auto" picks bpf when the kernel has the kfuncs and the program loads,
 * else bpf-core when it loads and passes its check, else text, and logs one
 * line saying which and why.
 */
#ifndef MEMCG_BPF_SAMPLER_H
#define MEMCG_BPF_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>

#include "sampling/sample_table.h"
#include "sampling/stat_catalog.h"

enum sampler_backend {
	SAMPLER_AUTO,
	SAMPLER_BPF,
	SAMPLER_TEXT,
	SAMPLER_BPF_CORE,
};

struct sampler_opts {
	const char *cgroup_root;          /* default "/sys/fs/cgroup" */
	int max_depth;                    /* levels below the root; < 0: unlimited */
	enum sampler_backend backend;
	const struct stat_def **stats;    /* requested stats */
	size_t nr_stats;
	bool strict_stats;                /* a stat the kernel lacks is an error, not a warning */
	bool default_stats;               /* stats is the default set: what a kernel lacks is a notice */
	const struct stat_def *rank_stat; /* sampled as a hidden column when not requested (the cgroup budget ranks by it); NULL: none */
	/*
	 * Per-node stats (numa_stat_catalog() templates): one shown column
	 * per stat per NUMA node with memory, after the stats, stat by stat
	 * in node order (stat_on_node()). nr_stats may be 0 with them.
	 */
	const struct stat_def **numa_stats;
	size_t nr_numa_stats;
};

struct sampler;

/* Returns 0 or a negative errno; on failure it has logged why. */
int sampler_open(const struct sampler_opts *opts, struct sampler **out);
/* Walks the tree once. Resets @t, which must have been initialised with sampler_table_init(). */
int sampler_sample(struct sampler *s, struct sample_table *t);
/*
 * Tells the sampler which rows of @t, its last sample, nobody ships
 * (@ships[r] false: outside the selection, or cut by the budget). Every
 * backend then reads only the rank stat (usage, when sampled) of those
 * cgroups in the next samples, and flags their rows partial: every other
 * column missing (bpf: the rank read alone; text: memory.current alone).
 * 0, or a negative errno after which some of them are read whole (nothing
 * lost).
 */
int sampler_rank_only(struct sampler *s, const struct sample_table *t, const bool *ships);
/* Initialises @t with the columns this sampler produces. */
void sampler_table_init(const struct sampler *s, struct sample_table *t);
/* The table column (shown or hidden) of stat @name (not a per-node one), or SIZE_MAX when it is not sampled. */
size_t sampler_column_of(const struct sampler *s, const char *name);
/* The backend that runs (never SAMPLER_AUTO). */
enum sampler_backend sampler_backend_used(const struct sampler *s);

/*
 * The loaded BPF walk, for memcg-bench's minimal walk, which must read what
 * it reads: its flavor (enum memcg_walk_flavor), its reads in record order
 * and the directory it walks. 0, or -EOPNOTSUPP for the text backend.
 */
struct memcg_read;
struct sampler_walk_plan {
	int flavor;
	const struct memcg_read *reads;
	size_t nr_reads;
	const char *dir;
};
int sampler_walk_plan(const struct sampler *s, struct sampler_walk_plan *plan);

/*
 * Why it runs, in one word (a label value on the wire; the log line says it
 * in full): "configured" (Backend named it), "kfuncs" (auto: the kernel
 * has the memcg kfuncs), "no_kfuncs" (auto: the bpf walk did not load, so
 * bpf-core), "check_failed" (auto: a start-up check disagreed with the
 * kernel's files, so the next one), "no_bpf" (auto: neither BPF walk
 * loads: text).
 */
#define SAMPLER_REASON_CONFIGURED "configured"
#define SAMPLER_REASON_KFUNCS "kfuncs"
#define SAMPLER_REASON_NO_KFUNCS "no_kfuncs"
#define SAMPLER_REASON_CHECK_FAILED "check_failed"
#define SAMPLER_REASON_NO_BPF "no_bpf"
const char *sampler_backend_reason(const struct sampler *s);
void sampler_close(struct sampler *s);

struct oom_kill_note;
/*
 * The OOM kills the last sample found (bpf backends; the first few of them,
 * sampling/oom_tracker.h): *@out, valid until the next sample. 0 without
 * an OOM tracker.
 */
size_t sampler_oom_kills(const struct sampler *s, const struct oom_kill_note **out);

/* "auto", "bpf", "text", "bpf-core" (base/name_table.h: any case); "?" for no backend. */
const char *sampler_backend_name(enum sampler_backend b);
int sampler_backend_parse(const char *s, enum sampler_backend *out);

#endif
