// SPDX-License-Identifier: GPL-2.0-only
/*
 * memcg_bpf: the collectd read plugin. A thin shell over the core:
 *   config   - <Plugin memcg_bpf> lines go to plugin_config_set(); a bad line
 *              is logged once and makes init fail, so collectd keeps running
 *              its other plugins.
 *   init     - opens the sampler once (the BPF program is loaded here, never
 *              per interval) and registers the read callback with interval 0,
 *              so collectd applies the <LoadPlugin> or global Interval.
 *   read     - one sample; one value list per stat of every selected cgroup,
 *              plus, every SelfInterval, the plugin's observations of itself (one table for
 *              collectd and the wire: series/self_metrics.h); with a URL, the
 *              selected rows go to the sender thread (sender.h) without a
 *              copy, which ships them; read never waits on the network.
 *   shutdown - the read callback's user data owns everything and collectd
 *              frees it with free_func; shutdown frees a configuration that
 *              never got as far as init.
 *
 * This file includes collectd's headers (and so collectd's config.h); it must
 * not include the project's memcg_bpf_config.h.
 */
#include "collectd.h"

#include "plugin.h"
#include "utils/common/common.h"

#include "sampling/cgroup_budget.h"
#include "sampling/cgroup_filter.h"
#include "sampling/cgroup_mount.h"
#include "series/instance_name.h"
#include "base/log.h"
#include "config/plugin_config.h"
#include "config/stat_advice.h"
#include "sampling/sample_table.h"
#include "sampling/oom_tracker.h"
#include "sampling/sampler.h"
#include "series/self_metrics.h"
#ifdef MEMCG_BPF_HAVE_SENDER
#include <curl/curl.h>

#include "allocinfo/allocinfo_watch.h"
#include "base/clock.h"
#include "sending/sender_self_values.h"
#include "sending/http_sender.h"
#include "sending/sender.h"
#include "series/snapshot.h"
#endif

#define PLUGIN_NAME "memcg_bpf"

struct mb_instance {
	struct plugin_config cfg;
	struct sampler *sampler;
	struct sample_table table;
	bool table_ready;
	struct cgroup_budget *budget; /* MaxChildren, MaxCgroups */
	size_t usage_column;          /* what the budget ranks siblings by */
	bool *keep;                   /* per row of the table: it ships (the budget's array) */
	bool rank_only_failed;        /* sampler_rank_only() failed last time (said once) */
	derive_t sample_errors;
	uint64_t sample_cpu_ns; /* every walk's, since start */
	unsigned int self_every; /* self values go to collectd every this many reads (SelfInterval) */
	unsigned int reads_to_self; /* reads to go until they go next: 0 means this one */
	cdtime_t self_interval; /* self_every reads: the self value lists' interval */
	value_list_t vl; /* reused for every value dispatched */
	value_t value;
	value_t *row_values; /* ValuesPerCgroup: one per stat of the table */
#ifdef MEMCG_BPF_HAVE_SENDER
	struct sender *sender;
	bool curl_ready;
	struct allocinfo_watch *alloc; /* AllocInfo: the allocation profile, for the sender */
#endif
};

/* The configuration between the config callback(s) and init. */
static struct mb_instance *pending;
static bool pending_config_failed;
/* Set while init runs: names the config keys a core error is about. */
static char log_context[PATH_MAX + 128];

static void log_to_collectd(int level, const char *msg)
{
	if (level <= LOG_ERR && log_context[0])
		plugin_log(level, MB_LOG_PREFIX "%s: %s", log_context, msg);
	else
		plugin_log(level, MB_LOG_PREFIX "%s", msg);
}

static void instance_free(void *arg)
{
	struct mb_instance *inst = arg;

	if (!inst)
		return;
#ifdef MEMCG_BPF_HAVE_SENDER
	/* first: the thread finishes before anything it could touch goes away */
	sender_stop(inst->sender);
	inst->sender = NULL;
	allocinfo_watch_free(inst->alloc);
	inst->alloc = NULL;
	if (inst->curl_ready)
		curl_global_cleanup();
	inst->curl_ready = false;
#endif
	if (inst->table_ready)
		sample_table_free(&inst->table);
	inst->table_ready = false;
	sampler_close(inst->sampler);
	inst->sampler = NULL;
	cgroup_budget_free(inst->budget);
	inst->budget = NULL;
	inst->keep = NULL;
	free(inst->row_values);
	inst->row_values = NULL;
	plugin_config_free(&inst->cfg);
	free(inst);
}

