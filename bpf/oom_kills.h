/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What oom_kills.bpf.c records of each OOM kill, shared with user space
 * (sampling/oom_tracker.c).
 *
 * Two places, for two jobs:
 *  - the hash map "victims", cgroup id -> struct oom_victim: the kills of
 *    each victim cgroup, counted exactly whatever the rate, with the
 *    cgroup's path as the kernel had it at its first kill (the cgroup may
 *    be gone before user space looks);
 *  - the ring buffer "kills": one struct oom_kill_event per kill (pid,
 *    comm, time, which memcg hit its limit), for the log; when it is full
 *    an event is dropped and counted (dropped_events), never a count.
 */
#ifndef OOM_KILLS_H
#define OOM_KILLS_H

/* Levels of a victim's path kept: deeper cgroups are counted as too deep. */
#define OOM_PATH_MAX_LEVELS 16
/* The path buffer; a component is read at an offset below OOM_PATH_OFFSET_MAX. */
#define OOM_PATH_LEN 768
#define OOM_PATH_OFFSET_MAX 512
#define OOM_NAME_MAX 256

/* How many victim cgroups the map holds at once (user space frees gone ones). */
#define OOM_VICTIMS_MAX 1024
/* The event ring: 256 KiB, ~3,600 events between two reads. */
#define OOM_RING_BYTES (256 * 1024)

enum oom_victim_flags {
	OOM_VICTIM_PATH_CUT = 1,  /* the path was longer than the buffer or OOM_PATH_MAX_LEVELS */
	OOM_VICTIM_GLOBAL = 2,    /* the last kill was a global (system-wide) OOM */
};

struct oom_victim {
	__u64 kills;        /* processes of this cgroup the OOM killer killed */
	__u64 oom_memcg_id; /* the cgroup whose limit the last kill was for; 0: global OOM */
	__u64 last_kill_ns; /* CLOCK_MONOTONIC (bpf_ktime_get_ns) */
	__u32 flags;        /* enum oom_victim_flags */
	__u32 nr_levels;    /* entries of ids[] and name_end[]: the victim's depth in its hierarchy */
	/* ids[i]: the cgroup id at level i + 1 (level 0, the hierarchy's root, is not kept) */
	__u64 ids[OOM_PATH_MAX_LEVELS];
	/* where the path "/a/b/c" ends after level i + 1's name ("/a" for i = 0) */
	__u16 name_end[OOM_PATH_MAX_LEVELS];
	char path[OOM_PATH_LEN];
};

struct oom_kill_event {
	__u64 time_ns;      /* CLOCK_MONOTONIC */
	__u64 cgroup_id;    /* the victim's memory cgroup */
	__u64 oom_memcg_id; /* whose limit; 0: a global OOM */
	__u32 pid;          /* the victim's tgid, as "Killed process N" prints it */
	__u32 global;
	char comm[16];
};

#endif
