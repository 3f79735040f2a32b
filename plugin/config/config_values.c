// SPDX-License-Identifier: GPL-2.0-only
/* One config value checked against its range or form (config/config_values.h). */
#include "config/config_values.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "base/name_table.h"

int cfg_range(const char *key, long value, long min, long max, size_t *out)
{
	if (value < min || value > max) {
		mb_err("%s %ld: must be from %ld to %ld", key, value, min, max);
		return -EINVAL;
	}
	*out = (size_t)value;
	return 0;
}

/* Below this a request cannot even connect; 0.0004 used to become "no timeout" in curl. */
#define MIN_SECONDS 0.1

int cfg_seconds(const char *key, double value, double *out)
{
	if (!(value >= MIN_SECONDS) || value > 3600) {
		mb_err("%s %g: must be from %g to 3600 seconds", key, value, MIN_SECONDS);
		return -EINVAL;
	}
	*out = value;
	return 0;
}

int cfg_path(char **dst, const char *key, const char *value)
{
	char *p;

	if (!value[0]) {
		mb_err("%s \"\": must not be empty", key);
		return -EINVAL;
	}
	p = strdup(value);
	if (!p)
		return -ENOMEM;
	free(*dst);
	*dst = p;
	return 0;
}

/* A directory (SpoolDir, PodLogDir, ContainerLogDir): absolute, so that it does not follow the cwd. */
int cfg_dir(char **dst, const char *key, const char *value)
{
	if (value[0] != '/') {
		mb_err("%s \"%s\": must be an absolute path", key, value);
		return -EINVAL;
	}
	return cfg_path(dst, key, value);
}

int cfg_bool_string(const char *s, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on" }, *const no[] = { "false", "no", "off" };

	if (NAME_PARSE(yes, s) >= 0) {
		*out = true;
		return 0;
	}
	if (NAME_PARSE(no, s) >= 0) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}
