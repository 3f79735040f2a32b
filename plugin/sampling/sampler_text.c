// SPDX-License-Identifier: GPL-2.0-only
/*
 * The text backend: reads memory.stat and the other files the selected
 * stats live in (stat_file_name(): memory.current, memory.events,
 * memory.events.local, memory.max, ..., memory.pressure; v1: the total_*
 * lines of memory.stat, memory.usage_in_bytes, memory.oom_control, ...) of
 * every cgroup in the index. The hierarchy's root is read for memory.stat
 * only, as the bpf backend does.
 *
 * Per sample: an index refresh when the tree may have changed (see
 * cgroup_index_refresh_if_changed()),
 * then one pread at offset 0 per needed file per cgroup on fds kept open
 * across samples. The number of cgroups whose fds stay open is bounded by
 * RLIMIT_NOFILE; the others open and close their files every sample.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "sampling/cgroup_budget.h"
#include "sampling/cgroup_index.h"
#include "sampling/cgroup_probe.h"
#include "base/log.h"
#include "base/u64_map.h"
#include "sampling/memory_stat_parse.h"
#include "sampling/numa_stat_parse.h"
#include "sampling/sample_table.h"
#include "sampling/sampler_backend.h"

#define NR_FILES NR_STAT_FILES

/* fds kept free for the rest of the process (collectd, its other plugins) */
#define FD_RESERVE 128

struct text_file {
	const char *name;                  /* NULL: this cgroup version has no such file */
	enum stat_format format;
	bool needed;
	bool limit;                        /* STAT_FORMAT_NUMBER: a limit, "max" or the page counter's max */
	struct memory_stat_parser *parser; /* STAT_FORMAT_KEYED */
	struct numa_stat_parser *numa;     /* STAT_FORMAT_NODES */
	size_t *cols;                      /* NUMBER, PRESSURE: the columns it fills */
	const char **keys;                 /* PRESSURE: "some" or "full" per column */
	size_t nr_cols;
};

struct cg_state {
	int fd[NR_FILES];
	bool cached;    /* its fds stay open across samples */
	bool rank_only; /* nobody ships it (sampler_rank_only()): memory.current alone */
};

struct text_priv {
	int root_fd;
	struct cgroup_index *idx;
	struct text_file files[NR_FILES];

	struct u64_map *states;  /* cgroup id -> struct cg_state, which it owns */

	size_t fd_budget;        /* cgroups whose fds may stay open */
	size_t nr_cached;

	char *buf;
	size_t buf_cap;
	uint64_t *scratch;       /* one row of values */
	uint64_t unlimited_from; /* v1: a limit this high is the page counter's max, "no limit" */
	bool root_is_top;        /* the walk root is the hierarchy's root (no memory.current) */
	int rank_file;           /* the file of the budget's rank stat: a rank_only cgroup's one read */
	bool warned_read, warned_bad, warned_budget;
};

enum outcome {
	CG_ROW,     /* has memory files: a row */
	CG_NO_ROW,  /* exists but has no memory controller */
	CG_SKIPPED, /* vanished or unreadable mid-walk */
};

/* ------------------------------------------------------------ reading */

