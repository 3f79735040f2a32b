// SPDX-License-Identifier: GPL-2.0-only
/*
 * memcg-bench's yardstick: the least a walk can do to sample the stats that
 * memcg_sample.bpf.c's walk samples. The same reads (user space copies them
 * from the loaded walk), the same pre-order cgroup iterator and the same
 * flush at the walk root; per memory cgroup its id and one __u64 per read
 * into an mmapable array, and nothing else: no name, no parent, no depth, no
 * rank-only lookup, no per-node values, no pressure.
 *
 * minimal_kfunc reads through the memcg kfuncs (Linux >= 7.0);
 * minimal_core_flush and minimal_core read with CO-RE, one probe read per
 * value, and flush as the real walk's flavor of the same name does (in the
 * walk by cgroup_rstat_flush(), or by user space before it). Reads other
 * than those the bench's stats need are refused by user space
 * (minimal_walk.c), not read here.
 */
#define BPF_NO_KFUNC_PROTOTYPES
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "memcg_kfuncs.h"
#include "memcg_sample.h"
#include "minimal_walk.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 nr_reads = 0;
const volatile struct memcg_read reads[MINIMAL_MAX_READS] = {};
const volatile __u32 capacity = 0;
const volatile __u64 page_size = 4096;

__u64 nr_rows = 0; /* memory cgroups found; user space zeroes it before each walk */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u64)); /* set at load: (1 + nr_reads) * 8 */
	__uint(max_entries, 1);            /* set at load */
} rows SEC(".maps");

/* The row of the next memory cgroup, its id written; NULL past capacity. */
static __always_inline __u64 *next_row(struct cgroup *cgrp)
{
	__u32 slot = nr_rows++;
	__u64 *row;

	if (slot >= capacity)
		return NULL;
	row = bpf_map_lookup_elem(&rows, &slot);
	if (row)
		row[0] = cgrp->kn->id;
	return row;
}

SEC("iter.s/cgroup")
int minimal_kfunc(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct mem_cgroup *memcg;
	__u64 *row;
	__u32 i;

	if (!cgrp)
		return 0;
	memcg = bpf_get_mem_cgroup(&cgrp->self);
	if (!memcg)
		return 0;
	if (nr_rows == 0)
		bpf_mem_cgroup_flush_stats(memcg);
	row = next_row(cgrp);
	for (i = 0; row && i < MINIMAL_MAX_READS && i < nr_reads; i++) {
		switch (reads[i].kind) {
		case MEMCG_READ_PAGE_STATE:
			row[1 + i] = bpf_mem_cgroup_page_state(memcg, reads[i].index);
			break;
		case MEMCG_READ_VM_EVENT:
			row[1 + i] = bpf_mem_cgroup_vm_events(memcg, reads[i].index);
			break;
		case MEMCG_READ_USAGE:
			row[1 + i] = bpf_mem_cgroup_usage(memcg);
			break;
		case MEMCG_READ_MEMORY_EVENT:
			row[1 + i] = bpf_mem_cgroup_memory_events(memcg, reads[i].index);
			break;
		}
	}
	bpf_put_mem_cgroup(memcg);
	return 0;
}

struct memcg_vmstats___minimal {
	long state[1];
	unsigned long events[1];
} __attribute__((preserve_access_index));

struct mem_cgroup___minimal {
	struct memcg_vmstats___minimal *vmstats;
} __attribute__((preserve_access_index));

static __always_inline int walk_core(struct cgroup *cgrp, bool flush)
{
	int id = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
	struct cgroup_subsys_state *css;
	struct mem_cgroup *memcg;
	const char *vmstats;
	__u64 *row, v;
	__u32 i, at, index;

	if (id < 0 || id >= bpf_core_enum_value(enum cgroup_subsys_id, CGROUP_SUBSYS_COUNT))
		return 0;
	css = BPF_CORE_READ(cgrp, subsys[id]);
	if (!css)
		return 0;
	memcg = (void *)((char *)css - bpf_core_field_offset(struct mem_cgroup, css));
	if (flush && nr_rows == 0)
		cgroup_rstat_flush(cgrp);
	row = next_row(cgrp);
	if (!row)
		return 0;
	vmstats = (const char *)BPF_CORE_READ((struct mem_cgroup___minimal *)memcg, vmstats);
	for (i = 0; i < MINIMAL_MAX_READS && i < nr_reads; i++) {
		v = MEMCG_READ_INVALID;
		/* outside the CO-RE accesses below: a relocation would name memcg_read.index */
		index = reads[i].index;
		switch (reads[i].kind) {
		case MEMCG_READ_VMSTAT_STATE:
		case MEMCG_READ_VMSTAT_EVENT:
			at = reads[i].kind == MEMCG_READ_VMSTAT_STATE ?
				     bpf_core_field_offset(struct memcg_vmstats___minimal, state) :
				     bpf_core_field_offset(struct memcg_vmstats___minimal, events);
			bpf_probe_read_kernel(&v, sizeof(v), vmstats + at + (__u64)index * sizeof(long));
			break;
		case MEMCG_READ_EVENT:
			bpf_core_read(&v, sizeof(v), &memcg->memory_events[index]);
			break;
		case MEMCG_READ_PAGE_COUNTER: /* usage alone (minimal_walk.c refuses the other fields) */
			v = (__u64)BPF_CORE_READ(memcg, memory.usage.counter) * page_size;
			break;
		}
		row[1 + i] = v;
	}
	return 0;
}

SEC("iter.s/cgroup")
int minimal_core_flush(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;

	return cgrp ? walk_core(cgrp, true) : 0;
}

SEC("iter.s/cgroup")
int minimal_core(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;

	return cgrp ? walk_core(cgrp, false) : 0;
}
