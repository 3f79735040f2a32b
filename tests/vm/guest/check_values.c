// SPDX-License-Identifier: GPL-2.0-only
/*
 * check_values: the guest-side comparator of the VM tests. It reads the JSON
 * lines of memcg-bpf-sample and checks them against ground truth it reads
 * itself (never through the project's code):
 *
 *   check_values fs [-n MIN_CGROUPS] ROOT JSON
 *       Every record of the last sample against the cgroupfs under ROOT:
 *       cgroup_id == inode of the directory, depth == number of components,
 *       every value == memory.stat / memory.current ("usage") /
 *       memory.events (low high max oom oom_kill oom_group_kill
 *       sock_throttled) / memory.events.local (the same names + "_local") /
 *       memory.max, .high, .low, .min, .peak, .swap.current, .swap.max
 *       ("memory_max" ..., "swap_current", "swap_max"; "max" for no limit) /
 *       memory.current - inactive_file ("working_set") / memory.pressure's
 *       totals ("pressure_some", "pressure_full": at most 3 s behind the
 *       file, never ahead); a record's "numa" object ({"anon":{"0":v,...}})
 *       == memory.numa_stat's line "anon N0=v ...", node by node (its
 *       values are named numa_<stat>_N<node> here; -N K: every record but
 *       the root has one, with K nodes for each of its stats). Every memory cgroup under ROOT (a directory
 *       with memory.stat) must have been reported exactly once, and nothing
 *       else: a cgroup without the memory controller (its parent's
 *       cgroup.subtree_control lacks +memory; it has memory.pressure but no
 *       memory.stat) is no row. The root "/" is only checked for presence.
 *   check_values cmp A_JSON B_JSON
 *       Two runs (e.g. bpf and text) report the same cgroups with the same
 *       value names and equal values (the root "/" excluded).
 *   check_values ids [-c COUNT] ROOT CREATED_LOG JSON
 *       Churn: a cgroup id is never reported with two different paths, and
 *       the path reported for an id is the path that id had: either a
 *       directory under ROOT now, or a line "INODE PATH" in CREATED_LOG
 *       (written when the churn loop created it). With -c, samples 0..COUNT-1
 *       must all be present.
 *   check_values csv [-n MIN_CGROUPS] ROOT HOSTDIR STAT[,STAT...]
 *       What collectd's csv plugin wrote for memcg_bpf (HOSTDIR is the csv
 *       DataDir's <hostname> directory) against the cgroupfs under ROOT:
 *       for every cgroup directory under ROOT but the root itself, the last
 *       row of each STAT's file in HOSTDIR/memcg_bpf-<plugin_instance>/
 *       equals memory.stat / memory.current / memory.events now. Every
 *       memcg_bpf-* directory must belong to a cgroup, "root" or "self".
 *   check_values inodes ROOT
 *       Prints "INODE PATH" for every cgroup under ROOT (debugging aid).
 *
 * Ground truth is read here, never through the project's code. The one
 * piece of the project linked in (check_values.sources) is the
 * plugin_instance naming rule, series/instance_name.c, which the csv mode
 * needs to find the files of a cgroup.
 *
 * Prints one summary line on stdout; exit 0 when everything matched.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/utf8.h"
#include "series/instance_name.h"

#define MAX_REPORTS 20

struct value {
	char *name;
	uint64_t v;
};

struct record {
	long sample;
	uint64_t id;
	long depth;
	char *path;
	char *backend;
	struct value *values;
	size_t nr_values, cap_values;
	size_t nr_numa; /* of the values, those of the "numa" object */
	unsigned line;
};

struct records {
	struct record *r;
	size_t n, cap;
};

static unsigned reports;

static void report(const char *fmt, ...)
{
	va_list ap;

	if (++reports > MAX_REPORTS) {
		if (reports == MAX_REPORTS + 1)
			fprintf(stderr, "check_values: (further problems not shown)\n");
		return;
	}
	va_start(ap, fmt);
	fputs("check_values: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		perror("check_values: realloc");
		exit(3);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		perror("check_values: strdup");
		exit(3);
	}
	return d;
}

/* A printable form of a path for messages: non-printable bytes as \xNN. */
static const char *show(const char *s)
{
	static char buf[4][1024];
	static int slot;
	char *out = buf[slot++ & 3];
	size_t o = 0;

	for (; *s && o + 5 < sizeof(buf[0]); s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '\\')
			o += (size_t)snprintf(out + o, 5, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = 0;
	return out;
}

/* ------------------------------------------------------------ JSON reader */

struct parser {
	const char *p;
	const char *err;
};

static void ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r' || *ps->p == '\n')
		ps->p++;
}

static bool expect(struct parser *ps, char c)
{
	ws(ps);
	if (*ps->p != c) {
		ps->err = "unexpected character";
		return false;
	}
	ps->p++;
	return true;
}

static void put_utf8(char **out, size_t *len, size_t *cap, unsigned cp)
{
	unsigned char b[4];
	size_t n = utf8_encode(cp, b);

	if (*len + n + 1 > *cap) {
		*cap = (*cap + n + 1) * 2;
		*out = xrealloc(*out, *cap);
	}
	memcpy(*out + *len, b, n);
	*len += n;
}

static int read_u4(struct parser *ps, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		int h = hex_digit(ps->p[i]);

		if (h < 0) {
			ps->err = "bad \\u escape";
			return -1;
		}
		v = v << 4 | (unsigned)h;
	}
	ps->p += 4;
	*out = v;
	return 0;
}

/*
 * The CLI's escaping (cli/path_escape.h): \" \\ \n \t, \u00XX for control
 * bytes, \uXXXX (and surrogate pairs) for the code points of well-formed
 * UTF-8, and \uDCXX, a lone low surrogate, for each byte of invalid UTF-8
 * (PEP 383). So \u0000-\u007f decode to that byte, a lone \udc80-\udcff
 * to the byte 0x80-0xff, and every other code point to its UTF-8.
 */
