// SPDX-License-Identifier: GPL-2.0-only
/*
 * Walks a cgroup subtree (sleepable cgroup iterator, pre-order) and writes
 * the configured memcg stats of every memory cgroup into an mmapable array.
 * Nothing goes through the iterator's seq_file, so the walk is not bound by
 * its 32 KiB buffer.
 *
 * Three walks, one loaded (enum memcg_walk_flavor): sample_memcg reads
 * through the memcg kfuncs of Linux >= 7.0; sample_memcg_core_flush and
 * sample_memcg_core read the same counters with CO-RE from struct mem_cgroup
 * and struct memcg_vmstats on older kernels, at the slots user space worked
 * out from the kernel's BTF (sampling/memcg_layout.c).
 */
#define BPF_NO_KFUNC_PROTOTYPES
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "memcg_kfuncs.h"
#include "memcg_sample.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space between open and load. */
const volatile __u32 nr_reads = 0;
const volatile struct memcg_read reads[MEMCG_SAMPLE_MAX_READS] = {};
const volatile __u32 capacity = 0;   /* max_entries of records */
const volatile int max_depth = -1;   /* < 0: unlimited */
const volatile __u64 page_size = 4096;
const volatile __u64 counter_max = 0; /* PAGE_COUNTER_MAX: LONG_MAX / page_size */
const volatile bool cgroup_v1 = false; /* the walk is of a cgroup v1 hierarchy */
/* The read that ranks cgroups (memory.current, for the budget), or MEMCG_NO_READ. */
const volatile __u32 rank_read = MEMCG_NO_READ;

/* Per walk; user space zeroes them before each walk. */
__u64 nr_records = 0;   /* memory cgroups found (may exceed capacity) */
__u64 nr_no_memcg = 0;  /* cgroups without a memory controller */
__u32 overflow = 0;     /* set when nr_records > capacity */
__u32 visited = 0;      /* set after the first cgroup */
__u32 root_level = 0;

/*
 * Cgroups (kernfs ids) whose values nobody ships: outside the selection or
 * cut by the budget. Their records get the rank read alone, which is what
 * the budget needs to see one grow; user space keeps the map.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, sizeof(__u64));
	__uint(value_size, sizeof(__u8));
	__uint(max_entries, 1); /* set at load: the record map's capacity */
} rank_only SEC(".maps");

/*
 * Whether rank_only holds any id: set by user space with the map (in .data,
 * which the per-walk reset of .bss leaves alone). While it is empty, as it
 * is without a selection or a budget cut, no cgroup pays for a lookup.
 */
__u32 rank_only_used SEC(".data") = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct memcg_record)); /* set at load */
	__uint(max_entries, 1);                          /* set at load */
} records SEC(".maps");

/*
 * A field of page counter @pc. Loaded directly in the kfunc walk, whose
 * memcg is the trusted pointer bpf_get_mem_cgroup() returned (an inline
 * load, not a helper call); read with a probe in the CO-RE walks, whose
 * memcg is an address they computed. @direct is a constant in each walk,
 * so each keeps one of the two.
 */
#define PAGE_COUNTER_FIELD(pc, direct, field) \
	((direct) ? (unsigned long)(pc)->field : (unsigned long)BPF_CORE_READ(pc, field))

