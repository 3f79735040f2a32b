// SPDX-License-Identifier: GPL-2.0-only
#include "base/name_table.h"

#include <errno.h>
#include <limits.h>
#include <strings.h>

const char *name_of(const char *const *names, size_t n, int value)
{
	if (value < 0 || (size_t)value >= n || !names[value])
		return "?";
	return names[value];
}

int name_parse(const char *const *names, size_t n, const char *s)
{
	if (!s || n > INT_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (names[i] && strcasecmp(s, names[i]) == 0)
			return (int)i;
	return -EINVAL;
}