static char *parse_string(struct parser *ps)
{
	size_t len = 0, cap = 32;
	char *out = xrealloc(NULL, cap);

	if (!expect(ps, '"'))
		goto fail;
	for (;;) {
		unsigned char c = (unsigned char)*ps->p++;
		unsigned cp;

		if (c == '"')
			break;
		if (c == 0 || c < 0x20) {
			ps->err = c ? "raw control byte in string" : "unterminated string";
			goto fail;
		}
		if (c == '\\') {
			char e = *ps->p++;

			switch (e) {
			case '"': cp = '"'; break;
			case '\\': cp = '\\'; break;
			case '/': cp = '/'; break;
			case 'b': cp = '\b'; break;
			case 'f': cp = '\f'; break;
			case 'n': cp = '\n'; break;
			case 'r': cp = '\r'; break;
			case 't': cp = '\t'; break;
			case 'u':
				if (read_u4(ps, &cp) < 0)
					goto fail;
				if (cp < 0x80 || (cp >= 0xdc80 && cp <= 0xdcff)) {
					c = (unsigned char)cp; /* the low byte of \udcXX */
					goto raw;
				}
				if (cp >= 0xdc00 && cp <= 0xdfff) {
					ps->err = "lone low surrogate that is not an escaped byte";
					goto fail;
				}
				if (cp >= 0xd800 && cp < 0xdc00 && ps->p[0] == '\\' && ps->p[1] == 'u') {
					unsigned lo;

					ps->p += 2;
					if (read_u4(ps, &lo) < 0)
						goto fail;
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				}
				break;
			default:
				ps->err = "bad escape";
				goto fail;
			}
			put_utf8(&out, &len, &cap, cp);
			continue;
		}
raw:
		if (len + 2 > cap) {
			cap *= 2;
			out = xrealloc(out, cap);
		}
		out[len++] = (char)c;
	}
	out[len] = 0;
	return out;
fail:
	free(out);
	return NULL;
}

/* "max" in a file or in the JSON: no limit */
#define UNLIMITED (UINT64_MAX - 1)

static int parse_u64(struct parser *ps, uint64_t *out)
{
	uint64_t v = 0;

	ws(ps);
	if (!strncmp(ps->p, "\"max\"", 5)) { /* a limit set to "max", as the file prints it */
		ps->p += 5;
		*out = UNLIMITED;
		return 0;
	}
	if (*ps->p < '0' || *ps->p > '9') {
		ps->err = "expected an unsigned integer";
		return -1;
	}
	while (*ps->p >= '0' && *ps->p <= '9') {
		uint64_t d = (uint64_t)(*ps->p++ - '0');

		if (v > (UINT64_MAX - d) / 10) {
			ps->err = "integer overflow";
			return -1;
		}
		v = v * 10 + d;
	}
	if (*ps->p == '.' || *ps->p == 'e' || *ps->p == 'E') {
		ps->err = "expected an integer, got a fraction";
		return -1;
	}
	*out = v;
	return 0;
}

static int skip_value(struct parser *ps)
{
	ws(ps);
	if (*ps->p == '"') {
		free(parse_string(ps));
		return ps->err ? -1 : 0;
	}
	if (*ps->p == '{' || *ps->p == '[') {
		char close = *ps->p == '{' ? '}' : ']';

		ps->p++;
		ws(ps);
		if (*ps->p == close) {
			ps->p++;
			return 0;
		}
		for (;;) {
			if (close == '}') {
				free(parse_string(ps));
				if (ps->err || !expect(ps, ':'))
					return -1;
			}
			if (skip_value(ps) < 0)
				return -1;
			ws(ps);
			if (*ps->p == ',') {
				ps->p++;
				continue;
			}
			return expect(ps, close) ? 0 : -1;
		}
	}
	if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9') || *ps->p == 't' || *ps->p == 'f' ||
	    *ps->p == 'n') {
		while (*ps->p && !strchr(",}] \t\r\n", *ps->p))
			ps->p++;
		return 0;
	}
	ps->err = "unexpected value";
	return -1;
}

static void add_value(struct parser *ps, struct record *r, char *name, uint64_t v)
{
	for (size_t i = 0; i < r->nr_values; i++)
		if (!strcmp(r->values[i].name, name)) {
			ps->err = "duplicate value name";
			free(name);
			return;
		}
	if (r->nr_values == r->cap_values) {
		r->cap_values = r->cap_values ? r->cap_values * 2 : 32;
		r->values = xrealloc(r->values, r->cap_values * sizeof(*r->values));
	}
	r->values[r->nr_values].name = name;
	r->values[r->nr_values++].v = v;
}

/*
 * Parses an object {"key":<value>,...}: @member parses each value, given the
 * key (which it frees). 0, or -1 with ps->err.
 */