/* A page counter's field as its file prints it: bytes, or "max" (MEMCG_READ_UNLIMITED). */
static __always_inline __u64 read_page_counter(struct mem_cgroup *memcg, __u32 which, bool direct)
{
	struct page_counter *pc = (which >> 8) == MEMCG_COUNTER_SWAP ? &memcg->swap : &memcg->memory;
	unsigned long pages;

	switch (which & 0xff) {
	case MEMCG_FIELD_USAGE:
		return (__u64)PAGE_COUNTER_FIELD(pc, direct, usage.counter) * page_size;
	case MEMCG_FIELD_WATERMARK:
		return (__u64)PAGE_COUNTER_FIELD(pc, direct, watermark) * page_size;
	case MEMCG_FIELD_MAX:
		pages = PAGE_COUNTER_FIELD(pc, direct, max);
		break;
	case MEMCG_FIELD_HIGH:
		pages = PAGE_COUNTER_FIELD(pc, direct, high);
		break;
	case MEMCG_FIELD_LOW:
		pages = PAGE_COUNTER_FIELD(pc, direct, low);
		break;
	case MEMCG_FIELD_MIN:
		pages = PAGE_COUNTER_FIELD(pc, direct, min);
		break;
	default:
		return MEMCG_READ_INVALID;
	}
	return pages >= counter_max ? MEMCG_READ_UNLIMITED : (__u64)pages * page_size;
}

/* memcg->soft_limit as memory.soft_limit_in_bytes prints it: bytes, or "max" */
static __always_inline __u64 read_soft_limit(struct mem_cgroup *memcg)
{
	struct mem_cgroup___v1 *m = (void *)memcg;
	unsigned long pages;

	if (!bpf_core_field_exists(m->soft_limit))
		return MEMCG_READ_INVALID;
	/*
	 * Keeps the field's address from being computed before the check
	 * (clang hoists it out of the read loop): where the field is absent
	 * its relocation fails, and the verifier must never reach it.
	 */
	asm volatile("" : "+r"(m));
	pages = BPF_CORE_READ(m, soft_limit);
	return pages >= counter_max ? MEMCG_READ_UNLIMITED : (__u64)pages * page_size;
}

/* memcg->memory_events[index] (memory.events) or memory_events_local[index] (.local) */
static __always_inline __u64 read_event(struct mem_cgroup *memcg, __u32 index, bool local)
{
	long v;
	int err;

	/* one CO-RE access each: a relocation names one field */
	if (local)
		err = bpf_core_read(&v, sizeof(v), &memcg->memory_events_local[index]);
	else
		err = bpf_core_read(&v, sizeof(v), &memcg->memory_events[index]);
	return err ? MEMCG_READ_INVALID : v;
}

/*
 * struct memcg_vmstats (mm/memcontrol.c, private to it) as far as these reads
 * go: the two arrays' lengths and meaning differ between kernels, user space
 * gives the slot.
 */
struct memcg_vmstats___core {
	long state[1];
	unsigned long events[1];
} __attribute__((preserve_access_index));

struct mem_cgroup___core {
	struct memcg_vmstats___core *vmstats;
} __attribute__((preserve_access_index));

/* Set by user space (bpf-core): the spans of state[] and events[] the reads use. */
const volatile struct memcg_span vmstat_span[2] = {};

/*
 * The spans of the cgroup being read, copied in one read each: a probe read
 * per counter cost more than the counters (one reader at a time: the walk
 * runs only from the sampler's read()).
 */
long vmstat_copy[2][MEMCG_VMSTAT_SPAN_MAX];
/* memcg->vmstats of the cgroup being read; NULL when it could not be read */
const char *vmstat_base = NULL;
/* 1 when span k of the cgroup being read was copied, else 0 */
__u64 vmstat_ok[2];

static __always_inline __u32 vmstat_offset(bool event)
{
	return event ? bpf_core_field_offset(struct memcg_vmstats___core, events) :
		       bpf_core_field_offset(struct memcg_vmstats___core, state);
}

static __always_inline void copy_span(__u32 k)
{
	__u32 n = vmstat_span[k].n;

	vmstat_ok[k] = 0;
	if (!n || n > MEMCG_VMSTAT_SPAN_MAX)
		return;
	if (!bpf_probe_read_kernel(vmstat_copy[k], n * sizeof(long),
				   vmstat_base + vmstat_offset(k) + (__u64)vmstat_span[k].lo * sizeof(long)))
		vmstat_ok[k] = 1;
}

