// SPDX-License-Identifier: GPL-2.0-only
#include "config/plugin_config.h"
#include "config/config_values.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "allocinfo/allocinfo.h"
#include "base/name_table.h"
#include "base/log.h"
#include "series/metric_names.h"

#define MAX_DEPTH_LIMIT 4096

/* The value shapes a key takes. */
enum cfg_shape {
	SHAPE_STRING,  /* exactly one string */
	SHAPE_STRINGS, /* one or more strings */
	SHAPE_BOOLEAN, /* exactly one boolean (or "true"/"false"/... as a string) */
	SHAPE_INTEGER, /* exactly one whole number */
	SHAPE_NUMBER,  /* exactly one number */
};

union cfg_arg {
	const char *string;
	bool boolean;
	long integer;
	double number;
};

struct cfg_key {
	const char *name;
	enum cfg_shape shape;
	/* @v: the values when SHAPE_STRINGS, else @arg holds the one value */
	int (*set)(struct plugin_config *c, const char *key, union cfg_arg arg,
		   const struct cfg_value *v, size_t n);
};

static int set_backend(struct plugin_config *c, const char *key, union cfg_arg arg,
		       const struct cfg_value *v, size_t n)
{
	if (sampler_backend_parse(arg.string, &c->backend)) {
		mb_err("%s \"%s\": not one of auto, bpf, bpf-core, text", key, arg.string);
		return -EINVAL;
	}
	return 0;
}

static int set_cgroup_root(struct plugin_config *c, const char *key, union cfg_arg arg,
			   const struct cfg_value *v, size_t n)
{
	char *root;

	if (!arg.string[0]) {
		mb_err("%s \"\": the cgroup root must not be empty", key);
		return -EINVAL;
	}
	root = strdup(arg.string);
	if (!root)
		return -ENOMEM;
	free(c->cgroup_root);
	c->cgroup_root = root;
	return 0;
}

/*
 * Each value is one stat name (or "all", or "default"); the selection grows
 * over Stat lines. With "default" in it, what the kernel lacks of the
 * selection is a notice, as for the default set alone.
 */
static int set_stat(struct plugin_config *c, const char *key, union cfg_arg arg,
		    const struct cfg_value *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int err = stat_select(key, v[i].string, c->stats, PLUGIN_CONFIG_MAX_STATS, &c->nr_stats);

		if (err)
			return err;
		if (strcasecmp(v[i].string, "default") == 0)
			c->default_stats = true;
	}
	return 0;
}

/* NumaStat: per-node stat names (or "all"), growing over lines as Stat does. */
static int set_numa_stat(struct plugin_config *c, const char *key, union cfg_arg arg,
			 const struct cfg_value *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int err = numa_stat_select(key, v[i].string, c->numa_stats, PLUGIN_CONFIG_MAX_NUMA_STATS,
					   &c->nr_numa_stats);

		if (err)
			return err;
	}
	return 0;
}

static int set_cgroup(struct plugin_config *c, const char *key, union cfg_arg arg,
		      const struct cfg_value *v, size_t n)
{
	char why[320];
	int err;

	for (size_t i = 0; i < n; i++) {
		err = cgroup_filter_add(c->filter, v[i].string, why, sizeof(why));
		if (err == -EINVAL)
			mb_err("%s \"%s\": %s", key, v[i].string, why);
		if (err)
			return err;
	}
	return 0;
}

static int set_max_depth(struct plugin_config *c, const char *key, union cfg_arg arg,
			 const struct cfg_value *v, size_t n)
{
	if (arg.integer < 0) {
		mb_err("%s %ld: must be 0 or more (leave %s out for no limit)", key, arg.integer, key);
		return -EINVAL;
	}
	c->max_depth = arg.integer > MAX_DEPTH_LIMIT ? MAX_DEPTH_LIMIT : (int)arg.integer;
	return 0;
}

