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

/*
 * What a compressor keeps from one body to the next: zstd's context and
 * deflate's stream, set up at first use and reset for each body (a new one
 * per body costs an allocation of ~1 MiB, page faults and its tables
 * cleared, every interval). Zero-initialised; one thread at a time.
 */
struct compressor {
	void *zstd;    /* ZSTD_CCtx */
	void *deflate; /* z_stream, after deflateInit2 */
};

/* Replaces @out's content with @in compressed by @c. 0 or a negative errno. */
int compress_body(struct compressor *k, enum compression c, const uint8_t *in, size_t len, struct byte_buf *out);
/* Frees what @k keeps; @k is zero after. */
void compressor_free(struct compressor *k);
/* The Content-Encoding value for @c, or NULL for none. */
const char *compression_content_encoding(enum compression c);

#endif
