/* SPDX-License-Identifier: GPL-2.0-only */
/* Where one item's sample lies in its remote write request's protobuf (noted by the encoders: wire/encoders.h). */
#ifndef MEMCG_BPF_SAMPLE_SLOT_H
#define MEMCG_BPF_SAMPLE_SLOT_H

#include <stdint.h>

#define SAMPLE_SLOT_NONE UINT32_MAX

struct sample_slot {
	uint32_t value_at; /* the value's 8 bytes; SAMPLE_SLOT_NONE: not written (remote write's 0) */
	uint32_t ts_at;    /* the varint of the ms */
};

#endif
