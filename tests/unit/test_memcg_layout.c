// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bpf-core slot maps against made-up kernel BTFs built with libbpf's
 * writer: a 6.1-like layout indexed by enum value, a 6.12-like packed one
 * (with and without CONFIG_MEMCG_V1, constants outside the lists between
 * listed ones), and layouts no list fits.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <bpf/btf.h>

#include "sampling/memcg_layout.h"

#define PAGE ((uint64_t)sysconf(_SC_PAGESIZE))

/* enum NAME with the constants in @names (NULL-ended), valued from @first on; returns the next value. */
static int add_enum(struct btf *btf, const char *name, const char *const *names, int first)
{
	int v = first;

	assert_true(btf__add_enum(btf, name, 4) > 0);
	for (; *names; names++)
		assert_int_equal(btf__add_enum_value(btf, *names, v++), 0);
	return v;
}

/* struct memcg_vmstats { long state[nr_state]; unsigned long events[nr_events]; } and struct mem_cgroup. */
static void add_structs(struct btf *btf, unsigned int nr_state, unsigned int nr_events, bool v1)
{
	int lng = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	int ulng = btf__add_int(btf, "long unsigned int", 8, 0);
	int idx = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	int state = btf__add_array(btf, idx, lng, nr_state);
	int events = btf__add_array(btf, idx, ulng, nr_events);

	assert_true(btf__add_struct(btf, "memcg_vmstats", 8 * (nr_state + nr_events)) > 0);
	assert_int_equal(btf__add_field(btf, "state", state, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, "events", events, 64 * nr_state, 0), 0);
	assert_true(btf__add_struct(btf, "mem_cgroup", 16) > 0);
	assert_int_equal(btf__add_field(btf, "id", ulng, 0, 0), 0);
	if (v1)
		assert_int_equal(btf__add_field(btf, "tcpmem", ulng, 64, 0), 0);
}

static const char *const node_6_1[] = {
	"NR_LRU_BASE", "NR_INACTIVE_ANON", "NR_ACTIVE_ANON", "NR_INACTIVE_FILE", "NR_ACTIVE_FILE",
	"NR_UNEVICTABLE", "NR_SLAB_RECLAIMABLE_B", "NR_SLAB_UNRECLAIMABLE_B", "NR_ISOLATED_ANON",
	"WORKINGSET_REFAULT_FILE", "NR_ANON_MAPPED", "NR_FILE_PAGES", "NR_KERNEL_STACK_KB", NULL,
};
static const char *const memcg_items[] = {
	"MEMCG_SWAP", "MEMCG_SOCK", "MEMCG_PERCPU_B", "MEMCG_VMALLOC", "MEMCG_KMEM", "MEMCG_ZSWAP_B",
	"MEMCG_ZSWAPPED", "MEMCG_NR_STAT", NULL,
};
static const char *const events_6_1[] = {
	"PGPGIN", "PGPGOUT", "PSWPIN", "PSWPOUT", "PGFAULT", "PGMAJFAULT", "NR_VM_EVENT_ITEMS", NULL,
};

/* Linux 6.1 to 6.10: both arrays as long as their enums: slots are the values. */
static void test_by_enum_value(void **state)
{
	struct btf *btf = btf__new_empty();
	struct memcg_layout *l;
	uint64_t unit;
	uint32_t slot;
	char why[256];
	int nr_node;

	(void)state;
	nr_node = add_enum(btf, "node_stat_item", node_6_1, 0);
	add_enum(btf, "memcg_stat_item", memcg_items, nr_node); /* MEMCG_NR_STAT = nr_node + 7 */
	add_enum(btf, "vm_event_item", events_6_1, 0);
	add_structs(btf, nr_node + 7, 6, false);
	assert_int_equal(memcg_layout_open(btf, &l, why, sizeof(why)), 0);
	assert_int_equal(memcg_layout_state(l, "NR_ANON_MAPPED", &slot, &unit), 0);
	assert_int_equal(slot, 10);
	assert_int_equal(unit, PAGE);
	assert_int_equal(memcg_layout_state(l, "MEMCG_SOCK", &slot, &unit), 0);
	assert_int_equal(slot, nr_node + 1);
	assert_int_equal(memcg_layout_state(l, "NR_SLAB_RECLAIMABLE_B", &slot, &unit), 0);
	assert_int_equal(unit, 1);
	assert_int_equal(memcg_layout_state(l, "NR_KERNEL_STACK_KB", &slot, &unit), 0);
	assert_int_equal(unit, 1024);
	assert_int_equal(memcg_layout_state(l, "WORKINGSET_REFAULT_FILE", &slot, &unit), 0);
	assert_int_equal(unit, 1); /* a count of refaults, not pages */
	assert_int_equal(memcg_layout_event(l, "PGMAJFAULT", &slot), 0);
	assert_int_equal(slot, 5);
	assert_int_equal(memcg_layout_state(l, "NR_NO_SUCH", &slot, &unit), -ENOENT);
	assert_non_null(strstr(memcg_layout_describe(l), "state[20] by enum values"));
	memcg_layout_free(l);
	btf__free(btf);
}

