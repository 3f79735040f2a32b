// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counts every OOM kill in the victim's memory cgroup as the kernel makes
 * it, so that a kill is seen even when its cgroup is removed a millisecond
 * later (kubelet's memory.oom.group containers).
 *
 * The kernel counts a kill (memory.events oom_kill) in __oom_kill_process(),
 * after it found a thread of the victim with an mm, right before it sends
 * that task SIGKILL. So a kill here is: the first SIGKILL (signal_generate)
 * sent by a task while it is inside __oom_kill_process(). A victim already
 * exiting gets no signal there and is not counted, as in memory.events; the
 * later SIGKILLs of the same call go to other processes sharing the mm,
 * which the kernel does not count either. out_of_memory() around it tells
 * which memcg hit its limit (oc->memcg), or that the OOM was global.
 *
 * The three hooks exist, with these arguments, in Linux 6.1 to 7.x:
 * out_of_memory(struct oom_control *), __oom_kill_process(struct
 * task_struct *, const char *) and the signal_generate tracepoint.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "oom_kills.h"

char LICENSE[] SEC("license") = "GPL";

#define SIGKILL 9

/* Counted when a kill could not be kept (user space reads them). */
__u64 dropped_events = 0;  /* the ring was full: the event is lost, its count is not */
__u64 unmapped_kills = 0;  /* the victims map was full: this kill is not counted */

/* What a task inside out_of_memory() is doing; keyed by its thread id. */
struct oom_context {
	__u64 oom_memcg_id;
	__u32 global;
	__u32 in_kill;     /* inside __oom_kill_process() */
	__u32 victim_seen; /* its first SIGKILL went out: the victim */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct oom_context);
} contexts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OOM_VICTIMS_MAX);
	__type(key, __u64);
	__type(value, struct oom_victim);
} victims SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, OOM_RING_BYTES);
} kills SEC(".maps");

/* A new victim entry is built here (too big for the stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct oom_victim);
} scratch SEC(".maps");

static __always_inline __u32 current_tid(void)
{
	return (__u32)bpf_get_current_pid_tgid();
}

SEC("fentry/out_of_memory")
int BPF_PROG(oom_enter, struct oom_control *oc)
{
	struct mem_cgroup *memcg = BPF_CORE_READ(oc, memcg);
	struct oom_context c = {};
	__u32 tid = current_tid();

	if (memcg)
		c.oom_memcg_id = BPF_CORE_READ(memcg, css.cgroup, kn, id);
	else
		c.global = 1;
	bpf_map_update_elem(&contexts, &tid, &c, BPF_ANY);
	return 0;
}

SEC("fexit/out_of_memory")
int BPF_PROG(oom_exit)
{
	__u32 tid = current_tid();

	bpf_map_delete_elem(&contexts, &tid);
	return 0;
}

SEC("fentry/__oom_kill_process")
int BPF_PROG(kill_enter)
{
	__u32 tid = current_tid();
	struct oom_context *c = bpf_map_lookup_elem(&contexts, &tid);

	if (!c) { /* not under out_of_memory(): no kernel calls it so; still a kill */
		struct oom_context fresh = { .global = 1 };

		bpf_map_update_elem(&contexts, &tid, &fresh, BPF_ANY);
		c = bpf_map_lookup_elem(&contexts, &tid);
		if (!c)
			return 0;
	}
	c->in_kill = 1;
	c->victim_seen = 0;
	return 0;
}

SEC("fexit/__oom_kill_process")
int BPF_PROG(kill_exit)
{
	__u32 tid = current_tid();
	struct oom_context *c = bpf_map_lookup_elem(&contexts, &tid);

	if (c)
		c->in_kill = 0;
	return 0;
}

/* The memory cgroup the kernel charges @task's kill to: that of its mm's owner. */
static __always_inline struct cgroup *victim_memcg_cgroup(struct task_struct *task)
{
	int memory_id = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
	struct task_struct *owner = task;
	struct mm_struct *mm = BPF_CORE_READ(task, mm);

	if (mm && bpf_core_field_exists(mm->owner)) {
		struct task_struct *o = BPF_CORE_READ(mm, owner);

		if (o)
			owner = o;
	}
	if (memory_id < 0 || memory_id >= CGROUP_SUBSYS_COUNT)
		return NULL;
	return BPF_CORE_READ(owner, cgroups, subsys[memory_id], cgroup);
}