/* MaxChildren, MaxCgroups: 0 is no limit. */
static int set_budget(const char *key, long value, unsigned int *out)
{
	if (value < 0 || value > CGROUP_BUDGET_LIMIT) {
		mb_err("%s %ld: must be from 0 (no limit) to %d", key, value, CGROUP_BUDGET_LIMIT);
		return -EINVAL;
	}
	*out = (unsigned int)value;
	return 0;
}

static int set_max_children(struct plugin_config *c, const char *key, union cfg_arg arg,
			    const struct cfg_value *v, size_t n)
{
	return set_budget(key, arg.integer, &c->budget.max_children);
}

static int set_max_cgroups(struct plugin_config *c, const char *key, union cfg_arg arg,
			   const struct cfg_value *v, size_t n)
{
	return set_budget(key, arg.integer, &c->budget.max_cgroups);
}

#define BOOL_SETTER(fn, field)                                                             \
	static int fn(struct plugin_config *c, const char *key, union cfg_arg arg,         \
		      const struct cfg_value *v, size_t n)                                 \
	{                                                                                  \
		c->field = arg.boolean;                                                    \
		return 0;                                                                  \
	}
BOOL_SETTER(set_ignore_selected, ignore_selected)
BOOL_SETTER(set_include_root, include_root)
/* Remembered as given: left out, it follows URL (see plugin_config_finish). */
static int set_dispatch_values(struct plugin_config *c, const char *key, union cfg_arg arg,
			       const struct cfg_value *v, size_t n)
{
	c->dispatch_values = arg.boolean;
	c->dispatch_values_given = true;
	return 0;
}
BOOL_SETTER(set_report_self, report_self)
BOOL_SETTER(set_values_per_cgroup, values_per_cgroup)
BOOL_SETTER(set_alloc_info, alloc_info)

/* ---- the allocation profile */
static int set_alloc_info_top(struct plugin_config *c, const char *key, union cfg_arg arg,
			      const struct cfg_value *v, size_t n)
{
	if (arg.integer < 1 || arg.integer > PLUGIN_CONFIG_ALLOC_TOP_MAX) {
		mb_err("%s %ld: must be from 1 to %d call sites", key, arg.integer, PLUGIN_CONFIG_ALLOC_TOP_MAX);
		return -EINVAL;
	}
	c->alloc_top = (unsigned int)arg.integer;
	return 0;
}

static int set_alloc_info_interval(struct plugin_config *c, const char *key, union cfg_arg arg,
				   const struct cfg_value *v, size_t n)
{
	if (!(arg.number >= 1) || arg.number > 86400) {
		mb_err("%s %g: must be from 1 to 86400 seconds", key, arg.number);
		return -EINVAL;
	}
	c->alloc_interval_s = arg.number;
	return 0;
}

/* ---- sender */
static int set_url(struct plugin_config *c, const char *key, union cfg_arg arg,
		   const struct cfg_value *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *u = v[i].string;

		char why[160];

		if (strncasecmp(u, "http://", 7) != 0 && strncasecmp(u, "https://", 8) != 0) {
			mb_err("%s \"%s\": not an http:// or https:// URL", key, u);
			return -EINVAL;
		}
		if (c->check_url && c->check_url(u, why, sizeof(why))) {
			mb_err("%s \"%s\": not a valid URL: %s", key, u, why);
			return -EINVAL;
		}
		if (c->sender.nr_urls == SENDER_MAX_URLS) {
			mb_err("%s \"%s\": more than %d URLs", key, u, SENDER_MAX_URLS);
			return -E2BIG;
		}
		c->sender.urls[c->sender.nr_urls] = strdup(u);
		if (!c->sender.urls[c->sender.nr_urls])
			return -ENOMEM;
		c->sender.nr_urls++;
	}
	return 0;
}

static int set_format(struct plugin_config *c, const char *key, union cfg_arg arg,
		      const struct cfg_value *v, size_t n)
{
	c->sender_keys++;
	if (wire_format_parse(arg.string, &c->sender.format)) {
		mb_err("%s \"%s\": not one of remote_write, remote_write_v2, otlp", key, arg.string);
		return -EINVAL;
	}
	return 0;
}

