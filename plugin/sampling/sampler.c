// SPDX-License-Identifier: GPL-2.0-only
/* Backend choice and the calls every caller makes, whichever backend runs. */
#include "sampling/sampler.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/name_table.h"
#include "sampling/core_check.h"
#include "sampling/numa_nodes.h"
#include "sampling/oom_tracker.h"
#include "sampling/sampler_backend.h"
#include "sampling/stat_presence.h"

static const char *const backend_names[] = {
	[SAMPLER_AUTO] = "auto",
	[SAMPLER_BPF] = "bpf",
	[SAMPLER_TEXT] = "text",
	[SAMPLER_BPF_CORE] = "bpf-core",
};

DEFINE_NAME_TABLE(sampler_backend, enum sampler_backend, backend_names)

/*
 * Says that column @i will have no values, and why: an error (-ENOENT) with
 * strict stats, else a warning (a notice for the default set); nothing for
 * a hidden input column.
 */
static int report_unavailable(const struct sampler *s, size_t i, const char *why)
{
	bool shown = i < s->nr_shown;

	if (shown && s->strict_stats) {
		mb_err("stat '%s' is not available: %s", stat_column_name(s->stats[i]), why);
		return -ENOENT;
	}
	if (shown)
		mb_log(s->quiet_drops ? LOG_NOTICE : LOG_WARNING, "stat '%s' is not sampled: %s",
		       stat_column_name(s->stats[i]), why);
	return 0;
}

int sampler_drop_stat(struct sampler *s, size_t i, const char *why)
{
	bool shown = i < s->nr_shown;
	int err = report_unavailable(s, i, why);

	if (err)
		return err;
	memmove(&s->stats[i], &s->stats[i + 1], (s->nr_stats - i - 1) * sizeof(s->stats[0]));
	s->nr_stats--;
	s->nr_shown -= shown;
	return 0;
}

size_t sampler_column_of(const struct sampler *s, const char *name)
{
	for (size_t c = 0; c < s->nr_stats; c++)
		if (!s->stats[c]->node && strcmp(s->stats[c]->name, name) == 0)
			return c;
	return SIZE_MAX;
}

static bool excluded(const struct sampler *s, const struct stat_def *def)
{
	for (size_t i = 0; i < s->nr_excluded; i++)
		if (s->excluded[i] == def)
			return true;
	return false;
}

/* The requested stats, then the inputs of derived ones that were not requested; none excluded. */
static void select_columns(struct sampler *s, const struct sampler_opts *opts)
{
	s->nr_stats = 0;
	for (size_t i = 0; i < opts->nr_stats; i++)
		if (!excluded(s, opts->stats[i]))
			s->stats[s->nr_stats++] = opts->stats[i];
	for (size_t i = 0; i < s->nr_node_columns; i++)
		if (!excluded(s, s->node_columns[i]))
			s->stats[s->nr_stats++] = s->node_columns[i];
	s->nr_shown = s->nr_stats;
	for (size_t i = 0; i < opts->nr_stats; i++) {
		const struct stat_def *def = opts->stats[i];

		for (size_t k = 0; k < STAT_MAX_INPUTS && def->inputs[k]; k++)
			if (sampler_column_of(s, def->inputs[k]) == SIZE_MAX && !excluded(s, stat_lookup(def->inputs[k])))
				s->stats[s->nr_stats++] = stat_lookup(def->inputs[k]);
	}
	if (opts->rank_stat && sampler_column_of(s, opts->rank_stat->name) == SIZE_MAX && !excluded(s, opts->rank_stat))
		s->stats[s->nr_stats++] = opts->rank_stat;
}

