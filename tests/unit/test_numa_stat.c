// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-node stats: memory.numa_stat's parser (numa_stat_parse.c), the node
 * list of has_memory (numa_nodes.c), the per-node columns and their
 * selection (stat_catalog.c) and their metric names (metric_names.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sampling/numa_nodes.h"
#include "sampling/numa_stat_parse.h"
#include "sampling/stat_catalog.h"
#include "series/metric_names.h"

#define MISSING UINT64_MAX

static size_t parse_str(struct numa_stat_parser *p, const char *s, uint64_t *v)
{
	return numa_stat_parse(p, s, strlen(s), v);
}

/* v2: "stat N0=v N1=v" in bytes; each wanted (stat, node) into its slot, the rest untouched. */
static void test_parse_v2(void **state)
{
	static const char *const keys[] = { "anon", "anon", "file", "workingset_refault_file" };
	static const unsigned int nodes[] = { 0, 1, 1, 0 };
	static const size_t slots[] = { 3, 2, 1, 0 };
	const char *text = "anon N0=4096 N1=8192\nfile N0=1 N1=12288\nkernel_stack N0=16384 N1=0\n"
			   "workingset_refault_file N0=7 N1=9\n";
	struct numa_stat_parser *p;
	uint64_t v[5] = { MISSING, MISSING, MISSING, MISSING, MISSING };

	(void)state;
	assert_int_equal(numa_stat_parser_new(keys, nodes, slots, 4, 1, &p), 0);
	assert_int_equal(parse_str(p, text, v), 4);
	assert_int_equal(v[3], 4096);
	assert_int_equal(v[2], 8192);
	assert_int_equal(v[1], 12288);
	assert_int_equal(v[0], 7);
	assert_true(v[4] == MISSING);
	/* lines in another order, a node missing, no last newline */
	v[0] = v[1] = v[2] = v[3] = MISSING;
	assert_int_equal(parse_str(p, "file N0=5\nanon N0=1 N1=2", v), 2);
	assert_int_equal(v[3], 1);
	assert_int_equal(v[2], 2);
	assert_true(v[1] == MISSING);
	assert_int_equal(numa_stat_parser_bad_values(p), 0);
	numa_stat_parser_free(p);
}

/* v1: "hierarchical_anon=sum N0=v N1=v" in pages; the sum is no node's, "anon=" is not "hierarchical_anon=". */
static void test_parse_v1(void **state)
{
	static const char *const keys[] = { "hierarchical_anon", "hierarchical_anon" };
	static const unsigned int nodes[] = { 0, 1 };
	static const size_t slots[] = { 0, 1 };
	const char *text = "total=30 N0=10 N1=20\nanon=3 N0=1 N1=2\nhierarchical_anon=30 N0=10 N1=20\n";
	struct numa_stat_parser *p;
	uint64_t v[2] = { MISSING, MISSING };

	(void)state;
	assert_int_equal(numa_stat_parser_new(keys, nodes, slots, 2, 4096, &p), 0);
	assert_int_equal(parse_str(p, text, v), 2);
	assert_int_equal(v[0], 10 * 4096);
	assert_int_equal(v[1], 20 * 4096);
	numa_stat_parser_free(p);
}

/* Not a number, or too big once multiplied: left missing and counted; bad keys refused. */
static void test_parse_bad(void **state)
{
	static const char *const keys[] = { "anon", "anon" };
	static const unsigned int nodes[] = { 0, 1 };
	static const size_t slots[] = { 0, 1 };
	static const char *const bad_key[] = { "an on" };
	struct numa_stat_parser *p;
	uint64_t v[2] = { MISSING, MISSING };

	(void)state;
	assert_int_equal(numa_stat_parser_new(keys, nodes, slots, 2, 4096, &p), 0);
	assert_int_equal(parse_str(p, "anon N0=x N1=18446744073709551615\n", v), 0);
	assert_true(v[0] == MISSING && v[1] == MISSING);
	assert_int_equal(numa_stat_parser_bad_values(p), 2);
	numa_stat_parser_free(p);
	assert_int_equal(numa_stat_parser_new(bad_key, nodes, slots, 1, 1, &p), -EINVAL);
	assert_int_equal(numa_stat_has_key("anon N0=1\nfile N0=2\n", 20, "file"), 1);
	assert_int_equal(numa_stat_has_key("anon N0=1\nfile N0=2\n", 20, "fil"), 0);
}

static void test_nodes_parse(void **state)
{
	unsigned int ids[8];
	size_t n;

	(void)state;
	assert_int_equal(numa_nodes_parse("0\n", 64, ids, 8, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(numa_nodes_parse("0-1,3,5-6\n", 64, ids, 8, &n), 0);
	assert_int_equal(n, 5);
	assert_int_equal(ids[2], 3);
	assert_int_equal(ids[4], 6);
	assert_int_equal(numa_nodes_parse("", 64, ids, 8, &n), -EINVAL);
	assert_int_equal(numa_nodes_parse("1-0", 64, ids, 8, &n), -EINVAL);
	assert_int_equal(numa_nodes_parse("0,0", 64, ids, 8, &n), -EINVAL);
	assert_int_equal(numa_nodes_parse("0,x", 64, ids, 8, &n), -EINVAL);
	assert_int_equal(numa_nodes_parse("64", 64, ids, 8, &n), -ERANGE);
	assert_int_equal(numa_nodes_parse("0-8", 64, ids, 8, &n), -ERANGE);
}

/* One stat_def per (stat, node), the same each time; names for the table, collectd and the wire. */
static void test_node_columns(void **state)
{
	const struct stat_def *anon = numa_stat_lookup("anon"), *a0, *a1;
	char name[METRIC_NAME_MAX];

	(void)state;
	assert_non_null(anon);
	assert_null(stat_lookup("numa_anon_N0"));
	assert_null(numa_stat_lookup("usage")); /* no per-node value */
	a0 = stat_on_node(anon, 0);
	a1 = stat_on_node(anon, 1);
	assert_ptr_equal(stat_on_node(anon, 1), a1);
	assert_ptr_not_equal(a0, a1);
	assert_null(stat_on_node(anon, STAT_MAX_NODES));
	assert_null(stat_on_node(stat_lookup("anon"), 0)); /* not a template */
	assert_string_equal(a1->node, "1");
	assert_string_equal(stat_column_name(a1), "numa_anon_N1");
	assert_string_equal(stat_column_name(stat_lookup("anon")), "anon");
	assert_string_equal(stat_key(a1, 1), "hierarchical_anon");
	assert_true(stat_on_version(a1, 1));
	assert_false(stat_on_version(stat_on_node(numa_stat_lookup("shmem"), 0), 1));
	assert_true(metric_name(a1, name, sizeof(name)) > 0);
	assert_string_equal(name, "memcg_numa_anon_bytes");
	assert_true(metric_name(stat_on_node(numa_stat_lookup("workingset_refault_file"), 0), name, sizeof(name)) > 0);
	assert_string_equal(name, "memcg_numa_workingset_refault_file_total");
}

/* Every line of memory.numa_stat of Linux 7.3 (Debian's 7.3.4, 43 lines) is a per-node template. */
static void test_templates(void **state)
{
	static const char *const lines_7_3[] = {
		"anon", "file", "kernel_stack", "pagetables", "sec_pagetables", "vmalloc", "shmem",
		"file_mapped", "file_dirty", "file_writeback", "swapcached", "anon_thp", "file_thp",
		"shmem_thp", "inactive_anon", "active_anon", "inactive_file", "active_file", "unevictable",
		"slab_reclaimable", "slab_unreclaimable", "hugetlb", "workingset_refault_anon",
		"workingset_refault_file", "workingset_activate_anon", "workingset_activate_file",
		"workingset_restore_anon", "workingset_restore_file", "workingset_nodereclaim",
		"pgdemote_kswapd", "pgdemote_direct", "pgdemote_khugepaged", "pgdemote_proactive",
		"pgpromote_success", "pgsteal_kswapd", "pgsteal_direct", "pgsteal_khugepaged",
		"pgsteal_proactive", "pgscan_kswapd", "pgscan_direct", "pgscan_khugepaged",
		"pgscan_proactive", "pgrefill",
	};
	const struct stat_def *vmalloc = numa_stat_lookup("vmalloc");

	(void)state;
	assert_int_equal(sizeof(lines_7_3) / sizeof(lines_7_3[0]), 43);
	for (size_t i = 0; i < sizeof(lines_7_3) / sizeof(lines_7_3[0]); i++) {
		const struct stat_def *t = numa_stat_lookup(lines_7_3[i]);

		if (!t)
			fail_msg("memory.numa_stat's %s is no per-node template", lines_7_3[i]);
		assert_int_equal(t->file, STAT_FILE_NUMA_STAT);
		assert_int_equal(t->unit, stat_lookup(lines_7_3[i])->unit);
	}
	/* memcg-only counters (memcg_stat_item) and sums are never per node */
	assert_null(numa_stat_lookup("kernel"));
	assert_null(numa_stat_lookup("sock"));
	assert_null(numa_stat_lookup("slab"));
	assert_null(numa_stat_lookup("pgscan"));
	/* vmalloc: NR_VMALLOC (per node since 7.x), not 6.x's MEMCG_VMALLOC */
	assert_non_null(vmalloc);
	assert_string_equal(vmalloc->kernel[0], "NR_VMALLOC");
	assert_null(vmalloc->kernel[1]);
	/* cgroup v1's hierarchical_ lines */
	assert_string_equal(numa_stat_lookup("anon")->v1_name, "hierarchical_anon");
	assert_null(numa_stat_lookup("shmem")->v1_name);
}

static void test_select(void **state)
{
	const struct stat_def *out[STAT_SELECTION_MAX];
	size_t n = 0, all;

	(void)state;
	numa_stat_catalog(&all);
	assert_true(all >= 43);
	assert_int_equal(numa_stat_parse_list(NULL, out, STAT_SELECTION_MAX, &n), 0);
	assert_int_equal(n, all);
	assert_int_equal(numa_stat_parse_list("file,anon,file", out, 64, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(out[0]->name, "file");
	assert_int_equal(numa_stat_parse_list("anon,usage", out, 64, &n), -EINVAL);
	n = 0;
	assert_int_equal(numa_stat_select("NumaStat", "ALL", out, 64, &n), 0);
	assert_int_equal(n, all);
	n = 0;
	assert_int_equal(numa_stat_select("NumaStat", "all", out, 3, &n), -E2BIG);
	/* "all" of the catalog does not take the per-node stats */
	assert_int_equal(stat_parse_list("all", out, STAT_SELECTION_MAX, &n), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_not_equal(out[i]->file, STAT_FILE_NUMA_STAT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_v2),
		cmocka_unit_test(test_parse_v1),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_nodes_parse),
		cmocka_unit_test(test_node_columns),
		cmocka_unit_test(test_templates),
		cmocka_unit_test(test_select),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
