// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stats memcg_bpf knows, in cgroup v2 memory.stat order (Linux 7.2),
 * then usage, memory.events, memory.events.local, the page counters'
 * settings, memory.pressure and the derived stats.
 */
#include "sampling/stat_catalog.h"

#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/macros.h"
#include "base/log.h"

#define PAGES(n, v1, k...) { .name = n, .file = STAT_FILE_MEMORY_STAT, .unit = STAT_UNIT_BYTES, \
			     .type = STAT_GAUGE, .kernel = { k }, .v1_name = v1 }
/* memory.stat's event counters count pages (moved, reclaimed, swapped), faults or huge pages */
#define EVENTS(n, v1, what, k...) { .name = n, .file = STAT_FILE_MEMORY_STAT, .unit = STAT_UNIT_COUNT, \
				    .count_unit = what, .type = STAT_COUNTER, .kernel = { k }, .v1_name = v1 }
#define MEMORY_EVENT(n, k) { .name = n, .file = STAT_FILE_MEMORY_EVENTS, .unit = STAT_UNIT_COUNT, \
			    .count_unit = "{event}", .type = STAT_COUNTER, .kernel = { k } }
/* memory.events.local: the same counters, of the cgroup alone (v1: memory.oom_control) */
#define LOCAL_EVENT(n, key_, v1, k) { .name = n, .file = STAT_FILE_MEMORY_EVENTS_LOCAL, \
				      .unit = STAT_UNIT_COUNT, .count_unit = "{event}", .type = STAT_COUNTER, \
				      .scope = STAT_SCOPE_LOCAL, .key = key_, .kernel = { k }, .v1_name = v1 }
/* a page counter's value or setting, in bytes; is_limit: "max" means no limit */
#define COUNTER(n, f, is_limit) { .name = n, .file = f, .unit = STAT_UNIT_BYTES, .type = STAT_GAUGE, \
				  .limit = is_limit }
#define PRESSURE(n, key_, k) { .name = n, .file = STAT_FILE_PRESSURE, .unit = STAT_UNIT_MICROSECONDS, \
			       .type = STAT_COUNTER, .key = key_, .kernel = { k } }