/* Finds the input columns of every derived stat; drops those missing an input. */
static int bind_derived(struct sampler *s)
{
	char why[128];
	size_t c = 0;
	int err;

	s->nr_derived = 0;
	while (c < s->nr_shown) {
		const struct stat_def *def = s->stats[c];
		struct derived_column *d = &s->derived[s->nr_derived];
		const char *lacking = NULL;

		if (def->file != STAT_FILE_DERIVED) {
			c++;
			continue;
		}
		d->column = c;
		for (size_t k = 0; k < STAT_MAX_INPUTS && def->inputs[k] && !lacking; k++) {
			d->input[k] = sampler_column_of(s, def->inputs[k]);
			if (d->input[k] == SIZE_MAX)
				lacking = def->inputs[k];
		}
		if (!lacking) {
			s->nr_derived++;
			c++;
			continue;
		}
		snprintf(why, sizeof(why), "it is computed from '%s', which is not sampled", lacking);
		err = sampler_drop_stat(s, c, why);
		if (err)
			return err;
	}
	return 0;
}

/* working_set = usage - inactive_file, floored at 0, as cAdvisor and the kubelet compute it. */
static void compute_derived(const struct sampler *s, struct sample_table *t)
{
	for (size_t r = 0; r < t->nr_rows; r++) {
		uint64_t *v = t->rows[r].values;

		for (size_t k = 0; k < s->nr_derived; k++) {
			const struct derived_column *d = &s->derived[k];
			uint64_t usage = v[d->input[0]], inactive = v[d->input[1]];

			if (usage == SAMPLE_VALUE_MISSING || inactive == SAMPLE_VALUE_MISSING)
				v[d->column] = SAMPLE_VALUE_MISSING;
			else
				v[d->column] = usage > inactive ? usage - inactive : 0;
		}
	}
}

/* Runs @ops->open (backend @backend) on a fresh copy of the requested stats. */
static int try_backend(struct sampler *s, enum sampler_backend backend, const struct sampler_backend_ops *ops,
		       const struct sampler_opts *opts, char *why, size_t why_len)
{
	int err;

	select_columns(s, opts);
	s->ops = ops;
	s->backend = backend;
	why[0] = '\0';
	err = ops->open(s, why, why_len);
	if (!err)
		err = bind_derived(s);
	if (err) {
		ops->close(s);
		s->priv = NULL;
		s->ops = NULL;
	}
	return err;
}

/* Whether a per-node column is sampled (after the backend opened). */
static bool has_node_columns(const struct sampler *s)
{
	for (size_t c = 0; c < s->nr_stats; c++)
		if (s->stats[c]->node)
			return true;
	return false;
}

/* The files @n stats that disagreed were compared with, for the log. */
static const char *files_of(const struct stat_def *const *bad, size_t n)
{
	bool node = false, other = false;

	for (size_t i = 0; i < n; i++) {
		node |= bad[i]->node != NULL;
		other |= bad[i]->node == NULL;
	}
	return node && other ? "memory.stat and memory.numa_stat" : node ? "memory.numa_stat" : "memory.stat";
}

/*
 * A bpf backend, checked before use (sampling/core_check.h): bpf-core
 * always, bpf when it reads per-node counters (CO-RE, at slots from
 * hand-kept lists on every kernel). Under auto any disagreement sends the
 * sampler on to the next backend (text reads every stat). Configured
 * explicitly, the stats that disagree are left out (an error with strict
 * stats) and the backend opens again without them, checked again.
 */
static int try_checked(struct sampler *s, const struct sampler_opts *opts, enum sampler_backend backend,
		       const struct sampler_backend_ops *ops, char *why, size_t why_len)
{
	const char *name = sampler_backend_name(backend);
	bool explicit = opts->backend == backend;
	const struct stat_def **bad;
	const char *files;
	char names[256];
	size_t nr_bad;
	int err, attempt;

	bad = calloc(opts->nr_stats * (1 + STAT_MAX_INPUTS) + s->nr_node_columns + 1, sizeof(bad[0]));
	if (!bad)
		return -ENOMEM;
	s->check_failed = false;
	for (attempt = 0; attempt < 2; attempt++) {
		err = try_backend(s, backend, ops, opts, why, why_len);
		if (err || (backend == SAMPLER_BPF && !has_node_columns(s)))
			break;
		err = core_check(s, bad + s->nr_excluded, &nr_bad, names, sizeof(names));
		if (!err)
			break;
		s->check_failed = err == -EPROTO;
		s->ops->close(s);
		s->priv = NULL;
		s->ops = NULL;
		if (err != -EPROTO)
			break;
		files = files_of(bad + s->nr_excluded, nr_bad);
		snprintf(why, why_len, "its start-up check found values that disagree with %s (%s): this kernel's "
			 "counter layout is not one it knows", files, names);
		err = -EOPNOTSUPP;
		if (!explicit || attempt == 1)
			break;
		if (opts->strict_stats) {
			mb_err("stats %s are not available: they disagree with %s (%s start-up check)", names, files,
			       name);
			err = -ENOENT;
			break;
		}
		mb_err("%s: the start-up check found these stats disagree with %s, not sampled: %s", name, files,
		       names);
		s->excluded = bad;
		s->nr_excluded += nr_bad;
	}
	if (err || !s->nr_excluded) {
		s->excluded = NULL;
		s->nr_excluded = 0;
		free(bad);
	}
	return err;
}

