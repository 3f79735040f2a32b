/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * memcg-bench's minimal walk (minimal_walk.bpf.c): the least a walk can do
 * for the real walk's reads, as the yardstick the real walk is measured
 * against. A row is the cgroup's kernfs id, then one __u64 per read, in the
 * order of the reads.
 */
#ifndef MEMCG_BPF_MINIMAL_WALK_H
#define MEMCG_BPF_MINIMAL_WALK_H

#define MINIMAL_MAX_READS 64

#ifndef __bpf__
#include <stddef.h>

#include <linux/types.h>

#include "sampling/sampler.h"

struct minimal_walk;

/*
 * Loads the minimal walk of @s's loaded bpf or bpf-core walk (its flavor and
 * reads) over @s's walk root, with room for @capacity memory cgroups.
 * -EOPNOTSUPP (with a message naming it) when @s is no bpf walk or reads
 * what the minimal walk does not; else 0 or a negative errno.
 */
int minimal_walk_open(const struct sampler *s, __u32 capacity, struct minimal_walk **out);
/* One walk of the tree, every value read once from the map; *@rows: memory cgroups found. */
int minimal_walk_sample(struct minimal_walk *w, size_t *rows);
void minimal_walk_close(struct minimal_walk *w);
#endif

#endif
