/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where a kernel without the memcg kfuncs keeps each memcg counter: the slot
 * of struct memcg_vmstats' state[] and events[] arrays (mm/memcontrol.c) that
 * memcg_page_state() and memcg_events() read for an enum constant.
 *
 * Two schemes, told apart by the arrays' lengths in the kernel's BTF:
 *  - by enum value: state[MEMCG_NR_STAT] is indexed by the node_stat_item /
 *    memcg_stat_item value itself (Linux 6.1 to 6.10), events[NR_VM_EVENT_ITEMS]
 *    by the vm_event_item value (before the events were packed);
 *  - packed: the kernel builds an index at boot from a list in
 *    mm/memcontrol.c; slot i is the i-th entry of the list that this kernel's
 *    configuration compiled in. State slots come from memcg_node_stat_items[]
 *    followed by memcg_stat_items[] (since Linux 6.11, "memcg: reduce memory
 *    consumption by memcg stats" series); event slots from
 *    memcg_vm_event_stat[] (packed since "memcg: reduce size of memcg vmstats
 *    structures", in Debian's 6.1.y too).
 *
 * A list entry inside an #ifdef in the kernel is SLOT_IF_ENUM when the same
 * #ifdef guards its enum constant (the constant exists exactly when the entry
 * does), and SLOT_IF_MEMCG_V1 for CONFIG_MEMCG_V1, told by struct mem_cgroup's
 * v1-only member tcpmem. A list fits a kernel when every SLOT_ALWAYS constant
 * exists and the entries it keeps are exactly as many as the BTF array has
 * slots; the first list that fits is used, and the start-up check (see
 * sampling/core_check.c) compares what it reads with memory.stat before
 * anything is shipped.
 *
 * Checked against: Debian's linux-source-6.1 6.1.176 and linux-source-6.12
 * 6.12.117 (mm/memcontrol.c, read line by line), and the running 6.18 kernel
 * of the build machine (its BTF: state[40], events[31], and the start-up check
 * against its memory.stat).
 * A new kernel adds a list here (newest first), citing where it was read.
 */
#ifndef MEMCG_BPF_MEMCG_SLOT_MAPS_H
#define MEMCG_BPF_MEMCG_SLOT_MAPS_H

#include <stddef.h>
#include <string.h>

enum slot_when {
	SLOT_ALWAYS,
	SLOT_IF_ENUM,     /* #ifdef'd together with its enum constant */
	SLOT_IF_MEMCG_V1, /* #ifdef CONFIG_MEMCG_V1 (Linux >= 6.11) */
};

struct slot_entry {
	const char *name; /* the enum constant */
	enum slot_when when;
};

struct slot_list {
	const char *name;   /* for the log: which list this kernel matched */
	const struct slot_entry *entries;
	size_t nr_entries;
	const struct slot_entry *tail; /* more entries after them, or NULL */
	size_t nr_tail;
};

/*
 * The test build (tests/vm: memcg-bpf-sample-corrupt) stands for a kernel
 * whose layout these maps get wrong: NR_ANON_MAPPED and NR_FILE_PAGES read
 * each other's slot, whichever scheme the kernel uses. The start-up check
 * must then name anon and file and fall back to text.
 */
static inline const char *slot_name(const char *name)
{
#ifdef MEMCG_BPF_CORRUPT_SLOT_MAP
	if (!strcmp(name, "NR_ANON_MAPPED"))
		return "NR_FILE_PAGES";
	if (!strcmp(name, "NR_FILE_PAGES"))
		return "NR_ANON_MAPPED";
#endif
	return name;
}

#define SLOT_LIST(n, e) { n, e, sizeof(e) / sizeof((e)[0]), NULL, 0 }
#define SLOT_LIST2(n, e, t) { n, e, sizeof(e) / sizeof((e)[0]), t, sizeof(t) / sizeof((t)[0]) }

/*
 * memcg_node_stat_items[], Linux 6.11 to 6.19: the head of memcg_vmstats'
 * state[] and the whole of the per-node lruvec_stats' state[].
 * 6.12.117: up to PGDEMOTE_KHUGEPAGED. PGDEMOTE_PROACTIVE (6.15, "mm: add
 * pgdemote_proactive") and NR_HUGETLB (CONFIG_HUGETLB_PAGE) joined the list
 * when they joined enum node_stat_item, so they are SLOT_IF_ENUM here.
 */
static const struct slot_entry memcg_node_slots_6_11[] = {
	{ "NR_INACTIVE_ANON", SLOT_ALWAYS },
	{ "NR_ACTIVE_ANON", SLOT_ALWAYS },
	{ "NR_INACTIVE_FILE", SLOT_ALWAYS },
	{ "NR_ACTIVE_FILE", SLOT_ALWAYS },
	{ "NR_UNEVICTABLE", SLOT_ALWAYS },
	{ "NR_SLAB_RECLAIMABLE_B", SLOT_ALWAYS },
	{ "NR_SLAB_UNRECLAIMABLE_B", SLOT_ALWAYS },
	{ "WORKINGSET_REFAULT_ANON", SLOT_ALWAYS },
	{ "WORKINGSET_REFAULT_FILE", SLOT_ALWAYS },
	{ "WORKINGSET_ACTIVATE_ANON", SLOT_ALWAYS },
	{ "WORKINGSET_ACTIVATE_FILE", SLOT_ALWAYS },
	{ "WORKINGSET_RESTORE_ANON", SLOT_ALWAYS },
	{ "WORKINGSET_RESTORE_FILE", SLOT_ALWAYS },
	{ "WORKINGSET_NODERECLAIM", SLOT_ALWAYS },
	{ "NR_ANON_MAPPED", SLOT_ALWAYS },
	{ "NR_FILE_MAPPED", SLOT_ALWAYS },
	{ "NR_FILE_PAGES", SLOT_ALWAYS },
	{ "NR_FILE_DIRTY", SLOT_ALWAYS },
	{ "NR_WRITEBACK", SLOT_ALWAYS },
	{ "NR_SHMEM", SLOT_ALWAYS },
	{ "NR_SHMEM_THPS", SLOT_ALWAYS },
	{ "NR_FILE_THPS", SLOT_ALWAYS },
	{ "NR_ANON_THPS", SLOT_ALWAYS },
	{ "NR_KERNEL_STACK_KB", SLOT_ALWAYS },
	{ "NR_PAGETABLE", SLOT_ALWAYS },
	{ "NR_SECONDARY_PAGETABLE", SLOT_ALWAYS },
	{ "NR_SWAPCACHE", SLOT_IF_ENUM },      /* CONFIG_SWAP */
	{ "PGPROMOTE_SUCCESS", SLOT_IF_ENUM }, /* CONFIG_NUMA_BALANCING */
	{ "PGDEMOTE_KSWAPD", SLOT_ALWAYS },
	{ "PGDEMOTE_DIRECT", SLOT_ALWAYS },
	{ "PGDEMOTE_KHUGEPAGED", SLOT_ALWAYS },
	{ "PGDEMOTE_PROACTIVE", SLOT_IF_ENUM },
	{ "NR_HUGETLB", SLOT_IF_ENUM },        /* CONFIG_HUGETLB_PAGE */
};

/* memcg_stat_items[], Linux 6.11 to 6.19: the tail of memcg_vmstats' state[]. */
static const struct slot_entry memcg_stat_slots_6_11[] = {
	{ "MEMCG_SWAP", SLOT_ALWAYS },
	{ "MEMCG_SOCK", SLOT_ALWAYS },
	{ "MEMCG_PERCPU_B", SLOT_ALWAYS },
	{ "MEMCG_VMALLOC", SLOT_ALWAYS },
	{ "MEMCG_KMEM", SLOT_ALWAYS },
	{ "MEMCG_ZSWAP_B", SLOT_ALWAYS },
	{ "MEMCG_ZSWAPPED", SLOT_ALWAYS },
};

/* memcg_vm_event_stat[], Linux 6.12 (6.12.117). */
static const struct slot_entry memcg_event_slots_6_12[] = {
	{ "PGPGIN", SLOT_IF_MEMCG_V1 },
	{ "PGPGOUT", SLOT_IF_MEMCG_V1 },
	{ "PGSCAN_KSWAPD", SLOT_ALWAYS },
	{ "PGSCAN_DIRECT", SLOT_ALWAYS },
	{ "PGSCAN_KHUGEPAGED", SLOT_ALWAYS },
	{ "PGSTEAL_KSWAPD", SLOT_ALWAYS },
	{ "PGSTEAL_DIRECT", SLOT_ALWAYS },
	{ "PGSTEAL_KHUGEPAGED", SLOT_ALWAYS },
	{ "PGFAULT", SLOT_ALWAYS },
	{ "PGMAJFAULT", SLOT_ALWAYS },
	{ "PGREFILL", SLOT_ALWAYS },
	{ "PGACTIVATE", SLOT_ALWAYS },
	{ "PGDEACTIVATE", SLOT_ALWAYS },
	{ "PGLAZYFREE", SLOT_ALWAYS },
	{ "PGLAZYFREED", SLOT_ALWAYS },
	{ "SWPIN_ZERO", SLOT_IF_ENUM },  /* CONFIG_SWAP */
	{ "SWPOUT_ZERO", SLOT_IF_ENUM },
	{ "ZSWPIN", SLOT_IF_ENUM },      /* CONFIG_ZSWAP */
	{ "ZSWPOUT", SLOT_IF_ENUM },
	{ "ZSWPWB", SLOT_IF_ENUM },
	{ "THP_FAULT_ALLOC", SLOT_IF_ENUM }, /* CONFIG_TRANSPARENT_HUGEPAGE */
	{ "THP_COLLAPSE_ALLOC", SLOT_IF_ENUM },
	{ "THP_SWPOUT", SLOT_IF_ENUM },
	{ "THP_SWPOUT_FALLBACK", SLOT_IF_ENUM },
	{ "NUMA_PAGE_MIGRATE", SLOT_IF_ENUM }, /* CONFIG_NUMA_BALANCING */
	{ "NUMA_PTE_UPDATES", SLOT_IF_ENUM },
	{ "NUMA_HINT_FAULTS", SLOT_IF_ENUM },
};

/*
 * memcg_vm_event_stat[] since PSWPIN/PSWPOUT joined it (after 6.12; read in a
 * later mm/memcontrol.c), with the proactive-reclaim counters of 6.15
 * ("mm: add pgscan_proactive/pgsteal_proactive", with their enum constants)
 * after their khugepaged siblings. The 6.18 BTF has events[31], which this
 * list gives; the start-up check vouches for the order.
 */
static const struct slot_entry memcg_event_slots_6_14[] = {
	{ "PGPGIN", SLOT_IF_MEMCG_V1 },
	{ "PGPGOUT", SLOT_IF_MEMCG_V1 },
	{ "PSWPIN", SLOT_ALWAYS },
	{ "PSWPOUT", SLOT_ALWAYS },
	{ "PGSCAN_KSWAPD", SLOT_ALWAYS },
	{ "PGSCAN_DIRECT", SLOT_ALWAYS },
	{ "PGSCAN_KHUGEPAGED", SLOT_ALWAYS },
	{ "PGSCAN_PROACTIVE", SLOT_IF_ENUM },
	{ "PGSTEAL_KSWAPD", SLOT_ALWAYS },
	{ "PGSTEAL_DIRECT", SLOT_ALWAYS },
	{ "PGSTEAL_KHUGEPAGED", SLOT_ALWAYS },
	{ "PGSTEAL_PROACTIVE", SLOT_IF_ENUM },
	{ "PGFAULT", SLOT_ALWAYS },
	{ "PGMAJFAULT", SLOT_ALWAYS },
	{ "PGREFILL", SLOT_ALWAYS },
	{ "PGACTIVATE", SLOT_ALWAYS },
	{ "PGDEACTIVATE", SLOT_ALWAYS },
	{ "PGLAZYFREE", SLOT_ALWAYS },
	{ "PGLAZYFREED", SLOT_ALWAYS },
	{ "SWPIN_ZERO", SLOT_IF_ENUM },
	{ "SWPOUT_ZERO", SLOT_IF_ENUM },
	{ "ZSWPIN", SLOT_IF_ENUM },
	{ "ZSWPOUT", SLOT_IF_ENUM },
	{ "ZSWPWB", SLOT_IF_ENUM },
	{ "THP_FAULT_ALLOC", SLOT_IF_ENUM },
	{ "THP_COLLAPSE_ALLOC", SLOT_IF_ENUM },
	{ "THP_SWPOUT", SLOT_IF_ENUM },
	{ "THP_SWPOUT_FALLBACK", SLOT_IF_ENUM },
	{ "NUMA_PAGE_MIGRATE", SLOT_IF_ENUM },
	{ "NUMA_PTE_UPDATES", SLOT_IF_ENUM },
	{ "NUMA_HINT_FAULTS", SLOT_IF_ENUM },
};

/*
 * memcg_vm_event_stat[], Debian's Linux 6.1 (6.1.176): the first packed list,
 * before the khugepaged counters; ZSWPIN/ZSWPOUT under CONFIG_MEMCG_KMEM &&
 * CONFIG_ZSWAP (KMEM is always on where ZSWAP's enum constants exist).
 */
static const struct slot_entry memcg_event_slots_6_1[] = {
	{ "PGPGIN", SLOT_ALWAYS },
	{ "PGPGOUT", SLOT_ALWAYS },
	{ "PGSCAN_KSWAPD", SLOT_ALWAYS },
	{ "PGSCAN_DIRECT", SLOT_ALWAYS },
	{ "PGSTEAL_KSWAPD", SLOT_ALWAYS },
	{ "PGSTEAL_DIRECT", SLOT_ALWAYS },
	{ "PGFAULT", SLOT_ALWAYS },
	{ "PGMAJFAULT", SLOT_ALWAYS },
	{ "PGREFILL", SLOT_ALWAYS },
	{ "PGACTIVATE", SLOT_ALWAYS },
	{ "PGDEACTIVATE", SLOT_ALWAYS },
	{ "PGLAZYFREE", SLOT_ALWAYS },
	{ "PGLAZYFREED", SLOT_ALWAYS },
	{ "ZSWPIN", SLOT_IF_ENUM },
	{ "ZSWPOUT", SLOT_IF_ENUM },
	{ "THP_FAULT_ALLOC", SLOT_IF_ENUM },
	{ "THP_COLLAPSE_ALLOC", SLOT_IF_ENUM },
};

/*
 * memcg_node_stat_items[] of Debian's Linux 7.2 (7.2.13, mm/memcontrol.c):
 * vmalloc became a node stat (NR_VMALLOC), and the reclaim counters
 * (PGSTEAL_*, PGSCAN_*, PGREFILL) moved in from the events. The per-node
 * lruvec_stats.state[] has 47 slots (BTF of 7.2.13-cloud).
 */
#define NODE_SLOTS_HEAD \
	{ "NR_INACTIVE_ANON", SLOT_ALWAYS }, { "NR_ACTIVE_ANON", SLOT_ALWAYS }, \
	{ "NR_INACTIVE_FILE", SLOT_ALWAYS }, { "NR_ACTIVE_FILE", SLOT_ALWAYS }, \
	{ "NR_UNEVICTABLE", SLOT_ALWAYS }, { "NR_SLAB_RECLAIMABLE_B", SLOT_ALWAYS }, \
	{ "NR_SLAB_UNRECLAIMABLE_B", SLOT_ALWAYS }, { "WORKINGSET_REFAULT_ANON", SLOT_ALWAYS }, \
	{ "WORKINGSET_REFAULT_FILE", SLOT_ALWAYS }, { "WORKINGSET_ACTIVATE_ANON", SLOT_ALWAYS }, \
	{ "WORKINGSET_ACTIVATE_FILE", SLOT_ALWAYS }, { "WORKINGSET_RESTORE_ANON", SLOT_ALWAYS }, \
	{ "WORKINGSET_RESTORE_FILE", SLOT_ALWAYS }, { "WORKINGSET_NODERECLAIM", SLOT_ALWAYS }, \
	{ "NR_ANON_MAPPED", SLOT_ALWAYS }, { "NR_FILE_MAPPED", SLOT_ALWAYS }, \
	{ "NR_FILE_PAGES", SLOT_ALWAYS }, { "NR_FILE_DIRTY", SLOT_ALWAYS }, \
	{ "NR_WRITEBACK", SLOT_ALWAYS }, { "NR_SHMEM", SLOT_ALWAYS }, \
	{ "NR_SHMEM_THPS", SLOT_ALWAYS }, { "NR_FILE_THPS", SLOT_ALWAYS }, \
	{ "NR_ANON_THPS", SLOT_ALWAYS }
#define NODE_SLOTS_7_MID \
	{ "NR_VMALLOC", SLOT_ALWAYS }, { "NR_KERNEL_STACK_KB", SLOT_ALWAYS }, \
	{ "NR_PAGETABLE", SLOT_ALWAYS }, { "NR_SECONDARY_PAGETABLE", SLOT_ALWAYS }, \
	{ "NR_SWAPCACHE", SLOT_IF_ENUM }, { "PGPROMOTE_SUCCESS", SLOT_IF_ENUM }, \
	{ "PGDEMOTE_KSWAPD", SLOT_ALWAYS }, { "PGDEMOTE_DIRECT", SLOT_ALWAYS }, \
	{ "PGDEMOTE_KHUGEPAGED", SLOT_ALWAYS }, { "PGDEMOTE_PROACTIVE", SLOT_ALWAYS }, \
	{ "PGSTEAL_KSWAPD", SLOT_ALWAYS }, { "PGSTEAL_DIRECT", SLOT_ALWAYS }, \
	{ "PGSTEAL_KHUGEPAGED", SLOT_ALWAYS }, { "PGSTEAL_PROACTIVE", SLOT_ALWAYS }, \
	{ "PGSTEAL_ANON", SLOT_ALWAYS }, { "PGSTEAL_FILE", SLOT_ALWAYS }, \
	{ "PGSCAN_KSWAPD", SLOT_ALWAYS }, { "PGSCAN_DIRECT", SLOT_ALWAYS }, \
	{ "PGSCAN_KHUGEPAGED", SLOT_ALWAYS }, { "PGSCAN_PROACTIVE", SLOT_ALWAYS }, \
	{ "PGSCAN_ANON", SLOT_ALWAYS }, { "PGSCAN_FILE", SLOT_ALWAYS }

static const struct slot_entry memcg_node_slots_7_2[] = {
	NODE_SLOTS_HEAD,
	NODE_SLOTS_7_MID,
	{ "PGREFILL", SLOT_ALWAYS },
	{ "NR_HUGETLB", SLOT_IF_ENUM },
};

/*
 * Debian's Linux 7.3 (7.3.4): NR_VMSCAN_WRITE after NR_ANON_THPS and
 * PGROTATE_ANON/_FILE before PGREFILL; 50 slots. Both constants are in 7.2's
 * enum too, so the array's length tells the two apart.
 */
static const struct slot_entry memcg_node_slots_7_3[] = {
	NODE_SLOTS_HEAD,
	{ "NR_VMSCAN_WRITE", SLOT_ALWAYS },
	NODE_SLOTS_7_MID,
	{ "PGROTATE_ANON", SLOT_ALWAYS },
	{ "PGROTATE_FILE", SLOT_ALWAYS },
	{ "PGREFILL", SLOT_ALWAYS },
	{ "NR_HUGETLB", SLOT_IF_ENUM },
};

static const struct slot_list memcg_state_lists[] = {
	SLOT_LIST2("memcg_node_stat_items + memcg_stat_items of Linux 6.11-6.19", memcg_node_slots_6_11,
		   memcg_stat_slots_6_11),
};

/* The per-node lruvec_stats.state[] (memory.numa_stat), newest first. */
static const struct slot_list memcg_node_lists[] = {
	SLOT_LIST("memcg_node_stat_items of Linux 7.3", memcg_node_slots_7_3),
	SLOT_LIST("memcg_node_stat_items of Linux 7.2", memcg_node_slots_7_2),
	SLOT_LIST("memcg_node_stat_items of Linux 6.11-6.19", memcg_node_slots_6_11),
};

static const struct slot_list memcg_event_lists[] = {
	SLOT_LIST("memcg_vm_event_stat of Linux 6.14-6.19", memcg_event_slots_6_14),
	SLOT_LIST("memcg_vm_event_stat of Linux 6.12", memcg_event_slots_6_12),
	SLOT_LIST("memcg_vm_event_stat of Linux 6.1", memcg_event_slots_6_1),
};

#endif
