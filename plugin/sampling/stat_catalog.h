/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The catalog of memory-cgroup statistics memcg_bpf can sample, named as in
 * cgroup v2's memory.stat, plus "usage" (memory.current), the memory.events
 * and memory.events.local counters ("_local"), the limits and peak
 * (memory.max as "memory_max", ...), memory.pressure's totals and the
 * derived working set.
 *
 * A stat names the kernel enum constants it is read from: alternatives tried
 * in order, each one constant or a '+'-joined sum ("slab", "pgscan" and
 * "pgsteal" are sums in memory.stat too). Which kfunc reads a constant is decided
 * at run time from the enum that holds it in the running kernel's BTF:
 * node_stat_item and memcg_stat_item are page state, vm_event_item are VM
 * events, memcg_memory_event are memory events. Kernels move constants
 * between enums (7.x moved PGSCAN_* and PGSTEAL_* into node_stat_item).
 */
#ifndef MEMCG_BPF_STAT_CATALOG_H
#define MEMCG_BPF_STAT_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#define STAT_MAX_TERMS 4

/*
 * Which cgroupfs file holds a stat (the text backend reads it; the bpf
 * backend reads what the kernel prints there). The v1 file, where there is
 * one, is in stat_file_name().
 */
enum stat_file {
	STAT_FILE_MEMORY_STAT,         /* memory.stat (v1: its total_* lines) */
	STAT_FILE_USAGE,               /* memory.current, v1 memory.usage_in_bytes */
	STAT_FILE_MEMORY_EVENTS,       /* memory.events; no v1 file counts a subtree's events */
	STAT_FILE_MEMORY_EVENTS_LOCAL, /* memory.events.local, v1 memory.oom_control */
	STAT_FILE_MEMORY_MAX,          /* memory.max, v1 memory.limit_in_bytes */
	STAT_FILE_MEMORY_HIGH,         /* memory.high */
	STAT_FILE_MEMORY_LOW,          /* memory.low */
	STAT_FILE_MEMORY_MIN,          /* memory.min */
	STAT_FILE_MEMORY_PEAK,         /* memory.peak, v1 memory.max_usage_in_bytes */
	STAT_FILE_SWAP_CURRENT,        /* memory.swap.current */
	STAT_FILE_SWAP_MAX,            /* memory.swap.max */
	STAT_FILE_SOFT_LIMIT,          /* v1 only: memory.soft_limit_in_bytes */
	STAT_FILE_PRESSURE,            /* memory.pressure (PSI) */
	STAT_FILE_NUMA_STAT,           /* memory.numa_stat: one value per NUMA node (v1: its hierarchical_* lines) */
	STAT_FILE_OOM_TRACKER,         /* no file: counted by the BPF OOM tracker (sampling/oom_tracker.h) */
	STAT_FILE_DERIVED,             /* computed from other stats (stat_def.inputs) */
	NR_STAT_FILES,
};

/* How a file is written. */
enum stat_format {
	STAT_FORMAT_KEYED,    /* "key value" lines */
	STAT_FORMAT_NUMBER,   /* one number, or "max" for no limit */
	STAT_FORMAT_PRESSURE, /* "some avg10=... total=N" and "full ..." lines */
	STAT_FORMAT_NODES,    /* "key N0=v N1=v" lines (v1: "key=sum N0=v N1=v", in pages) */
	STAT_FORMAT_NONE,     /* no file: derived, or counted by the OOM tracker */
};

/* The file of @f under cgroup v@version (1 or 2), or NULL when that version has none. */
const char *stat_file_name(enum stat_file f, int version);
enum stat_format stat_file_format(enum stat_file f);

enum stat_unit {
	STAT_UNIT_BYTES,
	STAT_UNIT_COUNT,
	STAT_UNIT_MICROSECONDS, /* sampled in µs as the kernel prints them, shipped in seconds */
};

enum stat_type {
	STAT_GAUGE,   /* a level that goes up and down */
	STAT_COUNTER, /* monotonic since the cgroup was created */
};

/*
 * What a value covers. Names ending in "_local" are the LOCAL ones; every
 * other stat covers the cgroup and its whole subtree.
 */
enum stat_scope {
	STAT_SCOPE_SUBTREE, /* the cgroup and all its descendants */
	STAT_SCOPE_LOCAL,   /* the cgroup alone */
};

#define STAT_MAX_INPUTS 2