static const struct stat_def catalog[] = {
	PAGES("anon", "rss", "NR_ANON_MAPPED"),
	PAGES("file", "cache", "NR_FILE_PAGES"),
	PAGES("kernel", NULL, "MEMCG_KMEM"),
	PAGES("kernel_stack", NULL, "NR_KERNEL_STACK_KB"),
	PAGES("pagetables", NULL, "NR_PAGETABLE"),
	PAGES("sec_pagetables", NULL, "NR_SECONDARY_PAGETABLE"),
	PAGES("percpu", NULL, "MEMCG_PERCPU_B"),
	PAGES("sock", NULL, "MEMCG_SOCK"),
	/* 7.x made vmalloc a node stat; 6.x counted it per memcg only */
	PAGES("vmalloc", NULL, "NR_VMALLOC", "MEMCG_VMALLOC"),
	PAGES("shmem", "shmem", "NR_SHMEM"),
	PAGES("zswap", NULL, "MEMCG_ZSWAP_B"),
	PAGES("zswapped", NULL, "MEMCG_ZSWAPPED"),
	PAGES("zswap_incomp", NULL, "MEMCG_ZSWAP_INCOMP"),
	PAGES("file_mapped", "mapped_file", "NR_FILE_MAPPED"),
	PAGES("file_dirty", "dirty", "NR_FILE_DIRTY"),
	PAGES("file_writeback", "writeback", "NR_WRITEBACK"),
	PAGES("swapcached", "swapcached", "NR_SWAPCACHE"),
	PAGES("anon_thp", "rss_huge", "NR_ANON_THPS"),
	PAGES("file_thp", NULL, "NR_FILE_THPS"),
	PAGES("shmem_thp", NULL, "NR_SHMEM_THPS"),
	PAGES("inactive_anon", "inactive_anon", "NR_INACTIVE_ANON"),
	PAGES("active_anon", "active_anon", "NR_ACTIVE_ANON"),
	PAGES("inactive_file", "inactive_file", "NR_INACTIVE_FILE"),
	PAGES("active_file", "active_file", "NR_ACTIVE_FILE"),
	PAGES("unevictable", "unevictable", "NR_UNEVICTABLE"),
	PAGES("slab_reclaimable", NULL, "NR_SLAB_RECLAIMABLE_B"),
	PAGES("slab_unreclaimable", NULL, "NR_SLAB_UNRECLAIMABLE_B"),
	PAGES("slab", NULL, "NR_SLAB_RECLAIMABLE_B+NR_SLAB_UNRECLAIMABLE_B"),
	/* CONFIG_HUGETLB_PAGE: hugetlb pages charged to the cgroup */
	PAGES("hugetlb", NULL, "NR_HUGETLB"),
	EVENTS("workingset_refault_anon", "workingset_refault_anon", "{page}", "WORKINGSET_REFAULT_ANON"),
	EVENTS("workingset_refault_file", "workingset_refault_file", "{page}", "WORKINGSET_REFAULT_FILE"),
	EVENTS("workingset_activate_anon", NULL, "{page}", "WORKINGSET_ACTIVATE_ANON"),
	EVENTS("workingset_activate_file", NULL, "{page}", "WORKINGSET_ACTIVATE_FILE"),
	EVENTS("workingset_restore_anon", NULL, "{page}", "WORKINGSET_RESTORE_ANON"),
	EVENTS("workingset_restore_file", NULL, "{page}", "WORKINGSET_RESTORE_FILE"),
	EVENTS("workingset_nodereclaim", NULL, "{page}", "WORKINGSET_NODERECLAIM"),
	EVENTS("pgdemote_kswapd", NULL, "{page}", "PGDEMOTE_KSWAPD"),
	EVENTS("pgdemote_direct", NULL, "{page}", "PGDEMOTE_DIRECT"),
	EVENTS("pgdemote_khugepaged", NULL, "{page}", "PGDEMOTE_KHUGEPAGED"),
	EVENTS("pgdemote_proactive", NULL, "{page}", "PGDEMOTE_PROACTIVE"),
	EVENTS("pgsteal_kswapd", NULL, "{page}", "PGSTEAL_KSWAPD"),
	EVENTS("pgsteal_direct", NULL, "{page}", "PGSTEAL_DIRECT"),
	EVENTS("pgsteal_khugepaged", NULL, "{page}", "PGSTEAL_KHUGEPAGED"),
	EVENTS("pgsteal_proactive", NULL, "{page}", "PGSTEAL_PROACTIVE"),
	EVENTS("pgscan_kswapd", NULL, "{page}", "PGSCAN_KSWAPD"),
	EVENTS("pgscan_direct", NULL, "{page}", "PGSCAN_DIRECT"),
	EVENTS("pgscan_khugepaged", NULL, "{page}", "PGSCAN_KHUGEPAGED"),
	EVENTS("pgscan_proactive", NULL, "{page}", "PGSCAN_PROACTIVE"),
	EVENTS("pgrefill", NULL, "{page}", "PGREFILL"),
	EVENTS("pgpromote_success", NULL, "{page}", "PGPROMOTE_SUCCESS"),
	/*
	 * the sums memory.stat prints; before 6.15 there were no proactive
	 * reclaim counters, and 6.1's memcg kept no khugepaged ones
	 */
	EVENTS("pgscan", NULL, "{page}",
	       "PGSCAN_KSWAPD+PGSCAN_DIRECT+PGSCAN_KHUGEPAGED+PGSCAN_PROACTIVE",
	       "PGSCAN_KSWAPD+PGSCAN_DIRECT+PGSCAN_KHUGEPAGED", "PGSCAN_KSWAPD+PGSCAN_DIRECT"),
	EVENTS("pgsteal", NULL, "{page}",
	       "PGSTEAL_KSWAPD+PGSTEAL_DIRECT+PGSTEAL_KHUGEPAGED+PGSTEAL_PROACTIVE",
	       "PGSTEAL_KSWAPD+PGSTEAL_DIRECT+PGSTEAL_KHUGEPAGED", "PGSTEAL_KSWAPD+PGSTEAL_DIRECT"),
	EVENTS("pswpin", NULL, "{page}", "PSWPIN"),
	EVENTS("pswpout", NULL, "{page}", "PSWPOUT"),
	EVENTS("pgfault", "pgfault", "{fault}", "PGFAULT"),
	EVENTS("pgmajfault", "pgmajfault", "{fault}", "PGMAJFAULT"),
	EVENTS("pgactivate", NULL, "{page}", "PGACTIVATE"),
	EVENTS("pgdeactivate", NULL, "{page}", "PGDEACTIVATE"),
	EVENTS("pglazyfree", NULL, "{page}", "PGLAZYFREE"),
	EVENTS("pglazyfreed", NULL, "{page}", "PGLAZYFREED"),
	EVENTS("swpin_zero", NULL, "{page}", "SWPIN_ZERO"),
	EVENTS("swpout_zero", NULL, "{page}", "SWPOUT_ZERO"),
	EVENTS("zswpin", NULL, "{page}", "ZSWPIN"),
	EVENTS("zswpout", NULL, "{page}", "ZSWPOUT"),
	EVENTS("zswpwb", NULL, "{page}", "ZSWPWB"),
	EVENTS("thp_fault_alloc", NULL, "{hugepage}", "THP_FAULT_ALLOC"),
	EVENTS("thp_collapse_alloc", NULL, "{hugepage}", "THP_COLLAPSE_ALLOC"),
	EVENTS("thp_swpout", NULL, "{hugepage}", "THP_SWPOUT"),
	EVENTS("thp_swpout_fallback", NULL, "{hugepage}", "THP_SWPOUT_FALLBACK"),
	EVENTS("numa_pages_migrated", NULL, "{page}", "NUMA_PAGE_MIGRATE"),
	EVENTS("numa_pte_updates", NULL, "{page}", "NUMA_PTE_UPDATES"),
	EVENTS("numa_hint_faults", NULL, "{fault}", "NUMA_HINT_FAULTS"),

	{ .name = "usage", .file = STAT_FILE_USAGE, .unit = STAT_UNIT_BYTES, .type = STAT_GAUGE },

	MEMORY_EVENT("low", "MEMCG_LOW"),
	MEMORY_EVENT("high", "MEMCG_HIGH"),
	MEMORY_EVENT("max", "MEMCG_MAX"),
	MEMORY_EVENT("oom", "MEMCG_OOM"),
	MEMORY_EVENT("oom_kill", "MEMCG_OOM_KILL"),
	MEMORY_EVENT("oom_group_kill", "MEMCG_OOM_GROUP_KILL"),
	MEMORY_EVENT("sock_throttled", "MEMCG_SOCK_THROTTLED"),

	LOCAL_EVENT("low_local", "low", NULL, "MEMCG_LOW"),
	LOCAL_EVENT("high_local", "high", NULL, "MEMCG_HIGH"),
	LOCAL_EVENT("max_local", "max", NULL, "MEMCG_MAX"),
	LOCAL_EVENT("oom_local", "oom", NULL, "MEMCG_OOM"),
	/* v1 counts OOM kills in the victim's cgroup only, as v2's memory.events.local */
	LOCAL_EVENT("oom_kill_local", "oom_kill", "oom_kill", "MEMCG_OOM_KILL"),
	LOCAL_EVENT("oom_group_kill_local", "oom_group_kill", NULL, "MEMCG_OOM_GROUP_KILL"),
	LOCAL_EVENT("sock_throttled_local", "sock_throttled", NULL, "MEMCG_SOCK_THROTTLED"),

	/*
	 * OOM kills of the cgroup's processes, counted by BPF as the kernel
	 * makes them (the bpf backends): also for a cgroup removed right after
	 */
	{ .name = "oom_victims_local", .file = STAT_FILE_OOM_TRACKER, .unit = STAT_UNIT_COUNT, .count_unit = "{process}",
	  .type = STAT_COUNTER, .scope = STAT_SCOPE_LOCAL },

	COUNTER("memory_max", STAT_FILE_MEMORY_MAX, true),
	COUNTER("memory_high", STAT_FILE_MEMORY_HIGH, true),
	COUNTER("memory_low", STAT_FILE_MEMORY_LOW, true),
	COUNTER("memory_min", STAT_FILE_MEMORY_MIN, true),
	COUNTER("memory_peak", STAT_FILE_MEMORY_PEAK, false),
	COUNTER("swap_current", STAT_FILE_SWAP_CURRENT, false),
	COUNTER("swap_max", STAT_FILE_SWAP_MAX, true),
	COUNTER("soft_limit", STAT_FILE_SOFT_LIMIT, true),

	PRESSURE("pressure_some", "some", "PSI_MEM_SOME"),
	PRESSURE("pressure_full", "full", "PSI_MEM_FULL"),

	/* what cAdvisor and the kubelet call the working set */
	{ .name = "working_set", .file = STAT_FILE_DERIVED, .unit = STAT_UNIT_BYTES, .type = STAT_GAUGE,
	  .inputs = { "usage", "inactive_file" } },
};

