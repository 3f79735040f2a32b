// SPDX-License-Identifier: GPL-2.0-only
/*
 * A call site whose file name is longer than the 63 bytes that the
 * /proc/allocinfo ioctl returns (the ioctl gives the last 63 bytes, the
 * text file the whole name), as a distribution's deep driver paths can
 * be. The #line below gives the compiler that name: a real directory that
 * deep would push the source tarball's paths past the 99 bytes of
 * automake's default (v7) tar format.
 */
#include <linux/slab.h>
#include "allocmod.h"

#line 1 "allocmod/a/path/longer/than/the/63/bytes/that/the/allocinfo/ioctl/returns/deep.c"
void *allocmod_deep_alloc(void)
{
	return kmalloc(512, GFP_KERNEL);
}

void allocmod_deep_free(void *p)
{
	kfree(p);
}
