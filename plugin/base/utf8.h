/* SPDX-License-Identifier: GPL-2.0-only */
/* A JSON \u escape's two halves: its hex digits, and the code point as UTF-8. */
#ifndef MEMCG_BPF_UTF8_H
#define MEMCG_BPF_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The value of hex digit @c (either case), or -1. */
int hex_digit(char c);

/* Writes @cp (at most 0x10ffff) into @out as UTF-8; returns its length, 1 to 4. */
size_t utf8_encode(uint32_t cp, unsigned char out[4]);

#endif