/* Before the reads of a cgroup: its vmstats pointer and both spans. */
static __always_inline void copy_vmstats(struct mem_cgroup *memcg)
{
	struct mem_cgroup___core *m = (void *)memcg;

	vmstat_base = NULL;
	vmstat_ok[0] = vmstat_ok[1] = 0;
	if (!vmstat_span[0].n && !vmstat_span[1].n)
		return;
	if (!bpf_core_field_exists(m->vmstats))
		return;
	vmstat_base = (const char *)BPF_CORE_READ(m, vmstats);
	if (!vmstat_base)
		return;
	copy_span(0);
	copy_span(1);
}

/*
 * memcg_page_state() and memcg_events() of mm/memcontrol.c: the aggregated
 * (flushed) counters, from the copy made by copy_vmstats(); a state below
 * zero (per-CPU drift) reads as 0, as the kernel prints it.
 *
 * The read of a slot in the copied span has no branch: with one per read
 * (whether the span was copied, whether the value is below zero) the
 * verifier's paths through the unrolled reads grew with the selection,
 * past its limit of 1,000,000 processed instructions at ~80 stats on Linux
 * 6.19. The slot and the span are constants to the verifier, so only the
 * slot's own path is checked.
 */
static __always_inline __u64 read_vmstat(bool event, __u32 slot)
{
	__u32 k = event ? 1 : 0, i = slot - vmstat_span[k].lo;
	__u64 ok, v;
	long w;

	if (i >= MEMCG_VMSTAT_SPAN_MAX) { /* past the span: one read of its own */
		if (!vmstat_base || bpf_probe_read_kernel(&w, sizeof(w), vmstat_base + vmstat_offset(event) +
							  (__u64)slot * sizeof(long)))
			return MEMCG_READ_INVALID;
		return !event && w < 0 ? 0 : w;
	}
	v = vmstat_copy[k][i];
	if (!event)
		v &= ~(__u64)((long)v >> 63);
	/* 1 or 0, opaque to the compiler, which would make a branch of the select */
	ok = vmstat_ok[k];
	asm volatile("" : "+r"(ok));
	return (v & -ok) | (MEMCG_READ_INVALID & (ok - 1));
}

/*
 * Per-node counters (memory.numa_stat): memcg->nodeinfo[nid] is the node's
 * struct mem_cgroup_per_node, whose lruvec_stats holds the flushed,
 * hierarchical state[] that the file prints: a struct embedded in it up to
 * Linux 6.10, a pointer to one since 6.11. Each flavor below matches only
 * the kernel whose member has its kind; user space gives the slots.
 */
struct lruvec_stats___node {
	long state[1];
} __attribute__((preserve_access_index));

struct mem_cgroup_per_node___ptr {
	struct lruvec_stats___node *lruvec_stats;
} __attribute__((preserve_access_index));

struct mem_cgroup_per_node___embedded {
	struct lruvec_stats___node lruvec_stats;
} __attribute__((preserve_access_index));

/* Where node @pn's lruvec_stats.state[] starts, or NULL. */
static __always_inline const char *node_state_base(const char *pn)
{
	const char *stats = NULL;

	if (bpf_core_field_exists(struct mem_cgroup_per_node___ptr, lruvec_stats)) {
		if (bpf_probe_read_kernel(&stats, sizeof(stats),
					  pn + bpf_core_field_offset(struct mem_cgroup_per_node___ptr, lruvec_stats)))
			return NULL;
	} else if (bpf_core_field_exists(struct mem_cgroup_per_node___embedded, lruvec_stats)) {
		stats = pn + bpf_core_field_offset(struct mem_cgroup_per_node___embedded, lruvec_stats);
	}
	if (!stats)
		return NULL;
	return stats + bpf_core_field_offset(struct lruvec_stats___node, state);
}

/* Set by user space: the nodes read (N_MEMORY, ascending) and the span of state[] they need. */
const volatile __u32 nr_nodes = 0;
const volatile __u32 node_ids[MEMCG_MAX_NODES] = {};
const volatile struct memcg_span node_span = {};

