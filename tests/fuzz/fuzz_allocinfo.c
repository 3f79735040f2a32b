// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the /proc/allocinfo text reader on arbitrary bytes. A
 * file it accepts must give rows with a "file:line" site and a func, and
 * its top 5 plus "other" (rows under one name merged into one site) must
 * add up to the sum of every row that holds memory (bytes > 0: the others
 * are not ranked) where that sum fits 64 bits, and stop at the range's end
 * where it does not; a file it refuses must leave no rows and say why with
 * a line number.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "allocinfo/allocinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct allocinfo_table t;
	const struct alloc_row *top[5];
	struct alloc_other other;
	unsigned __int128 bytes = 0, calls = 0, top_bytes = 0, top_calls = 0;
	char why[256] = "";
	size_t held = 0;
	int n;

	allocinfo_table_init(&t);
	t.text = malloc(size + 1);
	if (!t.text)
		return 0;
	memcpy(t.text, data, size);
	t.text_len = size;
	t.text_cap = size + 1;
	if (allocinfo_parse_text(&t, why, sizeof(why)) != 0) {
		if (t.nr_rows || strncmp(why, "line ", 5) != 0)
			abort();
		allocinfo_table_free(&t);
		return 0;
	}
	for (size_t i = 0; i < t.nr_rows; i++) {
		const struct alloc_row *r = &t.rows[i];

		if (!strchr(r->site, ':') || !r->func[0] || !r->module)
			abort();
		if (r->bytes <= 0)
			continue;
		held++;
		bytes += (uint64_t)r->bytes;
		calls += r->calls;
	}
	n = allocinfo_top(&t, 5, top, &other);
	/* rows under one name are one site: never more sites than rows, never fewer bytes */
	if (n < 0 || (size_t)n + other.sites > held || (held && n == 0))
		abort();
	for (int i = 0; i < n; i++) {
		if (top[i]->bytes <= 0)
			abort();
		top_bytes += (uint64_t)top[i]->bytes;
		top_calls += top[i]->calls;
	}
	if (other.bytes < 0)
		abort();
	/* exact where nothing passed the 64-bit range; else at its end, never wrapped */
	if (bytes <= INT64_MAX ? top_bytes + (uint64_t)other.bytes != bytes :
	    top_bytes + (uint64_t)other.bytes > bytes || (other.bytes != INT64_MAX && top_bytes <= INT64_MAX &&
							  top_bytes + (uint64_t)other.bytes < INT64_MAX))
		abort();
	if (calls <= UINT64_MAX ? top_calls + other.calls != calls : top_calls + other.calls > calls)
		abort();
	allocinfo_table_free(&t);
	return 0;
}