static int set_compression(struct plugin_config *c, const char *key, union cfg_arg arg,
			   const struct cfg_value *v, size_t n)
{
	c->sender_keys++;
	if (compression_parse(arg.string, &c->sender.compression)) {
		mb_err("%s \"%s\": not one of default, snappy, gzip, zstd, none", key, arg.string);
		return -EINVAL;
	}
	return 0;
}

static int set_label(struct plugin_config *c, const char *key, union cfg_arg arg,
		     const struct cfg_value *v, size_t n)
{
	/* the plugin's own labels: series/row_labels.c */
	static const char *const reserved[] = { "cgroup", "host", "reason", "unit", "pod_uid", "container_id",
						"namespace", "pod", "container", "image", "node" };
	struct label_pair *l;

	c->sender_keys++;
	if (n != 2) {
		mb_err("%s: expects a name and a value, got %zu strings", key, n);
		return -EINVAL;
	}
	if (!label_name_allowed_static(v[0].string)) {
		mb_err("%s \"%s\": not a label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with \"__\")", key,
		       v[0].string);
		return -EINVAL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(reserved); i++)
		if (strcmp(v[0].string, reserved[i]) == 0) {
			mb_err("%s \"%s\": the plugin sets this label itself", key, v[0].string);
			return -EINVAL;
		}
	for (size_t i = 0; i < c->sender.nr_labels; i++)
		if (strcmp(c->sender.labels[i].name, v[0].string) == 0) {
			mb_err("%s \"%s\": given twice", key, v[0].string);
			return -EINVAL;
		}
	if (!v[1].string[0]) {
		mb_err("%s \"%s\": the value must not be empty", key, v[0].string);
		return -EINVAL;
	}
	if (c->sender.nr_labels == SENDER_MAX_LABELS) {
		mb_err("%s \"%s\": more than %d labels", key, v[0].string, SENDER_MAX_LABELS);
		return -E2BIG;
	}
	l = &c->sender.labels[c->sender.nr_labels];
	l->name = strdup(v[0].string);
	l->value = strdup(v[1].string);
	if (!l->name || !l->value) {
		free((char *)l->name);
		free((char *)l->value);
		return -ENOMEM;
	}
	c->sender.nr_labels++;
	return 0;
}

static int set_max_samples(struct plugin_config *c, const char *key, union cfg_arg arg,
			   const struct cfg_value *v, size_t n)
{
	c->sender_keys++;
	return cfg_range(key, arg.integer, 1, SENDER_MAX_SAMPLES_LIMIT, &c->sender.max_samples);
}

static int set_max_bytes(struct plugin_config *c, const char *key, union cfg_arg arg,
			 const struct cfg_value *v, size_t n)
{
	c->sender_keys++;
	return cfg_range(key, arg.integer, 1024, SENDER_MAX_BYTES_LIMIT, &c->sender.max_bytes);
}

static int set_queue_length(struct plugin_config *c, const char *key, union cfg_arg arg,
			    const struct cfg_value *v, size_t n)
{
	c->sender_keys++;
	return cfg_range(key, arg.integer, 1, SENDER_QUEUE_LENGTH_LIMIT, &c->sender.queue_length);
}

static int set_timeout(struct plugin_config *c, const char *key, union cfg_arg arg,
		       const struct cfg_value *v, size_t n)
{
	c->sender_keys++;
	return cfg_seconds(key, arg.number, &c->sender.timeout_s);
}

static int set_batch_deadline(struct plugin_config *c, const char *key, union cfg_arg arg,
			      const struct cfg_value *v, size_t n)
{
	c->sender_keys++;
	if (!(arg.number >= 0) || arg.number > SENDER_MAX_BATCH_DEADLINE_S) {
		mb_err("%s %g: must be from 0 (every interval on its own) to %g seconds", key, arg.number,
		       SENDER_MAX_BATCH_DEADLINE_S);
		return -EINVAL;
	}
	c->sender.batch_deadline_s = arg.number;
	return 0;
}

