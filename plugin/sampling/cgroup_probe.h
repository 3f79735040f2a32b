/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What both backends ask a cgroup tree before sampling it: whether a
 * memory.* file exists at all (the v2 root lacks most of them, so the walk
 * root's children are asked too), and whether PSI is on.
 */
#ifndef MEMCG_BPF_CGROUP_PROBE_H
#define MEMCG_BPF_CGROUP_PROBE_H

#include <stdbool.h>

/*
 * Opens file @name of the directory @root_fd, or of the first of its
 * (at most 64) subdirectories that has it. Returns an fd (O_RDONLY) or a
 * negative errno (-ENOENT: none has it).
 */
int cgroup_probe_open(int root_fd, const char *name);

/* Whether the kernel accounts pressure (PSI): /proc/pressure/memory exists. */
bool cgroup_psi_enabled(void);

#endif
