/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Trust, but verify: before the bpf-core backend ships a number (or the bpf
 * backend one of its per-node counters, read with CO-RE too), its values
 * for the walk root and the cgroups just below it are compared with what the
 * text backend reads from memory.stat, memory.numa_stat and the other files
 * around the same walk.
 */
#ifndef MEMCG_BPF_CORE_CHECK_H
#define MEMCG_BPF_CORE_CHECK_H

#include <stddef.h>

struct sampler;
struct stat_def;

/*
 * Checks the columns of @s (an open bpf-core sampler, or bpf with per-node columns). A column agrees when
 * each of its values lies between the file's readings before and after the
 * walk (so a stable value must be equal); memory.pressure may trail by the
 * kernel's 2 s averaging period. Up to three rounds, for the columns that
 * disagreed. A memory.stat or memory.numa_stat column with nothing to
 * compare is a disagreement.
 *
 * Returns 0 when all agree; -EPROTO when some do not: their stats in @bad
 * (room for s->nr_stats), their count in @nr_bad, their names in @names;
 * another negative errno when the check could not run.
 */
int core_check(struct sampler *s, const struct stat_def **bad, size_t *nr_bad, char *names, size_t names_len);

#endif
