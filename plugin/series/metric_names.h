/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Prometheus-style names for what memcg_bpf ships (documented in README,
 * "Shipping to a central collector"):
 *   a gauge in bytes   memcg_<stat>_bytes     (memcg_anon_bytes, memcg_usage_bytes)
 *   a counter          memcg_<stat>_total     (memcg_pgfault_total, memcg_oom_kill_total)
 *   any other gauge    memcg_<stat>
 * <stat> is the memory.stat name, already [a-z0-9_]. A per-node stat is
 * memcg_numa_<stat>_bytes (or _total) with its node id in the label "node".
 * The plugin's own metrics are memcg_bpf_sender_<what>[_total|_seconds].
 *
 * Label names follow [a-zA-Z_][a-zA-Z0-9_]*; names starting with "__" are
 * reserved to the protocol and refused for static labels.
 */
#ifndef MEMCG_BPF_METRIC_NAMES_H
#define MEMCG_BPF_METRIC_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "sampling/stat_catalog.h"

#define METRIC_NAME_PREFIX "memcg_"
#define METRIC_NAME_MAX 128

/* Writes the name of @def into @buf. Returns its length, or -ENAMETOOLONG. */
int metric_name(const struct stat_def *def, char *buf, size_t len);

/*
 * The unit of @def's values as shipped, in UCUM as OTLP wants it: "By"
 * (bytes), "s" (the microsecond counters, shipped in seconds), or a count's
 * annotation from the catalog ("{page}", "{fault}", "{event}"). A
 * Prometheus-style receiver that appends units to names adds nothing to
 * these names: "bytes" and "seconds" are there already, and an annotation
 * in curly braces is dropped (README, "OTLP").
 */
const char *metric_unit(const struct stat_def *def);

/* true when @name is a valid Prometheus label name. */
bool label_name_valid(const char *name);

/* true when @name may be used for a static Label (valid and not "__"-prefixed). */
bool label_name_allowed_static(const char *name);

#endif
