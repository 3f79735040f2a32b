/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A snappy block whose samples can be rewritten without compressing again,
 * for the steady state of remote write (wire/request_patch.h).
 *
 * Snappy's elements are literals (bytes as they are) and copies (of bytes
 * earlier in the output). The request is compressed once with snappy, and
 * its block written again with every copy that takes a value's bytes, or
 * gives them, turned into literals: each value then lies in literals, and
 * writing its new bytes there gives the block of the new request. A
 * timestamp is the same in every sample of a request, so a copy may take a
 * timestamp's byte from the same byte of another timestamp; any other copy
 * of it becomes a literal too.
 *
 * The price is size: values are no longer copied (zeros, repeated values),
 * so a kept block is larger than snappy's own (encode-bench measures it, see
 * doc/benchmarks.md). test_batch_encode decompresses each block and compares.
 */
#ifndef MEMCG_BPF_SNAPPY_TEMPLATE_H
#define MEMCG_BPF_SNAPPY_TEMPLATE_H

#include <stddef.h>
#include <stdint.h>

#include "base/byte_buf.h"
#include "wire/sample_slot.h"

/* Raw bytes [raw_at, raw_at + len) lie in a literal at z_at of the block. */
struct snappy_run {
	uint32_t z_at, raw_at, len;
};

struct snappy_template {
	struct byte_buf z; /* the block */
	struct snappy_run *runs;
	size_t nr_runs, runs_cap;
	size_t raw_len; /* the raw bytes it holds */
	/* while it is built in pieces: */
	struct byte_buf pending, pending_class; /* bytes not written yet, and their classes */
	size_t done;                /* raw bytes compressed */
	size_t lit_from, lit_len;   /* the literal not written yet, in @pending */
	int err;                    /* of the pieces added since begin */
};

/*
 * Compresses @raw into @t, the @n slots' values (8 bytes) and timestamps
 * (@ts_len bytes each) kept patchable; @t's block holds @raw. 0; -EAGAIN when
 * snappy failed; -ENOMEM.
 */
int snappy_template_build(struct snappy_template *t, const uint8_t *raw, size_t len,
			  const struct sample_slot *slots, size_t n, size_t ts_len);
/*
 * The same in pieces, so that no more than a piece of the raw bytes need be
 * in memory at once: begin, then each piece in order (@slots relative to
 * the piece, the runs' raw_at to the whole), then end, which returns what
 * build() would, byte for byte: the bytes are compressed in snappy's own
 * 64 KiB fragments (each on its own), and a literal goes on across them as
 * in one call. Holds up to a fragment and a piece of raw bytes meanwhile.
 */
void snappy_template_begin(struct snappy_template *t);
void snappy_template_add(struct snappy_template *t, const uint8_t *raw, size_t len,
			 const struct sample_slot *slots, size_t n, size_t ts_len);
int snappy_template_end(struct snappy_template *t);
/* Writes the slots' bytes of @raw (the same layout as when built) into the block. */
void snappy_template_patch(struct snappy_template *t, const uint8_t *raw);
/* Frees the runs, for a block patched another way; snappy_template_patch() then writes nothing. */
void snappy_template_forget_runs(struct snappy_template *t);
void snappy_template_free(struct snappy_template *t);

#endif