static int set_self_interval(struct plugin_config *c, const char *key, union cfg_arg arg,
			     const struct cfg_value *v, size_t n)
{
	if (!(arg.number >= 0) || arg.number > 86400) {
		mb_err("%s %g: must be from 0 (with every read) to 86400 seconds", key, arg.number);
		return -EINVAL;
	}
	c->self_interval_s = arg.number;
	return 0;
}

static int set_connect_timeout(struct plugin_config *c, const char *key, union cfg_arg arg,
			       const struct cfg_value *v, size_t n)
{
	c->sender_keys++;
	return cfg_seconds(key, arg.number, &c->sender.connect_timeout_s);
}

#define PATH_SETTER(fn, field)                                                             \
	static int fn(struct plugin_config *c, const char *key, union cfg_arg arg,         \
		      const struct cfg_value *v, size_t n)                                 \
	{                                                                                  \
		c->sender_keys++;                                                          \
		return cfg_path(&c->sender.field, key, arg.string);                        \
	}
PATH_SETTER(set_ca_cert, ca_cert)
PATH_SETTER(set_client_cert, client_cert)
PATH_SETTER(set_client_key, client_key)
PATH_SETTER(set_bearer_token_file, bearer_token_file)
PATH_SETTER(set_basic_auth_user, basic_auth_user)
PATH_SETTER(set_basic_auth_password_file, basic_auth_password_file)
PATH_SETTER(set_service_instance_id, service_instance_id)

#define SENDER_BOOL_SETTER(fn, field)                                                      \
	static int fn(struct plugin_config *c, const char *key, union cfg_arg arg,         \
		      const struct cfg_value *v, size_t n)                                 \
	{                                                                                  \
		c->sender_keys++;                                                          \
		c->sender.field = arg.boolean;                                             \
		return 0;                                                                  \
	}
SENDER_BOOL_SETTER(set_verify_peer, verify_peer)
SENDER_BOOL_SETTER(set_unit_label, unit_label)
SENDER_BOOL_SETTER(set_container_id_label, container_id_label)
SENDER_BOOL_SETTER(set_pod_uid_label, pod_uid_label)
SENDER_BOOL_SETTER(set_pod_name_labels, pod_name_labels)
SENDER_BOOL_SETTER(set_container_name_label, container_name_label)
SENDER_BOOL_SETTER(set_image_label, image_label)

#define DIR_SETTER(fn, field)                                                              \
	static int fn(struct plugin_config *c, const char *key, union cfg_arg arg,         \
		      const struct cfg_value *v, size_t n)                                 \
	{                                                                                  \
		c->sender_keys++;                                                          \
		return cfg_dir(&c->sender.field, key, arg.string);                         \
	}
/* kubelet's directories of the Kubernetes names (series/pod_names.h) */
DIR_SETTER(set_pod_log_dir, pod_log_dir)
DIR_SETTER(set_container_log_dir, container_log_dir)
/* the container runtimes' state, for the image (series/image_names.h) */
DIR_SETTER(set_containerd_state_dir, containerd_state_dir)
DIR_SETTER(set_crio_state_dir, crio_state_dir)

/* ---- disk spool */
DIR_SETTER(set_spool_dir, spool_dir)

static int set_spool_max_bytes(struct plugin_config *c, const char *key, union cfg_arg arg,
			       const struct cfg_value *v, size_t n)
{
	double b = arg.number;

	c->sender_keys++;
	if (b != floor(b) || b < (double)SENDER_MIN_SPOOL_BYTES || b > (double)SENDER_MAX_SPOOL_BYTES) {
		mb_err("%s %g: must be a whole number of bytes from %llu (1 MiB) to %llu (1 TiB)", key, b,
		       SENDER_MIN_SPOOL_BYTES, SENDER_MAX_SPOOL_BYTES);
		return -EINVAL;
	}
	c->sender.spool_max_bytes = (unsigned long long)b;
	return 0;
}

