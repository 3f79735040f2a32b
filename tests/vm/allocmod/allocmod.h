/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ALLOCMOD_H
#define ALLOCMOD_H

/* the call site in a file whose path is longer than the ioctl's 63 bytes */
void *allocmod_deep_alloc(void);
void allocmod_deep_free(void *p);

/*
 * Twin call sites: 50 and 25 x kmalloc(4096), at line 6 of files whose
 * names share their last 63 bytes (twin_a.c, twin_b.c: their #line), in
 * functions named alike
 */
int allocmod_twin_a_alloc(void);
void allocmod_twin_a_free(void);
int allocmod_twin_b_alloc(void);
void allocmod_twin_b_free(void);

#endif
