// SPDX-License-Identifier: GPL-2.0-only
#include "series/label_escape.h"

#include <string.h>

size_t utf8_sequence_len(const unsigned char *s, size_t len)
{
	unsigned char c = s[0];
	size_t n;
	unsigned int cp, min;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0; /* continuation byte, 0xc0/0xc1, 0xf5-0xff */
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

bool utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_sequence_len(p + i, len - i);

		if (!n)
			return false;
		i += n;
	}
	return true;
}

size_t label_escape(const char *in, size_t in_len, char *out, size_t out_len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)in;
	size_t o = 0;

#define PUT(ch)                                   \
	do {                                      \
		if (o + 1 < out_len)              \
			out[o] = (char)(ch);      \
		o++;                              \
	} while (0)
	for (size_t i = 0; i < in_len;) {
		size_t n;

		if (p[i] < 0x80) { /* a run of ASCII, the common case: copied at once */
			size_t run = 1, room = o + 1 < out_len ? out_len - 1 - o : 0;

			while (i + run < in_len && p[i + run] < 0x80)
				run++;
			if (room)
				memcpy(out + o, p + i, run < room ? run : room);
			o += run;
			i += run;
			continue;
		}
		n = utf8_sequence_len(p + i, in_len - i);
		if (n) {
			for (size_t k = 0; k < n; k++)
				PUT(p[i + k]);
			i += n;
			continue;
		}
		PUT('\\');
		PUT('x');
		PUT(hex[p[i] >> 4]);
		PUT(hex[p[i] & 15]);
		i++;
	}
#undef PUT
	if (out_len)
		out[o < out_len ? o : out_len - 1] = '\0';
	return o;
}