/* The node_stat_item constants of a 6.12-like kernel with CONFIG_SWAP, without NUMA balancing. */
static const char *const node_6_12[] = {
	"NR_LRU_BASE", "NR_INACTIVE_ANON", "NR_ACTIVE_ANON", "NR_INACTIVE_FILE", "NR_ACTIVE_FILE",
	"NR_UNEVICTABLE", "NR_SLAB_RECLAIMABLE_B", "NR_SLAB_UNRECLAIMABLE_B", "NR_ISOLATED_ANON",
	"NR_ISOLATED_FILE", "WORKINGSET_NODES", "WORKINGSET_REFAULT_BASE", "WORKINGSET_REFAULT_ANON",
	"WORKINGSET_REFAULT_FILE", "WORKINGSET_ACTIVATE_ANON", "WORKINGSET_ACTIVATE_FILE",
	"WORKINGSET_RESTORE_ANON", "WORKINGSET_RESTORE_FILE", "WORKINGSET_NODERECLAIM", "NR_ANON_MAPPED",
	"NR_FILE_MAPPED", "NR_FILE_PAGES", "NR_FILE_DIRTY", "NR_WRITEBACK", "NR_WRITEBACK_TEMP", "NR_SHMEM",
	"NR_SHMEM_THPS", "NR_SHMEM_PMDMAPPED", "NR_FILE_THPS", "NR_FILE_PMDMAPPED", "NR_ANON_THPS",
	"NR_VMSCAN_WRITE", "NR_KERNEL_STACK_KB", "NR_PAGETABLE", "NR_SECONDARY_PAGETABLE", "NR_SWAPCACHE",
	"PGDEMOTE_KSWAPD", "PGDEMOTE_DIRECT", "PGDEMOTE_KHUGEPAGED", NULL,
};
/* 27 listed node items (26 always + NR_SWAPCACHE) + PGDEMOTE x3 = 30, + 7 memcg items */
#define STATE_6_12 37
static const char *const events_6_12[] = {
	"PGPGIN", "PGPGOUT", "PSWPIN", "PSWPOUT", "PGFREE", "PGACTIVATE", "PGDEACTIVATE", "PGLAZYFREE",
	"PGFAULT", "PGMAJFAULT", "PGLAZYFREED", "PGREFILL", "PGREUSE", "PGSTEAL_KSWAPD", "PGSTEAL_DIRECT",
	"PGSTEAL_KHUGEPAGED", "PGSCAN_KSWAPD", "PGSCAN_DIRECT", "PGSCAN_KHUGEPAGED", "SWPIN_ZERO",
	"SWPOUT_ZERO", "THP_FAULT_ALLOC", "THP_COLLAPSE_ALLOC", "THP_SWPOUT", "THP_SWPOUT_FALLBACK",
	"NR_VM_EVENT_ITEMS", NULL,
};

static struct btf *btf_6_12(unsigned int nr_state, unsigned int nr_events, bool v1)
{
	struct btf *btf = btf__new_empty();
	int nr_node = add_enum(btf, "node_stat_item", node_6_12, 0);

	add_enum(btf, "memcg_stat_item", memcg_items, nr_node);
	add_enum(btf, "vm_event_item", events_6_12, 0);
	add_structs(btf, nr_state, nr_events, v1);
	return btf;
}

