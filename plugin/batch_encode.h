/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A series set cut into requests and encoded for the wire: at most
 * max_samples samples and about max_bytes bytes of protobuf (before
 * compression) per request, each request packed by protobuf-c into a reused
 * buffer and compressed. One file per format: remote_write.c,
 * remote_write_v2.c, otlp.c.
 */
#ifndef MEMCG_BPF_BATCH_ENCODE_H
#define MEMCG_BPF_BATCH_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "compress.h"
#include "sender_config.h"
#include "series_set.h"

struct payload {
	enum wire_format format;
	enum compression compression;
	uint8_t *body;       /* compressed */
	size_t len;
	size_t raw_len;      /* protobuf bytes before compression */
	size_t nr_samples;   /* series items in the request (stale markers included) */
};

struct payload_list {
	struct payload *p;
	size_t n, cap;
	struct byte_buf raw; /* protobuf before compression, reused by every request */
};

struct batch_limits {
	size_t max_samples;
	size_t max_bytes;
};

/* Encodes @set as requests appended to @out. 0 or a negative errno. */
int batch_encode(const struct series_set *set, enum wire_format f, enum compression c,
		 const struct batch_limits *lim, struct payload_list *out);
void payload_list_clear(struct payload_list *l);
void payload_list_free(struct payload_list *l);

/* Per format: encode items [from, to) into @raw (protobuf). */
int remote_write_encode(const struct series_set *set, size_t from, size_t to, struct byte_buf *raw);
int remote_write_v2_encode(const struct series_set *set, size_t from, size_t to, struct byte_buf *raw);
int otlp_encode(const struct series_set *set, size_t from, size_t to, struct byte_buf *raw);
/* Protobuf bytes one item adds to a request of that format (an estimate for splitting). */
size_t batch_item_size(const struct series_set *set, size_t i, enum wire_format f);

#endif
