// SPDX-License-Identifier: GPL-2.0-only
#include "series/metric_names.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int metric_name(const struct stat_def *def, char *buf, size_t len)
{
	const char *suffix = "";
	int n;

	if (def->type == STAT_COUNTER && def->unit == STAT_UNIT_MICROSECONDS)
		suffix = "_seconds_total"; /* shipped in seconds: sample_value() */
	else if (def->type == STAT_COUNTER)
		suffix = "_total";
	else if (def->unit == STAT_UNIT_BYTES)
		suffix = "_bytes";
	/* a per-node column: memcg_numa_<stat>..., its node in the label "node" */
	n = snprintf(buf, len, METRIC_NAME_PREFIX "%s%s%s", def->node ? "numa_" : "", def->name, suffix);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return n;
}

const char *metric_unit(const struct stat_def *def)
{
	switch (def->unit) {
	case STAT_UNIT_BYTES:
		return "By";
	case STAT_UNIT_MICROSECONDS:
		return "s"; /* sample_value() */
	case STAT_UNIT_COUNT:
		return def->count_unit ? def->count_unit : "{event}";
	}
	return NULL;
}

static bool name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool label_name_valid(const char *name)
{
	if (!name || !name_start(name[0]))
		return false;
	for (const char *p = name + 1; *p; p++)
		if (!name_start(*p) && !(*p >= '0' && *p <= '9'))
			return false;
	return true;
}

bool label_name_allowed_static(const char *name)
{
	return label_name_valid(name) && strncmp(name, "__", 2) != 0;
}
