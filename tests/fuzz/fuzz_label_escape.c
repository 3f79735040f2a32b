// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the label escaper on arbitrary bytes. Its output must
 * be valid UTF-8, as long as it says, the same when written into a buffer
 * too short for it (a prefix, NUL-terminated), and unchanged input when the
 * input was valid UTF-8 already.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "series/label_escape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t need, short_len;
	char *full, *part;

	need = label_escape((const char *)data, size, NULL, 0);
	full = malloc(need + 1);
	if (!full)
		return 0;
	if (label_escape((const char *)data, size, full, need + 1) != need || strlen(full) > need)
		abort();
	if (!utf8_valid(full, strlen(full)))
		abort();
	if (utf8_valid((const char *)data, size) && !memchr(data, 0, size) &&
	    (need != size || memcmp(full, data, size)))
		abort();
	short_len = need / 2 + 1;
	part = malloc(short_len);
	if (part) {
		label_escape((const char *)data, size, part, short_len);
		if (strlen(part) >= short_len || strncmp(part, full, strlen(part)))
			abort();
		free(part);
	}
	free(full);
	return 0;
}
