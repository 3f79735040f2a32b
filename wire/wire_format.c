// SPDX-License-Identifier: GPL-2.0-only
#include "wire/wire_format.h"

#include <errno.h>
#include <stdio.h>
#include <strings.h>

#include "base/macros.h"

static const char *const format_names[] = {
	[WIRE_REMOTE_WRITE] = "remote_write",
	[WIRE_REMOTE_WRITE_V2] = "remote_write_v2",
	[WIRE_OTLP] = "otlp",
};

static const char *const compression_names[] = {
	[COMPRESSION_DEFAULT] = "default", [COMPRESSION_NONE] = "none", [COMPRESSION_SNAPPY] = "snappy",
	[COMPRESSION_GZIP] = "gzip",       [COMPRESSION_ZSTD] = "zstd",
};

const char *wire_format_name(enum wire_format f)
{
	return (unsigned)f < ARRAY_SIZE(format_names) ? format_names[f] : "?";
}

int wire_format_parse(const char *s, enum wire_format *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(format_names); i++)
		if (strcasecmp(s, format_names[i]) == 0) {
			*out = (enum wire_format)i;
			return 0;
		}
	return -EINVAL;
}

const char *compression_name(enum compression c)
{
	return (unsigned)c < ARRAY_SIZE(compression_names) ? compression_names[c] : "?";
}

int compression_parse(const char *s, enum compression *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(compression_names); i++)
		if (strcasecmp(s, compression_names[i]) == 0) {
			*out = (enum compression)i;
			return 0;
		}
	return -EINVAL;
}

enum compression compression_effective(enum wire_format f, enum compression c)
{
	if (c != COMPRESSION_DEFAULT)
		return c;
	return f == WIRE_OTLP ? COMPRESSION_GZIP : COMPRESSION_SNAPPY;
}

int compression_check(enum wire_format f, enum compression c, char *why, size_t len)
{
	c = compression_effective(f, c);
	switch (f) {
	case WIRE_REMOTE_WRITE:
		if (c == COMPRESSION_SNAPPY || c == COMPRESSION_ZSTD)
			return 0;
		snprintf(why, len, "remote_write takes snappy (the standard) or zstd (VictoriaMetrics only)");
		return -EINVAL;
	case WIRE_REMOTE_WRITE_V2:
		if (c == COMPRESSION_SNAPPY)
			return 0;
		snprintf(why, len, "remote_write_v2 takes snappy only");
		return -EINVAL;
	case WIRE_OTLP:
		if (c == COMPRESSION_GZIP || c == COMPRESSION_ZSTD || c == COMPRESSION_NONE)
			return 0;
		snprintf(why, len, "otlp takes gzip, zstd or none");
		return -EINVAL;
	}
	return -EINVAL;
}