static int parse_object(struct parser *ps, int (*member)(struct parser *, char *, void *), void *arg)
{
	if (!expect(ps, '{'))
		return -1;
	ws(ps);
	if (*ps->p == '}') {
		ps->p++;
		return 0;
	}
	for (;;) {
		char *key = parse_string(ps);

		if (!key || !expect(ps, ':')) {
			free(key);
			return -1;
		}
		if (member(ps, key, arg) < 0)
			return -1;
		ws(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		return expect(ps, '}') ? 0 : -1;
	}
}

/* A value of "values": "<name>":<u64>. */
static int value_member(struct parser *ps, char *name, void *arg)
{
	uint64_t v;

	if (parse_u64(ps, &v) < 0) {
		free(name);
		return -1;
	}
	add_value(ps, arg, name, v);
	return ps->err ? -1 : 0;
}

struct numa_stat_ctx {
	struct record *r;
	const char *stat;
};

/* A node's value of one stat of "numa": "<node>":<u64>, kept as numa_<stat>_N<node>. */
static int node_member(struct parser *ps, char *node, void *arg)
{
	struct numa_stat_ctx *ctx = arg;
	char *name;
	int err;

	if (asprintf(&name, "numa_%s_N%s", ctx->stat, node) < 0) {
		free(node);
		ps->err = "out of memory";
		return -1;
	}
	free(node);
	err = value_member(ps, name, ctx->r);
	ctx->r->nr_numa += err == 0;
	return err;
}

/* A stat of "numa": "<stat>":{"<node>":v,...}. */
static int stat_member(struct parser *ps, char *stat, void *arg)
{
	struct numa_stat_ctx ctx = { .r = arg, .stat = stat };
	int err = parse_object(ps, node_member, &ctx);

	free(stat);
	return err;
}

/* Parses one JSON line into @r. Returns 0 or -1 with a message. */
static int parse_record(const char *line, unsigned lineno, struct record *r)
{
	struct parser ps = { .p = line };
	bool have_sample = false, have_id = false, have_path = false, have_depth = false,
	     have_values = false;

	memset(r, 0, sizeof(*r));
	r->line = lineno;
	if (!expect(&ps, '{'))
		goto fail;
	for (;;) {
		char *key = parse_string(&ps);
		uint64_t u;

		if (!key || !expect(&ps, ':')) {
			free(key);
			goto fail;
		}
		if (!strcmp(key, "sample")) {
			if (parse_u64(&ps, &u) < 0)
				goto fail_key;
			r->sample = (long)u;
			have_sample = true;
		} else if (!strcmp(key, "cgroup_id")) {
			if (parse_u64(&ps, &r->id) < 0)
				goto fail_key;
			have_id = true;
		} else if (!strcmp(key, "depth")) {
			if (parse_u64(&ps, &u) < 0)
				goto fail_key;
			r->depth = (long)u;
			have_depth = true;
		} else if (!strcmp(key, "path")) {
			if (!(r->path = parse_string(&ps)))
				goto fail_key;
			have_path = true;
		} else if (!strcmp(key, "backend")) {
			if (!(r->backend = parse_string(&ps)))
				goto fail_key;
		} else if (!strcmp(key, "values")) {
			if (parse_object(&ps, value_member, r) < 0)
				goto fail_key;
			have_values = true;
		} else if (!strcmp(key, "numa")) {
			if (parse_object(&ps, stat_member, r) < 0)
				goto fail_key;
		} else if (skip_value(&ps) < 0) {
			goto fail_key;
		}
		free(key);
		ws(&ps);
		if (*ps.p == ',') {
			ps.p++;
			continue;
		}
		if (!expect(&ps, '}'))
			goto fail;
		break;
fail_key:
		free(key);
		goto fail;
	}
	ws(&ps);
	if (*ps.p) {
		ps.err = "trailing characters";
		goto fail;
	}
	if (!have_sample || !have_id || !have_path || !have_depth || !have_values || !r->backend) {
		report("line %u: a field of sample, backend, cgroup_id, path, depth, values is missing",
		       lineno);
		return -1;
	}
	return 0;
fail:
	report("line %u: bad JSON (%s) near offset %ld", lineno, ps.err ? ps.err : "?",
	       (long)(ps.p - line));
	return -1;
}

/* Reads all records of @file. Returns the number of bad lines. */
static unsigned read_records(const char *file, struct records *out)
{
	FILE *f = fopen(file, "r");
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0, bad = 0;
	ssize_t n;

	if (!f) {
		report("%s: %s", file, strerror(errno));
		return 1;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		struct record r;

		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		if (n == 0)
			continue;
		if (parse_record(line, lineno, &r) < 0) {
			bad++;
			continue;
		}
		if (out->n == out->cap) {
			out->cap = out->cap ? out->cap * 2 : 1024;
			out->r = xrealloc(out->r, out->cap * sizeof(*out->r));
		}
		out->r[out->n++] = r;
	}
	free(line);
	fclose(f);
	return bad;
}

static long last_sample(const struct records *rs)
{
	long s = -1;

	for (size_t i = 0; i < rs->n; i++)
		if (rs->r[i].sample > s)
			s = rs->r[i].sample;
	return s;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp((*(const struct record *const *)a)->path, (*(const struct record *const *)b)->path);
}

/* The records of sample @s, sorted by path. Reports duplicate paths. */
static struct record **sample_index(const struct records *rs, long s, size_t *count, unsigned *dups)
{
	struct record **idx = xrealloc(NULL, (rs->n + 1) * sizeof(*idx));
	size_t n = 0;

	for (size_t i = 0; i < rs->n; i++)
		if (rs->r[i].sample == s)
			idx[n++] = &rs->r[i];
	qsort(idx, n, sizeof(*idx), cmp_path);
	*dups = 0;
	for (size_t i = 1; i < n; i++)
		if (!strcmp(idx[i - 1]->path, idx[i]->path)) {
			report("sample %ld: path \"%s\" reported twice", s, show(idx[i]->path));
			(*dups)++;
		}
	*count = n;
	return idx;
}

static struct record *find_path(struct record **idx, size_t n, const char *path)
{
	struct record key = { .path = (char *)path }, *kp = &key, **hit;

	hit = bsearch(&kp, idx, n, sizeof(*idx), cmp_path);
	return hit ? *hit : NULL;
}

/* ------------------------------------------------------------ cgroupfs */

struct kv {
	char name[64];
	uint64_t v;
};

struct kvfile {
	struct kv *kv;
	size_t n;
	bool present;
};

/* Reads file @name of @dirfd into @buf, NUL-terminated; false when it cannot. */
static bool read_text(int dirfd, const char *name, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	while ((n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = 0;
	return n == 0;
}

/* Reads a "name value" file (memory.stat, memory.events) or a single number. */
static void read_kv(int dirfd, const char *name, bool single, struct kvfile *out)
{
	char buf[16384];

	out->n = 0;
	out->present = read_text(dirfd, name, buf, sizeof(buf));
	if (!out->present)
		return;
	if (single) {
		out->kv = xrealloc(out->kv, sizeof(*out->kv));
		strcpy(out->kv[0].name, "value");
		out->kv[0].v = !strcmp(buf, "max\n") ? UNLIMITED : strtoull(buf, NULL, 10);
		out->n = 1;
		return;
	}
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char *sp = strchr(line, ' '), *total = strstr(line, " total=");

		if (!sp || (size_t)(sp - line) >= sizeof(out->kv[0].name))
			continue;
		out->kv = xrealloc(out->kv, (out->n + 1) * sizeof(*out->kv));
		memcpy(out->kv[out->n].name, line, (size_t)(sp - line));
		out->kv[out->n].name[sp - line] = 0;
		/* memory.pressure: "some avg10=... total=N" */
		out->kv[out->n].v = strtoull(total ? total + 7 : sp + 1, NULL, 10);
		out->n++;
	}
}

static const struct kv *kv_find(const struct kvfile *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->kv[i].name, name))
			return &f->kv[i];
	return NULL;
}