/* Linux 6.11+: slots are positions in the kernel's lists, as this configuration compiled them. */
static void test_packed(void **state)
{
	/* 6.12 events: PGPGIN/PGPGOUT (v1), 6 scan/steal, 7 more, SWPIN/OUT_ZERO, 4 THP */
	struct btf *btf = btf_6_12(STATE_6_12, 21, true);
	struct memcg_layout *l;
	uint64_t unit;
	uint32_t slot;
	char why[256];

	(void)state;
	assert_int_equal(memcg_layout_open(btf, &l, why, sizeof(why)), 0);
	assert_int_equal(memcg_layout_state(l, "NR_ANON_MAPPED", &slot, &unit), 0);
	assert_int_equal(slot, 14);
	assert_int_equal(memcg_layout_state(l, "NR_FILE_PAGES", &slot, &unit), 0);
	assert_int_equal(slot, 16);
	assert_int_equal(memcg_layout_state(l, "NR_SWAPCACHE", &slot, &unit), 0);
	assert_int_equal(slot, 26);
	assert_int_equal(memcg_layout_state(l, "PGDEMOTE_KSWAPD", &slot, &unit), 0);
	assert_int_equal(slot, 27); /* no PGPROMOTE_SUCCESS before it: NUMA balancing is off */
	assert_int_equal(unit, 1);
	assert_int_equal(memcg_layout_state(l, "MEMCG_SOCK", &slot, &unit), 0);
	assert_int_equal(slot, 31);
	/* in the enum, not in the list: no per-memcg counter */
	assert_int_equal(memcg_layout_state(l, "NR_ISOLATED_ANON", &slot, &unit), -ENOENT);
	assert_int_equal(memcg_layout_event(l, "PGFAULT", &slot), 0);
	assert_int_equal(slot, 8);
	assert_int_equal(memcg_layout_event(l, "PSWPIN", &slot), -ENOENT);
	assert_non_null(strstr(memcg_layout_describe(l), "events[21] by memcg_vm_event_stat of Linux 6.12"));
	memcg_layout_free(l);
	btf__free(btf);

	/* without CONFIG_MEMCG_V1 the list starts at PGSCAN_KSWAPD */
	btf = btf_6_12(STATE_6_12, 19, false);
	assert_int_equal(memcg_layout_open(btf, &l, why, sizeof(why)), 0);
	assert_int_equal(memcg_layout_event(l, "PGFAULT", &slot), 0);
	assert_int_equal(slot, 6);
	assert_int_equal(memcg_layout_event(l, "PGPGIN", &slot), -ENOENT);
	memcg_layout_free(l);
	btf__free(btf);
}

/* A layout none of the lists gives: refused, the array and its length named. */
static void test_unknown(void **state)
{
	struct btf *btf = btf_6_12(STATE_6_12 + 1, 21, true);
	struct memcg_layout *l = (void *)1;
	char why[256] = "";

	(void)state;
	assert_int_equal(memcg_layout_open(btf, &l, why, sizeof(why)), -EOPNOTSUPP);
	assert_null(l);
	assert_non_null(strstr(why, "memcg_vmstats.state has 38 slots"));
	btf__free(btf);

	btf = btf_6_12(STATE_6_12, 20, true);
	assert_int_equal(memcg_layout_open(btf, &l, why, sizeof(why)), -EOPNOTSUPP);
	assert_non_null(strstr(why, "memcg_vmstats.events has 20 slots"));
	btf__free(btf);

	btf = btf__new_empty();
	assert_int_equal(memcg_layout_open(btf, &l, why, sizeof(why)), -EOPNOTSUPP);
	assert_non_null(strstr(why, "no struct memcg_vmstats"));
	btf__free(btf);
}


/* struct lruvec_stats { long state[nr]; }: the per-node counters' array. */
static void add_lruvec_stats(struct btf *btf, unsigned int nr)
{
	int lng = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	int idx = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	int state = btf__add_array(btf, idx, lng, nr);

	assert_true(btf__add_struct(btf, "lruvec_stats", 8 * nr) > 0);
	assert_int_equal(btf__add_field(btf, "state", state, 0, 0), 0);
}

/* Per-node, 6.1 to 6.10: state[NR_VM_NODE_STAT_ITEMS], indexed by the enum value. */
static void test_node_by_enum_value(void **state)
{
	static const char *const names[] = { "NR_INACTIVE_ANON", "NR_ACTIVE_ANON", "NR_SLAB_RECLAIMABLE_B",
					     "NR_ANON_MAPPED", "NR_KERNEL_STACK_KB", "NR_VM_NODE_STAT_ITEMS", NULL };
	struct btf *btf = btf__new_empty();
	struct memcg_layout *l;
	uint64_t unit;
	uint32_t slot;
	char why[256];

	(void)state;
	add_enum(btf, "node_stat_item", names, 0);
	add_lruvec_stats(btf, 5);
	assert_int_equal(memcg_node_layout_open(btf, &l, why, sizeof(why)), 0);
	assert_int_equal(memcg_layout_state(l, "NR_ANON_MAPPED", &slot, &unit), 0);
	assert_int_equal(slot, 3);
	assert_int_equal(unit, PAGE);
	assert_int_equal(memcg_layout_state(l, "NR_KERNEL_STACK_KB", &slot, &unit), 0);
	assert_int_equal(unit, 1024);
	assert_int_equal(memcg_layout_state(l, "NR_SLAB_RECLAIMABLE_B", &slot, &unit), 0);
	assert_int_equal(unit, 1);
	assert_int_equal(memcg_layout_state(l, "NR_NO_SUCH", &slot, &unit), -ENOENT);
	assert_non_null(strstr(memcg_layout_describe(l), "lruvec_stats.state[5] by enum values"));
	memcg_layout_free(l);
	btf__free(btf);
}