/* memcg->nodeinfo[node_ids[0]..node_ids[nr_nodes - 1]] of the cgroup being read */
__u64 node_info[MEMCG_MAX_NODES];

/*
 * The per-node values of a cgroup, into its record after the reads': one
 * read of its nodeinfo pointers, then per node its lruvec_stats pointer (6.11
 * on) and one copy of the span. A node that cannot be read is flagged.
 */
static __always_inline void copy_nodes(struct memcg_record *rec, struct mem_cgroup *memcg)
{
	__u32 n = node_span.n, first = node_ids[0], k, at;
	const char *base;

	if (!n || n > MEMCG_NODE_SPAN_MAX || first >= MEMCG_MAX_NODES || nr_nodes > MEMCG_MAX_NODES ||
	    node_ids[nr_nodes - 1] >= MEMCG_MAX_NODES || node_ids[nr_nodes - 1] < first)
		return;
	if (bpf_probe_read_kernel(node_info, (node_ids[nr_nodes - 1] - first + 1) * sizeof(__u64),
				  (const char *)memcg + bpf_core_field_offset(struct mem_cgroup, nodeinfo) +
					  (__u64)first * sizeof(void *))) {
		rec->nodes_failed = ~0ULL;
		return;
	}
	for (k = 0; k < MEMCG_MAX_NODES; k++) {
		if (k >= nr_nodes)
			break;
		at = node_ids[k] - first;
		base = at < MEMCG_MAX_NODES && node_info[at] ? node_state_base((const char *)node_info[at]) : NULL;
		if (!base || nr_reads + (k + 1) * n > MEMCG_SAMPLE_MAX_VALUES ||
		    bpf_probe_read_kernel(&rec->values[nr_reads + k * n], n * sizeof(long),
					  base + (__u64)node_span.lo * sizeof(long)))
			rec->nodes_failed |= 1ULL << k;
	}
}

/*
 * The stall total memory.pressure prints, in µs. The file aggregates the
 * per-CPU times when it is read; the kernel's PSI worker does the same every
 * 2 s while the group is busy, so this may be up to that much behind.
 */
/*
 * The kernel declares u64 total[NR_PSI_AGGREGATORS][NR_PSI_STATES - 1];
 * some BTF encoders flatten it to one dimension, and CO-RE only matches an
 * array against one of the same nesting. Row-major either way: user space
 * gives the flat index.
 */
struct psi_group___nested {
	__u64 total[2][6];
} __attribute__((preserve_access_index));

struct psi_group___flat {
	__u64 total[12];
} __attribute__((preserve_access_index));

/* Set by user space: some read is of memory.pressure. */
const volatile bool pressure_read = false;
/* cgrp->psi of the cgroup being read (NULL: PSI off, or no such read) */
const char *psi_base = NULL;

/* Before the reads of a cgroup: where its pressure totals are. */
static __always_inline void find_psi(struct cgroup *cgrp)
{
	psi_base = NULL;
	if (pressure_read && bpf_core_field_exists(cgrp->psi))
		psi_base = (const char *)BPF_CORE_READ(cgrp, psi);
}

static __always_inline __u64 read_pressure(__u32 index)
{
	__u32 offset;
	__u64 ns;

	if (!psi_base)	/* PSI is off */
		return MEMCG_READ_INVALID;
	if (bpf_core_field_exists(struct psi_group___nested, total))
		offset = bpf_core_field_offset(struct psi_group___nested, total);
	else if (bpf_core_field_exists(struct psi_group___flat, total))
		offset = bpf_core_field_offset(struct psi_group___flat, total);
	else
		return MEMCG_READ_INVALID;
	if (bpf_probe_read_kernel(&ns, sizeof(ns), psi_base + offset + index * sizeof(__u64)))
		return MEMCG_READ_INVALID;
	return ns / 1000;
}

