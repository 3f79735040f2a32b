// SPDX-License-Identifier: GPL-2.0-only
#include "wire/compress.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#define ZSTD_LEVEL 3
/*
 * zstd copies a stream's input into its window with memcpy(); given at
 * most this much at a time, glibc copies with vector moves instead of rep
 * movsb (its threshold: 4 KiB with AVX2), which qemu's TCG, where make
 * bench runs, executes a byte at a time: 6.1 instead of 9.3-10.3 ms of
 * compression per interval at 1,000 cgroups there. Natively the two
 * measure the same (encode-bench: 1.5-2.0 ms either way).
 */
#define ZSTD_IN_STEP 4032
/* The room deflate is given at a time: its output grows by at least this much when full. */
#define DEFLATE_OUT_ROOM (64 * 1024)

/* Room for @room more bytes after @out's content; grows by half again at least, so a body grows in few steps. */
static int reserve_more(struct byte_buf *out, size_t room)
{
	size_t want = out->len + room, grown = out->cap + out->cap / 2;

	if (out->cap >= want)
		return 0;
	return byte_buf_reserve(out, want > grown ? want : grown);
}

/* Deflate's stream, made at first use (windowBits 15 + 16: a gzip header and trailer) or reset. */
static int deflate_begin(struct compressor *k)
{
	z_stream *z = k->deflate;

	if (z)
		return deflateReset(z) == Z_OK ? 0 : -EIO;
	z = calloc(1, sizeof(*z));
	if (!z)
		return -ENOMEM;
	if (deflateInit2(z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(z);
		return -ENOMEM;
	}
	k->deflate = z;
	return 0;
}

/* Gives deflate all of @in; with Z_FINISH, until the stream has ended. Its output goes after @out's. */
static int deflate_run(z_stream *z, const uint8_t *in, size_t len, int flush, struct byte_buf *out)
{
	if (len > UINT_MAX)
		return -E2BIG;
	z->next_in = (Bytef *)in;
	z->avail_in = (uInt)len;
	for (;;) {
		int rc, err = reserve_more(out, DEFLATE_OUT_ROOM);

		if (err)
			return err;
		z->next_out = out->data + out->len;
		z->avail_out = (uInt)(out->cap - out->len > UINT_MAX ? UINT_MAX : out->cap - out->len);
		rc = deflate(z, flush);
		out->len = (size_t)(z->next_out - out->data);
		if (rc == Z_STREAM_END)
			return 0;
		if (rc != Z_OK && rc != Z_BUF_ERROR)
			return -EIO;
		if (flush == Z_NO_FLUSH && !z->avail_in && z->avail_out)
			return 0;
	}
}

/* zstd's context, made at first use or reset, at ZSTD_LEVEL; @total pledged when known. */
static int zstd_begin(struct compressor *k, size_t total)
{
	if (!k->zstd && !(k->zstd = ZSTD_createCCtx()))
		return -ENOMEM;
	ZSTD_CCtx_reset(k->zstd, ZSTD_reset_session_and_parameters);
	if (ZSTD_isError(ZSTD_CCtx_setParameter(k->zstd, ZSTD_c_compressionLevel, ZSTD_LEVEL)))
		return -EIO;
	if (total != COMPRESS_TOTAL_UNKNOWN && ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(k->zstd, total)))
		return -EIO;
	return 0;
}

/* Gives zstd all of @in; with ZSTD_e_end, until the frame has ended. Its output goes after @out's. */
static int zstd_run(ZSTD_CCtx *z, const uint8_t *in, size_t len, ZSTD_EndDirective end, struct byte_buf *out)
{
	ZSTD_inBuffer i = { in, len < ZSTD_IN_STEP ? len : ZSTD_IN_STEP, 0 };

	for (;;) {
		int err = reserve_more(out, ZSTD_CStreamOutSize());
		ZSTD_outBuffer o;
		size_t left;

		if (err)
			return err;
		o = (ZSTD_outBuffer){ out->data, out->cap, out->len };
		left = ZSTD_compressStream2(z, &o, &i, end);
		out->len = o.pos;
		if (ZSTD_isError(left))
			return ZSTD_getErrorCode(left) == ZSTD_error_srcSize_wrong ? -EFAULT : -EIO;
		if (i.pos == i.size && i.size < len)
			i.size = len - i.size < ZSTD_IN_STEP ? len : i.size + ZSTD_IN_STEP;
		else if (end == ZSTD_e_end ? !left : i.pos == i.size)
			return 0;
	}
}

