// SPDX-License-Identifier: GPL-2.0-only
/*
 * rx_records: the series a receiver holds, written as the CLI's records, so
 * that check_values fs compares them with the cgroupfs (rw_values.sh).
 *
 *   rx_records ROOT EXPORT > RECORDS
 *
 * EXPORT is what VictoriaMetrics' /api/v1/export gave for memcg_<stat>,
 * memcg_<stat>_bytes and memcg_<stat>_total series: one JSON object a line,
 * {"metric":{"__name__":"...","cgroup":"...",...},"values":[...],
 * "timestamps":[...]}. Each series' value at its largest timestamp becomes
 * value <stat> of the record of its cgroup, written as memcg-bpf-sample
 * --format json writes one: sample 0, backend "remote_write", the path, its
 * depth and, as cgroup_id, the inode of ROOT/path (0 where there is none:
 * check_values then reports the path). So what check_values fs checks here
 * is the paths (every memory cgroup once, nothing else) and the values; the
 * ids are the CLI's tests'.
 *
 * The cgroup label is decoded with the plugin's own label_unescape
 * (rx_records.sources), which refuses any form the plugin's escaping would
 * not write; the path goes out byte-exact: \u00XX for control bytes and
 * \udcXX for bytes 0x80-0xff, which check_values reads as those bytes.
 *
 * Prints one summary line on stderr. Exit 1 when a line is not such an
 * object, a value is not a whole number, a metric name is not memcg_...,
 * a label does not decode or a cgroup has a stat twice; 2 on usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/utf8.h"
#include "series/label_escape.h"

struct stat_value {
	char *name;
	uint64_t v;
};

struct row {
	char *path; /* decoded: the cgroup's path bytes, NUL-terminated */
	size_t path_len;
	struct stat_value *values;
	size_t nr_values;
};

static struct row *rows;
static size_t nr_rows;
static unsigned problems;

static void problem(unsigned line, const char *fmt, const char *arg)
{
	if (++problems <= 20) {
		fprintf(stderr, "rx_records: line %u: ", line);
		fprintf(stderr, fmt, arg);
		fputc('\n', stderr);
	}
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		perror("rx_records: realloc");
		exit(3);
	}
	return p;
}

/*
 * The JSON string at *@p (at its opening quote), decoded into a new
 * NUL-terminated buffer (@len: its length); *@p moves past it. NULL when it
 * is not a well-formed string.
 */
static char *json_string(const char **p, size_t *len)
{
	const char *s = *p;
	char *out = xrealloc(NULL, strlen(s) + 1); /* a decoded string is never longer */
	size_t o = 0;

	if (*s++ != '"')
		goto fail;
	while (*s != '"') {
		uint32_t cp = 0;

		if (!*s || (unsigned char)*s < 0x20)
			goto fail;
		if (*s != '\\') {
			out[o++] = *s++;
			continue;
		}
		s++;
		switch (*s++) {
		case '"': out[o++] = '"'; continue;
		case '\\': out[o++] = '\\'; continue;
		case '/': out[o++] = '/'; continue;
		case 'b': out[o++] = '\b'; continue;
		case 'f': out[o++] = '\f'; continue;
		case 'n': out[o++] = '\n'; continue;
		case 'r': out[o++] = '\r'; continue;
		case 't': out[o++] = '\t'; continue;
		case 'u': break;
		default: goto fail;
		}
		for (int i = 0; i < 4; i++) {
			int h = hex_digit(*s++);

			if (h < 0)
				goto fail;
			cp = cp << 4 | (uint32_t)h;
		}
		if (cp >= 0xd800 && cp < 0xdc00 && s[0] == '\\' && s[1] == 'u') { /* a surrogate pair */
			uint32_t lo = 0;

			for (int i = 2; i < 6; i++) {
				int h = hex_digit(s[i]);

				if (h < 0)
					goto fail;
				lo = lo << 4 | (uint32_t)h;
			}
			if (lo < 0xdc00 || lo > 0xdfff)
				goto fail;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			s += 6;
		} else if (cp >= 0xd800 && cp <= 0xdfff) {
			goto fail;
		}
		o += utf8_encode(cp, (unsigned char *)out + o);
	}
	*p = s + 1;
	out[o] = 0;
	*len = o;
	return out;
fail:
	free(out);
	return NULL;
}

/* The stat of metric @name (memcg_<stat>[_bytes|_total]) in a new string, or NULL. */
static char *stat_of(const char *name)
{
	static const char *const suffixes[] = { "_bytes", "_total" };
	size_t len = strlen(name);

	if (strncmp(name, "memcg_", 6) || len == 6)
		return NULL;
	name += 6;
	len -= 6;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t sl = strlen(suffixes[i]);

		if (len > sl && !strcmp(name + len - sl, suffixes[i])) {
			len -= sl;
			break;
		}
	}
	return strndup(name, len);
}

/* The first element of the JSON array after "@key":[ in @line, or NULL. */
static const char *array_of(const char *line, const char *key)
{
	char pattern[32];
	const char *p;

	snprintf(pattern, sizeof(pattern), "\"%s\":[", key);
	p = strstr(line, pattern);
	return p ? p + strlen(pattern) : NULL;
}

/* The element after the one at @p (a number: no nesting), or the closing ']'. */
static const char *next_element(const char *p)
{
	p += strcspn(p, ",]");
	return *p == ',' ? p + 1 : p;
}

/* Parses the whole number at @s (up to ',' or ']') into @v; false when it is not one. */
static bool whole_number(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && (*end == ',' || *end == ']');
}