/* AllocInfoFile: the profile read (a copy of /proc/allocinfo, for tests and replays) */
static int set_alloc_info_file(struct plugin_config *c, const char *key, union cfg_arg arg,
			       const struct cfg_value *v, size_t n)
{
	return cfg_path(&c->alloc_file, key, arg.string);
}

static const struct cfg_key keys[] = {
	{ "Backend", SHAPE_STRING, set_backend },
	{ "CgroupRoot", SHAPE_STRING, set_cgroup_root },
	{ "Stat", SHAPE_STRINGS, set_stat },
	{ "NumaStat", SHAPE_STRINGS, set_numa_stat },
	{ "Cgroup", SHAPE_STRINGS, set_cgroup },
	{ "IgnoreSelected", SHAPE_BOOLEAN, set_ignore_selected },
	{ "MaxDepth", SHAPE_INTEGER, set_max_depth },
	{ "MaxChildren", SHAPE_INTEGER, set_max_children },
	{ "MaxCgroups", SHAPE_INTEGER, set_max_cgroups },
	{ "IncludeRoot", SHAPE_BOOLEAN, set_include_root },
	{ "DispatchValues", SHAPE_BOOLEAN, set_dispatch_values },
	{ "ReportSelf", SHAPE_BOOLEAN, set_report_self },
	{ "SelfInterval", SHAPE_NUMBER, set_self_interval },
	{ "ValuesPerCgroup", SHAPE_BOOLEAN, set_values_per_cgroup },
	{ "AllocInfo", SHAPE_BOOLEAN, set_alloc_info },
	{ "AllocInfoTop", SHAPE_INTEGER, set_alloc_info_top },
	{ "AllocInfoInterval", SHAPE_NUMBER, set_alloc_info_interval },
	{ "AllocInfoFile", SHAPE_STRING, set_alloc_info_file },
	{ "URL", SHAPE_STRINGS, set_url },
	{ "Format", SHAPE_STRING, set_format },
	{ "Compression", SHAPE_STRING, set_compression },
	{ "ServiceInstanceId", SHAPE_STRING, set_service_instance_id },
	{ "Label", SHAPE_STRINGS, set_label },
	{ "UnitLabel", SHAPE_BOOLEAN, set_unit_label },
	{ "ContainerIdLabel", SHAPE_BOOLEAN, set_container_id_label },
	{ "PodUidLabel", SHAPE_BOOLEAN, set_pod_uid_label },
	{ "PodNameLabels", SHAPE_BOOLEAN, set_pod_name_labels },
	{ "ContainerNameLabel", SHAPE_BOOLEAN, set_container_name_label },
	{ "PodLogDir", SHAPE_STRING, set_pod_log_dir },
	{ "ContainerLogDir", SHAPE_STRING, set_container_log_dir },
	{ "ImageLabel", SHAPE_BOOLEAN, set_image_label },
	{ "ContainerdStateDir", SHAPE_STRING, set_containerd_state_dir },
	{ "CrioStateDir", SHAPE_STRING, set_crio_state_dir },
	{ "MaxSamplesPerSend", SHAPE_INTEGER, set_max_samples },
	{ "MaxBytesPerSend", SHAPE_INTEGER, set_max_bytes },
	{ "QueueLength", SHAPE_INTEGER, set_queue_length },
	{ "BatchSendDeadline", SHAPE_NUMBER, set_batch_deadline },
	{ "Timeout", SHAPE_NUMBER, set_timeout },
	{ "ConnectTimeout", SHAPE_NUMBER, set_connect_timeout },
	{ "CACert", SHAPE_STRING, set_ca_cert },
	{ "ClientCert", SHAPE_STRING, set_client_cert },
	{ "ClientKey", SHAPE_STRING, set_client_key },
	{ "BearerTokenFile", SHAPE_STRING, set_bearer_token_file },
	{ "BasicAuthUser", SHAPE_STRING, set_basic_auth_user },
	{ "BasicAuthPasswordFile", SHAPE_STRING, set_basic_auth_password_file },
	{ "VerifyPeer", SHAPE_BOOLEAN, set_verify_peer },
	{ "SpoolDir", SHAPE_STRING, set_spool_dir },
	{ "SpoolMaxBytes", SHAPE_NUMBER, set_spool_max_bytes },
};

