/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The labels of a series set's items: a label list for one series, a
 * cgroup's escaped identity labels, a row template per cgroup (its labels
 * sorted and hashed once, __name__ set per stat), the pool the templates'
 * labels live in, and appending an item with its labels and key.
 * Internal to series/.
 */
#ifndef MEMCG_BPF_ROW_LABELS_H
#define MEMCG_BPF_ROW_LABELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/siphash.h"
#include "series/label_pair.h"
#include "series/series_key.h"
#include "series/series_set.h"

struct ident;
struct row_idents;

/* Labels of one series under construction, with their lengths. */
struct label_list {
	struct label_pair l[SERIES_ITEM_MAX_LABELS];
	struct label_len len[SERIES_ITEM_MAX_LABELS];
	size_t n;
};

/* The labels every series of a cgroup carries, except __name__: escaped, in the set's arena. */
struct row_labels {
	const char *cgroup, *unit, *pod_uid, *container_id, *ns, *pod, *container, *image;
	size_t cgroup_len, unit_len, pod_uid_len, container_id_len, ns_len, pod_len, container_len, image_len;
};

/*
 * The sorted labels of every series of one cgroup, with __name__ at
 * @name_at: sorted once per cgroup, put in the set once (the cgroup's items
 * share that run, each with its own __name__: series_item_label()).
 */
struct row_template {
	const struct label_pair *l;
	const struct label_len *len;
	size_t n, name_at;
	struct siphash key; /* of the labels but __name__ (series_key_labels()) */
	uint32_t set_off;   /* where the row's items' shared run of labels lies in the set; ROW_RUN_NONE: not yet */
	uint32_t cgroup_run; /* that run's number (series_set.cgroup_keys) */
};

#define ROW_RUN_NONE UINT32_MAX

struct metric_name_len {
	const char *name;
	uint32_t len;
};

/* The labels of every row's template, one after the other. */
struct label_pool {
	struct label_pair *l;
	struct label_len *len;
	size_t n, cap;
};

void label_list_add(struct label_list *ll, const char *name, const char *value);
void label_list_common(struct label_list *ll, const struct series_opts *o, const char *name);
int add_item_with_labels(struct series_set *set, const struct series_item *proto, struct label_list *ll);
int escape_row_labels(struct series_set *set, const struct series_opts *o, const char *path,
		      const struct ident *id, struct row_labels *rl);
void fill_row_template(struct row_template *rt, struct label_list *ll, const struct series_opts *o,
		       const struct row_labels *rl);
int add_stat_item(struct series_set *set, struct row_template *rt, const struct stat_def *def,
		  const struct metric_name_len *name, uint64_t raw, bool stale, int64_t start_ms);
int build_row_templates(struct series_set *set, const struct series_opts *o, const struct snapshot *snap,
			const struct row_idents *ri, struct row_template *tpl, struct label_pool *pool);
void label_pool_free(struct label_pool *p);

#endif
