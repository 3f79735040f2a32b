/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The OOM tracker: every OOM kill counted in its victim's cgroup as the
 * kernel makes it (bpf/oom_kills.bpf.c), so that the kill of a container
 * whose cgroup is removed at once (kubelet's memory.oom.group) is seen.
 *
 * Each sample it gives the stat oom_victims_local:
 *  - for a cgroup of the walk: the kills counted in it since the tracker
 *    loaded;
 *  - for a victim cgroup that is gone: a row of its own, with the path the
 *    kernel had at its first kill, so its series keeps every label; it is
 *    reported for OOM_VICTIMS_LINGER samples after its kills, then left out
 *    (the series goes stale) and forgotten.
 * A cgroup's first sample with kills reads 0 and the next one its count,
 * so that a receiver's increase() sees each kill, even one that is a new
 * series's first.
 */
#ifndef MEMCG_BPF_OOM_TRACKER_H
#define MEMCG_BPF_OOM_TRACKER_H

#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "bpf/oom_kills.h"
#include "sampling/cgroup_mount.h"
#include "sampling/sample_table.h"

/* Kills logged one by one per sample; the rest are summed in one line. */
#define OOM_TRACKER_LOG_KILLS 10

struct oom_tracker;

/* A kill of the last sample, for collectd's notifications (the first OOM_TRACKER_LOG_KILLS). */
struct oom_kill_note {
	uint32_t pid;
	char comm[17];           /* printable ASCII */
	uint64_t cgroup_id;
	char path[OOM_PATH_LEN]; /* relative to the walk root; "" when outside it */
	char reason[64];         /* "its own limit", "the limit of cgroup id N", "a system-wide OOM" */
};

/* What the tracker could not keep, since it loaded. */
struct oom_tracker_losses {
	uint64_t dropped_events; /* the event ring was full: a kill not logged (still counted) */
	uint64_t unmapped_kills; /* the map of victim cgroups was full: a kill not counted */
};

/*
 * Loads and attaches the OOM tracker for the walk of @mount (a cgroup
 * deeper than @max_depth levels below it, when >= 0, is left out). Returns
 * 0; or -EOPNOTSUPP with @why set when this kernel cannot run it; or
 * another negative errno with @why set.
 */
int oom_tracker_open(const struct cgroup_mount *mount, int max_depth, struct oom_tracker **out, char *why,
		     size_t why_len);

/*
 * Sets column @column of @t's rows (a sample just taken) for the cgroups
 * with kills, appends the rows of victim cgroups that are gone, and logs
 * the kills made since the last call. 0 or a negative errno (-ENOMEM).
 */
int oom_tracker_fill(struct oom_tracker *tr, struct sample_table *t, size_t column);

void oom_tracker_losses(const struct oom_tracker *tr, struct oom_tracker_losses *out);

/* The kills logged one by one by the last oom_tracker_fill(): *@out, valid until the next one. */
size_t oom_tracker_kills(const struct oom_tracker *tr, const struct oom_kill_note **out);

/* Detaches and frees; NULL is fine. */
void oom_tracker_close(struct oom_tracker *tr);

#endif
