// SPDX-License-Identifier: GPL-2.0-only
#include "series/label_escape.h"

#include <errno.h>
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

/* A byte written as "\xHH" wherever it stands, whatever follows. */
static bool control_byte(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* Whether label_escape writes the byte that starts a sequence at @p[@i] as "\xHH". */
static bool escaped_at(const unsigned char *p, size_t len, size_t i)
{
	return i < len && (control_byte(p[i]) || (p[i] >= 0x80 && !utf8_sequence_len(p + i, len - i)));
}

static int lower_hex(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/*
 * The byte that "\xHH" at @p[@i] names when it is an escape the decoder
 * reads (two lowercase hex digits naming a control byte, DEL or 0x80-0xff),
 * or -1.
 */
static int escape_at(const unsigned char *p, size_t len, size_t i)
{
	int hi, lo, v;

	if (len - i < 4 || p[i] != '\\' || p[i + 1] != 'x')
		return -1;
	hi = lower_hex(p[i + 2]);
	lo = lower_hex(p[i + 3]);
	if (hi < 0 || lo < 0)
		return -1;
	v = hi << 4 | lo;
	return control_byte((unsigned char)v) || v >= 0x80 ? v : -1;
}

/* Printable ASCII but the backslash: copied in runs. */
static bool plain_ascii(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '\\';
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

		if (plain_ascii(p[i])) { /* the common case: copied at once */
			size_t run = 1, room = o + 1 < out_len ? out_len - 1 - o : 0;

			while (i + run < in_len && plain_ascii(p[i + run]))
				run++;
			if (room)
				memcpy(out + o, p + i, run < room ? run : room);
			o += run;
			i += run;
			continue;
		}
		if (p[i] == '\\') {
			PUT('\\');
			if ((i + 1 < in_len && p[i + 1] == '\\') || escaped_at(p, in_len, i + 1) ||
			    escape_at(p, in_len, i) >= 0)
				PUT('\\');
			i++;
			continue;
		}
		n = p[i] >= 0x80 ? utf8_sequence_len(p + i, in_len - i) : 0;
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

/* One unit of an escaped label: what it stands for. */
struct token {
	size_t in_len;         /* characters of the escaped form */
	size_t nr_bytes;       /* bytes it stands for, from bytes[] or the input */
	const unsigned char *bytes;
	int escaped;           /* the byte of a "\xHH", or -1 */
};

/* Reads the token at @p[@i]; -EINVAL where label_escape never writes it. */
static int read_token(const unsigned char *p, size_t len, size_t i, struct token *t)
{
	static const unsigned char backslash = '\\';

	t->escaped = -1;
	if (p[i] == '\\') {
		t->bytes = &backslash;
		t->nr_bytes = 1;
		if (i + 1 < len && p[i + 1] == '\\') {
			/* doubled only before a '\' or the text of an escape */
			if (!(i + 2 < len && p[i + 2] == '\\') && escape_at(p, len, i + 1) < 0)
				return -EINVAL;
			t->in_len = 2;
			return 0;
		}
		t->escaped = escape_at(p, len, i);
		t->in_len = t->escaped >= 0 ? 4 : 1;
		return 0;
	}
	if (control_byte(p[i]))
		return -EINVAL;
	t->bytes = p + i;
	t->in_len = t->nr_bytes = utf8_sequence_len(p + i, len - i);
	return t->in_len ? 0 : -EINVAL;
}

ssize_t label_unescape(const char *in, size_t in_len, char *out, size_t out_len)
{
	const unsigned char *p = (const unsigned char *)in;
	unsigned char *q = (unsigned char *)out;
	struct token t;
	size_t o = 0;
	int err;

	for (size_t i = 0; i < in_len; i += t.in_len) {
		err = read_token(p, in_len, i, &t);
		if (err)
			return err;
		if (out_len - o < t.nr_bytes)
			return -ENOBUFS;
		if (t.escaped >= 0)
			q[o] = (unsigned char)t.escaped;
		else
			memcpy(q + o, t.bytes, t.nr_bytes);
		o += t.nr_bytes;
	}
	/*
	 * An escaped byte 0x80-0xff must not start a well-formed sequence of
	 * the decoded bytes: label_escape would have copied that sequence.
	 */
	for (size_t i = 0, d = 0; i < in_len; i += t.in_len, d += t.nr_bytes) {
		read_token(p, in_len, i, &t);
		if (t.escaped >= 0x80 && utf8_sequence_len(q + d, o - d))
			return -EINVAL;
	}
	return (ssize_t)o;
}
