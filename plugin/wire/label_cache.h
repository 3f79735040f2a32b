/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The label bytes of every series, per wire format, kept from one interval
 * to the next: a series' labels do not change, so each encoder encodes them
 * once (when the series first appears) and afterwards writes only the
 * timestamp and value around the kept bytes. Keyed by the series key
 * (series/series_set.h), a hash of the whole label set, so the cache needs
 * no knowledge of cgroups or options: other labels are another series.
 *
 * An encoder may keep a cgroup's bytes once for all its series instead
 * (@per_cgroup; all three do): the labels of the cgroup's run but
 * __name__, keyed by the run's key (series_set.cgroup_keys). The blob then
 * says where __name__ goes (@name_at), and the encoder writes it there for
 * each series (remote write 2.0: the ids of "__name__" and of the name); an
 * item with a run of its own is kept whole, as before.
 *
 * What is kept, per format (see each encoder):
 *   remote write 1.0  the TimeSeries' Label fields, ready to copy
 *   remote write 2.0  the global ids (wire/symbol_dict.h) of each label's
 *                     name and value; the request's own symbol indices are
 *                     assigned per request from those ids
 *   OTLP              the NumberDataPoint's attribute (KeyValue) fields
 *
 * A pass is one call of batch_encode_sets(): series it did not use (their
 * cgroup is gone and its stale markers were sent) are dropped at its end,
 * so the cache holds the series of the last pass and no more (their bytes
 * are given back once they are a quarter of what the cache holds).
 * Per entry (a series, or a cgroup) it holds its bytes, rounded up to 8,
 * and 40 to 48 bytes more: the key, where the bytes lie, and its slot in
 * the index.
 */
#ifndef MEMCG_BPF_LABEL_CACHE_H
#define MEMCG_BPF_LABEL_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/byte_buf.h"
#include "series/series_set.h"
#include "wire/symbol_dict.h"
#include "wire/wire_format.h"

#define LABEL_CACHE_FORMATS (WIRE_OTLP + 1)

/* One series' kept bytes, or its cgroup's. */
struct label_blob {
	const uint8_t *data;
	uint32_t len;
	uint32_t name_at; /* bytes before the place of the series' own __name__; LABEL_BLOB_WHOLE: none to add */
};

#define LABEL_BLOB_WHOLE UINT32_MAX

struct label_cache;

/*
 * Appends the labels of @it, in the form kept for the format, to @out;
 * with @cgroup, all but __name__ (series_item.name_at), and *@name_at the
 * bytes written before its place. 0 or a negative errno.
 */
typedef int (*label_encode_fn)(struct label_cache *c, const struct series_set *set,
			       const struct series_item *it, bool cgroup, struct byte_buf *out,
			       uint32_t *name_at);

struct label_cache *label_cache_new(void);
/* Accepts NULL. */
void label_cache_free(struct label_cache *c);

void label_cache_begin_pass(struct label_cache *c);
/* Drops what the pass did not use; clears the 2.0 strings when mostly dead. */
void label_cache_end_pass(struct label_cache *c);

/*
 * The kept bytes of items [from, to) of @set in format @f, into @out[0 ..
 * to - from), per cgroup where @per_cgroup; @enc encodes those not kept
 * yet. The bytes stay valid until the end of the pass. 0 or a negative
 * errno.
 */
int label_cache_get(struct label_cache *c, enum wire_format f, const struct series_set *set, size_t from,
		    size_t to, label_encode_fn enc, bool per_cgroup, struct label_blob *out);

/* The remote write 2.0 strings. */
struct symbol_dict *label_cache_symbols(struct label_cache *c);

/* Series and cgroups kept for @f (for tests). */
size_t label_cache_size(const struct label_cache *c, enum wire_format f);

#endif
