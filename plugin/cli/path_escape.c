// SPDX-License-Identifier: GPL-2.0-only
#include "cli/path_escape.h"

#include <stdint.h>
#include <stdio.h>

#include "series/label_escape.h"

static const char hex[] = "0123456789abcdef";

/* An output buffer that counts what it could not hold, as snprintf does. */
struct out {
	char *buf;
	size_t cap, len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->cap)
		o->buf[o->len] = c;
	o->len++;
}

static void put_str(struct out *o, const char *s)
{
	while (*s)
		put(o, *s++);
}

static void put_u4(struct out *o, unsigned int v)
{
	put_str(o, "\\u");
	for (int shift = 12; shift >= 0; shift -= 4)
		put(o, hex[(v >> shift) & 0xf]);
}

static size_t finish(struct out *o)
{
	if (o->cap)
		o->buf[o->len < o->cap ? o->len : o->cap - 1] = '\0';
	return o->len;
}

static uint32_t utf8_decode(const unsigned char *s, size_t n)
{
	static const unsigned char lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t cp = s[0] & lead_mask[n];

	for (size_t i = 1; i < n; i++)
		cp = (cp << 6) | (s[i] & 0x3f);
	return cp;
}

size_t path_escape_json(const char *in, size_t in_len, char *buf, size_t cap)
{
	const unsigned char *p = (const unsigned char *)in;
	struct out o = { buf, cap, 0 };

	put(&o, '"');
	for (size_t i = 0; i < in_len;) {
		size_t n = utf8_sequence_len(p + i, in_len - i);
		uint32_t cp;

		if (!n) { /* one byte of invalid UTF-8: a lone low surrogate */
			put_u4(&o, 0xdc00u + p[i]);
			i++;
			continue;
		}
		cp = utf8_decode(p + i, n);
		i += n;
		if (cp == '"' || cp == '\\') {
			put(&o, '\\');
			put(&o, (char)cp);
		} else if (cp == '\n') {
			put_str(&o, "\\n");
		} else if (cp == '\t') {
			put_str(&o, "\\t");
		} else if (cp >= 0x20 && cp < 0x7f) {
			put(&o, (char)cp);
		} else if (cp < 0x10000) {
			put_u4(&o, cp);
		} else {
			cp -= 0x10000;
			put_u4(&o, 0xd800u + (cp >> 10));
			put_u4(&o, 0xdc00u + (cp & 0x3ff));
		}
	}
	put(&o, '"');
	return finish(&o);
}

/* The label form (series/label_escape.h): the table shows what the labels carry. */
size_t path_escape_table(const char *in, size_t in_len, char *buf, size_t cap)
{
	return label_escape(in, in_len, buf, cap);
}
