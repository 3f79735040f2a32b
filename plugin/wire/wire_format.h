/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The wire formats and body compressions, by value and by config name
 * (Format, Compression), and which compression goes with which format.
 * Plain data: no protobuf-c or compression library here, so the config
 * parser builds without them.
 */
#ifndef MEMCG_BPF_WIRE_FORMAT_H
#define MEMCG_BPF_WIRE_FORMAT_H

#include <stddef.h>

enum wire_format {
	WIRE_REMOTE_WRITE,    /* Prometheus remote write 1.0 */
	WIRE_REMOTE_WRITE_V2, /* Prometheus remote write 2.0, falls back to 1.0 */
	WIRE_OTLP,            /* OTLP/HTTP protobuf metrics */
};

enum compression {
	COMPRESSION_DEFAULT, /* snappy for remote write, gzip for OTLP */
	COMPRESSION_NONE,    /* OTLP only */
	COMPRESSION_SNAPPY,  /* snappy block format; remote write only */
	COMPRESSION_GZIP,    /* OTLP only */
	COMPRESSION_ZSTD,    /* OTLP; remote write 1.0 only towards VictoriaMetrics */
};

const char *wire_format_name(enum wire_format f);
int wire_format_parse(const char *s, enum wire_format *out);
const char *compression_name(enum compression c);
int compression_parse(const char *s, enum compression *out);
/* The compression actually used for @f when @c is COMPRESSION_DEFAULT. */
enum compression compression_effective(enum wire_format f, enum compression c);
/* 0, or -EINVAL with a reason in @why when @c cannot go with @f. */
int compression_check(enum wire_format f, enum compression c, char *why, size_t len);

#endif
