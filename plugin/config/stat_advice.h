/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a Stat selection leaves empty downstream: the stats that the shipped
 * Prometheus rules and dashboard read (packaging/dashboard), each with the
 * series it feeds, so that the plugin can say at start, once, which series
 * an operator's list leaves without data.
 */
#ifndef MEMCG_BPF_STAT_ADVICE_H
#define MEMCG_BPF_STAT_ADVICE_H

#include <stddef.h>

#include "sampling/stat_catalog.h"

/*
 * Writes into @buf (NUL-terminated, cut at @len) the series that the @nr
 * @stats leave empty on cgroup @version, as "stat (series, ...); ...", and
 * returns how many of the rules' input stats are missing (0: nothing to
 * say). A stat that this cgroup version lacks altogether is not counted.
 */
size_t stat_advice_missing(const struct stat_def *const *stats, size_t nr, int version, char *buf, size_t len);

#endif
