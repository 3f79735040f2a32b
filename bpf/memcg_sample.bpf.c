// SPDX-License-Identifier: GPL-2.0-only
/*
 * Walks a cgroup subtree (sleepable cgroup iterator, pre-order) and writes
 * the configured memcg stats of every memory cgroup into an mmapable array.
 * Nothing goes through the iterator's seq_file, so the walk is not bound by
 * its 32 KiB buffer.
 */
#define BPF_NO_KFUNC_PROTOTYPES
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "memcg_kfuncs.h"
#include "memcg_sample.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space between open and load. */
const volatile __u32 nr_reads = 0;
const volatile struct memcg_read reads[MEMCG_SAMPLE_MAX_READS] = {};
const volatile __u32 capacity = 0;   /* max_entries of records */
const volatile int max_depth = -1;   /* < 0: unlimited */

/* Per walk; user space zeroes them before each walk. */
__u64 nr_records = 0;   /* memory cgroups found (may exceed capacity) */
__u64 nr_no_memcg = 0;  /* cgroups without a memory controller */
__u32 overflow = 0;     /* set when nr_records > capacity */
__u32 visited = 0;      /* set after the first cgroup */
__u32 root_level = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct memcg_record)); /* set at load */
	__uint(max_entries, 1);                          /* set at load */
} records SEC(".maps");

/*
 * The root of the hierarchy has memory.stat but no memory.current nor
 * memory.events files (cgroup v2 keeps no page counter events for it), so
 * its usage and memory.events counters are not read: both backends give the
 * same set of values for it.
 */
static __always_inline __u64 read_one(struct mem_cgroup *memcg, __u32 kind, __u32 index, bool is_root)
{
	if (is_root && (kind == MEMCG_READ_USAGE || kind == MEMCG_READ_MEMORY_EVENT))
		return MEMCG_READ_INVALID;
	switch (kind) {
	case MEMCG_READ_PAGE_STATE:
		return bpf_mem_cgroup_page_state(memcg, index);
	case MEMCG_READ_VM_EVENT:
		return bpf_mem_cgroup_vm_events(memcg, index);
	case MEMCG_READ_USAGE:
		return bpf_mem_cgroup_usage(memcg);
	case MEMCG_READ_MEMORY_EVENT:
		return bpf_mem_cgroup_memory_events(memcg, index);
	}
	return MEMCG_READ_INVALID;
}

SEC("iter.s/cgroup")
int sample_memcg(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct memcg_record *rec;
	struct mem_cgroup *memcg;
	__u32 slot, depth, i;
	long len;

	if (!cgrp)	/* the walk is over */
		return 0;

	if (!visited) {
		visited = 1;
		root_level = cgrp->level;
	}
	depth = cgrp->level - root_level;
	if (max_depth >= 0 && depth > (__u32)max_depth)
		return 0;

	memcg = bpf_get_mem_cgroup(&cgrp->self);
	if (!memcg) {
		nr_no_memcg++;
		return 0;
	}
	/*
	 * One flush at the walk root makes the whole subtree current; a flush
	 * per cgroup costs more and reads nothing newer.
	 */
	if (nr_records == 0)
		bpf_mem_cgroup_flush_stats(memcg);

	slot = nr_records++;
	if (slot >= capacity) {
		overflow = 1;
		goto put_memcg;
	}
	rec = bpf_map_lookup_elem(&records, &slot);
	if (!rec) {
		overflow = 1;
		goto put_memcg;
	}
	rec->cgroup_id = cgrp->kn->id;
	rec->parent_id = cgrp->self.parent ? cgrp->self.parent->cgroup->kn->id : 0;
	rec->depth = depth;
	/* the walk holds cgroup_mutex, which rename (cgroup_rename) takes too */
	len = bpf_probe_read_kernel_str(rec->name, sizeof(rec->name), cgrp->kn->name);
	rec->name_len = len > 0 && len < (long)sizeof(rec->name) ? len - 1 : MEMCG_NAME_UNKNOWN;
	for (i = 0; i < MEMCG_SAMPLE_MAX_READS; i++) {
		if (i >= nr_reads)
			break;
		rec->values[i] = read_one(memcg, reads[i].kind, reads[i].index, cgrp->level == 0);
	}
put_memcg:
	bpf_put_mem_cgroup(memcg);
	return 0;
}
