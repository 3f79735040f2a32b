/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The OOM tracker's book of victim cgroups, in user space: from the
 * kernel's entries (struct oom_victim, bpf/oom_kills.h) to the
 * oom_victims_local column of a sample (sampling/oom_tracker.h says what it
 * reads). No BPF here: the tracker feeds it, a unit test drives it.
 */
#ifndef MEMCG_BPF_OOM_VICTIMS_H
#define MEMCG_BPF_OOM_VICTIMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "bpf/oom_kills.h"
#include "sampling/sample_table.h"

/* Samples a gone cgroup's kill count is still reported in, after the 0. */
#define OOM_VICTIMS_LINGER 3

/* Where the walk is, to place a victim's path in it. */
struct oom_walk {
	uint64_t root_id; /* the walk root's cgroup id (its inode) */
	bool root_is_top; /* the walk root is its hierarchy's root */
	int max_depth;    /* < 0: unlimited */
};

struct oom_victims;

/* 0 or -ENOMEM. */
int oom_victims_new(const struct oom_walk *walk, struct oom_victims **out);

/* Takes in the kernel's entry for victim cgroup @id (its count, its path). 0 or -ENOMEM. */
int oom_victims_update(struct oom_victims *vs, uint64_t id, const struct oom_victim *kernel);

/*
 * Sets column @column of the rows of @t (a sample just taken) that are
 * victims, and appends a row for each victim the walk did not see while it
 * lingers. A victim it is done with (gone and reported, or outside the walk
 * and gone) is dropped, and @forget(@id, @arg) called so the kernel's entry
 * goes too. 0 or -ENOMEM.
 */
int oom_victims_fill(struct oom_victims *vs, struct sample_table *t, size_t column,
		     void (*forget)(uint64_t id, void *arg), void *arg);

/* The path of victim @id relative to the walk root, or NULL (unknown, or outside the walk). */
const char *oom_victims_path(const struct oom_victims *vs, uint64_t id);

/* How many victims are kept. */
size_t oom_victims_count(const struct oom_victims *vs);

/* NULL is fine. */
void oom_victims_free(struct oom_victims *vs);

#endif