static int open_backend(struct sampler *s, const struct sampler_opts *opts)
{
	char bpf_why[512], core_why[768], text_why[512];
	int err;

	s->reason = opts->backend == SAMPLER_AUTO ? NULL : SAMPLER_REASON_CONFIGURED;
	if (opts->backend == SAMPLER_TEXT) {
		err = try_backend(s, SAMPLER_TEXT, &sampler_text_ops, opts, text_why, sizeof(text_why));
		if (!err)
			mb_notice("backend text: selected by configuration");
		return err;
	}
	bpf_why[0] = '\0';
	if (opts->backend != SAMPLER_BPF_CORE) {
		err = try_checked(s, opts, SAMPLER_BPF, &sampler_bpf_ops, bpf_why, sizeof(bpf_why));
		if (!err) {
			mb_notice("backend bpf: %s", bpf_why[0] ? bpf_why : "kernel has the memcg kfuncs");
			s->reason = s->reason ?: SAMPLER_REASON_KFUNCS;
			return 0;
		}
		s->reason = s->reason ?: s->check_failed ? SAMPLER_REASON_CHECK_FAILED : SAMPLER_REASON_NO_KFUNCS;
		if (opts->backend == SAMPLER_BPF) {
			mb_err("backend bpf is not usable here: %s", bpf_why[0] ? bpf_why : strerror(-err));
			return err;
		}
		if (!bpf_why[0])
			snprintf(bpf_why, sizeof(bpf_why), "the bpf backend failed to load (%s)", strerror(-err));
	}
	err = try_checked(s, opts, SAMPLER_BPF_CORE, &sampler_bpf_core_ops, core_why, sizeof(core_why));
	if (err && opts->backend == SAMPLER_AUTO) /* why text */
		s->reason = s->check_failed ? SAMPLER_REASON_CHECK_FAILED : SAMPLER_REASON_NO_BPF;
	if (!err) {
		mb_notice("backend bpf-core: %s%s%s", bpf_why, bpf_why[0] ? "; " : "", core_why);
		return 0;
	}
	if (opts->backend == SAMPLER_BPF_CORE) {
		mb_err("backend bpf-core is not usable here: %s", core_why[0] ? core_why : strerror(-err));
		return err;
	}
	if (!core_why[0])
		snprintf(core_why, sizeof(core_why), "it failed to load (%s)", strerror(-err));
	err = try_backend(s, SAMPLER_TEXT, &sampler_text_ops, opts, text_why, sizeof(text_why));
	if (!err)
		mb_notice("backend text: %s; bpf-core: %s", bpf_why, core_why);
	return err;
}

/*
 * The bpf backends count OOM kills with the OOM tracker, when oom_victims_local is
 * selected; a kernel that cannot run it loses that stat alone (its column
 * stays, with no values).
 */
static int open_oom_tracker(struct sampler *s)
{
	size_t column = sampler_column_of(s, "oom_victims_local");
	char why[256];
	int err;

	if (column == SIZE_MAX || (s->backend != SAMPLER_BPF && s->backend != SAMPLER_BPF_CORE))
		return 0;
	why[0] = '\0';
	err = oom_tracker_open(&s->mount, s->max_depth, &s->oom, why, sizeof(why));
	if (err == -ENOMEM)
		return err;
	if (!err) {
		s->oom_column = column;
		return 0;
	}
	/* the column stays, never filled: the backend's columns are bound already */
	return report_unavailable(s, column, why[0] ? why : strerror(-err));
}

