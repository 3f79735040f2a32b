// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the label escaper and its decoder on arbitrary bytes.
 *  - The escaped form is valid UTF-8 without control bytes, as long as
 *    label_escape says, the same when written into a buffer too short for
 *    it (a prefix, NUL-terminated), and the input itself when that was
 *    valid UTF-8 without control bytes or backslashes.
 *  - It decodes back to the input (so no two inputs share a form), and the
 *    two halves of the input have equal forms only when they are equal.
 *  - The input read as an escaped form: label_unescape refuses it
 *    (-EINVAL) or its result escapes back to exactly the input.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "series/label_escape.h"

/* The escaped form of @in in a new buffer, its length in @len. */
static char *escaped(const char *in, size_t in_len, size_t *len)
{
	char *out;

	*len = label_escape(in, in_len, NULL, 0);
	out = malloc(*len + 1);
	if (out && label_escape(in, in_len, out, *len + 1) != *len)
		abort();
	return out;
}

static bool has_control(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return true;
	return false;
}

static void check_round_trip(const char *in, size_t size, const char *full, size_t need)
{
	char *back = malloc(size + 1);

	if (!back)
		return;
	if (label_unescape(full, need, back, size + 1) != (ssize_t)size || memcmp(back, in, size))
		abort();
	free(back);
}

static void check_halves(const char *in, size_t size)
{
	size_t h = size / 2, la, lb;
	char *a = escaped(in, h, &la), *b = escaped(in + h, size - h, &lb);

	if (a && b && la == lb && !memcmp(a, b, la) && (h != size - h || memcmp(in, in + h, h)))
		abort();
	free(a);
	free(b);
}

/* @in read as an escaped form. */
static void check_decoder(const char *in, size_t size)
{
	char *raw = malloc(size + 1), *again;
	ssize_t n;
	size_t len;

	if (!raw)
		return;
	n = label_unescape(in, size, raw, size + 1);
	if (n < 0) {
		if (n != -EINVAL)
			abort();
	} else {
		again = escaped(raw, (size_t)n, &len);
		if (again && (len != size || memcmp(again, in, size)))
			abort();
		free(again);
	}
	free(raw);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	size_t need, short_len;
	char *full, *part;

	full = escaped(in, size, &need);
	if (!full)
		return 0;
	if (strlen(full) > need || !utf8_valid(full, need) || has_control(full, need))
		abort();
	if (utf8_valid(in, size) && !has_control(in, size) && !memchr(in, '\\', size) &&
	    (need != size || memcmp(full, in, size)))
		abort();
	short_len = need / 2 + 1;
	part = malloc(short_len);
	if (part) {
		label_escape(in, size, part, short_len);
		if (strlen(part) >= short_len || strncmp(part, full, strlen(part)))
			abort();
		free(part);
	}
	check_round_trip(in, size, full, need);
	free(full);
	check_halves(in, size);
	check_decoder(in, size);
	return 0;
}
