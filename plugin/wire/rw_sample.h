/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Sample message both remote write versions share, written with
 * pb_write.h (checked against protobuf-c by test_batch_encode):
 *   Sample { double value = 1; int64 timestamp = 2; }
 * proto3: a value of 0 and a timestamp of 0 are not written (but see
 * rw_value_written()).
 */
#ifndef MEMCG_BPF_RW_SAMPLE_H
#define MEMCG_BPF_RW_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/pb_write.h"
#include "wire/request_patch.h"

/*
 * Whether the Sample writes its value: proto3 leaves out a 0, unless @slot
 * (NULL: none) says the request had room for this value before: a kept
 * request keeps its layout (wire/request_patch.h).
 */
static inline bool rw_value_written(double value, const struct sample_slot *slot)
{
	return value != 0 || (slot && slot->value_at != SAMPLE_SLOT_NONE);
}

/* Bytes of the Sample message itself. */
static inline size_t rw_sample_size(bool value_written, int64_t ts_ms)
{
	return (value_written ? 1 + 8 : 0) + (ts_ms ? 1 + pb_varint_size((uint64_t)ts_ms) : 0);
}

/* Bytes of the Sample as a field of its TimeSeries (tag and length included). */
static inline size_t rw_sample_field_size(bool value_written, int64_t ts_ms)
{
	return pb_len_field_size(rw_sample_size(value_written, ts_ms));
}

/*
 * Writes the Sample as field @field (below 16) of its TimeSeries; returns
 * the end. With @slot (see rw_value_written()), notes there where its
 * value and timestamp lie, as offsets from @base.
 */
static inline uint8_t *rw_sample_field(uint8_t *p, unsigned int field, double value, int64_t ts_ms,
				       struct sample_slot *slot, const uint8_t *base)
{
	bool written = rw_value_written(value, slot);

	p = pb_len_header(p, field, rw_sample_size(written, ts_ms));
	if (slot)
		slot->value_at = written ? (uint32_t)(p + 1 - base) : SAMPLE_SLOT_NONE;
	if (written)
		p = pb_double(p, 1, value);
	if (ts_ms) {
		p = pb_tag(p, 2, PB_VARINT);
		if (slot)
			slot->ts_at = (uint32_t)(p - base);
		p = pb_varint(p, (uint64_t)ts_ms);
	}
	return p;
}

#endif
