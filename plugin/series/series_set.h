/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A snapshot turned into series, ready for any wire format: one item per
 * (cgroup, stat) value and per self metric, each with its full label set
 * sorted by name (__name__ included), values as float64, one timestamp in
 * milliseconds. Series that were sent for the previous snapshot and have no
 * value now (the cgroup disappeared, or the stat went missing) get a stale
 * marker: the Prometheus stale NaN (bit pattern 0x7ff0000000000002).
 *
 * The stale tracker is the memory of what was sent last; it belongs to the
 * sender and is updated by every series_set_build(). It keeps each cgroup's
 * identity labels as they were sent: derived once per cgroup path, they
 * are derived again only while a Kubernetes name is still missing (the
 * pod's log directory may appear after its cgroup). A name found later
 * changes the label set once: the series without it get stale markers.
 * Names once found stay while the cgroup does.
 */
#ifndef MEMCG_BPF_SERIES_SET_H
#define MEMCG_BPF_SERIES_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/byte_arena.h"
#include "series/label_pair.h"
#include "series/series_key.h"
#include "series/pod_names.h"
#include "series/snapshot.h"

#define STALE_NAN_BITS 0x7ff0000000000002ULL

double stale_nan(void);
bool is_stale_nan(double v);

struct series_item {
	const char *name;             /* metric name */
	struct series_key key;        /* series/series_key.h */
	const struct stat_def *stat;  /* NULL for self metrics */
	const char *unit;             /* OTLP's UCUM unit: "By", "s", "{page}" (metric_unit()); NULL for none */
	double value;
	uint64_t raw;                 /* the sampled value @value came from (row items; patch_values()) */
	int64_t start_ms;             /* when the series was first seen (OTLP start_time_unix_nano
				       * of counters): the cgroup's first sample since it last
				       * appeared; self metrics: the first snapshot; 0 without a
				       * stale tracker */
	/*
	 * Its labels, sorted by name, __name__ among them: @nr_labels of
	 * series_set.labels from @label_off. A cgroup's items share one run,
	 * whose label @name_at is __name__ with the value @name
	 * (series_item_label()), and @cgroup_run numbers that run
	 * (series_set.cgroup_keys). @cgroup_run SERIES_OWN_RUN and @name_at
	 * SERIES_NAME_IN_RUN: the run is the item's own and holds __name__
	 * (self metrics, per-node stats, the allocation profile).
	 */
	uint32_t label_off;
	uint32_t cgroup_run;
	uint16_t name_len;            /* strlen(@name) */
	uint16_t nr_labels;
	uint16_t name_at;
	bool counter;
	bool stale;
};

#define SERIES_OWN_RUN UINT32_MAX
#define SERIES_NAME_IN_RUN UINT16_MAX
/* The most labels an item has: the static ones, host, __name__, the cgroup's, node. */
#define SERIES_ITEM_MAX_LABELS (SERIES_MAX_STATIC_LABELS + 12)

struct series_opts {
	const char *host;
	const char *instance_id; /* OTLP's service.instance.id; NULL: the host */
	const struct label_pair *labels; /* static labels */
	size_t nr_labels;
	/* identity labels (series/cgroup_labels.h, series/pod_names.h) */
	bool unit_label;
	bool pod_uid_label;
	bool container_id_label;
	bool pod_name_labels;      /* namespace, pod */
	bool container_name_label; /* container */
	struct pod_names *names;   /* where namespace, pod, container come from; NULL: none */
	bool image_label;          /* image, from the container runtime's state (series/image_names.h) */
	const char *containerd_state_dir, *crio_state_dir; /* NULL: the defaults */
};

struct series_set {
	int64_t ts_ms;
	const char *host;
	const char *instance_id; /* series_opts' */
	struct series_item *items;
	size_t nr_items, cap_items;
	struct label_pair *labels;
	struct label_len *label_lens; /* parallel to labels: the encoders never strlen */
	size_t nr_labels, cap_labels;
	/*
	 * Per cgroup run of labels (series_item.cgroup_run): the key of its
	 * labels but __name__, the same from build to build, so that a cache
	 * keeps a cgroup's bytes once for all its series (wire/label_cache.h).
	 */
	struct series_key *cgroup_keys;
	size_t nr_cgroup_runs, cap_cgroup_runs;
	size_t nr_stale;
	size_t nr_values; /* items that carry a sampled value (not stale, not self) */
	size_t nr_duplicates; /* items the last build dropped: their labels were another item's */
	struct byte_arena arena; /* the strings it owns (series/string_arena.h) */
	/*
	 * The shape: the label sets of the items, in order. Two builds of a
	 * set share it when only the values and the timestamp changed: the
	 * steady state, where series_set_build() patches the values in place
	 * and the encoders patch the bytes they kept (wire/batch_encode.h).
	 * Unique in the process; 0 for none.
	 */
	uint64_t shape;
	size_t nr_row_items, nr_row_labels; /* the sampled values' items come first */
	bool had_alloc;                     /* the last build had the allocation profile's items */
	uint64_t tracker_gen;               /* the tracker state the set was built against */
	/*
	 * Bit i: items[i].value is not 0, for the items below nr_nonzero_known
	 * (all of them after series_set_build(); 0 when unknown). Remote write
	 * leaves a 0 out, so a kept request checks with it whether a value
	 * now needs room it has not (wire/request_patch.c) without reading
	 * every item again.
	 */
	uint64_t *nonzero;
	size_t nonzero_words, nr_nonzero_known;
};

/* Label @k of @it (k < it->nr_labels), in name order. */
static inline void series_item_label(const struct series_set *set, const struct series_item *it, uint32_t k,
				     struct label_pair *l, struct label_len *len)
{
	*l = set->labels[it->label_off + k];
	*len = set->label_lens[it->label_off + k];
	if (k == it->name_at) {
		l->value = it->name;
		len->value = it->name_len;
	}
}

struct stale_tracker;

struct stale_tracker *stale_tracker_new(void);
void stale_tracker_free(struct stale_tracker *st);

void series_set_init(struct series_set *set);
/*
 * Builds @set (reset first) from @snap; updates @st when it is not NULL.
 * The items: every cgroup's value of the first stat, then of the second,
 * and so on (stat-major: each series then differs from the one before in
 * its cgroup label only, which snappy finds: remote write 1.0 takes fewer
 * bytes than cgroup by cgroup, see doc/benchmarks.md); then stale markers;
 * then the self metrics.
 * When the snapshot has the shape of the one @set was last built from
 * (same cgroups in the same order, same stats present, identities
 * complete, nothing stale) and @st has not changed since, only the values,
 * the timestamp and the self metrics are written: @set->shape stays.
 */
int series_set_build(struct series_set *set, const struct series_opts *o, const struct snapshot *snap,
		     struct stale_tracker *st);
void series_set_free(struct series_set *set);

#endif
