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
	size_t nr_runs;
};

/*
 * Compresses @raw into @t, the @n slots' values (8 bytes) and timestamps
 * (@ts_len bytes each) kept patchable; @t's block holds @raw. 0; -EAGAIN when
 * snappy failed; -ENOMEM.
 */
int snappy_template_build(struct snappy_template *t, const uint8_t *raw, size_t len,
			  const struct sample_slot *slots, size_t n, size_t ts_len);
/* Writes the slots' bytes of @raw (the same layout as when built) into the block. */
void snappy_template_patch(struct snappy_template *t, const uint8_t *raw);
/* Frees the runs, for a block patched another way; snappy_template_patch() then writes nothing. */
void snappy_template_forget_runs(struct snappy_template *t);
void snappy_template_free(struct snappy_template *t);

#endif