/* One-shot: the input is in memory already, so zstd reads it where it lies (no window of its own). */
static int zstd_body(struct compressor *k, const uint8_t *in, size_t len, struct byte_buf *out)
{
	size_t n;
	int err;

	if (!k->zstd && !(k->zstd = ZSTD_createCCtx()))
		return -ENOMEM;
	err = byte_buf_reserve(out, ZSTD_compressBound(len));
	if (err)
		return err;
	/* the same parameters as ZSTD_compress(); the context's tables are reused */
	n = ZSTD_compressCCtx(k->zstd, out->data, out->cap, in, len, ZSTD_LEVEL);
	if (ZSTD_isError(n))
		return -EIO;
	out->len = n;
	return 0;
}

static int snappy_body(const uint8_t *in, size_t len, struct byte_buf *out)
{
	size_t n = snappy_max_compressed_length(len);
	int err = byte_buf_reserve(out, n);

	if (err)
		return err;
	if (snappy_compress((const char *)in, len, (char *)out->data, &n) != SNAPPY_OK)
		return -EIO;
	out->len = n;
	return 0;
}

int compress_body(struct compressor *k, enum compression c, const uint8_t *in, size_t len, struct byte_buf *out)
{
	int err;

	switch (c) {
	case COMPRESSION_SNAPPY:
		return snappy_body(in, len, out);
	case COMPRESSION_ZSTD:
		return zstd_body(k, in, len, out);
	case COMPRESSION_GZIP:
	case COMPRESSION_NONE:
		err = compress_stream_begin(k, c, len, out);
		if (!err)
			err = compress_stream_add(k, in, len, out);
		return err ? err : compress_stream_end(k, out);
	case COMPRESSION_DEFAULT:
		break;
	}
	return -EINVAL;
}

int compress_stream_begin(struct compressor *k, enum compression c, size_t total, struct byte_buf *out)
{
	int err = -EINVAL;

	out->len = 0;
	k->stream = COMPRESSION_DEFAULT; /* none under way until this one has begun */
	if (c == COMPRESSION_GZIP)
		err = deflate_begin(k);
	else if (c == COMPRESSION_ZSTD)
		err = zstd_begin(k, total);
	else if (c == COMPRESSION_NONE)
		err = byte_buf_reserve(out, total != COMPRESS_TOTAL_UNKNOWN && total ? total : 1);
	if (!err)
		k->stream = c;
	return err;
}

int compress_stream_add(struct compressor *k, const uint8_t *in, size_t len, struct byte_buf *out)
{
	int err;

	switch (k->stream) {
	case COMPRESSION_GZIP:
		return deflate_run(k->deflate, in, len, Z_NO_FLUSH, out);
	case COMPRESSION_ZSTD:
		return zstd_run(k->zstd, in, len, ZSTD_e_continue, out);
	case COMPRESSION_NONE:
		err = reserve_more(out, len);
		if (err)
			return err;
		memcpy(out->data + out->len, in, len);
		out->len += len;
		return 0;
	default:
		return -EINVAL;
	}
}

int compress_stream_end(struct compressor *k, struct byte_buf *out)
{
	enum compression c = k->stream;

	k->stream = COMPRESSION_DEFAULT;
	switch (c) {
	case COMPRESSION_GZIP:
		return deflate_run(k->deflate, NULL, 0, Z_FINISH, out);
	case COMPRESSION_ZSTD:
		return zstd_run(k->zstd, NULL, 0, ZSTD_e_end, out);
	case COMPRESSION_NONE:
		return 0;
	default:
		return -EINVAL;
	}
}

void compressor_free(struct compressor *k)
{
	if (k->deflate) {
		deflateEnd(k->deflate);
		free(k->deflate);
	}
	ZSTD_freeCCtx(k->zstd); /* takes NULL */
	k->deflate = k->zstd = NULL;
}

const char *compression_content_encoding(enum compression c)
{
	switch (c) {
	case COMPRESSION_SNAPPY:
		return "snappy";
	case COMPRESSION_GZIP:
		return "gzip";
	case COMPRESSION_ZSTD:
		return "zstd";
	default:
		return NULL;
	}
}