/*
 * The files of one cgroup that values are checked against. Pressure totals
 * keep growing while the group stalls, and the bpf backend reads the
 * kernel's aggregate, refreshed every 2 s: a sampled total may be behind the
 * file read after it by up to PRESSURE_SLACK_US, never ahead.
 */
#define PRESSURE_SLACK_US 3000000

struct cg_files {
	struct kvfile stat, events, events_local, usage, pressure, single, numa;
};

/* memory.numa_stat ("anon N0=1 N1=2" lines) as values named numa_anon_N0, numa_anon_N1. */
static void read_numa(int dirfd, struct kvfile *out)
{
	char buf[16384], *save = NULL;

	out->n = 0;
	out->present = read_text(dirfd, "memory.numa_stat", buf, sizeof(buf));
	if (!out->present)
		return;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tok_save = NULL, *stat = strtok_r(line, " ", &tok_save), *tok;

		while (stat && (tok = strtok_r(NULL, " ", &tok_save))) {
			char *eq = strchr(tok, '=');

			if (tok[0] != 'N' || !eq)
				continue;
			out->kv = xrealloc(out->kv, (out->n + 1) * sizeof(*out->kv));
			snprintf(out->kv[out->n].name, sizeof(out->kv[0].name), "numa_%s_%.*s", stat,
				 (int)(eq - tok), tok);
			out->kv[out->n].v = strtoull(eq + 1, NULL, 10);
			out->n++;
		}
	}
}

static void read_cg_files(int fd, struct cg_files *f)
{
	read_numa(fd, &f->numa);
	read_kv(fd, "memory.stat", false, &f->stat);
	read_kv(fd, "memory.events", false, &f->events);
	read_kv(fd, "memory.events.local", false, &f->events_local);
	read_kv(fd, "memory.current", true, &f->usage);
	read_kv(fd, "memory.pressure", false, &f->pressure);
}

/* The single-number file a limit-like value is in, or NULL. */
static const char *single_file(const char *name)
{
	static const char *const map[][2] = {
		{ "memory_max", "memory.max" },   { "memory_high", "memory.high" },
		{ "memory_low", "memory.low" },   { "memory_min", "memory.min" },
		{ "memory_peak", "memory.peak" }, { "swap_current", "memory.swap.current" },
		{ "swap_max", "memory.swap.max" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i][0], name))
			return map[i][1];
	return NULL;
}

static bool is_event(const char *name);

/* A per-node value: numa_<stat>_N<node> (memory.stat has numa_* stats of its own: numa_pte_updates...). */
static bool is_node_value(const char *name)
{
	const char *n = strrchr(name, '_');

	if (strncmp(name, "numa_", 5) || !n || n[1] != 'N' || !n[2])
		return false;
	for (n += 2; *n; n++)
		if (*n < '0' || *n > '9')
			return false;
	return true;
}

/*
 * What the cgroupfs says value @name is now: 0 and @out, or -1 with @why.
 * @pressure is set for the PSI totals (compared with slack).
 */
static int truth(int fd, struct cg_files *f, const char *name, uint64_t *out, bool *pressure, const char **why)
{
	const struct kv *kv = NULL, *inactive;
	const char *file = single_file(name);
	char key[64];
	size_t len = strlen(name);

	*pressure = false;
	*why = "is in no cgroupfs file";
	if (file) {
		read_kv(fd, file, true, &f->single);
		kv = f->single.n ? &f->single.kv[0] : NULL;
	} else if (!strcmp(name, "usage")) {
		kv = f->usage.n ? &f->usage.kv[0] : NULL;
	} else if (!strcmp(name, "working_set")) {
		inactive = kv_find(&f->stat, "inactive_file");
		if (!f->usage.n || !inactive)
			return -1;
		*out = f->usage.kv[0].v > inactive->v ? f->usage.kv[0].v - inactive->v : 0;
		return 0;
	} else if (is_node_value(name)) {
		*why = "is in no line of memory.numa_stat";
		kv = kv_find(&f->numa, name);
	} else if (!strcmp(name, "pressure_some") || !strcmp(name, "pressure_full")) {
		*pressure = true;
		kv = kv_find(&f->pressure, name + 9);
	} else if (len > 6 && !strcmp(name + len - 6, "_local") && len - 6 < sizeof(key)) {
		snprintf(key, sizeof(key), "%.*s", (int)(len - 6), name);
		kv = is_event(key) ? kv_find(&f->events_local, key) : NULL;
	} else {
		kv = kv_find(is_event(name) ? &f->events : &f->stat, name);
	}
	if (!kv)
		return -1;
	*out = kv->v;
	return 0;
}

static bool is_event(const char *name)
{
	static const char *const ev[] = { "low", "high", "max", "oom", "oom_kill",
					  "oom_group_kill", "sock_throttled", NULL };

	for (int i = 0; ev[i]; i++)
		if (!strcmp(ev[i], name))
			return true;
	return false;
}

struct dir_entry {
	char *path;
	uint64_t ino;
};

struct dirs {
	struct dir_entry *d;
	size_t n, cap;
};

static void walk(int dirfd, const char *rel, struct dirs *out)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;

	if (!d) {
		close(dirfd);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;
		char *child;
		size_t len;
		int fd;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue; /* removed meanwhile, or not a directory */
		if (fstat(fd, &st) < 0) {
			close(fd);
			continue;
		}
		len = strlen(rel) + strlen(de->d_name) + 2;
		child = xrealloc(NULL, len);
		snprintf(child, len, "%s/%s", strcmp(rel, "/") ? rel : "", de->d_name);
		if (faccessat(fd, "memory.stat", F_OK, 0) == 0) { /* a memory cgroup */
			if (out->n == out->cap) {
				out->cap = out->cap ? out->cap * 2 : 1024;
				out->d = xrealloc(out->d, out->cap * sizeof(*out->d));
			}
			out->d[out->n].path = child;
			out->d[out->n++].ino = (uint64_t)st.st_ino;
			walk(fd, child, out);
		} else {
			walk(fd, child, out);
			free(child);
		}
	}
	closedir(d);
}

