// SPDX-License-Identifier: GPL-2.0-only
#include "base/byte_buf.h"

#include <errno.h>
#include <stdlib.h>

int byte_buf_reserve(struct byte_buf *b, size_t cap)
{
	uint8_t *p;

	if (b->cap >= cap)
		return 0;
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

void byte_buf_free(struct byte_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