static struct mb_instance *instance_new(void)
{
	struct mb_instance *inst = calloc(1, sizeof(*inst));

	if (!inst)
		return NULL;
	if (plugin_config_init(&inst->cfg)) {
		free(inst);
		return NULL;
	}
#ifdef MEMCG_BPF_HAVE_SENDER
	inst->cfg.check_url = http_url_check; /* curl's parser, when the URL is read */
#endif
	return inst;
}

static int mb_config(oconfig_item_t *ci)
{
	if (!pending) {
		pending = instance_new();
		if (!pending) {
			ERROR(MB_LOG_PREFIX "out of memory reading the configuration");
			pending_config_failed = true;
			return 0;
		}
	}
	for (int i = 0; i < ci->children_num; i++) {
		oconfig_item_t *child = &ci->children[i];
		int n = child->values_num > 0 ? child->values_num : 0;
		struct cfg_value *values;

		if (child->children_num > 0) {
			ERROR(MB_LOG_PREFIX "%s: blocks are not supported here", child->key);
			pending_config_failed = true;
			continue;
		}
		values = calloc(n ? n : 1, sizeof(*values));
		if (!values) {
			ERROR(MB_LOG_PREFIX "%s: out of memory", child->key);
			pending_config_failed = true;
			continue;
		}
		for (int j = 0; j < n; j++) {
			const oconfig_value_t *v = &child->values[j];

			if (v->type == OCONFIG_TYPE_STRING) {
				values[j].type = CFG_STRING;
				values[j].string = v->value.string;
			} else if (v->type == OCONFIG_TYPE_NUMBER) {
				values[j].type = CFG_NUMBER;
				values[j].number = v->value.number;
			} else {
				values[j].type = CFG_BOOLEAN;
				values[j].boolean = v->value.boolean != 0;
			}
		}
		/* logs one error naming the key; init will then fail */
		plugin_config_set(&pending->cfg, child->key, values, (size_t)n);
		free(values);
	}
	/* collectd keeps running other plugins only when config returns 0 */
	return 0;
}

static void dispatch_one(struct mb_instance *inst, const char *type, const char *type_instance,
			 int ds_type, double gauge, derive_t derive)
{
	value_list_t *vl = &inst->vl;

	if (ds_type == DS_TYPE_GAUGE)
		inst->value.gauge = gauge;
	else
		inst->value.derive = derive;
	sstrncpy(vl->type, type, sizeof(vl->type));
	sstrncpy(vl->type_instance, type_instance, sizeof(vl->type_instance));
	plugin_dispatch_values(vl);
}

/* Returns the number of values dispatched. */
static size_t dispatch_row(struct mb_instance *inst, const struct sample_row *row)
{
	const struct sample_table *t = &inst->table;
	size_t sent = 0;

	instance_name(row->path, inst->vl.plugin_instance);
	for (size_t c = 0; c < t->nr_stats; c++) {
		const struct stat_def *def = t->stats[c];
		uint64_t v = row->values[c];

		if (v == SAMPLE_VALUE_MISSING)
			continue;
		/* a per-node column's type instance is numa_<stat>_N<node> */
		if (def->type == STAT_COUNTER)
			dispatch_one(inst, "derive", stat_column_name(def), DS_TYPE_DERIVE, 0, (derive_t)v);
		else
			dispatch_one(inst, def->unit == STAT_UNIT_BYTES ? "bytes" : "gauge", stat_column_name(def),
				     DS_TYPE_GAUGE, sample_value(def, v), 0);
		sent++;
	}
	return sent;
}

/*
 * ValuesPerCgroup: the row as one value list of type "memcg_bpf", one data
 * source per stat (registered at init). A gauge the kernel did not give is
 * NaN; a counter cannot be unknown, so such a row goes value by value.
 */
static size_t dispatch_row_as_list(struct mb_instance *inst, const struct sample_row *row)
{
	const struct sample_table *t = &inst->table;
	value_list_t vl = inst->vl;
	size_t sent = 0;

	for (size_t c = 0; c < t->nr_stats; c++) {
		uint64_t v = row->values[c];

		if (t->stats[c]->type == STAT_COUNTER) {
			if (v == SAMPLE_VALUE_MISSING)
				return dispatch_row(inst, row);
			inst->row_values[c].derive = (derive_t)v;
		} else {
			inst->row_values[c].gauge = v == SAMPLE_VALUE_MISSING ? NAN : sample_value(t->stats[c], v);
		}
		sent += v != SAMPLE_VALUE_MISSING;
	}
	instance_name(row->path, vl.plugin_instance);
	vl.values = inst->row_values;
	vl.values_len = t->nr_stats;
	sstrncpy(vl.type, PLUGIN_NAME, sizeof(vl.type));
	vl.type_instance[0] = '\0';
	plugin_dispatch_values(&vl);
	return sent;
}

