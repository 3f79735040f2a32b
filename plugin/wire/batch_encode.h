/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A series set cut into requests and encoded for the wire: at most
 * max_samples samples and about max_bytes bytes of protobuf (before
 * compression) per request, each request encoded into one reused buffer
 * (wire/encoders.h, written by hand) and compressed (wire/compress.h) into
 * a payload of its own.
 *
 * A payload list kept from one interval to the next keeps the series' label
 * bytes too (wire/label_cache.h): each call encodes the labels of new series
 * only, and forgets the series it did not encode. And while one set per
 * call keeps its shape (series/series_set.h), it keeps remote write's
 * requests themselves and writes only the new samples into them
 * (wire/request_patch.h). OTLP keeps no request: each is encoded anew
 * and compressed as it is encoded, a piece at a time (wire/compress.h's
 * stream), so that neither it nor any interval's protobuf is in memory
 * whole.
 */
#ifndef MEMCG_BPF_BATCH_ENCODE_H
#define MEMCG_BPF_BATCH_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/byte_buf.h"
#include "series/series_set.h"
#include "wire/compress.h"
#include "wire/encoders.h"
#include "wire/label_cache.h"
#include "wire/request_patch.h"
#include "wire/wire_format.h"

struct payload {
	enum wire_format format;
	enum compression compression;
	const uint8_t *body; /* compressed; the list's, valid until it is cleared */
	size_t len;
	size_t raw_len;      /* protobuf bytes before compression */
	size_t nr_samples;   /* series items in the request (stale markers included) */
};

/* A request joined from kept requests of several intervals (batch_join). */
struct joined {
	size_t samples, raw_len;
	bool snappy; /* the list's joined buffer holds snappy elements; else protobuf */
	bool stream; /* OTLP: the request is a compression stream under way, into the next payload's body */
};

struct payload_list {
	struct payload *p;
	size_t n, cap;
	/*
	 * bodies[i] holds request i's compressed bytes, kept with their room
	 * across calls: an interval allocates, faults in and frees no body
	 * (a kept remote write + snappy block is sent from where it lies).
	 */
	struct byte_buf *bodies;
	size_t nr_bodies;
	struct byte_buf raw; /* protobuf before compression, reused by every request; freed after a call that keeps requests */
	struct byte_buf joined; /* a request of several intervals, joined from raw */
	struct joined join;     /* what batch_join() has gathered in @joined */
	struct label_cache *cache; /* the series' label bytes, kept across calls (wire/label_cache.h) */
	struct kept_requests kept; /* the last pass's requests, while the set keeps its shape */
	struct compressor compressor; /* zstd's and deflate's state, kept across calls */
	struct otlp_work otlp;        /* OTLP's piece and per-item arrays, kept across calls */
	uint64_t compress_cpu_ns; /* CPU time spent compressing, added up over every call */
};

/* Per request; 0 takes the default. */
#define BATCH_DEFAULT_MAX_SAMPLES 50000
#define BATCH_DEFAULT_MAX_BYTES (8u << 20)

struct batch_limits {
	size_t max_samples;
	size_t max_bytes; /* protobuf before compression */
};

/* Encodes @set as requests appended to @out. 0 or a negative errno. */
int batch_encode(const struct series_set *set, enum wire_format f, enum compression c,
		 const struct batch_limits *lim, struct payload_list *out);
/*
 * The same for several intervals (oldest first) that wait together: their
 * items are packed into as few requests as the limits allow, so that a
 * collector slower than the interval is sent fewer, larger requests instead
 * of falling behind. Remote write 2.0 joins no intervals (its symbol table
 * is per request): each set is encoded on its own.
 */
int batch_encode_sets(const struct series_set *const *sets, size_t nr_sets, enum wire_format f,
		      enum compression c, const struct batch_limits *lim, struct payload_list *out);
/*
 * The steady state for intervals that wait together (a collector that fell
 * behind), one interval at a time, so that each is built into the same
 * series set and keeps its shape: batch_join() patches the kept requests
 * with @set's samples and appends their bytes to requests joined up to the
 * limits (remote write 1.0's snappy blocks by their elements: a copy
 * counts its offset back from where it lies, so elements of blocks one
 * after another decompress to their protobufs one after another). No
 * labels are looked up and no block is compressed again: catching up
 * costs what the intervals cost alone. OTLP, which keeps no requests,
 * encodes @set anew (any set) and streams it into the joined request's
 * compression. -ESTALE, with nothing done, when @set is not of the kept
 * shape, or for remote write 2.0 (a symbol table per request): encode it
 * with batch_encode_sets() after batch_join_flush(). batch_join_flush()
 * ends the request under way as a payload of @out.
 */
int batch_join(const struct series_set *set, enum wire_format f, enum compression c,
	       const struct batch_limits *lim, struct payload_list *out);
int batch_join_flush(enum wire_format f, enum compression c, struct payload_list *out);
/* Empties @l; what it keeps (bodies' room, label cache, kept requests) stays. */
void payload_list_clear(struct payload_list *l);
void payload_list_free(struct payload_list *l);

#endif