struct stat_def {
	const char *name;                      /* memory.stat name, or the file's name with '_' */
	enum stat_file file;
	enum stat_unit unit;
	const char *count_unit;                /* STAT_UNIT_COUNT: what one is, as a UCUM annotation
					* ("{page}", "{fault}", "{event}"): OTLP's unit */
	enum stat_type type;
	enum stat_scope scope;
	bool limit;                            /* "max" (the page counter's maximum) means no limit */
	const char *key;                       /* its key in a keyed v2 file; NULL: name */
	const char *kernel[STAT_MAX_TERMS];    /* alternatives, NULL-terminated; none for counters */
	const char *v1_name;                   /* key in a keyed v1 file, or NULL */
	const char *inputs[STAT_MAX_INPUTS];   /* derived: the stats it is computed from */
	/* per-node stats (memory.numa_stat): */
	const char *v1_kernel;                 /* cgroup v1: the constants its v1 line sums ('+'-joined) */
	const char *node;                      /* a per-node column: its node id in decimal; NULL otherwise */
	unsigned int node_id;
	const char *column;                    /* a per-node column: "numa_<name>_N<node>"; NULL: name */
};

/* What names @def's column in a table, collectd's type instance and data source: column or name. */
static inline const char *stat_column_name(const struct stat_def *def)
{
	return def->column ? def->column : def->name;
}

/* The key of @def in its (keyed) file under cgroup v@version, or NULL when v1 lacks it. */
const char *stat_key(const struct stat_def *def, int version);

/* Whether cgroup v@version has @def at all (its file, and for keyed files its key). */
bool stat_on_version(const struct stat_def *def, int version);

/*
 * Room for every stat of the catalog, or every per-node template, in one
 * selection (more than the catalog holds: a static assert checks it).
 */
#define STAT_SELECTION_MAX 192

/* The whole catalog, in memory.stat order. */
const struct stat_def *stat_catalog(size_t *count);

/* The entry named @name, or NULL. */
const struct stat_def *stat_lookup(const char *name);

/*
 * Writes up to @max catalog names closest to @name (edit distance, then
 * common prefix) into @buf as "a, b, c". Returns the number written.
 */
int stat_suggest(const char *name, char *buf, size_t len, int max);

/*
 * The one parser of stat selections, for the config's Stat values and the
 * CLI's --stats list alike.
 *
 * stat_select() adds the stat @name, the whole catalog for "all" or the
 * default set (STAT_DEFAULT_LIST) for "default" (either in any case), to the
 * *@count catalog pointers in @out, keeping the order in which
 * they were first named and dropping duplicates. An unknown name fails with
 * -EINVAL after one error naming it and the nearest valid names; more than
 * @max stats fails with -E2BIG after one error. @key is the config key the
 * name came from, named in the error as in every config error; NULL when
 * the name came from the command line.
 */
int stat_select(const char *key, const char *name, const struct stat_def **out, size_t max, size_t *count);

/*
 * Parses a comma/space separated list of stat names into @out, from an
 * empty selection, each name through stat_select() (without a key). NULL or
 * "" selects the default set.
 */
int stat_parse_list(const char *list, const struct stat_def **out, size_t max, size_t *count);

/*
 * Per-node stats: the node-level stats of memory.numa_stat (cgroup v2's
 * names; v1 has anon, file and unevictable, from its hierarchical_ lines),
 * each a template that stat_on_node() makes one column per node of. Not
 * in the catalog above: "all" there does not select them.
 */
#define STAT_MAX_NODES 64

const struct stat_def *numa_stat_catalog(size_t *count);
/* The per-node template named @name, or NULL. */
const struct stat_def *numa_stat_lookup(const char *name);
/*
 * The column of template @tmpl on node @node: the same stat_def for the
 * process's life (pointers compare); NULL when @node >= STAT_MAX_NODES
 * or @tmpl is not a template.
 */
const struct stat_def *stat_on_node(const struct stat_def *tmpl, unsigned int node);
/* As stat_select(), over the per-node templates ("all": every one). */
int numa_stat_select(const char *key, const char *name, const struct stat_def **out, size_t max, size_t *count);
/* As stat_parse_list(), over the per-node templates; NULL or "" selects them all. */
int numa_stat_parse_list(const char *list, const struct stat_def **out, size_t max, size_t *count);

/* The default selection, as a comma-separated list (documented in README). */
extern const char *const STAT_DEFAULT_LIST;

#endif
