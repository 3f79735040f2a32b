/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Body compression: snappy block format (remote write; not the framed
 * format), gzip (RFC 1952) and zstd frames (OTLP), or none.
 */
#ifndef MEMCG_BPF_COMPRESS_H
#define MEMCG_BPF_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "base/byte_buf.h"
#include "wire/wire_format.h"

/* Replaces @out's content with @in compressed by @c. 0 or a negative errno. */
int compress_body(enum compression c, const uint8_t *in, size_t len, struct byte_buf *out);
/* The Content-Encoding value for @c, or NULL for none. */
const char *compression_content_encoding(enum compression c);

#endif