static int walk_root(const char *root, struct dirs *out)
{
	struct stat st;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		report("%s: %s", root, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	out->d = xrealloc(NULL, 1024 * sizeof(*out->d));
	out->cap = 1024;
	out->d[0].path = xstrdup("/");
	out->d[0].ino = (uint64_t)st.st_ino;
	out->n = 1;
	walk(fd, "/", out);
	return 0;
}

static long path_depth(const char *path)
{
	long d = 0;

	if (!strcmp(path, "/"))
		return 0;
	for (; *path; path++)
		if (*path == '/')
			d++;
	return d;
}

/* ------------------------------------------------------------ modes */

/* Whether @r has per-node values, @nodes of each of its per-node stats. */
static bool numa_complete(const struct record *r, long nodes)
{
	size_t stats = 0;

	for (size_t i = 0; i < r->nr_values; i++) {
		const char *name = r->values[i].name;

		/* count each stat once: at its node 0 value */
		if (!strncmp(name, "numa_", 5) && strlen(name) > 3 && !strcmp(name + strlen(name) - 3, "_N0"))
			stats++;
	}
	return r->nr_numa > 0 && r->nr_numa == stats * (size_t)nodes;
}

static int mode_fs(int argc, char **argv)
{
	struct records rs = { 0 };
	struct record **idx;
	struct dirs dirs = { 0 };
	struct cg_files files = { 0 };
	unsigned long compared = 0, mismatches = 0, bad_ids = 0, bad_depth = 0, missing = 0,
		      empty = 0, unlimited = 0, pressure_behind = 0, no_memcg = 0, numa = 0, numa_short = 0;
	long min_cgroups = 1, numa_nodes = 0, s;
	unsigned bad, dups;
	size_t n;
	int rootfd, opt;

	while ((opt = getopt(argc, argv, "n:N:")) != -1) {
		if (opt == 'n')
			min_cgroups = strtol(optarg, NULL, 10);
		else if (opt == 'N')
			numa_nodes = strtol(optarg, NULL, 10);
		else
			return 2;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: check_values fs [-n MIN_CGROUPS] [-N NUMA_NODES] ROOT JSON\n");
		return 2;
	}
	const char *root = argv[optind], *json = argv[optind + 1];

	bad = read_records(json, &rs);
	s = last_sample(&rs);
	idx = sample_index(&rs, s, &n, &dups);
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		report("%s: %s", root, strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		struct record *r = idx[i];
		const char *rel = r->path[0] == '/' ? r->path + 1 : r->path;
		struct stat st;
		int fd;

		if (r->path[0] != '/') {
			report("line %u: path \"%s\" does not start with /", r->line, show(r->path));
			missing++;
			continue;
		}
		fd = *rel ? openat(rootfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : dup(rootfd);
		if (fd < 0 || fstat(fd, &st) < 0) {
			report("line %u: %s%s: %s", r->line, root, show(r->path), strerror(errno));
			missing++;
			if (fd >= 0)
				close(fd);
			continue;
		}
		if ((uint64_t)st.st_ino != r->id) {
			report("%s: cgroup_id %" PRIu64 ", inode %" PRIu64, show(r->path), r->id,
			       (uint64_t)st.st_ino);
			bad_ids++;
		}
		if (r->depth != path_depth(r->path)) {
			report("%s: depth %ld, expected %ld", show(r->path), r->depth, path_depth(r->path));
			bad_depth++;
		}
		if (!strcmp(r->path, "/")) {
			close(fd);
			continue;
		}
		if (faccessat(fd, "memory.stat", F_OK, 0) != 0) {
			report("%s: reported, but it has no memory controller (no memory.stat)", show(r->path));
			no_memcg++;
		}
		if (r->nr_values == 0) {
			report("%s: no values", show(r->path));
			empty++;
		}
		if (numa_nodes && !numa_complete(r, numa_nodes)) {
			report("%s: %zu per-node values, not %ld nodes for each of its per-node stats", show(r->path),
			       r->nr_numa, numa_nodes);
			numa_short++;
		}
		numa += r->nr_numa;
		read_cg_files(fd, &files);
		for (size_t v = 0; v < r->nr_values; v++) {
			const char *name = r->values[v].name, *why;
			uint64_t want, got = r->values[v].v;
			bool pressure;

			compared++;
			if (truth(fd, &files, name, &want, &pressure, &why) < 0) {
				report("%s: \"%s\"=%" PRIu64 " %s", show(r->path), name, got, why);
				mismatches++;
			} else if (pressure ? got > want || want - got > PRESSURE_SLACK_US : got != want) {
				report("%s: %s: reported %" PRIu64 ", cgroupfs %" PRIu64 "%s", show(r->path),
				       name, got, want, pressure ? " (pressure: never ahead, at most 3 s behind)" : "");
				mismatches++;
			} else {
				unlimited += got == UNLIMITED;
				pressure_behind += pressure && got != want;
			}
		}
		close(fd);
	}
	/* Every cgroup directory must have been reported. */
	if (walk_root(root, &dirs) == 0)
		for (size_t i = 0; i < dirs.n; i++)
			if (!find_path(idx, n, dirs.d[i].path)) {
				report("cgroup %s not reported", show(dirs.d[i].path));
				missing++;
			}
	printf("check_values fs: sample=%ld cgroups=%zu dirs=%zu values=%lu mismatches=%lu "
	       "bad_ids=%lu bad_depth=%lu missing=%lu empty=%lu bad_lines=%u dup_paths=%u "
	       "no_memcg=%lu unlimited=%lu pressure_behind=%lu numa=%lu numa_short=%lu\n",
	       s, n, dirs.n, compared, mismatches, bad_ids, bad_depth, missing, empty, bad, dups,
	       no_memcg, unlimited, pressure_behind, numa, numa_short);
	if ((long)n < min_cgroups)
		report("only %zu cgroups reported, expected at least %ld", n, min_cgroups);
	return (bad || dups || mismatches || bad_ids || bad_depth || missing || empty || no_memcg ||
		numa_short || (numa_nodes && numa == 0) || (long)n < min_cgroups || compared == 0)
		       ? 1
		       : 0;
}

static int mode_cmp(int argc, char **argv)
{
	struct records a = { 0 }, b = { 0 };
	struct record **ia, **ib;
	size_t na, nb;
	unsigned bad, dups_a, dups_b;
	unsigned long compared = 0, mismatches = 0, only = 0, names = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: check_values cmp A_JSON B_JSON\n");
		return 2;
	}
	bad = read_records(argv[1], &a) + read_records(argv[2], &b);
	ia = sample_index(&a, last_sample(&a), &na, &dups_a);
	ib = sample_index(&b, last_sample(&b), &nb, &dups_b);
	for (size_t i = 0; i < na; i++) {
		struct record *ra = ia[i], *rb = find_path(ib, nb, ra->path);

		if (!rb) {
			report("%s: only in %s", show(ra->path), argv[1]);
			only++;
			continue;
		}
		if (ra->id != rb->id) {
			report("%s: cgroup_id %" PRIu64 " vs %" PRIu64, show(ra->path), ra->id, rb->id);
			mismatches++;
		}
		if (!strcmp(ra->path, "/"))
			continue;
		for (size_t v = 0; v < ra->nr_values; v++) {
			size_t w;

			for (w = 0; w < rb->nr_values; w++)
				if (!strcmp(ra->values[v].name, rb->values[w].name))
					break;
			if (w == rb->nr_values) {
				report("%s: value %s only in %s", show(ra->path), ra->values[v].name, argv[1]);
				names++;
				continue;
			}
			compared++;
			if (ra->values[v].v != rb->values[w].v) {
				report("%s: %s: %" PRIu64 " (%s) vs %" PRIu64 " (%s)", show(ra->path),
				       ra->values[v].name, ra->values[v].v, ra->backend, rb->values[w].v,
				       rb->backend);
				mismatches++;
			}
		}
		for (size_t w = 0; w < rb->nr_values; w++) {
			size_t v;

			for (v = 0; v < ra->nr_values; v++)
				if (!strcmp(ra->values[v].name, rb->values[w].name))
					break;
			if (v == ra->nr_values) {
				report("%s: value %s only in %s", show(ra->path), rb->values[w].name,
				       argv[2]);
				names++;
			}
		}
	}
	for (size_t i = 0; i < nb; i++)
		if (!find_path(ia, na, ib[i]->path)) {
			report("%s: only in %s", show(ib[i]->path), argv[2]);
			only++;
		}
	printf("check_values cmp: cgroups=%zu/%zu values=%lu mismatches=%lu only_one_side=%lu "
	       "value_names_differ=%lu bad_lines=%u\n",
	       na, nb, compared, mismatches, only, names, bad);
	return (bad || dups_a || dups_b || mismatches || only || names || compared == 0) ? 1 : 0;
}

/*
 * ids: an id -> path map (open addressing) of every cgroup known to have
 * existed, filled from a walk of ROOT and from CREATED_LOG, which another
 * process may still be appending to while the JSON streams in.
 */
struct identry {
	uint64_t id;
	char *path; /* NULL: free slot */
	long last_sample;
	bool from_log;
};

struct idmap {
	struct identry *e;
	size_t cap, n;
	unsigned long inconsistent;
};

static size_t id_slot(const struct idmap *m, uint64_t id)
{
	size_t i = (size_t)((id * 0x9e3779b97f4a7c15ULL) >> 17) & (m->cap - 1);

	while (m->e[i].path && m->e[i].id != id)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static struct identry *id_find(const struct idmap *m, uint64_t id)
{
	struct identry *e = &m->e[id_slot(m, id)];

	return e->path ? e : NULL;
}

/* Adds id -> path (takes @path); the same id with another path is reported. */
static void id_add(struct idmap *m, uint64_t id, char *path, bool from_log)
{
	struct identry *e;

	if ((m->n + 1) * 2 > m->cap) {
		struct idmap old = *m;

		m->cap = m->cap ? m->cap * 2 : 4096;
		m->e = calloc(m->cap, sizeof(*m->e));
		if (!m->e) {
			perror("check_values: calloc");
			exit(3);
		}
		for (size_t i = 0; i < old.cap; i++)
			if (old.e[i].path)
				m->e[id_slot(m, old.e[i].id)] = old.e[i];
		free(old.e);
	}
	e = &m->e[id_slot(m, id)];
	if (e->path) {
		if (strcmp(e->path, path)) {
			report("inode %" PRIu64 " was created as %s and as %s (ids reused?)", id,
			       show(e->path), show(path));
			m->inconsistent++;
		}
		free(path);
		return;
	}
	e->id = id;
	e->path = path;
	e->last_sample = -1;
	e->from_log = from_log;
	m->n++;
}

/* Undoes churn.c's escaping of a CREATED_LOG path (\xNN) in place. */
static void unescape_log_path(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == 'x' && hex_digit(s[2]) >= 0 && hex_digit(s[3]) >= 0) {
			*o++ = (char)(hex_digit(s[2]) << 4 | hex_digit(s[3]));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

/*
 * Reads the lines of CREATED_LOG added since the last call; a last line
 * without its newline (being written right now) is left for the next call.
 */
static void read_created(FILE *f, struct idmap *m)
{
	static char *line;
	static size_t cap;

	for (;;) {
		long off = ftell(f);
		ssize_t n = getline(&line, &cap, f);
		char *sp;

		if (n <= 0) {
			clearerr(f);
			return;
		}
		if (line[n - 1] != '\n') {
			fseek(f, off, SEEK_SET);
			clearerr(f);
			return;
		}
		line[n - 1] = 0;
		sp = strchr(line, ' ');
		if (!sp)
			continue;
		unescape_log_path(sp + 1);
		id_add(m, strtoull(line, NULL, 10), xstrdup(sp + 1), true);
	}
}

struct pending {
	uint64_t id;
	char *path;
	long sample, depth;
};

/*
 * Checks one record against the map. Returns false when its id is not (yet)
 * known.
 */
static bool check_id(struct idmap *m, uint64_t id, const char *path, long sample, long depth,
		     unsigned long *wrong_path, unsigned long *bad_depth, unsigned long *dup,
		     unsigned long *churned)
{
	struct identry *e = id_find(m, id);

	if (!e)
		return false;
	if (strcmp(e->path, path)) {
		report("sample %ld: cgroup_id %" PRIu64 " reported as %s, but it is %s", sample, id,
		       show(path), show(e->path));
		(*wrong_path)++;
	}
	if (depth != path_depth(path)) {
		report("sample %ld: %s: depth %ld, expected %ld", sample, show(path), depth,
		       path_depth(path));
		(*bad_depth)++;
	}
	if (e->last_sample == sample) {
		report("sample %ld: cgroup_id %" PRIu64 " (%s) reported twice", sample, id, show(path));
		(*dup)++;
	}
	e->last_sample = sample;
	if (e->from_log)
		(*churned)++;
	return true;
}

/*
 * Streams the JSON (a file, or "-" for stdin: the CLI's output through a
 * pipe, so that a long run needs no room for it). An id not known yet is
 * looked up again after reading what CREATED_LOG gained meanwhile (the churn
 * loop logs a directory right after making it, so the sampler can see it
 * first), and at the end.
 */
static int mode_ids(int argc, char **argv)
{
	struct dirs dirs = { 0 };
	struct idmap m = { 0 };
	struct pending *pend = NULL;
	size_t npend = 0, cappend = 0;
	unsigned long unknown = 0, wrong_path = 0, bad_depth = 0, dup = 0, churned = 0,
		      missing_samples = 0, late = 0;
	unsigned long long records = 0;
	long count = -1, max_sample = -1;
	unsigned bad = 0, lineno = 0;
	bool *have = NULL;
	size_t cap_have = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *created, *json;
	int opt;

	while ((opt = getopt(argc, argv, "c:")) != -1) {
		if (opt != 'c')
			return 2;
		count = strtol(optarg, NULL, 10);
	}
	if (argc - optind != 3) {
		fprintf(stderr, "usage: check_values ids [-c COUNT] ROOT CREATED_LOG JSON|-\n");
		return 2;
	}
	if (walk_root(argv[optind], &dirs) < 0)
		return 1;
	for (size_t i = 0; i < dirs.n; i++)
		id_add(&m, dirs.d[i].ino, dirs.d[i].path, false);
	created = fopen(argv[optind + 1], "r");
	if (!created) {
		report("%s: %s", argv[optind + 1], strerror(errno));
		return 1;
	}
	read_created(created, &m);
	json = strcmp(argv[optind + 2], "-") ? fopen(argv[optind + 2], "r") : stdin;
	if (!json) {
		report("%s: %s", argv[optind + 2], strerror(errno));
		return 1;
	}
	while ((n = getline(&line, &cap, json)) >= 0) {
		struct record r;

		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		if (n == 0)
			continue;
		if (parse_record(line, lineno, &r) < 0) {
			bad++;
			continue;
		}
		records++;
		if (r.sample > max_sample)
			max_sample = r.sample;
		if ((size_t)r.sample >= cap_have) {
			size_t c = cap_have ? cap_have : 1024;

			while (c <= (size_t)r.sample)
				c *= 2;
			have = xrealloc(have, c);
			memset(have + cap_have, 0, c - cap_have);
			cap_have = c;
		}
		have[r.sample] = true;
		if (!check_id(&m, r.id, r.path, r.sample, r.depth, &wrong_path, &bad_depth, &dup,
			      &churned)) {
			read_created(created, &m);
			if (!check_id(&m, r.id, r.path, r.sample, r.depth, &wrong_path, &bad_depth,
				      &dup, &churned)) {
				if (npend == cappend) {
					cappend = cappend ? cappend * 2 : 64;
					pend = xrealloc(pend, cappend * sizeof(*pend));
				}
				pend[npend].id = r.id;
				pend[npend].path = r.path;
				r.path = NULL;
				pend[npend].sample = r.sample;
				pend[npend++].depth = r.depth;
			}
		}
		free(r.path);
		free(r.backend);
		for (size_t v = 0; v < r.nr_values; v++)
			free(r.values[v].name);
		free(r.values);
	}
	free(line);
	if (json != stdin)
		fclose(json);
	/* What the log gained until the end resolves the ids seen early. */
	read_created(created, &m);
	fclose(created);
	for (size_t i = 0; i < npend; i++) {
		struct identry *e = id_find(&m, pend[i].id);

		if (e) {
			late++;
			e->last_sample = -1; /* a late record cannot be a duplicate */
			check_id(&m, pend[i].id, pend[i].path, pend[i].sample, pend[i].depth,
				 &wrong_path, &bad_depth, &dup, &churned);
		} else {
			report("sample %ld: cgroup_id %" PRIu64 " (%s) was never created", pend[i].sample,
			       pend[i].id, show(pend[i].path));
			unknown++;
		}
		free(pend[i].path);
	}
	free(pend);
	if (count >= 0 && max_sample >= count) {
		report("samples up to %ld, expected %ld", max_sample, count);
		missing_samples++;
	}
	for (long i = 0; i < (count >= 0 ? count : max_sample + 1); i++)
		if ((size_t)i >= cap_have || !have[i])
			missing_samples++;
	if (missing_samples)
		report("%lu of %ld samples have no records", missing_samples,
		       count >= 0 ? count : max_sample + 1);
	free(have);
	printf("check_values ids: records=%llu samples=%ld known_ids=%zu churned_records=%lu "
	       "late=%lu unknown=%lu wrong_path=%lu inconsistent=%lu bad_depth=%lu dup_in_sample=%lu "
	       "missing_samples=%lu bad_lines=%u\n",
	       records, max_sample + 1, m.n, churned, late, unknown, wrong_path, m.inconsistent,
	       bad_depth, dup, missing_samples, bad);
	return (bad || unknown || wrong_path || m.inconsistent || bad_depth || dup ||
		missing_samples || records == 0)
		       ? 1
		       : 0;
}

/* ------------------------------------------------------------ csv (collectd) */

/*
 * The newest csv file of @stat in @dir: names are "TYPE-STAT-YYYY-MM-DD"
 * (TYPE has no '-'); a run across midnight leaves two dates. Returns a
 * malloc()ed name or NULL.
 */
static char *csv_newest(const char *dir, const char *stat)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *best = NULL;

	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		const char *dash = strchr(de->d_name, '-');

		/* "-YYYY-MM-DD" is 11 bytes */
		if (!dash || len < 12 || de->d_name[len - 11] != '-')
			continue;
		if ((size_t)(de->d_name + len - 11 - (dash + 1)) != strlen(stat) ||
		    strncmp(dash + 1, stat, strlen(stat)))
			continue;
		if (!best || strcmp(de->d_name + len - 10, best + strlen(best) - 10) > 0) {
			free(best);
			best = xstrdup(de->d_name);
		}
	}
	closedir(d);
	return best;
}

/*
 * The value of the last row ("epoch,value") of a csv file: 0, -1 when the
 * file cannot be read or has no data row, -2 when the value is not a whole
 * non-negative number (gauges are written as "%lf").
 */
static int csv_last_value(const char *file, uint64_t *out, char *raw, size_t raw_len)
{
	char line[256], last[256] = "";
	FILE *f = fopen(file, "r");
	char *comma, *end;
	double v;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "epoch", 5) && strchr(line, ','))
			snprintf(last, sizeof(last), "%s", line);
	fclose(f);
	if (!last[0])
		return -1;
	last[strcspn(last, "\n")] = 0;
	snprintf(raw, raw_len, "%s", last);
	comma = strchr(last, ',');
	errno = 0;
	v = strtod(comma + 1, &end);
	if (errno || end == comma + 1 || *end || v < 0 || v > 9007199254740992.0 ||
	    v != (double)(uint64_t)v)
		return -2;
	*out = (uint64_t)v;
	return 0;
}

