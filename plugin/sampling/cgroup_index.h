/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cgroup id -> path, built from cgroupfs. On 64-bit kernels a cgroup's id is
 * its directory's inode number and is never reused, so an id found once keeps
 * naming the same cgroup; an index refresh drops ids that are gone.
 */
#ifndef MEMCG_BPF_CGROUP_INDEX_H
#define MEMCG_BPF_CGROUP_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct cgroup_entry {
	uint64_t id;
	int depth;      /* 0 for the root directory */
	const char *path; /* relative to the root, "/" for the root itself, "/a/b" below */
};

struct cgroup_index;

/* @max_depth < 0: unlimited. Builds the index once. */
int cgroup_index_open(const char *root_dir, int max_depth, struct cgroup_index **out);
/* Rescans cgroupfs: adds new cgroups, drops removed ones. 0 or -errno. */
int cgroup_index_refresh(struct cgroup_index *idx);
/*
 * A refresh only when the tree may have changed: on cgroup v2 the root's
 * cgroup.stat descendant count moved, cgroup_index_mark_stale() was called,
 * or it is time for a periodic full refresh. Without cgroup.stat (v1) it
 * always refreshes.
 */
int cgroup_index_refresh_if_changed(struct cgroup_index *idx);
/* Tells the index a cgroup it listed could not be read: refresh next time. */
void cgroup_index_mark_stale(struct cgroup_index *idx);
/*
 * The walk's own view of the tree (the bpf backend): each cgroup a walk
 * reports, in pre-order, with its parent's id and its kernfs name. A known
 * id whose name or parent's path changed (a rename, which keeps the id)
 * gets its new path; an unknown one is added from its parent's path; no
 * cgroupfs access for either. Only a cgroup the walk cannot place (its
 * parent not reported before it, a name that did not fit) falls back to
 * one cgroup_index_refresh() per walk. walk_end() drops every id the walk
 * did not report, so the index holds the live tree, not its history.
 */
struct cgroup_walk_item {
	uint64_t id;
	uint64_t parent_id;
	int depth;             /* 0: the walk root */
	const char *name;      /* not NUL-terminated */
	size_t name_len;       /* SIZE_MAX: unknown */
};

void cgroup_index_walk_begin(struct cgroup_index *idx);
/* 0 with *out the entry (valid until the next call), or NULL when the cgroup is gone; or -errno. */
int cgroup_index_walk_add(struct cgroup_index *idx, const struct cgroup_walk_item *it,
			  const struct cgroup_entry **out);
void cgroup_index_walk_end(struct cgroup_index *idx);
const struct cgroup_entry *cgroup_index_find(const struct cgroup_index *idx, uint64_t id);
size_t cgroup_index_count(const struct cgroup_index *idx);
/* Entry @i in pre-order (a parent before its children), NULL past the end; valid until the next refresh. */
const struct cgroup_entry *cgroup_index_at(const struct cgroup_index *idx, size_t i);
void cgroup_index_close(struct cgroup_index *idx);

#endif