/* Writes @cgrp's path and the ids of its ancestors into @v. */
static __always_inline void fill_path(struct oom_victim *v, struct cgroup *cgrp)
{
	struct cgroup *chain[OOM_PATH_MAX_LEVELS];
	int level = BPF_CORE_READ(cgrp, level);
	struct cgroup *c = cgrp;
	__u32 off = 0, at, n;

	v->flags = 0;
	if (level < 0)
		level = 0;
	if (level > OOM_PATH_MAX_LEVELS) {
		v->flags |= OOM_VICTIM_PATH_CUT;
		level = 0; /* no path: user space counts it as too deep */
	}
	n = level;
	/* chain[k] is the cgroup at level n - k */
	for (int k = 0; k < OOM_PATH_MAX_LEVELS; k++) {
		struct cgroup_subsys_state *parent;

		if (k >= n || !c)
			break;
		chain[k] = c;
		parent = BPF_CORE_READ(c, self.parent);
		c = parent ? BPF_CORE_READ(parent, cgroup) : NULL;
	}
	v->nr_levels = 0;
	for (int j = 0; j < OOM_PATH_MAX_LEVELS; j++) {
		__u32 k = n - 1 - j;
		const char *name;
		long len;

		if (j >= n)
			break;
		k &= OOM_PATH_MAX_LEVELS - 1; /* j < n <= 16: the same k, bounded for the verifier */
		barrier_var(k);
		if (off >= OOM_PATH_OFFSET_MAX - 1) {
			v->flags |= OOM_VICTIM_PATH_CUT;
			break;
		}
		at = off & (OOM_PATH_OFFSET_MAX - 1);
		v->path[at] = '/';
		off++;
		barrier_var(off); /* keeps the mask below: the verifier needs the bound */
		at = off & (OOM_PATH_OFFSET_MAX - 1);
		name = BPF_CORE_READ(chain[k], kn, name);
		len = bpf_probe_read_kernel_str(&v->path[at], OOM_NAME_MAX, name);
		if (len < 1 || len >= OOM_NAME_MAX) {
			v->flags |= OOM_VICTIM_PATH_CUT;
			break;
		}
		off += len - 1;
		v->ids[j] = BPF_CORE_READ(chain[k], kn, id);
		v->name_end[j] = off;
		v->nr_levels = j + 1;
	}
	barrier_var(off);
	v->path[off & (OOM_PATH_OFFSET_MAX - 1)] = '\0';
}

/* The victims entry of @cgrp, made with its path at its first kill; NULL when the map is full. */
static __always_inline struct oom_victim *victim_entry(struct cgroup *cgrp, __u64 id)
{
	struct oom_victim *v = bpf_map_lookup_elem(&victims, &id);
	__u32 zero = 0;

	if (v)
		return v;
	v = bpf_map_lookup_elem(&scratch, &zero);
	if (!v)
		return NULL;
	v->kills = 0;
	fill_path(v, cgrp);
	bpf_map_update_elem(&victims, &id, v, BPF_NOEXIST);
	return bpf_map_lookup_elem(&victims, &id);
}

static __always_inline void record_kill(struct task_struct *task, const struct oom_context *c)
{
	struct cgroup *cgrp = victim_memcg_cgroup(task);
	struct oom_kill_event *ev;
	struct oom_victim *v;
	__u64 id, now = bpf_ktime_get_ns();

	if (!cgrp)
		return;
	id = BPF_CORE_READ(cgrp, kn, id);
	v = victim_entry(cgrp, id);
	if (v) {
		__sync_fetch_and_add(&v->kills, 1);
		v->oom_memcg_id = c->oom_memcg_id;
		v->last_kill_ns = now;
		if (c->global)
			v->flags |= OOM_VICTIM_GLOBAL;
		else
			v->flags &= ~OOM_VICTIM_GLOBAL;
	} else {
		__sync_fetch_and_add(&unmapped_kills, 1);
	}
	ev = bpf_ringbuf_reserve(&kills, sizeof(*ev), 0);
	if (!ev) {
		__sync_fetch_and_add(&dropped_events, 1);
		return;
	}
	ev->time_ns = now;
	ev->cgroup_id = id;
	ev->oom_memcg_id = c->oom_memcg_id;
	ev->pid = BPF_CORE_READ(task, tgid);
	ev->global = c->global;
	BPF_CORE_READ_STR_INTO(&ev->comm, task, comm);
	bpf_ringbuf_submit(ev, 0);
}

SEC("tp_btf/signal_generate")
int BPF_PROG(signal_generate, int sig, struct kernel_siginfo *info, struct task_struct *task)
{
	__u32 tid;
	struct oom_context *c;

	if (sig != SIGKILL)
		return 0;
	tid = current_tid();
	c = bpf_map_lookup_elem(&contexts, &tid);
	if (!c || !c->in_kill || c->victim_seen)
		return 0;
	c->victim_seen = 1;
	record_kill(task, c);
	return 0;
}
