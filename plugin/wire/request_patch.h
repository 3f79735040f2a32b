/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The steady state of remote write's encoders: the requests of the last
 * pass, kept with where each sample's value and timestamp lie in their
 * protobuf (OTLP keeps none: wire/otlp.c streams each interval's). While
 * a series set keeps its shape (series/series_set.h: the same label sets in
 * the same order), the next interval's requests are these bytes with new
 * values and a new timestamp written in place: no labels looked up, no
 * sizes computed, nothing copied but the samples.
 *
 * A request can be patched while its layout stays. Remote write leaves out
 * a value of 0 (proto3): a value that becomes 0 is written as 0 where the
 * request has room for it (an explicit default, which every protobuf
 * reader takes as the same message), but a value that stops being 0 where
 * the request left it out, and a timestamp whose varint grows, change the
 * bytes' length: that request is encoded again (batch_encode.c) and kept
 * anew. A series thus costs at most one such encoding while the shape
 * holds.
 */
#ifndef MEMCG_BPF_REQUEST_PATCH_H
#define MEMCG_BPF_REQUEST_PATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/byte_buf.h"
#include "series/series_set.h"
#include "wire/sample_slot.h"
#include "wire/snappy_template.h"
#include "wire/wire_format.h"


/* Where a kept block takes which bytes of which sample: one literal run of it (@direct). */
struct block_patch {
	uint32_t z_at;   /* the run's first byte in the block */
	uint32_t slot;   /* the sample: the request's item from + slot */
	uint8_t len;     /* bytes of the run, all within one field */
	uint8_t field;   /* RUN_VALUE or RUN_TS */
	uint8_t off;     /* the run's first byte within the field */
};

#define RUN_VALUE 0
#define RUN_TS 1

struct kept_request {
	size_t from, to;          /* the set's items it holds */
	size_t raw_len;           /* its protobuf's length, before compression */
	struct byte_buf raw;      /* that protobuf; none while @direct (the block is patched instead) */
	struct sample_slot *slots; /* to - from, where each sample lies in @raw; none while @direct */
	uint64_t *room;           /* bit k: sample k has room for a value (one spare word) */
	int64_t ts_ms;            /* the timestamp written now */
	bool has_block;           /* remote write + snappy: @block is kept too */
	struct snappy_template block;
	/*
	 * Each run of @block lies within one sample's value or timestamp
	 * (@patch, one per run): the samples are written into the block
	 * directly, which touches a tenth of the memory (the block, not the
	 * protobuf it decompresses to). Neither @raw nor where the samples lie
	 * in it is kept, nor the block's own runs: 12 bytes a run, about two
	 * a sample, and @room say all that a patch needs.
	 */
	bool direct;
	struct block_patch *patch;
	size_t nr_patch;
};

/* Whether sample @k of @r has room for a value (its value was written). */
static inline bool kept_request_has_room(const struct kept_request *r, size_t k)
{
	return r->room[k / 64] >> (k % 64) & 1;
}

struct kept_requests {
	uint64_t shape; /* of the set they were encoded from; 0: none kept */
	enum wire_format format;
	enum compression compression;
	size_t max_samples, max_bytes;
	struct kept_request *req;
	size_t nr, cap;
	bool recording; /* the pass under way keeps its requests */
};

/* Drops every request; @k is empty (shape 0) after. */
void kept_requests_clear(struct kept_requests *k);
/*
 * Keeps the protobuf @raw for items [@from, @to) of a set at @ts_ms, as
 * request @at (appended when it is @k->nr); takes @slots. For remote write
 * with snappy, keeps its compressed block instead where one can be patched
 * directly (wire/snappy_template.h). The request takes @raw's buffer as it
 * lies, and @raw gets the one it held before (empty). 0 or -ENOMEM.
 */
int kept_requests_put(struct kept_requests *k, size_t at, size_t from, size_t to, struct byte_buf *raw,
		      struct sample_slot *slots, int64_t ts_ms);
/*
 * Encodes items [@a, @b) of the request into a buffer, *@raw, and where each
 * sample lies into @slots (from the buffer's start; as encoders.h, the
 * value_at given says whether a value that is 0 is still written). 0 or a
 * negative errno.
 */
typedef int (*kept_piece_fn)(void *ctx, size_t a, size_t b, struct sample_slot *slots, const struct byte_buf **raw);
/*
 * Keeps the request of items [@from, @to) as kept_requests_put() does for a
 * remote write + snappy block, but encoded @piece items at a time by @enc
 * and compressed piece by piece (snappy_template_begin()), so that no more
 * than a piece of protobuf is in memory. 0 when kept to be patched
 * directly; -EAGAIN when it cannot be (then keep it whole with
 * kept_requests_put(), @slots as they are now); another negative errno
 * on failure. @slots (to - from) stay the caller's.
 */
int kept_requests_put_pieces(struct kept_requests *k, size_t at, size_t from, size_t to, size_t piece,
			     struct sample_slot *slots, int64_t ts_ms, kept_piece_fn enc, void *ctx);
/*
 * Writes the values and the timestamp of @set's items [r->from, r->to) into
 * @r. False, with @r unchanged, when they do not fit its layout.
 */
bool kept_request_patch(struct kept_request *r, const struct series_set *set);
/* The compressed block of @r's protobuf as it is now; NULL when none is kept (compress @r->raw). */
const struct byte_buf *kept_request_block(struct kept_request *r);

#endif