/* Registers the "memcg_bpf" data set: one data source per stat of the table. */
static int register_row_data_set(struct mb_instance *inst)
{
	const struct sample_table *t = &inst->table;
	data_set_t ds = { .ds_num = t->nr_stats };
	int err;

	sstrncpy(ds.type, PLUGIN_NAME, sizeof(ds.type));
	ds.ds = calloc(t->nr_stats, sizeof(*ds.ds));
	inst->row_values = calloc(t->nr_stats ? t->nr_stats : 1, sizeof(*inst->row_values));
	if (!ds.ds || !inst->row_values) {
		free(ds.ds);
		return -ENOMEM;
	}
	for (size_t c = 0; c < t->nr_stats; c++) {
		sstrncpy(ds.ds[c].name, stat_column_name(t->stats[c]), sizeof(ds.ds[c].name));
		ds.ds[c].type = t->stats[c]->type == STAT_COUNTER ? DS_TYPE_DERIVE : DS_TYPE_GAUGE;
		ds.ds[c].min = 0;
		ds.ds[c].max = NAN;
	}
	err = plugin_register_data_set(&ds); /* collectd keeps a copy */
	free(ds.ds);
	if (err) {
		ERROR(MB_LOG_PREFIX "ValuesPerCgroup: cannot register the data set \"%s\" (status %d)",
		      PLUGIN_NAME, err);
		return -EINVAL;
	}
	return 0;
}

static bool row_selected(const struct mb_instance *inst, const struct sample_row *row)
{
	if (row->depth == 0 && !inst->cfg.include_root)
		return false;
	return cgroup_filter_selected(inst->cfg.filter, row->path);
}

/* The self values of this interval: from the table when @sampled, else the counters only. */
static void self_values_fill(struct mb_instance *inst, bool sampled, size_t values, struct self_values *v)
{
	const struct sample_table *t = &inst->table;
	struct cgroup_budget_tally tally;

	memset(v, 0, sizeof(*v));
	v->sampled = sampled;
	if (sampled) {
		cgroup_budget_tally(inst->budget, &tally);
		v->cgroups_seen = t->nr_rows;
		v->cgroups_selected = tally.seen;
		v->cgroups_kept = tally.kept;
		v->cgroups_cut = tally.cut;
		v->cut_parents = tally.cut_parents;
		v->cgroups_skipped = t->skipped;
		v->values_dispatched = values;
		v->sample_s = (double)t->duration_ns / 1e9;
		v->sample_cpu_s = (double)t->cpu_ns / 1e9;
	}
	v->sample_cpu_total_s = (double)inst->sample_cpu_ns / 1e9;
	v->sample_errors = (uint64_t)inst->sample_errors;
	v->backend = sampler_backend_used(inst->sampler);
	v->backend_reason = sampler_backend_reason(inst->sampler);
#ifdef MEMCG_BPF_HAVE_SENDER
	if (inst->sender) {
		struct sender_stats st;

		sender_get_stats(inst->sender, &st);
		self_values_from_sender(v, &st);
	}
#endif
}

static void dispatch_self_metric(const struct self_metric_def *m, const char *label, double value, void *arg)
{
	char buf[DATA_MAX_NAME_LEN];
	const char *type_instance = m->type_instance;

	if (m->collectd_scale)
		value *= m->collectd_scale;
	if (label) {
		snprintf(buf, sizeof(buf), "%s-%s", m->type_instance, label);
		type_instance = buf;
	}
	dispatch_one(arg, m->type, type_instance, m->counter ? DS_TYPE_DERIVE : DS_TYPE_GAUGE, value,
		     (derive_t)value);
}

/* Whether this read's self values go to collectd: the first read's, then every self_every. */
static bool self_due(struct mb_instance *inst)
{
	if (!inst->cfg.report_self)
		return false;
	if (inst->reads_to_self) {
		inst->reads_to_self--;
		return false;
	}
	inst->reads_to_self = inst->self_every - 1;
	return true;
}

/*
 * With the interval they come at (SelfInterval), so that collectd's cache
 * does not call them missing in between.
 */