#define CATALOG_SIZE (ARRAY_SIZE(catalog))
_Static_assert(CATALOG_SIZE <= STAT_SELECTION_MAX, "a selection has room for the whole catalog");

/*
 * The per-node templates: every memory.stat counter of the catalog that is
 * one kernel constant (in each alternative), but the memcg-only ones
 * (memcg_stat_item: MEMCG_*). memory_numa_stat_show() prints,
 * node by node and in memory.stat's order and units, each memory.stat
 * counter whose constant is a node_stat_item on the running kernel; which
 * those are differs between kernels (7.1 made the reclaim counters per
 * node), so the templates are every candidate and the sampler keeps the
 * ones the kernel's memory.numa_stat lists (sampler.c). Cgroup v1's
 * memcg_numa_stat_show() prints pages of LRU lists instead: its
 * hierarchical_anon is both anon lists, and so on (v1_kernel).
 */
static const struct {
	const char *name, *v1_name, *v1_kernel;
} numa_v1[] = {
	{ "anon", "hierarchical_anon", "NR_INACTIVE_ANON+NR_ACTIVE_ANON" },
	{ "file", "hierarchical_file", "NR_INACTIVE_FILE+NR_ACTIVE_FILE" },
	{ "unevictable", "hierarchical_unevictable", "NR_UNEVICTABLE" },
};