#define NR_KEYS (ARRAY_SIZE(keys))

unsigned int plugin_config_self_every(const struct plugin_config *c, double interval_s)
{
	double reads;

	if (!(interval_s > 0) || c->self_interval_s <= interval_s)
		return 1;
	reads = floor(c->self_interval_s / interval_s);
	if (c->self_interval_s / interval_s > reads * 1.01)
		reads++;
	return reads > UINT_MAX ? UINT_MAX : (unsigned int)reads;
}

const char *plugin_config_keys(void)
{
	static char list[1024];

	if (!list[0]) {
		size_t off = 0;

		for (size_t i = 0; i < NR_KEYS && off < sizeof(list); i++)
			off += snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "", keys[i].name);
	}
	return list;
}

int plugin_config_init(struct plugin_config *c)
{
	memset(c, 0, sizeof(*c));
	c->backend = SAMPLER_AUTO;
	c->cgroup_root = strdup("/sys/fs/cgroup");
	c->filter = cgroup_filter_new();
	c->max_depth = -1;
	c->budget.max_children = CGROUP_BUDGET_MAX_CHILDREN;
	c->budget.max_cgroups = CGROUP_BUDGET_MAX_CGROUPS;
	c->include_root = true;
	c->dispatch_values = true;
	c->report_self = true;
	c->self_interval_s = PLUGIN_CONFIG_SELF_INTERVAL_S;
	c->alloc_top = PLUGIN_CONFIG_ALLOC_TOP;
	c->alloc_interval_s = PLUGIN_CONFIG_ALLOC_INTERVAL_S;
	c->alloc_file = strdup(ALLOCINFO_PATH);
	sender_config_init(&c->sender);
	if (!c->cgroup_root || !c->filter || !c->alloc_file) {
		plugin_config_free(c);
		return -ENOMEM;
	}
	return 0;
}

static const char *const type_names[] = {
	[CFG_STRING] = "a string",
	[CFG_NUMBER] = "a number",
	[CFG_BOOLEAN] = "a boolean",
};

static const char *type_name(enum cfg_value_type t)
{
	return NAME_OF(type_names, t);
}

/* Checks the values against the key's shape and extracts the single value. */
static int check_shape(const struct cfg_key *k, const struct cfg_value *v, size_t n, union cfg_arg *arg)
{
	static const char *const wanted[] = {
		[SHAPE_STRING] = "exactly one string",
		[SHAPE_STRINGS] = "one or more strings",
		[SHAPE_BOOLEAN] = "exactly one boolean (true or false)",
		[SHAPE_INTEGER] = "exactly one whole number",
		[SHAPE_NUMBER] = "exactly one number",
	};
	const char *got = NULL;
	char got_buf[64];

	if (n == 0)
		got = "no value";
	else if (n > 1 && k->shape != SHAPE_STRINGS) {
		snprintf(got_buf, sizeof(got_buf), "%zu values", n);
		got = got_buf;
	}
	for (size_t i = 0; !got && i < n; i++) {
		switch (k->shape) {
		case SHAPE_STRING:
		case SHAPE_STRINGS:
			if (v[i].type != CFG_STRING)
				got = type_name(v[i].type);
			else
				arg->string = v[i].string;
			break;
		case SHAPE_BOOLEAN:
			if (v[i].type == CFG_BOOLEAN)
				arg->boolean = v[i].boolean;
			else if (v[i].type != CFG_STRING || cfg_bool_string(v[i].string, &arg->boolean))
				got = v[i].type == CFG_STRING ? "a string that is not true or false"
							      : type_name(v[i].type);
			break;
		case SHAPE_INTEGER:
			if (v[i].type != CFG_NUMBER)
				got = type_name(v[i].type);
			else if (!isfinite(v[i].number) || v[i].number != floor(v[i].number) ||
				 fabs(v[i].number) > 1e9)
				got = "a number that is not a whole number";
			else
				arg->integer = (long)v[i].number;
			break;
		case SHAPE_NUMBER:
			if (v[i].type != CFG_NUMBER)
				got = type_name(v[i].type);
			else if (!isfinite(v[i].number))
				got = "a number that is not finite";
			else
				arg->number = v[i].number;
			break;
		}
	}
	if (!got)
		return 0;
	mb_err("%s: expects %s, got %s", k->name, wanted[k->shape], got);
	return -EINVAL;
}

