// SPDX-License-Identifier: GPL-2.0-only
/*
 * /proc/allocinfo as text (lib/alloc_tag.c, allocinfo_show()):
 *   allocinfo - version: 2.0
 *   #     <size>  <calls> <tag info>
 *        4096        1 mm/slub.c:123 func:kmalloc_trace
 *       12288        3 drivers/x/y.c:45 [xmod] func:x_probe accurate:no
 * "%12lli %8llu ", then the tag: "file:line", " [module]" for a module's
 * site, " func:name", and in 2.0 " accurate:no" where the counters are not
 * exact. Version 1.0 (Linux 6.10 on) has no accurate field.
 */
#include "allocinfo/allocinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER "allocinfo - version: "

struct cursor {
	char *p, *end; /* the line, without its '\n' */
	size_t line;   /* 1-based */
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static void skip_spaces(struct cursor *c)
{
	while (c->p < c->end && *c->p == ' ')
		c->p++;
}

/*
 * A field's number at the cursor: digits (after a '-' when @sign), ending
 * at a space or the line's end. NULL, or what is wrong with it, naming the
 * field @what ("the size").
 */
static const char *take_number(struct cursor *c, bool sign, const char *what, int64_t *s, uint64_t *u, char *why,
			       size_t why_len)
{
	bool neg = sign && c->p < c->end && *c->p == '-';
	char *start = c->p + neg;
	uint64_t v = 0;
	bool over = false;

	for (c->p = start; c->p < c->end && is_digit(*c->p); c->p++) {
		over |= v > (UINT64_MAX - (uint64_t)(*c->p - '0')) / 10;
		v = v * 10 + (uint64_t)(*c->p - '0');
	}
	if (c->p == start || (c->p < c->end && *c->p != ' '))
		snprintf(why, why_len, "%s is not a number", what);
	else if (over || (sign && v > (uint64_t)INT64_MAX + neg))
		snprintf(why, why_len, "%s is past the range of %s 64-bit number", what, sign ? "a signed" : "an unsigned");
	else
		why = NULL;
	if (why)
		return why;
	if (sign)
		*s = neg ? (int64_t)(0 - v) : (int64_t)v;
	else
		*u = v;
	return NULL;
}

/* The next space-separated token at the cursor, NUL-terminated in place; NULL at the line's end. */
static char *take_token(struct cursor *c)
{
	char *tok;

	skip_spaces(c);
	if (c->p >= c->end)
		return NULL;
	tok = c->p;
	while (c->p < c->end && *c->p != ' ')
		c->p++;
	if (c->p < c->end)
		*c->p++ = '\0';
	else
		*c->p = '\0'; /* the line's '\n', or the byte past the text */
	return tok;
}

/* "file:line": something, a ':', and digits only after it. */
static bool is_site(const char *tok)
{
	const char *colon = strrchr(tok, ':');

	if (!colon || colon == tok || !colon[1])
		return false;
	for (const char *d = colon + 1; *d; d++)
		if (!is_digit(*d))
			return false;
	return true;
}

/* One row; NULL, or why it is damaged (in @buf when it names a field). */
static const char *parse_row(struct cursor *c, struct alloc_row *row, char *buf, size_t buf_len)
{
	const char *bad;
	char *tok;

	skip_spaces(c);
	if (c->p >= c->end)
		return "no size";
	bad = take_number(c, true, "the size", &row->bytes, NULL, buf, buf_len);
	if (bad)
		return bad;
	skip_spaces(c);
	if (c->p >= c->end)
		return "no call count after the size";
	bad = take_number(c, false, "the call count", NULL, &row->calls, buf, buf_len);
	if (bad)
		return bad;
	skip_spaces(c);
	if (c->p >= c->end)
		return "no tag after the call count";
	tok = take_token(c);
	if (!tok || !is_site(tok))
		return "the tag does not start with file:line";
	row->site = tok;
	row->module = "";
	row->func = NULL;
	row->accurate = true;
	while ((tok = take_token(c))) {
		size_t len = strlen(tok);

		if (tok[0] == '[' && len > 2 && tok[len - 1] == ']' && !row->func) {
			tok[len - 1] = '\0';
			row->module = tok + 1;
		} else if (!strncmp(tok, "func:", 5) && tok[5] && !row->func) {
			row->func = tok + 5;
		} else if (!strcmp(tok, "accurate:no")) {
			row->accurate = false;
		} /* a field this version does not know: skipped */
	}
	return row->func ? NULL : "no func: field";
}

/* The header "allocinfo - version: X.Y"; NULL, or why not. */
static const char *parse_header(struct cursor *c, struct allocinfo_table *t)
{
	uint64_t major = 0, minor = 0;
	char *dot;

	if ((size_t)(c->end - c->p) < sizeof(HEADER) - 1 || memcmp(c->p, HEADER, sizeof(HEADER) - 1) != 0)
		return "no \"" HEADER "X.Y\" header: not an allocinfo file";
	c->p += sizeof(HEADER) - 1;
	dot = memchr(c->p, '.', (size_t)(c->end - c->p));
	if (!dot || dot == c->p || dot + 1 == c->end)
		return "the version is not X.Y";
	for (; c->p < dot && is_digit(*c->p) && major < 1000000; c->p++)
		major = major * 10 + (uint64_t)(*c->p - '0');
	if (c->p != dot)
		return "the version is not X.Y";
	for (c->p = dot + 1; c->p < c->end && is_digit(*c->p) && minor < 1000000; c->p++)
		minor = minor * 10 + (uint64_t)(*c->p - '0');
	if (c->p != c->end)
		return "the version is not X.Y";
	if (major < 1 || major > 2)
		return "an allocinfo format this version does not read (it reads 1.x and 2.x)";
	t->version_major = (int)major;
	t->version_minor = minor > 1000 ? 1000 : (int)minor;
	return NULL;
}

int allocinfo_parse_text(struct allocinfo_table *t, char *why, size_t why_len)
{
	char *p = t->text, *end = t->text + t->text_len;
	size_t lines = 1;
	const char *bad = NULL;
	char field[96];
	struct cursor c = { 0 };

	t->nr_rows = 0;
	if (t->text_cap <= t->text_len) /* room for the NUL after a last line without '\n' */
		return -EINVAL;
	for (char *q = p; q < end; q++)
		lines += *q == '\n';
	if (lines > t->cap_rows) {
		struct alloc_row *rows = realloc(t->rows, lines * sizeof(*rows));

		if (!rows)
			return -ENOMEM;
		t->rows = rows;
		t->cap_rows = lines;
	}
	while (p < end && !bad) {
		char *eol = memchr(p, '\n', (size_t)(end - p));

		c = (struct cursor){ .p = p, .end = eol ? eol : end, .line = c.line + 1 };
		p = eol ? eol + 1 : end;
		if (c.line == 1)
			bad = parse_header(&c, t);
		else if (c.p < c.end && *c.p != '#')
			bad = parse_row(&c, &t->rows[t->nr_rows++], field, sizeof(field));
	}
	if (!bad && c.line == 0)
		bad = "the file is empty";
	if (bad) {
		snprintf(why, why_len, "line %zu: %s", c.line ? c.line : 1, bad);
		t->nr_rows = 0;
		return -EPROTO;
	}
	return 0;
}