static void dispatch_self(struct mb_instance *inst, const struct self_values *v)
{
	sstrncpy(inst->vl.plugin_instance, INSTANCE_NAME_SELF, sizeof(inst->vl.plugin_instance));
	if (!v->sampled)
		inst->vl.time = cdtime();
	inst->vl.interval = inst->self_interval;
	self_metrics_each(v, dispatch_self_metric, inst);
	inst->vl.interval = 0; /* the rest: collectd fills in the read's */
}

/*
 * Which rows ship: the selection, then the budget. On failure (ENOMEM) the
 * budget cuts nothing this time, and said so. What does not ship is read
 * for its rank alone in the next walks (sampler_rank_only()).
 */
static int decide_rows(struct mb_instance *inst)
{
	const struct sample_table *t = &inst->table;
	int err;

	inst->keep = cgroup_budget_rows(inst->budget, t->nr_rows);
	if (!inst->keep) {
		ERROR(MB_LOG_PREFIX "out of memory choosing the cgroups to ship");
		return -ENOMEM;
	}
	for (size_t r = 0; r < t->nr_rows; r++)
		inst->keep[r] = row_selected(inst, &t->rows[r]);
	cgroup_budget_apply(inst->budget, t, inst->usage_column, inst->keep);
	/* the next walks read one stat of each cgroup that does not ship */
	err = sampler_rank_only(inst->sampler, t, inst->keep);
	if (err && !inst->rank_only_failed)
		WARNING(MB_LOG_PREFIX "cannot tell the walk which cgroups need one read only (%s): they are read whole",
			strerror(-err));
	inst->rank_only_failed = err != 0;
	/* one kept now, but read for its rank only, ships from the next walk on */
	for (size_t r = 0; r < t->nr_rows; r++)
		inst->keep[r] = inst->keep[r] && !t->rows[r].partial;
	return 0;
}

#ifdef MEMCG_BPF_HAVE_SENDER
/* The rows as the table had them when hand_to_sender() began (they move to the snapshot in order). */
struct kept_rows {
	const struct sample_row *first;
	const bool *keep;
};

static bool snapshot_keep(const struct sample_row *row, void *arg)
{
	const struct kept_rows *k = arg;

	return k->keep[row - k->first];
}

/*
 * Hands the selected rows and the self values to the sender thread, in a
 * snapshot it is done with when there is one; never blocks. The rows change
 * hands without a copy: the table gets the snapshot's old storage.
 */
static void hand_to_sender(struct mb_instance *inst, const struct self_values *v)
{
	struct snapshot *snap = sender_take_spare(inst->sender);
	struct kept_rows kept = { .first = inst->table.rows, .keep = inst->keep };
	struct allocinfo_ranked alloc;
	bool alloc_due = inst->alloc && allocinfo_watch_poll(inst->alloc, clock_ns(CLOCK_MONOTONIC), &alloc) == 1;

	if (!snap)
		snap = snapshot_new();
	if (!snap || snapshot_take_rows(snap, &inst->table, snapshot_keep, &kept) ||
	    (alloc_due && snapshot_set_alloc(snap, &alloc))) {
		snapshot_free(snap);
		ERROR(MB_LOG_PREFIX "out of memory handing an interval to the sender");
		return;
	}
	self_metrics_to_snapshot(v, snap);
	sender_submit(inst->sender, snap);
}
#endif

/*
 * Each OOM kill the sample found (the first few: the tracker's) as a
 * collectd notification, for the notification chain: severity WARNING,
 * plugin_instance the victim cgroup's (as for its values), type "oom_kill".
 */
static void notify_oom_kills(const struct mb_instance *inst)
{
	const struct oom_kill_note *k;
	size_t n = sampler_oom_kills(inst->sampler, &k);

	for (size_t i = 0; i < n; i++) {
		notification_t note = { .severity = NOTIF_WARNING, .time = cdtime() };

		sstrncpy(note.host, hostname_g, sizeof(note.host));
		sstrncpy(note.plugin, PLUGIN_NAME, sizeof(note.plugin));
		sstrncpy(note.type, "oom_kill", sizeof(note.type));
		if (k[i].path[0]) {
			instance_name(k[i].path, note.plugin_instance);
			snprintf(note.message, sizeof(note.message), "OOM kill: process %u (%s) of cgroup %.120s, for %s",
				 k[i].pid, k[i].comm, k[i].path, k[i].reason);
		} else {
			snprintf(note.message, sizeof(note.message),
				 "OOM kill: process %u (%s) of cgroup id %llu (outside CgroupRoot), for %s", k[i].pid,
				 k[i].comm, (unsigned long long)k[i].cgroup_id, k[i].reason);
		}
		plugin_dispatch_notification(&note);
	}
}

