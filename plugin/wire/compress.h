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
	enum compression stream; /* of the stream under way */
};

/* Replaces @out's content with @in compressed by @c. 0 or a negative errno. */
int compress_body(struct compressor *k, enum compression c, const uint8_t *in, size_t len, struct byte_buf *out);

/*
 * A body compressed as it is made, a piece at a time, so that the whole
 * of it uncompressed is never in memory: compress_stream_begin(), then
 * compress_stream_add() for each piece, then compress_stream_end(). @out
 * holds the compressed bytes made so far (its room grows with them, not
 * with the input) and @k the rest: zstd its window, deflate its own.
 * gzip's body is compress_body()'s of the pieces joined, to the byte
 * (deflate's output does not depend on how its input is cut). zstd, told
 * @total (the bytes all pieces make), picks the parameters and writes the
 * frame header a whole input gets, but matches within a window of its own
 * rather than within the whole input: its frame differs from
 * compress_body()'s by a few bytes either way (-0.13% to +0.06% of
 * encode-bench's OTLP bodies). COMPRESS_TOTAL_UNKNOWN: zstd's frame then
 * has no content size, and its parameters are those of a large input.
 * gzip, zstd and none; snappy's block format cannot be made so (see
 * wire/snappy_template.h). 0 or a negative errno; after an error, begin
 * again.
 */
#define COMPRESS_TOTAL_UNKNOWN SIZE_MAX
int compress_stream_begin(struct compressor *k, enum compression c, size_t total, struct byte_buf *out);
int compress_stream_add(struct compressor *k, const uint8_t *in, size_t len, struct byte_buf *out);
int compress_stream_end(struct compressor *k, struct byte_buf *out);
/* Frees what @k keeps; @k is zero after. */
void compressor_free(struct compressor *k);
/* The Content-Encoding value for @c, or NULL for none. */
const char *compression_content_encoding(enum compression c);

#endif
