/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Finds the memory-controller hierarchy under a configured cgroup root:
 * the root itself when it is a cgroup v2 (or v1 memory) directory, else
 * ROOT/memory (v1, hybrid layout) or ROOT/unified (v2 with memory enabled).
 */
#ifndef MEMCG_BPF_CGROUP_MOUNT_H
#define MEMCG_BPF_CGROUP_MOUNT_H

#include <limits.h>

struct cgroup_mount {
	char dir[PATH_MAX]; /* the directory walked: its cgroup is the walk root */
	int version;        /* 1 or 2 */
};

/*
 * Returns 0, or a negative errno after logging an error that names @root and
 * what was tried (-ENOENT: no memory hierarchy there; -EACCES: unreadable).
 */
int cgroup_mount_resolve(const char *root, struct cgroup_mount *out);

#endif
