// SPDX-License-Identifier: GPL-2.0-only
#include "wire/compress.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#define ZSTD_LEVEL 3

static int gzip_body(struct compressor *k, const uint8_t *in, size_t len, struct byte_buf *out)
{
	z_stream *z = k->deflate;
	int err;

	if (!z) {
		z = calloc(1, sizeof(*z));
		if (!z)
			return -ENOMEM;
		/* windowBits 15 + 16: a gzip header and trailer */
		if (deflateInit2(z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			free(z);
			return -ENOMEM;
		}
		k->deflate = z;
	} else if (deflateReset(z) != Z_OK) {
		return -EIO;
	}
	err = byte_buf_reserve(out, deflateBound(z, len) + 32);
	if (err)
		return err;
	z->next_in = (Bytef *)in;
	z->avail_in = (uInt)len;
	z->next_out = out->data;
	z->avail_out = (uInt)out->cap;
	if (deflate(z, Z_FINISH) != Z_STREAM_END)
		return -EIO;
	out->len = z->total_out;
	return 0;
}

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
	case COMPRESSION_GZIP:
		return gzip_body(k, in, len, out);
	case COMPRESSION_ZSTD:
		return zstd_body(k, in, len, out);
	case COMPRESSION_NONE:
		err = byte_buf_reserve(out, len ? len : 1);
		if (err)
			return err;
		memcpy(out->data, in, len);
		out->len = len;
		return 0;
	case COMPRESSION_DEFAULT:
		break;
	}
	return -EINVAL;
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