static struct stat_def numa_catalog[CATALOG_SIZE];
static size_t numa_catalog_size;
static pthread_once_t numa_catalog_once = PTHREAD_ONCE_INIT;

static bool one_constant_each(const struct stat_def *def)
{
	if (def->file != STAT_FILE_MEMORY_STAT || !def->kernel[0])
		return false;
	for (size_t a = 0; a < STAT_MAX_TERMS && def->kernel[a]; a++)
		if (strchr(def->kernel[a], '+'))
			return false;
	return true;
}

/* Keeps @t's alternatives that may be per node (not MEMCG_*); false when none is left. */
static bool keep_node_alternatives(struct stat_def *t)
{
	size_t n = 0;

	for (size_t a = 0; a < STAT_MAX_TERMS && t->kernel[a]; a++)
		if (strncmp(t->kernel[a], "MEMCG_", 6))
			t->kernel[n++] = t->kernel[a];
	for (size_t a = n; a < STAT_MAX_TERMS; a++)
		t->kernel[a] = NULL;
	return n > 0;
}

static void make_numa_catalog(void)
{
	for (size_t i = 0; i < CATALOG_SIZE; i++) {
		struct stat_def *t;

		if (!one_constant_each(&catalog[i]))
			continue;
		t = &numa_catalog[numa_catalog_size];
		*t = catalog[i];
		if (!keep_node_alternatives(t))
			continue;
		numa_catalog_size++;
		t->file = STAT_FILE_NUMA_STAT;
		t->key = NULL;
		t->v1_name = NULL;
		for (size_t k = 0; k < ARRAY_SIZE(numa_v1); k++) {
			if (strcmp(t->name, numa_v1[k].name))
				continue;
			t->v1_name = numa_v1[k].v1_name;
			t->v1_kernel = numa_v1[k].v1_kernel;
		}
	}
}

