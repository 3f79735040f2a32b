/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The encoders behind batch_encode(), one file each: remote_write.c,
 * remote_write_v2.c and otlp.c write protobuf by hand (wire/pb_write.h). Each encodes items [from, to) of a series set,
 * taking the series' label bytes from @c (wire/label_cache.h) and adding
 * there those of new series. Remote write encodes into @raw (protobuf,
 * before compression) and, with @slots (to - from of them), notes where
 * each item's sample lies (wire/request_patch.h). On entry a slot's
 * value_at other than SAMPLE_SLOT_NONE asks for the value to be written
 * even when it is 0 (the request had room for it). OTLP's requests are not
 * kept: it hands its protobuf to a sink a piece at a time. 0 or a
 * negative errno.
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
/*
 * Where an encoder hands its protobuf a piece at a time: @start once, with
 * the bytes all pieces will make, before the first; then @put for each
 * piece. Either may fail (a negative errno), which ends the encoding.
 */
struct piece_sink {
	int (*start)(void *ctx, size_t total);
	int (*put)(void *ctx, const uint8_t *data, size_t len);
	void *ctx;
};

/* The bytes of protobuf an encoder gathers in a piece before it hands them to the sink (and its CPU time is read). */
#define ENCODE_PIECE_BYTES (256 * 1024)

/*
 * What otlp_encode() keeps from one call to the next: the piece under way
 * (ENCODE_PIECE_BYTES, or one point's when larger) and its per-item
 * arrays, grown to the largest request, so that no interval allocates and
 * faults in memory of its own. Zero-initialised.
 */
struct otlp_work {
	struct byte_buf piece;
	struct label_blob *attrs; /* each item's attribute fields (the label cache's) */
	uint32_t *metric_of;      /* each item's metric */
	uint32_t *order;          /* the items in the order of their points: by metric */
	size_t cap;               /* items the arrays hold */
};

int otlp_encode(const struct series_set *set, size_t from, size_t to, struct label_cache *c,
		struct otlp_work *w, const struct piece_sink *sink);
/* Frees what @w holds; @w is zero after. */
void otlp_work_free(struct otlp_work *w);
/*
 * The OTLP attribute name of the label @label (wire/otlp.c): its
 * semantic-convention name for the identity labels, in a Kubernetes pod's
 * series when @k8s; @label itself for any other.
 */
const char *otlp_attribute_name(const char *label, bool k8s);
/* Protobuf bytes one item adds to a request of format @f (an estimate for splitting). */
size_t batch_item_size(const struct series_set *set, size_t i, enum wire_format f);

#endif
