// SPDX-License-Identifier: GPL-2.0-only
/*
 * "name value\n" parsing with a remembered layout. The kernel prints
 * memory.stat in a fixed order, so after the first parse the parser knows
 * what each line holds. The fast pass walks the lines (memchr) and compares
 * each line's name with the remembered one (length, then memcmp) without a
 * hash lookup; wanted lines then have their values parsed. Values are kept
 * aside until the whole buffer matched. If any line differs, or the line
 * count does, the slow pass hashes every name and rebuilds the layout, so
 * both passes give the same result for any input.
 */
#include "sampling/memory_stat_parse.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct wanted {
	const char *name;
	size_t len;
	size_t slot;
	int next_dup; /* next wanted entry with the same name, or -1 */
};

/* What the layout remembers of one line. */
struct line_sig {
	int field;      /* wanted entry on this line, or -1 */
	bool has_sep;   /* the line has a ' ' (only then is its name looked up) */
	size_t len;     /* name length (up to the first ' ', or the whole line) */
	size_t off;     /* the name's bytes in layout_names */
};

/* A value the fast pass found, stored once the whole layout matched. */
struct pending {
	int field;
	uint64_t value;
};

struct memory_stat_parser {
	size_t nr;
	struct wanted *w;
	char *names;          /* one block holding every name */

	int *hash;            /* index of the first entry of a name, -1 = empty */
	size_t hash_mask;

	struct line_sig *lines; /* the layout, one per line */
	size_t nr_lines;      /* lines in the remembered layout; 0 = none */
	size_t line_cap;
	char *layout_names;   /* every line's name, back to back */
	size_t names_len, names_cap;
	struct pending *pending; /* one per wanted entry */

	unsigned char *seen;  /* per entry, during one parse */
	uint64_t bad;
};

enum value_status {
	VALUE_OK,
	VALUE_BAD,    /* not a number */
	VALUE_RANGE,  /* overflows */
};