static const struct stat_def *numa_templates(size_t *count)
{
	pthread_once(&numa_catalog_once, make_numa_catalog);
	*count = numa_catalog_size;
	return numa_catalog;
}

/* The per-node columns: a node's made when first asked for, kept for the process's life. */
struct node_column {
	struct stat_def def;
	char node[12];
	char column[64];
};

static struct node_column *node_columns[STAT_MAX_NODES];
static pthread_mutex_t node_columns_lock = PTHREAD_MUTEX_INITIALIZER;

static struct node_column *make_node_columns(unsigned int n)
{
	size_t nr;
	const struct stat_def *tmpl = numa_templates(&nr);
	struct node_column *cols = calloc(nr, sizeof(*cols));

	for (size_t i = 0; cols && i < nr; i++) {
		struct node_column *nc = &cols[i];

		nc->def = tmpl[i];
		snprintf(nc->node, sizeof(nc->node), "%u", n);
		snprintf(nc->column, sizeof(nc->column), "numa_%s_N%u", tmpl[i].name, n);
		nc->def.node = nc->node;
		nc->def.node_id = n;
		nc->def.column = nc->column;
	}
	return cols;
}

const struct stat_def *numa_stat_catalog(size_t *count)
{
	return numa_templates(count);
}

const struct stat_def *stat_on_node(const struct stat_def *tmpl, unsigned int node)
{
	size_t nr;
	const struct stat_def *cat = numa_templates(&nr);
	struct node_column *cols;

	if (tmpl < cat || tmpl >= cat + nr || node >= STAT_MAX_NODES)
		return NULL;
	pthread_mutex_lock(&node_columns_lock);
	if (!node_columns[node])
		node_columns[node] = make_node_columns(node);
	cols = node_columns[node];
	pthread_mutex_unlock(&node_columns_lock);
	return cols ? &cols[tmpl - cat].def : NULL;
}

const char *const STAT_DEFAULT_LIST =
	"anon,file,kernel,shmem,file_mapped,file_dirty,slab,sock,"
	"pgfault,pgmajfault,workingset_refault_file,usage,working_set,memory_max,memory_high,memory_peak,"
	"swap_current,pressure_some,pressure_full,oom_local,oom_kill_local,oom_kill,oom_victims_local";

static const struct {
	const char *v2, *v1;
	enum stat_format format;
} files[NR_STAT_FILES] = {
	[STAT_FILE_MEMORY_STAT] = { "memory.stat", "memory.stat", STAT_FORMAT_KEYED },
	[STAT_FILE_USAGE] = { "memory.current", "memory.usage_in_bytes", STAT_FORMAT_NUMBER },
	[STAT_FILE_MEMORY_EVENTS] = { "memory.events", NULL, STAT_FORMAT_KEYED },
	[STAT_FILE_MEMORY_EVENTS_LOCAL] = { "memory.events.local", "memory.oom_control", STAT_FORMAT_KEYED },
	[STAT_FILE_MEMORY_MAX] = { "memory.max", "memory.limit_in_bytes", STAT_FORMAT_NUMBER },
	[STAT_FILE_MEMORY_HIGH] = { "memory.high", NULL, STAT_FORMAT_NUMBER },
	[STAT_FILE_MEMORY_LOW] = { "memory.low", NULL, STAT_FORMAT_NUMBER },
	[STAT_FILE_MEMORY_MIN] = { "memory.min", NULL, STAT_FORMAT_NUMBER },
	[STAT_FILE_MEMORY_PEAK] = { "memory.peak", "memory.max_usage_in_bytes", STAT_FORMAT_NUMBER },
	[STAT_FILE_SWAP_CURRENT] = { "memory.swap.current", NULL, STAT_FORMAT_NUMBER },
	[STAT_FILE_SWAP_MAX] = { "memory.swap.max", NULL, STAT_FORMAT_NUMBER },
	[STAT_FILE_SOFT_LIMIT] = { NULL, "memory.soft_limit_in_bytes", STAT_FORMAT_NUMBER },
	[STAT_FILE_PRESSURE] = { "memory.pressure", NULL, STAT_FORMAT_PRESSURE },
	[STAT_FILE_NUMA_STAT] = { "memory.numa_stat", "memory.numa_stat", STAT_FORMAT_NODES },
	[STAT_FILE_OOM_TRACKER] = { NULL, NULL, STAT_FORMAT_NONE },
	[STAT_FILE_DERIVED] = { NULL, NULL, STAT_FORMAT_NONE },
};

