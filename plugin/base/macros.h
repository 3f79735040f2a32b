/* SPDX-License-Identifier: GPL-2.0-only */
/* Small macros every layer uses. */
#ifndef MEMCG_BPF_MACROS_H
#define MEMCG_BPF_MACROS_H

/* 0 at compile time, or a build error when @e is true. */
#define BUILD_BUG_ON_ZERO(e) ((int)(sizeof(struct { int : (-!!(e)); })))
/* A build error when @a is a pointer rather than an array. */
#define MUST_BE_ARRAY(a) BUILD_BUG_ON_ZERO(__builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0])))

/* The number of elements of the array @a (not a pointer: that fails to build). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]) + MUST_BE_ARRAY(a))

#endif