_Static_assert(NR_KEYS <= PLUGIN_CONFIG_MAX_KEYS, "PLUGIN_CONFIG_MAX_KEYS too small");

/* An unknown key, reported once per name. */
static void unknown_key(struct plugin_config *c, const char *key)
{
	for (size_t i = 0; i < c->nr_unknown; i++)
		if (strcasecmp(c->unknown[i], key) == 0)
			return;
	mb_err("unknown config key \"%s\" (valid keys: %s)", key, plugin_config_keys());
	if (c->nr_unknown < PLUGIN_CONFIG_MAX_UNKNOWN && (c->unknown[c->nr_unknown] = strdup(key)))
		c->nr_unknown++;
}

/* Stat, Cgroup, URL and Label add to a list; every other key is set once. */
static bool repeatable(const struct cfg_key *k)
{
	return k->shape == SHAPE_STRINGS;
}

/* One line of key @k (index @ki): its shape, then its setter. */
static int apply(struct plugin_config *c, size_t ki, const struct cfg_value *values, size_t nr_values)
{
	const struct cfg_key *k = &keys[ki];
	union cfg_arg arg = { 0 };
	int err;

	if (c->key_lines[ki]++ && !repeatable(k)) {
		mb_err("%s: given more than once (it takes one value; remove the extra lines)", k->name);
		return -EINVAL;
	}
	err = check_shape(k, values, nr_values, &arg);
	if (err)
		return err;
	/* the setters log with the key as the table spells it */
	err = k->set(c, k->name, arg, values, nr_values);
	if (err == -ENOMEM)
		mb_err("%s: out of memory", k->name);
	return err;
}

int plugin_config_set(struct plugin_config *c, const char *key, const struct cfg_value *values,
		      size_t nr_values)
{
	size_t ki;
	bool was_quiet;
	int err;

	for (ki = 0; ki < NR_KEYS; ki++)
		if (strcasecmp(keys[ki].name, key) == 0)
			break;
	if (ki == NR_KEYS) {
		unknown_key(c, key);
		c->errors++;
		return -EINVAL;
	}
	/* a repeated mistake: counted, logged once (the first), summed up at finish */
	was_quiet = mb_log_set_quiet(c->key_errors[ki] > 0);
	err = apply(c, ki, values, nr_values);
	mb_log_set_quiet(was_quiet);
	if (err) {
		c->key_errors[ki]++;
		c->errors++;
	}
	return err;
}

/* One warning per key whose mistake repeated (only its first line was logged). */
static void report_repeats(const struct plugin_config *c)
{
	for (size_t ki = 0; ki < NR_KEYS; ki++)
		if (c->key_errors[ki] > 1)
			mb_warn("%s: %u more lines rejected like the one above (not logged one by one)",
				keys[ki].name, c->key_errors[ki] - 1);
}

