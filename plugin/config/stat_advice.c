// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stats that packaging/dashboard's rules and dashboard read, and the
 * series each leaves empty when a Stat list leaves it out. A rule that
 * reads a new stat belongs here too.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/macros.h"
#include "config/stat_advice.h"

struct rules_input {
	const char *stats[2]; /* either one feeds the series */
	const char *series;
};

static const struct rules_input rules_inputs[] = {
	{ { "working_set" }, "container_memory_working_set_bytes, cgroup:memcg_working_set_over_memory_max:ratio" },
	{ { "usage" }, "container_memory_usage_bytes, cgroup:memcg_usage_over_memory_max:ratio" },
	{ { "anon" }, "container_memory_rss, host:memcg_cgroups:count" },
	{ { "file" }, "container_memory_cache" },
	{ { "file_mapped" }, "container_memory_mapped_file" },
	{ { "kernel" }, "container_memory_kernel_usage" },
	{ { "swap_current" }, "container_memory_swap" },
	{ { "memory_peak" }, "container_memory_max_usage_bytes" },
	{ { "memory_max" }, "container_spec_memory_limit_bytes, the MemcgNearMemoryMax alert" },
	{ { "memory_high" }, "cgroup:memcg_usage_over_memory_high:ratio" },
	{ { "pgfault" }, "container_memory_failures_total{failure_type=\"pgfault\"}" },
	{ { "pgmajfault" }, "container_memory_failures_total{failure_type=\"pgmajfault\"}" },
	{ { "pressure_some" }, "container_pressure_memory_waiting_seconds_total" },
	{ { "pressure_full" }, "container_pressure_memory_stalled_seconds_total" },
	{ { "oom_victims_local", "oom_kill_local" }, "container_oom_events_total, the MemcgOOMKill alert" },
	{ { "oom_kill" }, "the MemcgOOMKillInRemovedCgroup alert" },
	{ { "workingset_refault_file" }, "cgroup:memcg_workingset_refault_file:rate5m" },
};

static bool selected(const struct stat_def *const *stats, size_t nr, const char *name)
{
	for (size_t i = 0; i < nr; i++)
		if (strcmp(stats[i]->name, name) == 0)
			return true;
	return false;
}

/* Whether this cgroup version has any of @in's stats at all. */
static bool on_version(const struct rules_input *in, int version)
{
	for (size_t k = 0; k < ARRAY_SIZE(in->stats) && in->stats[k]; k++) {
		const struct stat_def *def = stat_lookup(in->stats[k]);

		if (def && stat_on_version(def, version))
			return true;
	}
	return false;
}

size_t stat_advice_missing(const struct stat_def *const *stats, size_t nr, int version, char *buf, size_t len)
{
	size_t missing = 0, used = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(rules_inputs); i++) {
		const struct rules_input *in = &rules_inputs[i];

		if (!on_version(in, version) || selected(stats, nr, in->stats[0]) ||
		    (in->stats[1] && selected(stats, nr, in->stats[1])))
			continue;
		if (used < len)
			used += snprintf(buf + used, len - used, "%s%s (%s)", missing ? "; " : "", in->stats[0],
					 in->series);
		missing++;
	}
	return missing;
}
