/* SPDX-License-Identifier: GPL-2.0-only */
/* UTF-8 encoding of one code point (a JSON \u escape's, decoded). */
#ifndef MEMCG_BPF_UTF8_H
#define MEMCG_BPF_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Writes @cp (at most 0x10ffff) into @out as UTF-8; returns its length, 1 to 4. */
size_t utf8_encode(uint32_t cp, unsigned char out[4]);

#endif
