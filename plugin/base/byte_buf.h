/* SPDX-License-Identifier: GPL-2.0-only */
/* A growable byte buffer: @len bytes used of @cap allocated. */
#ifndef MEMCG_BPF_BYTE_BUF_H
#define MEMCG_BPF_BYTE_BUF_H

#include <stddef.h>
#include <stdint.h>

struct byte_buf {
	uint8_t *data;
	size_t len, cap;
};

/* Makes room for @cap bytes in all; keeps the content. 0 or -ENOMEM. */
int byte_buf_reserve(struct byte_buf *b, size_t cap);
/* Frees the data; the buffer is empty and reusable after. */
void byte_buf_free(struct byte_buf *b);

#endif
