// SPDX-License-Identifier: GPL-2.0-only
#include "wire/wire_format.h"

#include <errno.h>
#include <stdio.h>

#include "base/name_table.h"

static const char *const format_names[] = {
	[WIRE_REMOTE_WRITE] = "remote_write",
	[WIRE_REMOTE_WRITE_V2] = "remote_write_v2",
	[WIRE_OTLP] = "otlp",
};

static const char *const compression_names[] = {
	[COMPRESSION_DEFAULT] = "default", [COMPRESSION_NONE] = "none", [COMPRESSION_SNAPPY] = "snappy",
	[COMPRESSION_GZIP] = "gzip",       [COMPRESSION_ZSTD] = "zstd",
};

DEFINE_NAME_TABLE(wire_format, enum wire_format, format_names)
DEFINE_NAME_TABLE(compression, enum compression, compression_names)

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