/*
 * What the walk reads at the root of the hierarchy. On cgroup v2 the root
 * has memory.stat but none of the other files (no page counter or events
 * of its own; its memory.pressure is the whole system's), so only its
 * memory.stat (and memory.numa_stat) values are read: both backends give
 * the same set of values for it. On cgroup v1 the root has every file, computed as for any cgroup,
 * but memory.usage_in_bytes: mem_cgroup_usage() approximates the root's
 * usage from global counters, not from its page counter, and user space
 * reads that one from the file.
 */
static __always_inline bool read_at_root(__u32 kind, __u32 index)
{
	if (kind == MEMCG_READ_PAGE_STATE || kind == MEMCG_READ_VM_EVENT || kind == MEMCG_READ_VMSTAT_STATE ||
	    kind == MEMCG_READ_VMSTAT_EVENT)
		return true;
	return cgroup_v1 &&
	       !(kind == MEMCG_READ_PAGE_COUNTER && index == MEMCG_COUNTER_READ(MEMCG_COUNTER_MEMORY, MEMCG_FIELD_USAGE));
}

static __always_inline __u64 read_one(struct mem_cgroup *memcg, __u32 kind, __u32 index, bool is_root, bool core)
{
	if (is_root && !read_at_root(kind, index))
		return MEMCG_READ_INVALID;
	/* a CO-RE walk calls no memcg kfunc: the compiler drops these branches from it */
	if (!core) {
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
	}
	switch (kind) {
	case MEMCG_READ_VMSTAT_STATE:
		return read_vmstat(false, index);
	case MEMCG_READ_VMSTAT_EVENT:
		return read_vmstat(true, index);
	case MEMCG_READ_EVENT:
		return read_event(memcg, index, false);
	case MEMCG_READ_EVENT_LOCAL:
		return read_event(memcg, index, true);
	case MEMCG_READ_PAGE_COUNTER:
		return read_page_counter(memcg, index, !core);
	case MEMCG_READ_PRESSURE:
		return read_pressure(index);
	case MEMCG_READ_SOFT_LIMIT:
		return read_soft_limit(memcg);
	}
	return MEMCG_READ_INVALID;
}

/*
 * Levels below the walk root, relative to CgroupRoot whatever the depth of
 * the walk root in the hierarchy. The walk is pre-order, so the first
 * cgroup it visits is the walk root: every visited cgroup passes here
 * first, whether it has a memory controller or not.
 */
static __always_inline __u32 depth_of(struct cgroup *cgrp)
{
	if (!visited) {
		visited = 1;
		root_level = cgrp->level;
	}
	return cgrp->level - root_level;
}

static __always_inline bool too_deep(__u32 depth)
{
	return max_depth >= 0 && depth > (__u32)max_depth;
}

/*
 * The record of @cgrp, its header filled in; NULL when the walk skips it
 * (past the map's capacity: then overflow tells user space).
 */
static __always_inline struct memcg_record *begin_record(struct cgroup *cgrp, __u32 depth)
{
	__u32 slot;
	struct memcg_record *rec;
	long len;

	slot = nr_records++;
	if (slot >= capacity) {
		overflow = 1;
		return NULL;
	}
	rec = bpf_map_lookup_elem(&records, &slot);
	if (!rec) {
		overflow = 1;
		return NULL;
	}
	rec->cgroup_id = cgrp->kn->id;
	rec->parent_id = cgrp->self.parent ? cgrp->self.parent->cgroup->kn->id : 0;
	rec->depth = depth;
	rec->flags = 0;
	rec->nodes_failed = 0;
	/* the walk holds cgroup_mutex, which rename (cgroup_rename) takes too */
	len = bpf_probe_read_kernel_str(rec->name, sizeof(rec->name), cgrp->kn->name);
	rec->name_len = len > 0 && len < (long)sizeof(rec->name) ? len - 1 : MEMCG_NAME_UNKNOWN;
	return rec;
}

/*
 * A cgroup in rank_only: the rank read alone (no vmstats copy, no other
 * kfunc), flagged so that user space reads nothing else of the record.
 */
