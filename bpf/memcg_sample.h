/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Record layout shared by memcg_sample.bpf.c and user space.
 *
 * User space sets the reads (kfunc kind + kernel enum value, resolved from
 * BTF) in .rodata before load. The program writes one record per visited
 * memory cgroup into the BPF_F_MMAPABLE array map "records": a header and
 * then one __u64 per read, in the order of the reads. The map's value size
 * is set at load time to memcg_record_size(nr_reads).
 *
 * After the reads' values come the per-node values, when user space asks
 * for them (nr_nodes): for node k (node_ids[k]), the span node_span of
 * memcg->nodeinfo[node_ids[k]]->lruvec_stats.state[] (memory.numa_stat's
 * counters), copied raw (a long each, < 0 from per-CPU drift) at
 * values[nr_reads + k * node_span.n]; bit k of nodes_failed says the copy
 * of node k failed.
 *
 * The header names the cgroup as the walk saw it: its id, its parent's id
 * and its kernfs name (the last component of its path). The walk is
 * pre-order, so a parent's record comes before its children's and user
 * space builds every path from the records alone, new and renamed cgroups
 * included, without reading cgroupfs.
 */
#ifndef MEMCG_SAMPLE_H
#define MEMCG_SAMPLE_H

#define MEMCG_SAMPLE_MAX_READS 256
/* The values of a record: the reads' and the per-node ones. */
#define MEMCG_SAMPLE_MAX_VALUES (MEMCG_SAMPLE_MAX_READS + MEMCG_MAX_NODES * MEMCG_NODE_SPAN_MAX)

/* Which kfunc serves a read. */
enum memcg_read_kind {
	MEMCG_READ_PAGE_STATE = 0,   /* bpf_mem_cgroup_page_state(memcg, index) */
	MEMCG_READ_VM_EVENT = 1,     /* bpf_mem_cgroup_vm_events(memcg, index) */
	MEMCG_READ_USAGE = 2,        /* bpf_mem_cgroup_usage(memcg) */
	MEMCG_READ_MEMORY_EVENT = 3, /* bpf_mem_cgroup_memory_events(memcg, index) */
	/* CO-RE reads of struct mem_cgroup and struct cgroup, no kfunc: */
	MEMCG_READ_EVENT_LOCAL = 4,  /* memcg->memory_events_local[index] (memory.events.local) */
	MEMCG_READ_PAGE_COUNTER = 5, /* index = MEMCG_COUNTER_READ(counter, field), in bytes */
	MEMCG_READ_PRESSURE = 6,     /* cgrp->psi->total[] at flat index, in µs (memory.pressure) */
	/* CO-RE reads for kernels without the memcg kfuncs (the bpf-core backend): */
	MEMCG_READ_VMSTAT_STATE = 7, /* memcg->vmstats->state[slot], raw (pages, bytes or KiB), >= 0 */
	MEMCG_READ_VMSTAT_EVENT = 8, /* memcg->vmstats->events[slot] */
	MEMCG_READ_EVENT = 9,        /* memcg->memory_events[index] (memory.events) */
	MEMCG_READ_SOFT_LIMIT = 10,  /* memcg->soft_limit, in bytes (v1 memory.soft_limit_in_bytes) */
};

/*
 * Which program walks: user space loads exactly one (the others are not
 * even sent to the kernel, so their kfuncs need not exist).
 */
enum memcg_walk_flavor {
	MEMCG_WALK_KFUNC = 0,       /* sample_memcg: the memcg kfuncs (Linux >= 7.0) */
	MEMCG_WALK_CORE_FLUSH = 1,  /* sample_memcg_core_flush: CO-RE, cgroup_rstat_flush() at the root */
	MEMCG_WALK_CORE = 2,        /* sample_memcg_core: CO-RE, user space flushes before the walk */
};

/* The page counters of struct mem_cgroup a MEMCG_READ_PAGE_COUNTER reads. */
enum memcg_counter {
	MEMCG_COUNTER_MEMORY = 0, /* memcg->memory */
	MEMCG_COUNTER_SWAP = 1,   /* memcg->swap */
};

/* Which field: the files memory.current/.max/.high/.low/.min/.peak print. */
enum memcg_counter_field {
	MEMCG_FIELD_USAGE = 0,
	MEMCG_FIELD_MAX = 1,
	MEMCG_FIELD_HIGH = 2,
	MEMCG_FIELD_LOW = 3,
	MEMCG_FIELD_MIN = 4,
	MEMCG_FIELD_WATERMARK = 5,
};

#define MEMCG_COUNTER_READ(counter, field) ((__u32)(counter) << 8 | (__u32)(field))

struct memcg_read {
	__u32 kind;
	__u32 index;
};

/*
 * bpf-core: the slots of memcg->vmstats->state[] (span 0) and ->events[]
 * (span 1) the reads use, from lo, n long: each walk copies them in one read
 * per cgroup. Slots past MEMCG_VMSTAT_SPAN_MAX from lo are read one by one.
 */
#define MEMCG_VMSTAT_SPAN_MAX 256

struct memcg_span {
	__u32 lo;
	__u32 n;
};

/*
 * Per-node values (CO-RE on every kernel: no kfunc takes a node): at most
 * MEMCG_MAX_NODES nodes (ids below it too), a span of at most
 * MEMCG_NODE_SPAN_MAX slots of each.
 */
#define MEMCG_MAX_NODES 64
#define MEMCG_NODE_SPAN_MAX 64

/* What the kfuncs return for an index the kernel does not track. */
#define MEMCG_READ_INVALID ((__u64)-1)
/* A limit at the page counter's maximum: "max" in the file (SAMPLE_VALUE_UNLIMITED). */
#define MEMCG_READ_UNLIMITED ((__u64)-2)

/*
 * Room for a kernfs name and its NUL: the VFS caps a name at NAME_MAX (255)
 * bytes; the spare bytes tell a name that fits from a truncated one.
 */
#define MEMCG_NAME_SIZE 264
/* name_len when the name did not fit or could not be read */
#define MEMCG_NAME_UNKNOWN ((__u32)-1)

/* rank_read when no read ranks cgroups */
#define MEMCG_NO_READ ((__u32)-1)
/* The record holds the rank read alone: the cgroup is in rank_only. */
#define MEMCG_RECORD_RANK_ONLY 1u

struct memcg_record {
	__u64 cgroup_id;  /* kernfs id == the cgroup directory's inode number */
	__u64 parent_id;  /* the parent's kernfs id, 0 for the hierarchy's root */
	__u32 depth;      /* levels below the walk root */
	__u32 name_len;   /* strlen(name), or MEMCG_NAME_UNKNOWN */
	__u32 flags;      /* MEMCG_RECORD_* */
	__u32 reserved;
	__u64 nodes_failed; /* bit k: node k's per-node values could not be read */
	char name[MEMCG_NAME_SIZE];
	__u64 values[];   /* nr_reads values, then nr_nodes * node_span.n per-node ones */
};

#define memcg_record_size(nr_values) (sizeof(struct memcg_record) + (nr_values) * sizeof(__u64))

#endif
