/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A cgroup's identity labels (unit, pod_uid, container_id from its path,
 * series/cgroup_labels.h; namespace, pod, container from
 * series/pod_names.h; image from series/image_names.h), derived once per
 * cgroup path and kept by the stale
 * tracker; looked up again only while a Kubernetes name is still missing.
 * Internal to series/.
 */
#ifndef MEMCG_BPF_CGROUP_IDENT_H
#define MEMCG_BPF_CGROUP_IDENT_H

#include <stdbool.h>
#include <stddef.h>

#include "series/series_set.h"

/* A cgroup's identity labels, unescaped; NULL where it has none. */
struct ident {
	char *unit, *pod_uid, *container_id, *ns, *pod, *container;
	char *image; /* the container runtime's, read once (series/image_names.h) */
	bool pending; /* a Kubernetes name is wanted and still missing */
};

/* The identity of each row: its tracker entry's (borrowed) while complete, else derived (owned). */
struct row_idents {
	struct ident **id;
	bool *owned;
	size_t *entry;
};

void ident_free(struct ident *id);
bool same_ident(const struct ident *a, const struct ident *b);
int resolve_row_idents(const struct series_opts *o, const struct snapshot *snap, const struct stale_tracker *st,
		       struct row_idents *ri);
void row_idents_free(struct row_idents *ri, size_t rows);

#endif