static int mb_read(user_data_t *ud)
{
	struct mb_instance *inst = ud->data;
	size_t values = 0;
	struct self_values self;
	bool self_now = self_due(inst);
	int err;

	err = sampler_sample(inst->sampler, &inst->table);
	if (err) {
		inst->sample_errors++;
		if (self_now) {
			self_values_fill(inst, false, 0, &self);
			dispatch_self(inst, &self);
		}
		return -1;
	}
	inst->sample_cpu_ns += inst->table.cpu_ns;
	if (decide_rows(inst)) {
		inst->sample_errors++;
		return -1;
	}
	notify_oom_kills(inst);
	/* the wire's millisecond: a value in collectd's csv and at the collector has one time */
	inst->vl.time = MS_TO_CDTIME_T(sample_table_ms(&inst->table));
	for (size_t r = 0; r < inst->table.nr_rows && inst->cfg.dispatch_values; r++) {
		const struct sample_row *row = &inst->table.rows[r];

		if (inst->keep[r])
			values += inst->row_values ? dispatch_row_as_list(inst, row) : dispatch_row(inst, row);
	}
	self_values_fill(inst, true, values, &self);
	if (self_now)
		dispatch_self(inst, &self);
#ifdef MEMCG_BPF_HAVE_SENDER
	if (inst->sender)
		hand_to_sender(inst, &self);
#endif
	return 0;
}

/*
 * Once at start: the stats of the shipped rules and dashboard that the Stat
 * list leaves out, and the series that stay empty for it.
 */
static void warn_rules_inputs(const struct plugin_config *c, int version)
{
	char series[1024];
	size_t missing = stat_advice_missing(c->stats, c->nr_stats, version, series, sizeof(series));

	if (missing)
		WARNING(MB_LOG_PREFIX "Stat: the list leaves out %zu stat%s that the shipped rules and dashboard read, "
			"so these series stay empty: %s. Add Stat \"default\" to keep the default set",
			missing, missing == 1 ? "" : "s", series);
}