static struct row *row_of(const char *path, size_t len)
{
	for (size_t i = 0; i < nr_rows; i++)
		if (rows[i].path_len == len && !memcmp(rows[i].path, path, len))
			return &rows[i];
	rows = xrealloc(rows, (nr_rows + 1) * sizeof(*rows));
	rows[nr_rows] = (struct row){ .path = xrealloc(NULL, len + 1), .path_len = len };
	memcpy(rows[nr_rows].path, path, len);
	rows[nr_rows].path[len] = 0;
	return &rows[nr_rows++];
}

/* One line of the export: its metric's name and cgroup, its last value. */
static void read_series(char *line, unsigned lineno, unsigned long *series)
{
	char *name = NULL, *cgroup = NULL, *stat = NULL, *path = NULL;
	const char *p = strstr(line, "\"metric\":{");
	size_t name_len = 0, cgroup_len = 0;
	long i, last = -1;
	uint64_t best = 0, t, v;
	ssize_t plen;
	struct row *r;

	if (!p) {
		problem(lineno, "%s", "no \"metric\" object");
		return;
	}
	for (p += strlen("\"metric\":{"); *p != '}';) {
		char *key, *val;
		size_t klen, vlen;

		if (!(key = json_string(&p, &klen)) || *p++ != ':' || !(val = json_string(&p, &vlen))) {
			free(key);
			problem(lineno, "%s", "a label is not \"name\":\"value\"");
			goto out;
		}
		if (!strcmp(key, "__name__"))
			free(name), name = val, name_len = vlen;
		else if (!strcmp(key, "cgroup"))
			free(cgroup), cgroup = val, cgroup_len = vlen;
		else
			free(val);
		free(key);
		if (*p == ',')
			p++;
		else if (*p != '}') {
			problem(lineno, "%s", "bad label list");
			goto out;
		}
	}
	if (!name || !cgroup || strlen(name) != name_len || !(stat = stat_of(name))) {
		problem(lineno, "%s", "not a memcg_<stat> series with a cgroup label");
		goto out;
	}
	/* the value at the largest timestamp */
	for (i = 0, p = array_of(line, "timestamps"); p && *p && *p != ']'; i++, p = next_element(p)) {
		if (!whole_number(p, &t)) {
			problem(lineno, "%s: a timestamp is not a whole number", name);
			goto out;
		}
		if (last < 0 || t >= best)
			best = t, last = i;
	}
	for (i = 0, p = array_of(line, "values"); p && *p && *p != ']' && i < last; i++)
		p = next_element(p);
	if (last < 0 || !p || !whole_number(p, &v)) {
		problem(lineno, "%s: no timestamps, or its last value is not a whole number", name);
		goto out;
	}
	path = xrealloc(NULL, cgroup_len + 1);
	plen = label_unescape(cgroup, cgroup_len, path, cgroup_len);
	if (plen < 0) {
		problem(lineno, "cgroup label \"%s\" is no form the plugin writes", cgroup);
		goto out;
	}
	r = row_of(path, (size_t)plen);
	for (size_t i = 0; i < r->nr_values; i++)
		if (!strcmp(r->values[i].name, stat)) {
			problem(lineno, "cgroup \"%s\": a second series of one stat", cgroup);
			goto out;
		}
	r->values = xrealloc(r->values, (r->nr_values + 1) * sizeof(*r->values));
	r->values[r->nr_values++] = (struct stat_value){ .name = stat, .v = v };
	stat = NULL;
	(*series)++;
out:
	free(name);
	free(cgroup);
	free(stat);
	free(path);
}

/* @r's path as a JSON string: bytes outside printable ASCII as \u00XX or \udcXX. */
static void put_path(const struct row *r)
{
	putchar('"');
	for (size_t i = 0; i < r->path_len; i++) {
		unsigned char c = (unsigned char)r->path[i];

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			printf("\\u%04x", c);
		else if (c >= 0x80)
			printf("\\udc%02x", c);
		else
			putchar(c);
	}
	putchar('"');
}

int main(int argc, char **argv)
{
	unsigned long series = 0;
	unsigned lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: rx_records ROOT EXPORT\n");
		return 2;
	}
	f = fopen(argv[2], "r");
	if (!f) {
		fprintf(stderr, "rx_records: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		if (line[strspn(line, " \r\n")])
			read_series(line, lineno, &series);
	}
	fclose(f);
	free(line);
	for (size_t i = 0; i < nr_rows; i++) {
		struct row *r = &rows[i];
		struct stat st;
		char *file;
		long depth = 0;

		if (asprintf(&file, "%s%s", argv[1], r->path) < 0)
			return 3;
		for (size_t k = 0; k < r->path_len && r->path_len > 1; k++)
			depth += r->path[k] == '/';
		printf("{\"sample\":0,\"backend\":\"remote_write\",\"cgroup_id\":%" PRIu64 ",\"depth\":%ld,\"path\":",
		       stat(file, &st) == 0 ? (uint64_t)st.st_ino : 0, depth);
		free(file);
		put_path(r);
		fputs(",\"values\":{", stdout);
		for (size_t k = 0; k < r->nr_values; k++)
			printf("%s\"%s\":%" PRIu64, k ? "," : "", r->values[k].name, r->values[k].v);
		fputs("}}\n", stdout);
	}
	fprintf(stderr, "rx_records: %lu series of %zu cgroups, %u problems\n", series, nr_rows, problems);
	return problems ? 1 : 0;
}
