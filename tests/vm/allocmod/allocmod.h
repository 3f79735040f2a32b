/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ALLOCMOD_H
#define ALLOCMOD_H

/* the call site in a file whose path is longer than the ioctl's 63 bytes */
void *allocmod_deep_alloc(void);
void allocmod_deep_free(void *p);

#endif
