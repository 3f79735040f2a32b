/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The encoders behind batch_encode(), one file each: remote_write.c,
 * remote_write_v2.c and otlp.c write protobuf by hand (wire/pb_write.h). Each encodes items [from, to) of a series set into
 * @raw (protobuf, before compression), taking the series' label bytes from
 * @c (wire/label_cache.h) and adding there those of new series; with
 * @slots (to - from of them), notes where each item's sample lies
 * (wire/request_patch.h). On entry a slot's value_at other than
 * SAMPLE_SLOT_NONE asks for the value to be written even when it is 0 (the
 * request had room for it). 0 or a negative errno.
 */
#ifndef MEMCG_BPF_ENCODERS_H
#define MEMCG_BPF_ENCODERS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/byte_buf.h"
#include "series/series_set.h"
#include "wire/label_cache.h"
#include "wire/request_patch.h"
#include "wire/wire_format.h"

int remote_write_encode(const struct series_set *set, size_t from, size_t to, struct label_cache *c,
			struct byte_buf *raw, struct sample_slot *slots);
int remote_write_v2_encode(const struct series_set *set, size_t from, size_t to, struct label_cache *c,
			   struct byte_buf *raw, struct sample_slot *slots);
int otlp_encode(const struct series_set *set, size_t from, size_t to, struct label_cache *c,
		struct byte_buf *raw, struct sample_slot *slots);
/*
 * The OTLP attribute name of the label @label (wire/otlp.c): its
 * semantic-convention name for the identity labels, in a Kubernetes pod's
 * series when @k8s; @label itself for any other.
 */
const char *otlp_attribute_name(const char *label, bool k8s);
/* Protobuf bytes one item adds to a request of format @f (an estimate for splitting). */
size_t batch_item_size(const struct series_set *set, size_t i, enum wire_format f);

#endif