static int mode_csv(int argc, char **argv)
{
	struct dirs dirs = { 0 };
	struct cg_files files = { 0 };
	unsigned long compared = 0, mismatches = 0, missing = 0, bad_rows = 0, unknown_dirs = 0,
		      cgroups = 0;
	char **stats = NULL, **names;
	size_t nr_stats = 0;
	long min_cgroups = 1;
	int rootfd, opt;
	DIR *hd;
	struct dirent *de;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n')
			return 2;
		min_cgroups = strtol(optarg, NULL, 10);
	}
	if (argc - optind != 3) {
		fprintf(stderr, "usage: check_values csv [-n MIN_CGROUPS] ROOT HOSTDIR STAT[,STAT...]\n");
		return 2;
	}
	const char *root = argv[optind], *hostdir = argv[optind + 1];
	char *list = xstrdup(argv[optind + 2]);

	for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
		stats = xrealloc(stats, (nr_stats + 1) * sizeof(*stats));
		stats[nr_stats++] = t;
	}
	if (walk_root(root, &dirs) < 0)
		return 1;
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		report("%s: %s", root, strerror(errno));
		return 1;
	}
	names = xrealloc(NULL, dirs.n * sizeof(*names));
	for (size_t i = 0; i < dirs.n; i++) {
		const char *path = dirs.d[i].path;
		char inst[INSTANCE_NAME_MAX + 1], dir[PATH_MAX], file[PATH_MAX + 256], raw[256];
		int fd;

		instance_name(path, inst);
		names[i] = xstrdup(inst);
		if (!strcmp(path, "/"))
			continue; /* the root's memory.stat moves with everything running */
		cgroups++;
		snprintf(dir, sizeof(dir), "%s/memcg_bpf-%s", hostdir, inst);
		fd = openat(rootfd, path + 1, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			report("%s%s: %s", root, show(path), strerror(errno));
			missing++;
			continue;
		}
		read_cg_files(fd, &files);
		for (size_t s = 0; s < nr_stats; s++) {
			const char *name = stats[s], *why;
			char *csv = csv_newest(dir, name);
			uint64_t v, want;
			bool pressure;
			int err;

			if (!csv) {
				report("%s: no csv file of %s in %s", show(path), name, dir);
				missing++;
				continue;
			}
			snprintf(file, sizeof(file), "%s/%s", dir, csv);
			free(csv);
			err = csv_last_value(file, &v, raw, sizeof(raw));
			if (err) {
				report("%s: %s: %s", file, err == -1 ? "no data row" : "not a whole number",
				       err == -1 ? "" : raw);
				bad_rows++;
				continue;
			}
			compared++;
			if (truth(fd, &files, name, &want, &pressure, &why) < 0) {
				report("%s: %s=%" PRIu64 " %s", show(path), name, v, why);
				mismatches++;
			} else if (want != v) {
				report("%s: %s: csv %" PRIu64 " (row \"%s\"), cgroupfs %" PRIu64, show(path),
				       name, v, raw, want);
				mismatches++;
			}
		}
		close(fd);
	}
	/* Every memcg_bpf-* directory belongs to a cgroup of the tree or to "self". */
	hd = opendir(hostdir);
	if (!hd) {
		report("%s: %s", hostdir, strerror(errno));
		missing++;
	}
	while (hd && (de = readdir(hd))) {
		const char *inst;
		size_t i;

		if (strncmp(de->d_name, "memcg_bpf-", 10))
			continue;
		inst = de->d_name + 10;
		if (!strcmp(inst, INSTANCE_NAME_SELF))
			continue;
		for (i = 0; i < dirs.n; i++)
			if (!strcmp(names[i], inst))
				break;
		if (i == dirs.n) {
			report("%s/%s belongs to no cgroup under %s", hostdir, de->d_name, root);
			unknown_dirs++;
		}
	}
	if (hd)
		closedir(hd);
	close(rootfd);
	printf("check_values csv: cgroups=%lu stats=%zu values=%lu mismatches=%lu missing=%lu "
	       "bad_rows=%lu unknown_dirs=%lu\n",
	       cgroups, nr_stats, compared, mismatches, missing, bad_rows, unknown_dirs);
	if ((long)cgroups < min_cgroups)
		report("only %lu cgroups under %s, expected at least %ld", cgroups, root, min_cgroups);
	return (mismatches || missing || bad_rows || unknown_dirs || compared == 0 ||
		(long)cgroups < min_cgroups)
		       ? 1
		       : 0;
}

static int mode_inodes(int argc, char **argv)
{
	struct dirs dirs = { 0 };

	if (argc != 2 || walk_root(argv[1], &dirs) < 0)
		return 2;
	for (size_t i = 0; i < dirs.n; i++)
		printf("%" PRIu64 " %s\n", dirs.d[i].ino, show(dirs.d[i].path));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "fs"))
		return mode_fs(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "cmp"))
		return mode_cmp(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "ids"))
		return mode_ids(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "csv"))
		return mode_csv(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "inodes"))
		return mode_inodes(argc - 1, argv + 1);
	fprintf(stderr, "usage: check_values fs|cmp|ids|csv|inodes ...\n");
	return 2;
}