static uint64_t hash_name(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Decimal digits in [s, end), optionally followed by blanks. */
static enum value_status parse_digits(const char *s, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;

	while (p < end && *p >= '0' && *p <= '9') {
		unsigned int d = (unsigned int)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return VALUE_RANGE;
		v = v * 10 + d;
		p++;
	}
	if (p == s)
		return VALUE_BAD;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	if (p != end)
		return VALUE_BAD;
	*out = v;
	return VALUE_OK;
}

/* The value of a line whose name ends at @sep (a ' '). */
static enum value_status parse_value(const char *sep, const char *eol, uint64_t *out)
{
	while (sep < eol && *sep == ' ')
		sep++;
	return parse_digits(sep, eol, out);
}

static int lookup(const struct memory_stat_parser *p, const char *name, size_t len)
{
	size_t i = hash_name(name, len) & p->hash_mask;

	for (;; i = (i + 1) & p->hash_mask) {
		int f = p->hash[i];

		if (f < 0)
			return -1;
		if (p->w[f].len == len && memcmp(p->w[f].name, name, len) == 0)
			return f;
	}
}

int memory_stat_parser_new(const char *const *names, const size_t *slots, size_t nr,
			   struct memory_stat_parser **out)
{
	struct memory_stat_parser *p;
	size_t total = 0, hsize = 8;
	char *dst;
	int err;

	*out = NULL;
	if (nr > (size_t)INT32_MAX)
		return -EINVAL;
	for (size_t i = 0; i < nr; i++) {
		size_t len = strlen(names[i]);

		if (len == 0 || memchr(names[i], ' ', len) || memchr(names[i], '\n', len))
			return -EINVAL;
		total += len + 1;
	}
	while (hsize < 2 * nr)
		hsize *= 2;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->nr = nr;
	p->hash_mask = hsize - 1;
	err = -ENOMEM;
	p->w = calloc(nr ? nr : 1, sizeof(*p->w));
	p->names = malloc(total ? total : 1);
	p->hash = malloc(hsize * sizeof(*p->hash));
	p->seen = calloc(nr ? nr : 1, 1);
	p->pending = calloc(nr ? nr : 1, sizeof(*p->pending));
	if (!p->w || !p->names || !p->hash || !p->seen || !p->pending)
		goto free_parser;
	for (size_t i = 0; i < hsize; i++)
		p->hash[i] = -1;

	dst = p->names;
	for (size_t i = 0; i < nr; i++) {
		struct wanted *w = &p->w[i];
		int first;

		w->len = strlen(names[i]);
		memcpy(dst, names[i], w->len + 1);
		w->name = dst;
		dst += w->len + 1;
		w->slot = slots[i];
		w->next_dup = -1;

		first = lookup(p, w->name, w->len);
		if (first >= 0) {
			/* append to the chain of that name */
			while (p->w[first].next_dup >= 0)
				first = p->w[first].next_dup;
			p->w[first].next_dup = (int)i;
			continue;
		}
		for (size_t h = hash_name(w->name, w->len) & p->hash_mask;; h = (h + 1) & p->hash_mask) {
			if (p->hash[h] < 0) {
				p->hash[h] = (int)i;
				break;
			}
		}
	}
	*out = p;
	return 0;

free_parser:
	memory_stat_parser_free(p);
	return err;
}

void memory_stat_parser_free(struct memory_stat_parser *p)
{
	if (!p)
		return;
	free(p->w);
	free(p->names);
	free(p->hash);
	free(p->lines);
	free(p->layout_names);
	free(p->pending);
	free(p->seen);
	free(p);
}

uint64_t memory_stat_parser_bad_values(const struct memory_stat_parser *p)
{
	return p->bad;
}

/* Stores @v in every slot of entry @f's name; returns how many. */
static size_t store(const struct memory_stat_parser *p, int f, uint64_t v, uint64_t *values)
{
	size_t n = 0;

	for (; f >= 0; f = p->w[f].next_dup, n++)
		values[p->w[f].slot] = v;
	return n;
}

static const char *line_end(const char *pos, const char *end)
{
	const char *eol = memchr(pos, '\n', (size_t)(end - pos));

	return eol ? eol : end;
}

/* The name of the line [pos, eol): up to its first ' ' (*sep) or the whole line. */
static size_t line_name(const char *pos, const char *eol, const char **sep)
{
	*sep = memchr(pos, ' ', (size_t)(eol - pos));
	return (size_t)((*sep ? *sep : eol) - pos);
}

/*
 * Checks the remembered layout while parsing. Returns true when every line
 * matched (the values are then stored), false to fall back with @values
 * untouched.
 */
static bool parse_fast(struct memory_stat_parser *p, const char *buf, size_t len,
		       uint64_t *values, size_t *set)
{
	const char *pos = buf, *end = buf + len;
	size_t k = 0, nr_pending = 0;
	uint64_t bad = 0;

	while (pos < end) {
		const char *eol = line_end(pos, end), *sep;
		const struct line_sig *want;
		size_t nlen;

		if (k >= p->nr_lines)
			return false;
		want = &p->lines[k++];
		nlen = line_name(pos, eol, &sep);
		if (nlen != want->len || (sep != NULL) != want->has_sep ||
		    memcmp(pos, p->layout_names + want->off, nlen) != 0)
			return false;
		if (want->field >= 0) {
			uint64_t v;

			if (parse_value(sep, eol, &v) == VALUE_OK)
				p->pending[nr_pending++] = (struct pending){ want->field, v };
			else
				bad++;
		}
		pos = eol + 1;
	}
	if (k != p->nr_lines)
		return false;
	*set = 0;
	for (size_t i = 0; i < nr_pending; i++)
		*set += store(p, p->pending[i].field, p->pending[i].value, values);
	p->bad += bad;
	return true;
}

/* Grows *@buf (of *@cap elements of @size) to hold @need; false on ENOMEM. */
static bool reserve(void **buf, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 128;
	void *b;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	b = realloc(*buf, n * size);
	if (!b)
		return false;
	*buf = b;
	*cap = n;
	return true;
}

/* Records line @k: its name [@name, +@sig->len); on ENOMEM the layout is dropped. */
static void remember(struct memory_stat_parser *p, size_t k, struct line_sig *sig,
		     const char *name, bool *keep)
{
	if (!*keep)
		return;
	if (!reserve((void **)&p->lines, &p->line_cap, k + 1, sizeof(*p->lines)) ||
	    !reserve((void **)&p->layout_names, &p->names_cap, p->names_len + sig->len + 1, 1)) {
		*keep = false;
		return;
	}
	sig->off = p->names_len;
	memcpy(p->layout_names + p->names_len, name, sig->len);
	p->names_len += sig->len;
	p->lines[k] = *sig;
}

static size_t parse_slow(struct memory_stat_parser *p, const char *buf, size_t len, uint64_t *values)
{
	const char *pos = buf, *end = buf + len;
	bool keep = true;
	size_t k = 0, set = 0;

	memset(p->seen, 0, p->nr);
	p->names_len = 0;
	while (pos < end) {
		const char *eol = line_end(pos, end), *sep;
		struct line_sig sig = { .len = line_name(pos, eol, &sep) };
		int f = -1;

		sig.has_sep = sep != NULL;
		if (sep && sep > pos)
			f = lookup(p, pos, (size_t)(sep - pos));
		if (f >= 0 && p->seen[f])
			f = -1; /* a repeated name: the first line wins */
		if (f >= 0) {
			uint64_t v;

			p->seen[f] = 1;
			if (parse_value(sep, eol, &v) == VALUE_OK)
				set += store(p, f, v, values);
			else
				p->bad++;
		}
		sig.field = f;
		remember(p, k++, &sig, pos, &keep);
		pos = eol + 1;
	}
	p->nr_lines = keep ? k : 0;
	return set;
}

size_t memory_stat_parse(struct memory_stat_parser *p, const char *buf, size_t len, uint64_t *values)
{
	size_t set;

	if (p->nr_lines && parse_fast(p, buf, len, values, &set))
		return set;
	return parse_slow(p, buf, len, values);
}

/* 0, -ERANGE (overflows 64 bits) or -EINVAL (not a decimal number). */
static int value_errno(enum value_status st)
{
	return st == VALUE_OK ? 0 : st == VALUE_RANGE ? -ERANGE : -EINVAL;
}

int memory_stat_find(const char *buf, size_t len, const char *name, uint64_t *value)
{
	const char *pos = buf, *end = buf + len;
	size_t nlen = strlen(name);

	while (pos < end) {
		const char *eol = line_end(pos, end);

		if ((size_t)(eol - pos) > nlen && pos[nlen] == ' ' && memcmp(pos, name, nlen) == 0)
			return value_errno(parse_value(pos + nlen, eol, value));
		pos = eol + 1;
	}
	return -ENOENT;
}

int memory_stat_parse_u64(const char *buf, size_t len, uint64_t *value)
{
	if (len && buf[len - 1] == '\n')
		len--;
	return value_errno(parse_digits(buf, buf + len, value));
}

int memory_stat_parse_pressure(const char *buf, size_t len, const char *kind, uint64_t *total_us)
{
	const char *pos = buf, *end = buf + len;
	size_t klen = strlen(kind);

	while (pos < end) {
		const char *eol = line_end(pos, end), *p;

		if ((size_t)(eol - pos) > klen && pos[klen] == ' ' && memcmp(pos, kind, klen) == 0) {
			/* the last field; "total=" cannot start inside an avgN= value */
			for (p = pos + klen; p + 6 <= eol; p++)
				if (p[-1] == ' ' && memcmp(p, "total=", 6) == 0)
					return value_errno(parse_digits(p + 6, eol, total_us));
			return -EINVAL;
		}
		pos = eol + 1;
	}
	return -ENOENT;
}