/*
 * The per-node columns of opts->numa_stats: one per stat per NUMA node with
 * memory. A kernel without NUMA, or a node list this version cannot take,
 * gives none, with a warning (an error with strict stats).
 */
static int expand_node_columns(struct sampler *s, const struct sampler_opts *opts)
{
	unsigned int nodes[STAT_MAX_NODES];
	size_t nr_nodes = 0;
	int err;

	if (!opts->nr_numa_stats)
		return 0;
	err = numa_nodes_with_memory(STAT_MAX_NODES, nodes, STAT_MAX_NODES, &nr_nodes);
	if (err) {
		const char *why = err == -ENOENT ? "this kernel has no NUMA support (no " NUMA_NODES_WITH_MEMORY ")" :
			err == -ERANGE ? "a node id in " NUMA_NODES_WITH_MEMORY " is above the 63 this version takes" :
			"cannot read " NUMA_NODES_WITH_MEMORY;

		if (s->strict_stats) {
			mb_err("per-node stats are not available: %s", why);
			return -ENOENT;
		}
		mb_warn("per-node stats are not sampled: %s", why);
		return 0;
	}
	s->node_columns = calloc(opts->nr_numa_stats * nr_nodes, sizeof(s->node_columns[0]));
	if (!s->node_columns)
		return -ENOMEM;
	for (size_t i = 0; i < opts->nr_numa_stats; i++)
		for (size_t n = 0; n < nr_nodes; n++) {
			const struct stat_def *col = stat_on_node(opts->numa_stats[i], nodes[n]);

			if (!col) {
				mb_err("'%s' is not a per-node stat", opts->numa_stats[i]->name);
				return -EINVAL;
			}
			s->node_columns[s->nr_node_columns++] = col;
		}
	return 0;
}

/*
 * @nr of @stats that the kernel's memory.stat or memory.numa_stat prints,
 * into @kept (room for @nr): the others are left out by every backend, said
 * in one line per file (information when the whole catalog or the default set
 * was asked for, else a warning; an error, -ENOENT, with strict stats).
 */
static int keep_printed(const struct sampler *s, const struct stat_presence *p, const struct stat_def **stats,
			size_t nr, bool quiet, const struct stat_def **kept, size_t *nr_kept)
{
	char absent[1024];
	size_t len = 0, nr_absent = 0;
	const char *file = NULL;

	*nr_kept = 0;
	absent[0] = '\0';
	for (size_t i = 0; i < nr; i++) {
		/* what this cgroup version lacks altogether the backends say, stat by stat */
		if (!stat_on_version(stats[i], s->mount.version) || stat_presence_has(p, stats[i])) {
			kept[(*nr_kept)++] = stats[i];
			continue;
		}
		file = stat_file_name(stats[i]->file, s->mount.version);
		if (len < sizeof(absent))
			len += snprintf(absent + len, sizeof(absent) - len, "%s%s", nr_absent ? ", " : "", stats[i]->name);
		nr_absent++;
	}
	if (!nr_absent)
		return 0;
	if (s->strict_stats) {
		mb_err("not in this kernel's %s: %s", file, absent);
		return -ENOENT;
	}
	mb_log(quiet ? LOG_INFO : LOG_WARNING, "%zu %s not in this kernel's %s, not sampled: %s", nr_absent,
	       nr_absent == 1 ? "stat is" : "stats are", file, absent);
	return 0;
}