const char *stat_file_name(enum stat_file f, int version)
{
	return version == 1 ? files[f].v1 : files[f].v2;
}

enum stat_format stat_file_format(enum stat_file f)
{
	return files[f].format;
}

const char *stat_key(const struct stat_def *def, int version)
{
	if (version == 1)
		return def->v1_name;
	return def->key ? def->key : def->name;
}

bool stat_on_version(const struct stat_def *def, int version)
{
	if (def->file == STAT_FILE_DERIVED) {
		for (size_t i = 0; i < STAT_MAX_INPUTS && def->inputs[i]; i++) {
			const struct stat_def *in = stat_lookup(def->inputs[i]);

			if (!in || !stat_on_version(in, version))
				return false;
		}
		return true;
	}
	if (def->file == STAT_FILE_OOM_TRACKER)
		return true;
	if (!stat_file_name(def->file, version))
		return false;
	return (files[def->file].format != STAT_FORMAT_KEYED && files[def->file].format != STAT_FORMAT_NODES) ||
	       stat_key(def, version);
}

const struct stat_def *stat_catalog(size_t *count)
{
	*count = CATALOG_SIZE;
	return catalog;
}

static const struct stat_def *lookup_in(const struct stat_def *cat, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(cat[i].name, name) == 0)
			return &cat[i];
	return NULL;
}

const struct stat_def *stat_lookup(const char *name)
{
	return lookup_in(catalog, CATALOG_SIZE, name);
}

const struct stat_def *numa_stat_lookup(const char *name)
{
	size_t nr;
	const struct stat_def *cat = numa_templates(&nr);

	return lookup_in(cat, nr, name);
}