/* Reads the whole file at offset 0 into pr->buf. */
static int read_all(struct text_priv *pr, int fd, size_t *len)
{
	size_t off = 0;

	for (;;) {
		ssize_t n;

		if (off == pr->buf_cap) {
			char *b = realloc(pr->buf, pr->buf_cap * 2);

			if (!b)
				return -ENOMEM;
			pr->buf = b;
			pr->buf_cap *= 2;
		}
		n = pread(fd, pr->buf + off, pr->buf_cap - off, (off_t)off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		off += (size_t)n;
		/* seq_file and regular files fill the buffer unless at the end */
		if (n == 0 || off < pr->buf_cap)
			break;
	}
	*len = off;
	return 0;
}

/* "a/b/memory.stat" for cgroup path "/a/b", "memory.stat" for "/". */
static int file_path(char *out, size_t len, const char *cg_path, const char *name)
{
	int n;

	if (cg_path[1] == '\0')
		n = snprintf(out, len, "%s", name);
	else
		n = snprintf(out, len, "%s/%s", cg_path + 1, name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int open_file(int root_fd, const char *cg_path, const char *name)
{
	char path[PATH_MAX];
	int fd, err;

	err = file_path(path, sizeof(path), cg_path, name);
	if (err)
		return err;
	fd = openat(root_fd, path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* ------------------------------------------------------------ per-cgroup state */

static void state_close_fds(struct cg_state *st)
{
	for (int f = 0; f < NR_FILES; f++) {
		if (st->fd[f] >= 0)
			close(st->fd[f]);
		st->fd[f] = -1;
	}
}

static struct cg_state *state_get(struct text_priv *pr, uint64_t id)
{
	struct cg_state *st = u64_map_get(pr->states, id);

	if (!st) {
		st = malloc(sizeof(*st));
		if (!st)
			return NULL;
		st->cached = false;
		st->rank_only = false;
		for (int f = 0; f < NR_FILES; f++)
			st->fd[f] = -1;
		if (u64_map_put(pr->states, id, st)) {
			free(st);
			return NULL;
		}
	}
	if (!st->cached && pr->nr_cached < pr->fd_budget) {
		st->cached = true;
		pr->nr_cached++;
	} else if (!st->cached && !pr->warned_budget) {
		/* not raised here: other plugins in collectd may use select(), which breaks above 1024 */
		mb_notice("text backend: more cgroups than the open-file limit lets it keep open (%zu); "
			  "the others are opened and closed every sample, which is slower: raise the soft "
			  "RLIMIT_NOFILE (collectd.service: LimitNOFILE; the packages set 65536)",
			  pr->fd_budget);
		pr->warned_budget = true;
	}
	return st;
}

/* Closes a state's fds, gives back its budget and frees it. */
static bool state_free(uint64_t id, void *v, void *arg)
{
	struct text_priv *pr = arg;
	struct cg_state *st = v;

	state_close_fds(st);
	if (st->cached)
		pr->nr_cached--;
	free(st);
	return true;
}

static bool state_gone(uint64_t id, void *st, void *arg)
{
	struct text_priv *pr = arg;

	if (cgroup_index_find(pr->idx, id))
		return false;
	return state_free(id, st, pr);
}

/* Forgets the cgroups the index no longer has, closing their fds and freeing their budget. */
static void states_sweep(struct text_priv *pr)
{
	u64_map_remove_if(pr->states, state_gone, pr);
}

/* ------------------------------------------------------------ sampling */

static void warn_read(struct text_priv *pr, const char *dir, const char *cg_path, const char *name, int err)
{
	if (pr->warned_read)
		return;
	pr->warned_read = true;
	mb_warn("text backend: cannot read %s%s/%s: %s (further such errors are counted as skipped cgroups)",
		dir, cg_path[1] ? cg_path : "", name, strerror(-err));
}

static void warn_bad(struct text_priv *pr, const struct text_file *tf)
{
	if (pr->warned_bad)
		return;
	pr->warned_bad = true;
	mb_warn("text backend: %s holds no number where one was expected; the value is reported missing",
		tf->name);
}

/* A single-number file: bytes, or "max" (v1: the page counter's max) for no limit. */
static void parse_number(struct text_priv *pr, const struct text_file *tf, size_t len)
{
	uint64_t v;

	if (tf->limit && len >= 3 && memcmp(pr->buf, "max", 3) == 0 && (len == 3 || pr->buf[3] == '\n'))
		v = SAMPLE_VALUE_UNLIMITED;
	else if (memory_stat_parse_u64(pr->buf, len, &v) != 0)
		return warn_bad(pr, tf);
	else if (tf->limit && v >= pr->unlimited_from)
		v = SAMPLE_VALUE_UNLIMITED;
	for (size_t c = 0; c < tf->nr_cols; c++)
		pr->scratch[tf->cols[c]] = v;
}

/* Parses one file's text into the scratch row. */
static void parse_file(struct text_priv *pr, const struct text_file *tf, size_t len)
{
	uint64_t v;

	switch (tf->format) {
	case STAT_FORMAT_KEYED:
		memory_stat_parse(tf->parser, pr->buf, len, pr->scratch);
		break;
	case STAT_FORMAT_NUMBER:
		parse_number(pr, tf, len);
		break;
	case STAT_FORMAT_NODES:
		numa_stat_parse(tf->numa, pr->buf, len, pr->scratch);
		break;
	case STAT_FORMAT_PRESSURE:
		for (size_t c = 0; c < tf->nr_cols; c++) {
			if (memory_stat_parse_pressure(pr->buf, len, tf->keys[c], &v) == 0)
				pr->scratch[tf->cols[c]] = v;
			else
				warn_bad(pr, tf);
		}
		break;
	case STAT_FORMAT_NONE:
		break;
	}
}

/*
 * A cgroup is a row when it has the memory controller, which every memory
 * cgroup shows by its memory.stat (the v2 root included). memory.pressure
 * is a cgroup core file that every v2 cgroup has: a cgroup whose parent's
 * cgroup.subtree_control lacks +memory has it and nothing else, and its
 * memory is charged to the nearest ancestor with the controller. So it is
 * no row, as the bpf walks do not see it as a memory cgroup.
 */
static enum outcome no_memory_files(const struct text_priv *pr, const struct cgroup_entry *e, bool stat_enoent)
{
	char path[PATH_MAX];
	struct stat sb;

	if (!stat_enoent && file_path(path, sizeof(path), e->path, "memory.stat") == 0 &&
	    faccessat(pr->root_fd, path, F_OK, 0) == 0)
		return CG_ROW;
	if (fstatat(pr->root_fd, e->path[1] ? e->path + 1 : ".", &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (uint64_t)sb.st_ino == e->id)
		return CG_NO_ROW;
	return CG_SKIPPED; /* removed while we read it */
}

/* Reads one cgroup's files into pr->scratch. */
static enum outcome read_cgroup(struct sampler *s, struct text_priv *pr, struct cg_state *st,
				const struct cgroup_entry *e)
{
	int result[NR_FILES];
	bool memory_read = false, stat_enoent = false, stat_only = pr->root_is_top && e->depth == 0;
	int only = st->rank_only ? pr->rank_file : -1; /* the one file read, or -1 for all */

	for (size_t c = 0; c < s->nr_stats; c++)
		pr->scratch[c] = SAMPLE_VALUE_MISSING;

	for (int f = 0; f < NR_FILES; f++) {
		const struct text_file *tf = &pr->files[f];
		int fd = st->fd[f], err;
		size_t len;

		result[f] = 0;
		/* the v2 root has memory.stat and memory.numa_stat of the memory files */
		if (!tf->needed || (stat_only && f != STAT_FILE_MEMORY_STAT && f != STAT_FILE_NUMA_STAT) ||
		    (only >= 0 && f != only))
			continue;
		if (fd < 0) {
			fd = open_file(pr->root_fd, e->path, tf->name);
			if (fd < 0) {
				result[f] = fd;
				continue;
			}
			if (st->cached)
				st->fd[f] = fd;
		}
		err = read_all(pr, fd, &len);
		if (!st->cached)
			close(fd);
		if (err) {
			result[f] = err;
			if (st->cached) {
				close(fd);
				st->fd[f] = -1;
			}
			continue;
		}
		/* a file of the memory controller: not one every cgroup has */
		memory_read |= f != STAT_FILE_PRESSURE;
		parse_file(pr, tf, len);
	}

	for (int f = 0; f < NR_FILES; f++) {
		int err = result[f];

		if (!err)
			continue;
		if (err == -ENODEV)
			return CG_SKIPPED; /* removed while we read it */
		if (err == -ENOENT) {
			stat_enoent |= f == STAT_FILE_MEMORY_STAT;
			continue;
		}
		if (err == -ENOMEM)
			return CG_SKIPPED;
		warn_read(pr, s->mount.dir, e->path, pr->files[f].name, err);
		return CG_SKIPPED;
	}
	if (memory_read && !stat_enoent)
		return CG_ROW;
	/* none of its memory files: a cgroup without the controller, or one just removed */
	return no_memory_files(pr, e, stat_enoent);
}

static int text_sample(struct sampler *s, struct sample_table *t)
{
	struct text_priv *pr = s->priv;
	uint64_t start = clock_ns(CLOCK_MONOTONIC), cpu_start = thread_cpu_ns();
	const struct cgroup_entry *e;
	int err;

	t->timestamp_ns = clock_ns(CLOCK_REALTIME);
	t->skipped = 0;
	err = cgroup_index_refresh_if_changed(pr->idx);
	if (err) {
		mb_err("text backend: cannot rescan %s: %s", s->mount.dir, strerror(-err));
		return err;
	}
	states_sweep(pr);
	for (size_t i = 0; (e = cgroup_index_at(pr->idx, i)); i++) {
		struct cg_state *st = state_get(pr, e->id);
		struct sample_row *row;

		if (!st)
			return -ENOMEM;
		switch (read_cgroup(s, pr, st, e)) {
		case CG_ROW:
			row = sample_table_add(t, e->id, e->path, e->depth);
			if (!row)
				return -ENOMEM;
			memcpy(row->values, pr->scratch, s->nr_stats * sizeof(*row->values));
			row->partial = st->rank_only;
			break;
		case CG_SKIPPED:
			state_close_fds(st);
			cgroup_index_mark_stale(pr->idx);
			t->skipped++;
			break;
		case CG_NO_ROW:
			state_close_fds(st);
			break;
		}
	}
	t->duration_ns = clock_ns(CLOCK_MONOTONIC) - start;
	t->cpu_ns = thread_cpu_ns() - cpu_start;
	return 0;
}

/* ------------------------------------------------------------ opening */

/*
 * Reads file @name of the walk root, or of its first subdirectory that has
 * it (the v2 root has no memory.current or memory.events). Returns a
 * malloc'd copy, or NULL when no cgroup has the file yet.
 */
static char *probe_file(struct text_priv *pr, const char *dir, const char *name, size_t *len)
{
	char *copy = NULL;
	int fd;

	fd = cgroup_probe_open(pr->root_fd, name);
	if (fd < 0)
		return NULL;
	if (read_all(pr, fd, len) == 0) {
		copy = malloc(*len ? *len : 1);
		if (copy)
			memcpy(copy, pr->buf, *len);
	} else {
		mb_warn("text backend: cannot read %s/%s while probing", dir, name);
	}
	close(fd);
	return copy;
}

/* Why a stat's file or key is missing, for the warning that drops it. */
static const char *missing_why(const struct sampler *s, const struct stat_def *def, bool file_found)
{
	if (!stat_on_version(def, s->mount.version) && s->mount.version == 1 &&
	    def->file == STAT_FILE_MEMORY_EVENTS)
		return "cgroup v1 counts memory events per cgroup, not per subtree (the _local stats have them)";
	if (!stat_on_version(def, s->mount.version))
		return s->mount.version == 1 ? "no cgroup v1 equivalent" : "cgroup v1 only";
	if (def->file == STAT_FILE_PRESSURE)
		return "no cgroup has memory.pressure: PSI is off (psi=0 on the kernel command line, "
		       "or a kernel without CONFIG_PSI)";
	if (def->file == STAT_FILE_NUMA_STAT && !file_found)
		return "no cgroup has memory.numa_stat: a kernel without CONFIG_NUMA";
	if (def->file == STAT_FILE_NUMA_STAT)
		return "not in memory.numa_stat on this kernel";
	if (!file_found)
		return "no cgroup has its file on this kernel";
	return def->file == STAT_FILE_MEMORY_STAT ? "not in memory.stat on this kernel"
					          : "not in its file on this kernel";
}

/*
 * The key a column is read from in a keyed file (v1 memory.stat: the
 * total_* line), or NULL with @why set when this kernel lacks it. Other
 * formats get their stat's key or name: the probe checks them.
 */
static char *column_field(const struct sampler *s, const struct stat_def *def, const char *probe,
			  size_t probe_len, const char **why)
{
	const char *name = stat_key(def, s->mount.version);
	enum stat_format format = stat_file_format(def->file);
	char *field;
	uint64_t v;
	int err;

	if (!stat_on_version(def, s->mount.version)) {
		*why = missing_why(s, def, false);
		return NULL;
	}
	if (format != STAT_FORMAT_KEYED && format != STAT_FORMAT_NODES)
		name = stat_key(def, 2); /* number and PSI files: one key on both versions */
	if (s->mount.version == 1 && def->file == STAT_FILE_MEMORY_STAT && strncmp(name, "total_", 6) != 0) {
		size_t len = strlen(name);

		field = malloc(len + 7);
		if (field) {
			memcpy(field, "total_", 6);
			memcpy(field + 6, name, len + 1);
		}
	} else {
		field = strdup(name);
	}
	if (!field || (format == STAT_FORMAT_NUMBER && probe))
		return field;
	if (!probe) /* no cgroup has the file yet (the v2 root lacks most): not checked */
		return field;
	if (format == STAT_FORMAT_PRESSURE)
		err = memory_stat_parse_pressure(probe, probe_len, field, &v);
	else if (format == STAT_FORMAT_NODES)
		err = numa_stat_has_key(probe, probe_len, field) ? 0 : -ENOENT;
	else
		err = memory_stat_find(probe, probe_len, field, &v);
	if (err == -ENOENT) {
		free(field);
		*why = missing_why(s, def, true);
		return NULL;
	}
	return field;
}

/* memory.numa_stat's parser: v2 prints memory.stat's units, v1 pages. */
static int make_numa_parser(const struct sampler *s, struct text_file *tf, const char **names, const size_t *slots,
			    size_t n)
{
	unsigned int *nodes = calloc(n ? n : 1, sizeof(*nodes));
	int err;

	if (!nodes)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++)
		nodes[k] = s->stats[slots[k]]->node_id;
	err = numa_stat_parser_new(names, nodes, slots, n,
				   s->mount.version == 1 ? (uint64_t)sysconf(_SC_PAGESIZE) : 1, &tf->numa);
	free(nodes);
	return err;
}

/* Drops the columns this kernel lacks and makes the parsers for the rest. */
static int setup_columns(struct sampler *s, struct text_priv *pr)
{
	char *probe[NR_FILES] = { NULL };
	size_t probe_len[NR_FILES] = { 0 };
	bool probed[NR_FILES] = { false };
	char **fields = NULL;
	size_t *slots = NULL;
	const char **names = NULL;
	size_t n_alloc = s->nr_stats ? s->nr_stats : 1;
	int err = 0;

	fields = calloc(n_alloc, sizeof(*fields));
	slots = calloc(n_alloc, sizeof(*slots));
	names = calloc(n_alloc, sizeof(*names));
	if (!fields || !slots || !names) {
		err = -ENOMEM;
		goto free_fields;
	}
	for (size_t i = 0; i < s->nr_stats;) {
		const struct stat_def *def = s->stats[i];
		enum stat_file f = def->file;
		const char *why = NULL;

		if (f == STAT_FILE_DERIVED) { /* the sampler computes it */
			i++;
			continue;
		}
		if (f == STAT_FILE_OOM_TRACKER) {
			err = sampler_drop_stat(s, i, "it is counted by the BPF OOM tracker (bpf and bpf-core backends); "
						"the text backend counts kills in oom_kill_local, and a kill in a cgroup "
						"removed between two samples only in its ancestors' oom_kill");
			if (err)
				goto free_fields;
			continue;
		}
		if (!probed[f] && pr->files[f].name) {
			probed[f] = true;
			probe[f] = probe_file(pr, s->mount.dir, pr->files[f].name, &probe_len[f]);
			if (!probe[f])
				mb_info("text backend: no cgroup under %s has %s yet; its stats are not checked",
					s->mount.dir, pr->files[f].name);
		}
		if (f == STAT_FILE_PRESSURE && !cgroup_psi_enabled()) {
			err = sampler_drop_stat(s, i, missing_why(s, def, false));
			if (err)
				goto free_fields;
			continue;
		}
		fields[i] = column_field(s, def, probe[f], probe_len[f], &why);
		if (fields[i]) {
			pr->files[f].needed = true;
			pr->files[f].limit |= def->limit;
			i++;
			continue;
		}
		if (!why) {
			err = -ENOMEM;
			goto free_fields;
		}
		err = sampler_drop_stat(s, i, why);
		if (err)
			goto free_fields;
	}

	for (int f = 0; f < NR_FILES; f++) {
		struct text_file *tf = &pr->files[f];
		size_t n = 0;

		if (!tf->needed)
			continue;
		for (size_t i = 0; i < s->nr_stats; i++) {
			if ((int)s->stats[i]->file != f)
				continue;
			names[n] = fields[i];
			slots[n++] = i;
		}
		if (tf->format == STAT_FORMAT_KEYED) {
			err = memory_stat_parser_new(names, slots, n, &tf->parser);
			if (err)
				goto free_fields;
			continue;
		}
		if (tf->format == STAT_FORMAT_NODES) {
			err = make_numa_parser(s, tf, names, slots, n);
			if (err)
				goto free_fields;
			continue;
		}
		tf->cols = malloc(n * sizeof(*tf->cols));
		tf->keys = calloc(n, sizeof(*tf->keys));
		if (!tf->cols || !tf->keys) {
			err = -ENOMEM;
			goto free_fields;
		}
		for (size_t k = 0; k < n; k++) {
			const struct stat_def *def = s->stats[slots[k]];

			tf->cols[k] = slots[k];
			tf->keys[k] = stat_key(def, 2); /* catalog strings: outlive the parser */
		}
		tf->nr_cols = n;
	}

free_fields:
	if (fields)
		for (size_t i = 0; i < s->nr_stats; i++)
			free(fields[i]);
	free(fields);
	free(slots);
	free(names);
	for (int f = 0; f < NR_FILES; f++)
		free(probe[f]);
	return err;
}

/* How many cgroups may keep their files open, from the soft RLIMIT_NOFILE. */
static size_t fd_budget(int files_per_cgroup)
{
	struct rlimit rl;
	rlim_t soft = 1024;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		soft = rl.rlim_cur;
	if (soft == RLIM_INFINITY || soft > (1u << 20))
		soft = 1u << 20;
	if (soft <= FD_RESERVE || files_per_cgroup <= 0)
		return 0;
	return (size_t)(soft - FD_RESERVE) / (size_t)files_per_cgroup;
}

static void text_close(struct sampler *s);

static int text_open(struct sampler *s, char *why, size_t why_len)
{
	struct text_priv *pr;
	int err, per_cg = 0, fd = -1;

	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return -ENOMEM;
	s->priv = pr;
	pr->root_fd = -1;
	pr->rank_file = (int)stat_lookup(CGROUP_BUDGET_RANK_STAT)->file;
	for (int f = 0; f < NR_FILES; f++) {
		pr->files[f].name = stat_file_name(f, s->mount.version);
		pr->files[f].format = stat_file_format(f);
	}
	pr->buf_cap = 16384;
	pr->buf = malloc(pr->buf_cap);
	if (!pr->buf)
		return -ENOMEM; /* text_close() frees the rest */
	err = u64_map_new(128, &pr->states);
	if (err)
		return err;

	pr->root_fd = open(s->mount.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pr->root_fd < 0) {
		err = -errno;
		mb_err("text backend: cannot open %s: %s", s->mount.dir, strerror(-err));
		return err;
	}
	fd = openat(pr->root_fd, "memory.stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		mb_err("text backend: cannot open %s/memory.stat: %s", s->mount.dir, strerror(-err));
		return err;
	}
	size_t len;

	err = read_all(pr, fd, &len);
	close(fd);
	if (err) {
		mb_err("text backend: cannot read %s/memory.stat: %s", s->mount.dir, strerror(-err));
		return err;
	}

	/* v1 prints an unset limit as the page counter's max in bytes: PAGE_COUNTER_MAX * PAGE_SIZE */
	long page = sysconf(_SC_PAGESIZE);

	pr->unlimited_from = (uint64_t)(LONG_MAX / page) * (uint64_t)page;
	pr->root_is_top = s->mount.version == 2 && faccessat(pr->root_fd, "memory.current", F_OK, 0) != 0;
	err = setup_columns(s, pr);
	if (err)
		return err;
	pr->scratch = malloc((s->nr_stats ? s->nr_stats : 1) * sizeof(*pr->scratch));
	if (!pr->scratch)
		return -ENOMEM;
	for (int f = 0; f < NR_FILES; f++)
		per_cg += pr->files[f].needed;
	pr->fd_budget = fd_budget(per_cg);

	err = cgroup_index_open(s->mount.dir, s->max_depth, &pr->idx);
	if (err) {
		mb_err("text backend: cannot walk %s: %s", s->mount.dir, strerror(-err));
		return err;
	}
	snprintf(why, why_len, "reads %d file(s) per cgroup under %s (cgroup v%d), fds kept open for %zu cgroups",
		 per_cg, s->mount.dir, s->mount.version, pr->fd_budget);
	return 0;
}

static void text_close(struct sampler *s)
{
	struct text_priv *pr = s->priv;

	if (!pr)
		return;
	if (pr->states)
		u64_map_remove_if(pr->states, state_free, pr);
	for (int f = 0; f < NR_FILES; f++) {
		memory_stat_parser_free(pr->files[f].parser);
		numa_stat_parser_free(pr->files[f].numa);
		free(pr->files[f].cols);
		free(pr->files[f].keys);
	}
	cgroup_index_close(pr->idx);
	if (pr->root_fd >= 0)
		close(pr->root_fd);
	u64_map_free(pr->states);
	free(pr->buf);
	free(pr->scratch);
	free(pr);
	s->priv = NULL;
}

/* The rows nobody ships: their cgroups' memory.current alone from the next sample on. */
static int text_rank_only(struct sampler *s, const struct sample_table *t, const bool *ships)
{
	struct text_priv *pr = s->priv;

	for (size_t r = 0; r < t->nr_rows; r++) {
		struct cg_state *st = state_get(pr, t->rows[r].cgroup_id);

		if (!st)
			return -ENOMEM;
		st->rank_only = !ships[r];
	}
	return 0;
}

const struct sampler_backend_ops sampler_text_ops = {
	.name = "text",
	.open = text_open,
	.sample = text_sample,
	.rank_only = text_rank_only,
	.close = text_close,
};