/* What the kernel prints of @opts' stats and per-node templates, into @o (arrays of its own). */
static int select_printed(const struct sampler *s, const struct sampler_opts *opts, struct sampler_opts *o)
{
	const struct stat_def **stats = NULL, **numa = NULL;
	struct stat_presence *p;
	size_t nr_catalog, nr_templates;
	int err;

	*o = *opts;
	err = stat_presence_read(s->mount.dir, s->mount.version, &p);
	if (err)
		return err;
	stats = calloc(opts->nr_stats + 1, sizeof(stats[0]));
	numa = calloc(opts->nr_numa_stats + 1, sizeof(numa[0]));
	if (!stats || !numa) {
		err = -ENOMEM;
		goto free_all;
	}
	stat_catalog(&nr_catalog);
	numa_stat_catalog(&nr_templates);
	err = keep_printed(s, p, opts->stats, opts->nr_stats, opts->default_stats || opts->nr_stats == nr_catalog,
			   stats, &o->nr_stats);
	if (!err)
		err = keep_printed(s, p, opts->numa_stats, opts->nr_numa_stats, opts->nr_numa_stats == nr_templates,
				   numa, &o->nr_numa_stats);
	if (err)
		goto free_all;
	o->stats = stats;
	o->numa_stats = numa;
	stat_presence_free(p);
	return 0;
free_all:
	free(stats);
	free(numa);
	stat_presence_free(p);
	return err;
}

int sampler_open(const struct sampler_opts *requested, struct sampler **out)
{
	struct sampler_opts printed = { 0 }, *opts = &printed;
	struct sampler *s;
	int err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->strict_stats = requested->strict_stats;
	err = cgroup_mount_resolve(requested->cgroup_root ? requested->cgroup_root : "/sys/fs/cgroup", &s->mount);
	if (!err)
		err = select_printed(s, requested, &printed);
	if (!err)
		err = expand_node_columns(s, opts);
	if (err)
		goto free_sampler;
	/* room for every input of every derived stat, and the rank stat */
	s->stats = calloc(opts->nr_stats * (1 + STAT_MAX_INPUTS) + s->nr_node_columns + 2, sizeof(s->stats[0]));
	s->derived = calloc(opts->nr_stats + 1, sizeof(s->derived[0]));
	if (!s->stats || !s->derived) {
		err = -ENOMEM;
		goto free_sampler;
	}
	s->max_depth = opts->max_depth;
	s->quiet_drops = opts->default_stats;
	s->backend_chosen = opts->backend != SAMPLER_AUTO;
	err = open_backend(s, opts);
	if (err)
		goto free_sampler;
	err = open_oom_tracker(s);
	if (err)
		goto close_backend;
	/* no stats requested is a bare walk (the benchmark's baseline) */
	if (s->nr_shown == 0 && (requested->nr_stats > 0 || requested->nr_numa_stats > 0)) {
		mb_err("none of the selected stats is available on this kernel");
		err = -ENOENT;
		goto close_backend;
	}
	free(printed.stats);
	free(printed.numa_stats);
	*out = s;
	return 0;

close_backend:
	oom_tracker_close(s->oom);
	s->ops->close(s);
free_sampler:
	free(printed.stats);
	free(printed.numa_stats);
	free(s->node_columns);
	free(s->excluded);
	free(s->stats);
	free(s->derived);
	free(s);
	return err;
}

int sampler_rank_only(struct sampler *s, const struct sample_table *t, const bool *ships)
{
	return s->ops->rank_only ? s->ops->rank_only(s, t, ships) : 0;
}

void sampler_table_init(const struct sampler *s, struct sample_table *t)
{
	sample_table_init_hidden(t, s->stats, s->nr_shown, s->nr_stats);
}

int sampler_sample(struct sampler *s, struct sample_table *t)
{
	int err;

	sample_table_reset(t);
	err = s->ops->sample(s, t);
	if (!err)
		compute_derived(s, t);
	if (!err && s->oom)
		err = oom_tracker_fill(s->oom, t, s->oom_column);
	return err;
}

enum sampler_backend sampler_backend_used(const struct sampler *s)
{
	return s->backend;
}

const char *sampler_backend_reason(const struct sampler *s)
{
	return s->reason ? s->reason : SAMPLER_REASON_CONFIGURED;
}

size_t sampler_oom_kills(const struct sampler *s, const struct oom_kill_note **out)
{
	*out = NULL;
	return s->oom ? oom_tracker_kills(s->oom, out) : 0;
}

void sampler_close(struct sampler *s)
{
	if (!s)
		return;
	oom_tracker_close(s->oom);
	if (s->ops)
		s->ops->close(s);
	free(s->node_columns);
	free(s->excluded);
	free(s->stats);
	free(s->derived);
	free(s);
}