static __always_inline bool fill_rank_only(struct memcg_record *rec, struct cgroup *cgrp,
					   struct mem_cgroup *memcg, bool core)
{
	__u64 id = rec->cgroup_id;
	__u32 i = rank_read;

	if (!rank_only_used || !bpf_map_lookup_elem(&rank_only, &id))
		return false;
	rec->flags = MEMCG_RECORD_RANK_ONLY;
	/* the rank read (memory.current) needs neither: nothing of the last cgroup is read */
	vmstat_base = NULL;
	vmstat_ok[0] = vmstat_ok[1] = 0;
	psi_base = NULL;
	if (i < nr_reads && i < MEMCG_SAMPLE_MAX_READS)
		rec->values[i] = read_one(memcg, reads[i].kind, reads[i].index, cgrp->level == 0, core);
	return true;
}

static __always_inline void fill_values(struct memcg_record *rec, struct cgroup *cgrp, struct mem_cgroup *memcg,
					bool core)
{
	__u32 i;

	if (core)
		copy_vmstats(memcg);
	find_psi(cgrp);
	if (nr_nodes)
		copy_nodes(rec, memcg);
	for (i = 0; i < MEMCG_SAMPLE_MAX_READS; i++) {
		if (i >= nr_reads)
			break;
		rec->values[i] = read_one(memcg, reads[i].kind, reads[i].index, cgrp->level == 0, core);
	}
}

SEC("iter.s/cgroup")
int sample_memcg(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct memcg_record *rec;
	struct mem_cgroup *memcg;
	__u32 depth;

	if (!cgrp)	/* the walk is over */
		return 0;
	depth = depth_of(cgrp);
	if (too_deep(depth))
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
	rec = begin_record(cgrp, depth);
	if (rec && !fill_rank_only(rec, cgrp, memcg, false))
		fill_values(rec, cgrp, memcg, false);
	bpf_put_mem_cgroup(memcg);
	return 0;
}

/*
 * The memory controller's state of @cgrp: cgrp->subsys[memory_cgrp_id],
 * which is the css embedded in struct mem_cgroup. Read, not trusted: the
 * CO-RE walks only read through it. NULL where the controller is off.
 */
static __always_inline struct mem_cgroup *memcg_of(struct cgroup *cgrp)
{
	int id = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
	int count = bpf_core_enum_value(enum cgroup_subsys_id, CGROUP_SUBSYS_COUNT);
	struct cgroup_subsys_state *css;

	if (!bpf_core_enum_value_exists(enum cgroup_subsys_id, memory_cgrp_id) || id < 0 || id >= count)
		return NULL;
	css = BPF_CORE_READ(cgrp, subsys[id]);
	if (!css)
		return NULL;
	return (void *)((char *)css - bpf_core_field_offset(struct mem_cgroup, css));
}

static __always_inline int walk_core(struct cgroup *cgrp, bool flush)
{
	__u32 depth = depth_of(cgrp);
	struct memcg_record *rec;
	struct mem_cgroup *memcg;

	if (too_deep(depth))
		return 0;
	memcg = memcg_of(cgrp);
	if (!memcg) {
		nr_no_memcg++;
		return 0;
	}
	/* as above; cgroup_rstat_flush() flushes every controller of the subtree */
	if (flush && nr_records == 0)
		cgroup_rstat_flush(cgrp);
	rec = begin_record(cgrp, depth);
	if (rec && !fill_rank_only(rec, cgrp, memcg, true))
		fill_values(rec, cgrp, memcg, true);
	return 0;
}

SEC("iter.s/cgroup")
int sample_memcg_core_flush(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;

	if (!cgrp)	/* the walk is over */
		return 0;
	return walk_core(cgrp, true);
}

SEC("iter.s/cgroup")
int sample_memcg_core(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;

	if (!cgrp)
		return 0;
	return walk_core(cgrp, false);
}
