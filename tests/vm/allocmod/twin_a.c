// SPDX-License-Identifier: GPL-2.0-only
/*
 * One of two call sites (twin_a.c, twin_b.c) whose file names differ only
 * before their last 63 bytes, at the same line, in functions of the same
 * name: the /proc/allocinfo ioctl, which gives the last 63 bytes, cannot
 * tell them apart; the text can. The #line gives the compiler each name.
 */
#include <linux/slab.h>
#include "allocmod.h"

#define TWIN_N 50

static void *twin[TWIN_N];

#line 1 "allocmod/a/directories/named/so/that/the/last/sixty/three/bytes/of/both/twin.c"
static noinline int allocmod_twin_alloc(void)
{
	int i;

	for (i = 0; i < TWIN_N; i++) {
		twin[i] = kmalloc(4096, GFP_KERNEL);
		if (!twin[i])
			return -ENOMEM;
	}
	return 0;
}

int allocmod_twin_a_alloc(void)
{
	return allocmod_twin_alloc();
}

void allocmod_twin_a_free(void)
{
	int i;

	for (i = 0; i < TWIN_N; i++)
		kfree(twin[i]);
}
