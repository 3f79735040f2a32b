/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The catalog of memory-cgroup statistics memcg_bpf can sample, named as in
 * cgroup v2's memory.stat, plus "usage" (memory.current) and the
 * memory.events counters.
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

/* Which cgroupfs file the text backend reads a stat from. */
enum stat_file {
	STAT_FILE_MEMORY_STAT,   /* memory.stat */
	STAT_FILE_USAGE,         /* v2 memory.current, v1 memory.usage_in_bytes */
	STAT_FILE_MEMORY_EVENTS, /* v2 memory.events, v1 memory.oom_control */
};

enum stat_unit {
	STAT_UNIT_BYTES,
	STAT_UNIT_COUNT,
};

enum stat_type {
	STAT_GAUGE,   /* a level that goes up and down */
	STAT_COUNTER, /* monotonic since the cgroup was created */
};

struct stat_def {
	const char *name;                      /* memory.stat name */
	enum stat_file file;
	enum stat_unit unit;
	enum stat_type type;
	const char *kernel[STAT_MAX_TERMS];    /* alternatives, NULL-terminated; none for usage */
	const char *v1_name;                   /* field in v1's memory.stat / oom_control, or NULL */
};

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
 * stat_select() adds the stat @name, or the whole catalog for "all" (in any
 * case), to the *@count catalog pointers in @out, keeping the order in which
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

/* The default selection, as a comma-separated list (documented in README). */
extern const char *const STAT_DEFAULT_LIST;

#endif