/* The sender keys that only make sense together. One error each, counted. */
static int sender_config_finish(struct plugin_config *c)
{
	const struct sender_config *s = &c->sender;
	char why[160];
	int errors = 0;

	if (!s->nr_urls) {
		if (c->sender_keys) {
			mb_err("URL: sender keys are given but no URL to send to");
			errors++;
		}
		goto out;
	}
	if (compression_check(s->format, s->compression, why, sizeof(why))) {
		mb_err("Compression \"%s\": %s", compression_name(s->compression), why);
		errors++;
	}
	if (!s->client_cert != !s->client_key) {
		mb_err("%s: ClientCert and ClientKey go together", s->client_cert ? "ClientCert" : "ClientKey");
		errors++;
	}
	if (!s->basic_auth_user != !s->basic_auth_password_file) {
		mb_err("%s: BasicAuthUser and BasicAuthPasswordFile go together",
		       s->basic_auth_user ? "BasicAuthUser" : "BasicAuthPasswordFile");
		errors++;
	}
	if (s->basic_auth_user && s->bearer_token_file) {
		mb_err("BearerTokenFile: cannot be used together with BasicAuthUser");
		errors++;
	}
	if (s->connect_timeout_s > s->timeout_s) {
		mb_err("ConnectTimeout %g: longer than Timeout %g", s->connect_timeout_s, s->timeout_s);
		errors++;
	}
	if (s->service_instance_id && s->format != WIRE_OTLP) {
		mb_err("ServiceInstanceId: an OTLP resource attribute, given with Format \"%s\"",
		       wire_format_name(s->format));
		errors++;
	}
	/*
	 * With a SpoolDir nothing waits in memory by default that the spool
	 * would not keep through a crash; without one the queue is in memory
	 * anyway.
	 */
	if (c->sender.batch_deadline_s == SENDER_BATCH_DEADLINE_UNSET)
		c->sender.batch_deadline_s = s->spool_dir ? 0 : SENDER_DEFAULT_BATCH_DEADLINE_S;
	if (s->spool_max_bytes && !s->spool_dir) {
		mb_err("SpoolMaxBytes: given without SpoolDir");
		errors++;
	}
out:
	c->errors += errors;
	return errors ? -EINVAL : 0;
}

int plugin_config_finish(struct plugin_config *c)
{
	int err;

	report_repeats(c);
	if (c->errors)
		return -EINVAL;
	if (c->nr_stats == 0) {
		c->default_stats = true;
		err = stat_parse_list(STAT_DEFAULT_LIST, c->stats, PLUGIN_CONFIG_MAX_STATS, &c->nr_stats);
		if (err) {
			c->errors++;
			return err;
		}
	}
	cgroup_filter_set_ignore_selected(c->filter, c->ignore_selected);
	/*
	 * With a URL the per-cgroup values go over the wire and collectd's
	 * per-value path (which costs many times the sampling) is skipped,
	 * unless DispatchValues asks for it; the plugin's self values still
	 * go to collectd.
	 */
	if (!c->dispatch_values_given)
		c->dispatch_values = c->sender.nr_urls == 0;
	return sender_config_finish(c);
}

void plugin_config_sampler_opts(const struct plugin_config *c, struct sampler_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->cgroup_root = c->cgroup_root;
	opts->max_depth = c->max_depth;
	opts->backend = c->backend;
	opts->stats = (const struct stat_def **)c->stats;
	opts->nr_stats = c->nr_stats;
	opts->strict_stats = false;
	opts->default_stats = c->default_stats;
	opts->rank_stat = cgroup_budget_rank_stat(&c->budget);
	opts->numa_stats = (const struct stat_def **)c->numa_stats;
	opts->nr_numa_stats = c->nr_numa_stats;
}

void plugin_config_free(struct plugin_config *c)
{
	free(c->cgroup_root);
	c->cgroup_root = NULL;
	free(c->alloc_file);
	c->alloc_file = NULL;
	cgroup_filter_free(c->filter);
	c->filter = NULL;
	sender_config_free(&c->sender);
	for (size_t i = 0; i < c->nr_unknown; i++)
		free(c->unknown[i]);
	c->nr_unknown = 0;
}