static int mb_init(void)
{
	static bool initialised;
	struct mb_instance *inst;
	struct cgroup_mount mount;
	struct sampler_opts opts;
	int err;

	if (initialised)
		return 0;
	if (!pending && !pending_config_failed)
		pending = instance_new(); /* LoadPlugin without a <Plugin> block: defaults */
	inst = pending;
	pending = NULL;
	if (!inst || pending_config_failed || plugin_config_finish(&inst->cfg)) {
		/* the reason was logged when the configuration was read */
		err = -EINVAL;
		goto free_instance;
	}

	/* one error line each, naming the key it is about */
	snprintf(log_context, sizeof(log_context), "CgroupRoot \"%s\"", inst->cfg.cgroup_root);
	err = cgroup_mount_resolve(inst->cfg.cgroup_root, &mount);
	if (err)
		goto clear_context;
	warn_rules_inputs(&inst->cfg, mount.version);
	plugin_config_sampler_opts(&inst->cfg, &opts);
	snprintf(log_context, sizeof(log_context), "Backend \"%s\"", sampler_backend_name(opts.backend));
	err = sampler_open(&opts, &inst->sampler);
	if (err)
		goto clear_context;
	log_context[0] = '\0';

	sampler_table_init(inst->sampler, &inst->table);
	inst->table_ready = true;
	err = cgroup_budget_new(&inst->cfg.budget, &inst->budget);
	if (err) {
		ERROR(MB_LOG_PREFIX "out of memory setting up MaxChildren and MaxCgroups");
		goto clear_context;
	}
	inst->usage_column = sampler_column_of(inst->sampler, CGROUP_BUDGET_RANK_STAT);
	if (cgroup_budget_limited(inst->budget) && inst->usage_column == SIZE_MAX)
		WARNING(MB_LOG_PREFIX "MaxChildren/MaxCgroups: this kernel gives no memory.current, so siblings past the "
			"budget are kept by age (the older first), not by size");
	if (inst->cfg.dispatch_values && inst->cfg.values_per_cgroup) {
		err = register_row_data_set(inst);
		if (err)
			goto clear_context;
	}

	if (inst->cfg.sender.nr_urls) {
#ifdef MEMCG_BPF_HAVE_SENDER
		CURLcode rc;

		snprintf(log_context, sizeof(log_context), "URL \"%s\"", inst->cfg.sender.urls[0]);
		/* init runs before the read threads: the one safe place for this */
		rc = curl_global_init(CURL_GLOBAL_ALL);
		if (rc != CURLE_OK) {
			ERROR(MB_LOG_PREFIX "curl_global_init: %s", curl_easy_strerror(rc));
			err = -EIO;
			goto clear_context;
		}
		inst->curl_ready = true;
		free(inst->cfg.sender.host);
		inst->cfg.sender.host = strdup(hostname_g);
		/* the read callback's (registered below with interval 0): for BatchSendDeadline */
		inst->cfg.sender.interval_s = CDTIME_T_TO_DOUBLE(plugin_get_interval());
		err = inst->cfg.sender.host ? sender_start(&inst->cfg.sender, &inst->sender) : -ENOMEM;
		if (err)
			goto clear_context;
		log_context[0] = '\0';
		INFO(MB_LOG_PREFIX "shipping %s to %s%s (%zu URL%s)", wire_format_name(inst->cfg.sender.format),
		     inst->cfg.sender.urls[0], inst->cfg.sender.nr_urls > 1 ? " and failover" : "",
		     inst->cfg.sender.nr_urls, inst->cfg.sender.nr_urls > 1 ? "s" : "");
		if (inst->cfg.alloc_info) {
			err = allocinfo_watch_new(inst->cfg.alloc_file, inst->cfg.alloc_top,
						  (uint64_t)(inst->cfg.alloc_interval_s * 1e9), &inst->alloc);
			if (err)
				goto clear_context;
		}
		if (sender_config_batch_intervals(&inst->cfg.sender, 1) > 1)
			INFO(MB_LOG_PREFIX "an interval (%g s) waits up to %g s for the next ones to share a request "
			     "(BatchSendDeadline; 0 sends each on its own)",
			     inst->cfg.sender.interval_s, inst->cfg.sender.batch_deadline_s);
#else
		ERROR(MB_LOG_PREFIX "URL: this build has no HTTP sender (configure found no protobuf-c, "
		      "protoc-c, libcurl, snappy, zlib or zstd)");
		err = -ENOTSUP;
		goto clear_context;
#endif
	}
	if (inst->cfg.alloc_info && !inst->cfg.sender.nr_urls)
		WARNING(MB_LOG_PREFIX "AllocInfo: the allocation profile is shipped over URL only; "
			"without a URL it is not read");
	inst->self_every = plugin_config_self_every(&inst->cfg, CDTIME_T_TO_DOUBLE(plugin_get_interval()));
	inst->self_interval = inst->self_every * plugin_get_interval();
	if (inst->cfg.report_self && inst->self_every > 1)
		INFO(MB_LOG_PREFIX "self values go to collectd every %u reads (%.3g s; SelfInterval %g)",
		     inst->self_every, CDTIME_T_TO_DOUBLE(inst->self_interval), inst->cfg.self_interval_s);
	inst->vl.values = &inst->value;
	inst->vl.values_len = 1;
	sstrncpy(inst->vl.plugin, PLUGIN_NAME, sizeof(inst->vl.plugin));

	/* interval 0: collectd uses the <LoadPlugin> Interval, else the global one */
	err = plugin_register_complex_read(NULL, PLUGIN_NAME, mb_read, 0,
					   &(user_data_t){ .data = inst, .free_func = instance_free });
	if (err) {
		ERROR(MB_LOG_PREFIX "cannot register the read callback (status %d)", err);
		goto free_instance;
	}
	initialised = true;
	INFO(MB_LOG_PREFIX "sampling %s with the %s backend", inst->cfg.cgroup_root,
	     sampler_backend_name(sampler_backend_used(inst->sampler)));
	return 0;

clear_context:
	log_context[0] = '\0';
free_instance:
	instance_free(inst);
	return -1;
}

static int mb_shutdown(void)
{
	/* the read callback's user data was freed by collectd (free_func) */
	instance_free(pending);
	pending = NULL;
	mb_log_set_sink(NULL);
	return 0;
}

void module_register(void)
{
	mb_log_set_sink(log_to_collectd);
	plugin_register_complex_config(PLUGIN_NAME, mb_config);
	plugin_register_init(PLUGIN_NAME, mb_init);
	plugin_register_shutdown(PLUGIN_NAME, mb_shutdown);
}