/* Levenshtein distance, capped at the 64-byte names the catalog has. */
static unsigned int edit_distance(const char *a, const char *b)
{
	unsigned int row[65], la = strlen(a), lb = strlen(b);

	if (la > 64 || lb > 64)
		return la > lb ? la : lb;
	for (unsigned int j = 0; j <= lb; j++)
		row[j] = j;
	for (unsigned int i = 1; i <= la; i++) {
		unsigned int diag = row[0];

		row[0] = i;
		for (unsigned int j = 1; j <= lb; j++) {
			unsigned int up = row[j];
			unsigned int best = diag + (a[i - 1] != b[j - 1]);

			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			if (up + 1 < best)
				best = up + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

/*
 * Lower is closer: edit distance to the candidate, or to the candidate's
 * prefix of the same length plus one, so that "anonn" finds "anon_thp"
 * before "sock".
 */
static unsigned int closeness(const char *name, const char *candidate)
{
	char prefix[65];
	unsigned int whole = edit_distance(name, candidate), head;

	snprintf(prefix, sizeof(prefix), "%.*s", (int)strlen(name), candidate);
	head = edit_distance(name, prefix) + 1;
	return head < whole ? head : whole;
}

static int suggest_in(const struct stat_def *cat, size_t nr, const char *name, char *buf, size_t len, int max)
{
	int picked[CATALOG_SIZE] = { 0 };
	size_t off = 0;
	int n;

	if (len)
		buf[0] = '\0';
	for (n = 0; n < max && (size_t)n < nr && nr <= CATALOG_SIZE; n++) {
		unsigned int best_score = ~0u;
		size_t best = 0;

		for (size_t i = 0; i < nr; i++) {
			unsigned int score = closeness(name, cat[i].name);

			if (!picked[i] && score < best_score) {
				best_score = score;
				best = i;
			}
		}
		picked[best] = 1;
		if (off < len)
			off += snprintf(buf + off, len - off, "%s%s", n ? ", " : "", cat[best].name);
	}
	return n;
}

int stat_suggest(const char *name, char *buf, size_t len, int max)
{
	return suggest_in(catalog, CATALOG_SIZE, name, buf, len, max);
}

static int add_unique(const struct stat_def *def, const struct stat_def **out, size_t max, size_t *count)
{
	for (size_t i = 0; i < *count; i++)
		if (out[i] == def)
			return 0;
	if (*count >= max)
		return -E2BIG;
	out[(*count)++] = def;
	return 0;
}

/*
 * The errors name the config key and the value as every config error does,
 * or, from the command line, the stat and the way to list them.
 */
static void log_unknown(const struct stat_def *cat, size_t nr, const char *key, const char *name)
{
	const char *what = cat != catalog ? "per-node stat" : "stat";
	char near[256];

	suggest_in(cat, nr, name, near, sizeof(near), 5);
	if (key)
		mb_err("%s \"%s\": unknown %s; nearest valid names: %s", key, name, what, near);
	else
		mb_err("unknown %s '%s'; nearest valid names: %s (see --list-stats)", what, name, near);
}

static void log_too_many(const char *key, const char *name, size_t max)
{
	if (key)
		mb_err("%s \"%s\": more than %zu stats selected", key, name, max);
	else
		mb_err("too many stats selected (at most %zu)", max);
}

/* The default set's stats of @cat, added to @out as "all" adds every one. */
static int add_defaults(const struct stat_def *cat, size_t nr, const struct stat_def **out, size_t max, size_t *count)
{
	const char *p = STAT_DEFAULT_LIST;
	int err = 0;

	while (*p && !err) {
		size_t len = strcspn(p, ",");

		for (size_t i = 0; i < nr; i++)
			if (strlen(cat[i].name) == len && !strncmp(cat[i].name, p, len)) {
				err = add_unique(&cat[i], out, max, count);
				break;
			}
		p += len + (p[len] == ',');
	}
	return err;
}

static int select_in(const struct stat_def *cat, size_t nr, const char *key, const char *name,
		     const struct stat_def **out, size_t max, size_t *count)
{
	const struct stat_def *def;
	int err = 0;

	if (strcasecmp(name, "all") == 0) {
		for (size_t i = 0; i < nr && !err; i++)
			err = add_unique(&cat[i], out, max, count);
	} else if (cat == catalog && strcasecmp(name, "default") == 0) {
		err = add_defaults(cat, nr, out, max, count);
	} else {
		def = lookup_in(cat, nr, name);
		if (!def) {
			log_unknown(cat, nr, key, name);
			return -EINVAL;
		}
		err = add_unique(def, out, max, count);
	}
	if (err)
		log_too_many(key, name, max);
	return err;
}

int stat_select(const char *key, const char *name, const struct stat_def **out, size_t max, size_t *count)
{
	return select_in(catalog, CATALOG_SIZE, key, name, out, max, count);
}

int numa_stat_select(const char *key, const char *name, const struct stat_def **out, size_t max, size_t *count)
{
	size_t nr;
	const struct stat_def *cat = numa_templates(&nr);

	return select_in(cat, nr, key, name, out, max, count);
}

static int parse_list_in(const struct stat_def *cat, size_t nr, const char *list, const char *fallback,
			 const struct stat_def **out, size_t max, size_t *count)
{
	char *copy, *tok, *save = NULL;
	int err = 0;

	*count = 0;
	if (!list || !*list)
		list = fallback;
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ", \t\n", &save); tok && !err; tok = strtok_r(NULL, ", \t\n", &save))
		err = select_in(cat, nr, NULL, tok, out, max, count);
	free(copy);
	return err;
}

int stat_parse_list(const char *list, const struct stat_def **out, size_t max, size_t *count)
{
	return parse_list_in(catalog, CATALOG_SIZE, list, STAT_DEFAULT_LIST, out, max, count);
}

int numa_stat_parse_list(const char *list, const struct stat_def **out, size_t max, size_t *count)
{
	size_t nr;
	const struct stat_def *cat = numa_templates(&nr);

	return parse_list_in(cat, nr, list, "all", out, max, count);
}
