/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which lines the running kernel prints in memory.stat and memory.numa_stat:
 * the keys of the walk root's two files, read once when a sampler opens.
 * A stat whose line the kernel does not print (zswap without CONFIG_ZSWAP;
 * the reclaim counters per node before Linux 7.1) is left out by every
 * backend alike, so that all of them give the same names as the files.
 */
#ifndef MEMCG_BPF_STAT_PRESENCE_H
#define MEMCG_BPF_STAT_PRESENCE_H

#include <stdbool.h>

#include "sampling/stat_catalog.h"

struct stat_presence;

/*
 * Reads the keys of @dir's memory.stat and memory.numa_stat (cgroup
 * v@version names). A file that cannot be read leaves its stats unknown.
 * 0 or -ENOMEM.
 */
int stat_presence_read(const char *dir, int version, struct stat_presence **out);
/*
 * Whether the kernel prints @def's line (a memory.stat stat, or a per-node
 * template of memory.numa_stat); true for every other stat, and when the
 * file could not be read (nothing to tell by).
 */
bool stat_presence_has(const struct stat_presence *p, const struct stat_def *def);
void stat_presence_free(struct stat_presence *p);

#endif
