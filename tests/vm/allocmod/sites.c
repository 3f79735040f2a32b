// SPDX-License-Identifier: GPL-2.0-only
/*
 * allocmod: the test module of the allocinfo VM tests (tests/vm/guest/allocinfo.sh).
 *
 * At load it allocates from call sites of its own, each in a function of its
 * own, so that /proc/allocinfo shows rows "sites.c:LINE [allocmod]
 * func:NAME" with non-zero bytes; at unload it frees everything, and the
 * rows go with the module. The sizes are fixed, so a test may check them:
 *
 *   allocmod_kmalloc_small   32 x kmalloc(64)        slab
 *   allocmod_kmalloc_4k       8 x kmalloc(4096)      slab
 *   allocmod_kmalloc_large    1 x kmalloc(65536)     pages (over the slab sizes)
 *   allocmod_vmalloc          1 x vmalloc(262144)    pages, and vmalloc's page array
 *   allocmod_pages            1 x alloc_pages(order 2): 16384 bytes
 *   allocmod_a_call_site_whose_function_name_runs_past_the_ioctl_limit_of_63_bytes
 *                             3 x kmalloc(128): a function name longer than
 *                             the ioctl's 63 bytes
 *   allocmod_deep_alloc       1 x kmalloc(512), in a file whose path is longer
 *                             than 63 bytes (deep.c: its #line)
 *   allocmod_twin_alloc       50 and 25 x kmalloc(4096) at two sites whose file
 *                             names share their last 63 bytes (twin_a.c, twin_b.c)
 */
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "allocmod.h"

#define SMALL_N 32
#define K4_N 8
#define LONG_N 3

static void *small[SMALL_N];
static void *k4[K4_N];
static void *large;
static void *vmem;
static struct page *pages;
static void *longname[LONG_N];
static void *deep;

static noinline int allocmod_kmalloc_small(void)
{
	int i;

	for (i = 0; i < SMALL_N; i++) {
		small[i] = kmalloc(64, GFP_KERNEL);
		if (!small[i])
			return -ENOMEM;
	}
	return 0;
}

static noinline int allocmod_kmalloc_4k(void)
{
	int i;

	for (i = 0; i < K4_N; i++) {
		k4[i] = kmalloc(4096, GFP_KERNEL);
		if (!k4[i])
			return -ENOMEM;
	}
	return 0;
}

static noinline int allocmod_kmalloc_large(void)
{
	large = kmalloc(65536, GFP_KERNEL);
	return large ? 0 : -ENOMEM;
}

static noinline int allocmod_vmalloc(void)
{
	vmem = vmalloc(262144);
	return vmem ? 0 : -ENOMEM;
}

static noinline int allocmod_pages(void)
{
	pages = alloc_pages(GFP_KERNEL, 2);
	return pages ? 0 : -ENOMEM;
}

static noinline int allocmod_a_call_site_whose_function_name_runs_past_the_ioctl_limit_of_63_bytes(void)
{
	int i;

	for (i = 0; i < LONG_N; i++) {
		longname[i] = kmalloc(128, GFP_KERNEL);
		if (!longname[i])
			return -ENOMEM;
	}
	return 0;
}

static void allocmod_free(void)
{
	int i;

	for (i = 0; i < SMALL_N; i++)
		kfree(small[i]);
	for (i = 0; i < K4_N; i++)
		kfree(k4[i]);
	kfree(large);
	vfree(vmem);
	if (pages)
		__free_pages(pages, 2);
	for (i = 0; i < LONG_N; i++)
		kfree(longname[i]);
	allocmod_deep_free(deep);
	allocmod_twin_a_free();
	allocmod_twin_b_free();
}

static int __init allocmod_init(void)
{
	int err;

	err = allocmod_kmalloc_small();
	if (!err)
		err = allocmod_kmalloc_4k();
	if (!err)
		err = allocmod_kmalloc_large();
	if (!err)
		err = allocmod_vmalloc();
	if (!err)
		err = allocmod_pages();
	if (!err)
		err = allocmod_a_call_site_whose_function_name_runs_past_the_ioctl_limit_of_63_bytes();
	if (!err) {
		deep = allocmod_deep_alloc();
		if (!deep)
			err = -ENOMEM;
	}
	if (!err)
		err = allocmod_twin_a_alloc();
	if (!err)
		err = allocmod_twin_b_alloc();
	if (err) {
		/* the arrays are static (zeroed): frees what was allocated */
		allocmod_free();
		return err;
	}
	pr_info("allocmod: allocated from 9 call sites\n");
	return 0;
}

static void __exit allocmod_exit(void)
{
	allocmod_free();
	pr_info("allocmod: freed\n");
}

module_init(allocmod_init);
module_exit(allocmod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("memcg_bpf allocinfo test module: allocates at load from call sites of its own, frees at unload");
