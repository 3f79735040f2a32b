// SPDX-License-Identifier: GPL-2.0-only
#include "series/cgroup_ident.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "series/cgroup_labels.h"
#include "series/image_names.h"
#include "series/pod_names.h"
#include "series/stale_tracker.h"

void ident_free(struct ident *id)
{
	if (!id)
		return;
	free(id->unit);
	free(id->pod_uid);
	free(id->container_id);
	free(id->ns);
	free(id->pod);
	free(id->container);
	free(id->image);
	free(id);
}

/* Sets *@dst to a copy of @src unless *@dst is set already or @src is empty. */
static int set_once(char **dst, const char *src)
{
	if (*dst || !src || !src[0])
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}


bool same_ident(const struct ident *a, const struct ident *b)
{
	if (!a || !b)
		return a == b;
	return same_str(a->unit, b->unit) && same_str(a->pod_uid, b->pod_uid) &&
	       same_str(a->container_id, b->container_id) && same_str(a->ns, b->ns) && same_str(a->pod, b->pod) &&
	       same_str(a->container, b->container) && same_str(a->image, b->image);
}

/* Looks up the Kubernetes names @id lacks and sets those found; @id->pending says what is still missing. */
static int ident_add_names(const struct series_opts *o, struct ident *id)
{
	bool want_pod = o->names && o->pod_name_labels && id->pod_uid;
	bool want_ctr = o->names && o->container_name_label && id->pod_uid && id->container_id;
	struct pod_name pn;

	id->pending = false;
	if (!(want_pod && !id->pod) && !(want_ctr && !id->container))
		return 0;
	pod_names_lookup(o->names, id->pod_uid, want_ctr ? id->container_id : NULL, &pn);
	if (want_pod && !id->pod && pn.ns && pn.pod && (set_once(&id->ns, pn.ns) || set_once(&id->pod, pn.pod)))
		return -ENOMEM;
	if (want_ctr && set_once(&id->container, pn.container))
		return -ENOMEM;
	id->pending = (want_pod && !id->pod) || (want_ctr && !id->container);
	return 0;
}

/* The identity of the cgroup at @path: the path's own labels, and the Kubernetes names known now. */
static int ident_resolve(const struct series_opts *o, const char *path, struct ident **out)
{
	bool names = o->names && (o->pod_name_labels || o->container_name_label);
	char unit[4096], uid[POD_UID_MAX + 1] = "", cid[CONTAINER_ID_LEN + 1] = "", image[IMAGE_NAME_MAX + 1] = "";
	struct ident *id = calloc(1, sizeof(*id));

	if (!id)
		return -ENOMEM;
	if (o->unit_label)
		cgroup_unit_label(path, unit, sizeof(unit));
	else
		unit[0] = '\0';
	if (o->pod_uid_label || names || o->image_label)
		cgroup_pod_uid_label(path, uid);
	if (o->container_id_label || names || o->image_label)
		cgroup_container_id_label(path, cid);
	/* the CRI runtimes' annotation: a Kubernetes container's */
	if (o->image_label && cid[0] && uid[0])
		image_name_lookup(o->containerd_state_dir, o->crio_state_dir, cid, image);
	if (set_once(&id->unit, unit) || set_once(&id->pod_uid, uid) || set_once(&id->container_id, cid) ||
	    set_once(&id->image, image) || ident_add_names(o, id)) {
		ident_free(id);
		return -ENOMEM;
	}
	*out = id;
	return 0;
}

/*
 * A pending @old looked up again: *@out a copy with the names found now,
 * or NULL when there is nothing new (the common case: no allocation). The
 * names @old has are kept: a name, once sent, stays while the cgroup does.
 */
static int ident_update(const struct series_opts *o, const struct ident *old, struct ident **out)
{
	bool want_pod = o->pod_name_labels && !old->pod;
	bool want_ctr = o->container_name_label && old->container_id && !old->container;
	struct pod_name pn;
	struct ident *id;

	*out = NULL;
	pod_names_lookup(o->names, old->pod_uid, want_ctr ? old->container_id : NULL, &pn);
	want_pod = want_pod && pn.ns && pn.pod;
	want_ctr = want_ctr && pn.container;
	if (!want_pod && !want_ctr)
		return 0;
	id = calloc(1, sizeof(*id));
	if (!id)
		return -ENOMEM;
	if (set_once(&id->unit, old->unit) || set_once(&id->pod_uid, old->pod_uid) ||
	    set_once(&id->container_id, old->container_id) || set_once(&id->ns, want_pod ? pn.ns : old->ns) ||
	    set_once(&id->pod, want_pod ? pn.pod : old->pod) ||
	    set_once(&id->container, want_ctr ? pn.container : old->container) || set_once(&id->image, old->image)) {
		ident_free(id);
		return -ENOMEM;
	}
	id->pending = (o->pod_name_labels && !id->pod) ||
		      (o->container_name_label && id->container_id && !id->container);
	*out = id;
	return 0;
}

void row_idents_free(struct row_idents *ri, size_t rows)
{
	if (ri->id && ri->owned)
		for (size_t r = 0; r < rows; r++)
			if (ri->owned[r])
				ident_free(ri->id[r]);
	free(ri->id);
	free(ri->owned);
	free(ri->entry);
}

/* Each row's identity: its tracker entry's, updated while a name is missing; derived for a new cgroup. */
int resolve_row_idents(const struct series_opts *o, const struct snapshot *snap, const struct stale_tracker *st,
		       struct row_idents *ri)
{
	for (size_t r = 0; r < snap->nr_rows; r++) {
		const struct ident *old = st && ri->entry[r] != SIZE_MAX ? st->entries[ri->entry[r]].id : NULL;
		int err;

		if (old) {
			err = old->pending ? ident_update(o, old, &ri->id[r]) : 0;
			if (err)
				return err;
			if (!ri->id[r]) {
				ri->id[r] = (struct ident *)old; /* borrowed */
				continue;
			}
		} else {
			err = ident_resolve(o, snap->paths[r], &ri->id[r]);
			if (err)
				return err;
		}
		ri->owned[r] = true;
	}
	return 0;
}