/* Per-node, 6.11-6.19: the node items of the state list, packed (6.12: 30 with CONFIG_SWAP). */
static void test_node_packed_6_12(void **state)
{
	struct btf *btf = btf_6_12(STATE_6_12, 21, true);
	struct memcg_layout *l;
	uint64_t unit;
	uint32_t slot;
	char why[256];

	(void)state;
	add_lruvec_stats(btf, 30);
	assert_int_equal(memcg_node_layout_open(btf, &l, why, sizeof(why)), 0);
	assert_int_equal(memcg_layout_state(l, "NR_ANON_MAPPED", &slot, &unit), 0);
	assert_int_equal(slot, 14);
	assert_int_equal(memcg_layout_state(l, "NR_SWAPCACHE", &slot, &unit), 0);
	assert_int_equal(slot, 26);
	/* memcg items are not per node */
	assert_int_equal(memcg_layout_state(l, "MEMCG_SOCK", &slot, &unit), -ENOENT);
	assert_non_null(strstr(memcg_layout_describe(l), "of Linux 6.11-6.19"));
	memcg_layout_free(l);
	btf__free(btf);
}

/* The node_stat_item constants of a 7.3-like kernel (7.2's enum has them too). */
static const char *const node_7[] = {
	"NR_INACTIVE_ANON", "NR_ACTIVE_ANON", "NR_INACTIVE_FILE", "NR_ACTIVE_FILE", "NR_UNEVICTABLE",
	"NR_SLAB_RECLAIMABLE_B", "NR_SLAB_UNRECLAIMABLE_B", "NR_ISOLATED_ANON", "WORKINGSET_REFAULT_ANON",
	"WORKINGSET_REFAULT_FILE", "WORKINGSET_ACTIVATE_ANON", "WORKINGSET_ACTIVATE_FILE",
	"WORKINGSET_RESTORE_ANON", "WORKINGSET_RESTORE_FILE", "WORKINGSET_NODERECLAIM", "NR_ANON_MAPPED",
	"NR_FILE_MAPPED", "NR_FILE_PAGES", "NR_FILE_DIRTY", "NR_WRITEBACK", "NR_SHMEM", "NR_SHMEM_THPS",
	"NR_FILE_THPS", "NR_ANON_THPS", "NR_VMSCAN_WRITE", "NR_VMALLOC", "NR_KERNEL_STACK_KB", "NR_PAGETABLE",
	"NR_SECONDARY_PAGETABLE", "NR_SWAPCACHE", "PGPROMOTE_SUCCESS", "PGDEMOTE_KSWAPD", "PGDEMOTE_DIRECT",
	"PGDEMOTE_KHUGEPAGED", "PGDEMOTE_PROACTIVE", "PGSTEAL_KSWAPD", "PGSTEAL_DIRECT", "PGSTEAL_KHUGEPAGED",
	"PGSTEAL_PROACTIVE", "PGSTEAL_ANON", "PGSTEAL_FILE", "PGSCAN_KSWAPD", "PGSCAN_DIRECT",
	"PGSCAN_KHUGEPAGED", "PGSCAN_PROACTIVE", "PGSCAN_ANON", "PGSCAN_FILE", "PGROTATE_ANON", "PGROTATE_FILE",
	"PGREFILL", "NR_HUGETLB", "NR_VM_NODE_STAT_ITEMS", NULL,
};

/* 7.x: the array's length tells 7.2 (47) from 7.3 (50, NR_VMSCAN_WRITE at 23); other lengths are refused. */
static void test_node_packed_7(void **state)
{
	static const struct {
		unsigned int nr;
		int stack_slot; /* -1: refused */
	} cases[] = { { 47, 24 }, { 50, 25 }, { 48, -1 } };
	uint64_t unit;
	uint32_t slot;
	char why[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct btf *btf = btf__new_empty();
		struct memcg_layout *l = NULL;

		add_enum(btf, "node_stat_item", node_7, 0);
		add_lruvec_stats(btf, cases[i].nr);
		if (cases[i].stack_slot < 0) {
			assert_int_equal(memcg_node_layout_open(btf, &l, why, sizeof(why)), -EOPNOTSUPP);
			assert_null(l);
			assert_non_null(strstr(why, "lruvec_stats.state has 48 slots"));
			btf__free(btf);
			continue;
		}
		assert_int_equal(memcg_node_layout_open(btf, &l, why, sizeof(why)), 0);
		assert_int_equal(memcg_layout_state(l, "NR_KERNEL_STACK_KB", &slot, &unit), 0);
		assert_int_equal(slot, cases[i].stack_slot);
		assert_int_equal(memcg_layout_state(l, "NR_SHMEM", &slot, &unit), 0);
		assert_int_equal(slot, 19);
		memcg_layout_free(l);
		btf__free(btf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_enum_value),
		cmocka_unit_test(test_packed),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_node_by_enum_value),
		cmocka_unit_test(test_node_packed_6_12),
		cmocka_unit_test(test_node_packed_7),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
