// SPDX-License-Identifier: GPL-2.0-only
/*
 * memcg-bench: cost per cgroup of one sample of a whole tree, for the text
 * backend, the bpf backend (or bpf-core: --backend), a bare walk of it that
 * reads no stats, the minimal walk (minimal_walk.bpf.c: the bpf walk's reads
 * and nothing else, the yardstick) and the plain hand-written reader, taking turns. It creates flat trees of N cgroups under
 * --parent (run it in a VM or on a machine whose cgroup tree is yours) and
 * removes them afterwards. Prints medians in microseconds per cgroup.
 *
 * Per NUMA node (--numa LIST): the per-node stats of memory.numa_stat, as
 * one column per stat per node with memory; with --stats none they are all
 * that is sampled (text reads memory.numa_stat alone, bpf the per-node
 * counters alone). The plain reader knows memory.stat only: it sits out.
 * --loads N puts memory in N cgroups per node (a process bound to the node
 * by set_mempolicy touches 16 MiB of anon memory there: CPU-less nodes too); --read-file FILE also times
 * one read of FILE (e.g. the root's memory.numa_stat) with each tree.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "minimal_walk.h"
#include "plain_reader.h"
#include "sampling/numa_nodes.h"
#include "sampling/sampler.h"
#include "sampling/stat_catalog.h"

/*
 * The set the README's figures were measured with (the plugin's default
 * before limits, local events, pressure and the working set came):
 * memory.stat fields, usage and two memory.events counters, which the
 * hand-written plain reader reads too.
 */
#define BENCH_DEFAULT_STATS "anon,file,kernel,shmem,file_mapped,file_dirty,slab,sock,pgfault,pgmajfault," \
			    "workingset_refault_file,usage,oom,oom_kill"

/* --loads: anon memory of each load process, and how long they may take to touch it */
#define LOAD_MIB 16
#define LOAD_WAIT_MS 60000
/* --read-file: at most this many reads, fewer once they took this long in all (at least 3) */
#define READ_FILE_MAX 101
#define READ_FILE_BUDGET_NS (10 * 1000000000ull)

struct bench_opts {
	const char *parent;
	const char *stats;     /* "none": no stats but the per-node ones */
	const char *numa;      /* per-node stats; NULL: none */
	const char *read_file; /* also timed with each tree; NULL: none */
	enum sampler_backend bpf; /* the backend of the bpf and bare_walk columns */
	int repeat;
	int loads;             /* cgroups per NUMA node with memory on that node */
	long sizes[8];
	int nr_sizes;
};

/* What the text and bpf columns sample (the bare walk: nothing). */
struct selection {
	const struct stat_def *stats[STAT_SELECTION_MAX];
	size_t nr_stats;
	const struct stat_def *numa[STAT_SELECTION_MAX];
	size_t nr_numa;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double median_us(uint64_t *ns, int n)
{
	qsort(ns, n, sizeof(*ns), cmp_u64);
	return ns[n / 2] / 1000.0;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int err = 0;

	if (!f)
		return -errno;
	if (fputs(text, f) < 0)
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/* ROOT plus N children: N + 1 memory cgroups. */
static int make_tree(const char *parent, const char *root, long n, char ***dirs_out)
{
	char path[8192], **dirs;
	int err;

	/* memory must be on in the parent for ROOT to be a memory cgroup */
	snprintf(path, sizeof(path), "%.4000s/cgroup.subtree_control", parent);
	err = write_file(path, "+memory");
	if (err) {
		mb_err("cannot enable memory in %s: %s", path, strerror(-err));
		return err;
	}
	if (mkdir(root, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
	err = write_file(path, "+memory");
	if (err) {
		mb_err("cannot enable memory in %s: %s", root, strerror(-err));
		return err;
	}
	dirs = calloc(n + 1, sizeof(*dirs));
	if (!dirs)
		return -ENOMEM;
	dirs[0] = strdup(root);
	for (long i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/c%ld", root, i);
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		dirs[i + 1] = strdup(path);
	}
	*dirs_out = dirs;
	return 0;
}

static void remove_tree(char **dirs, long n)
{
	for (long i = n; i >= 0; i--) {
		rmdir(dirs[i]);
		free(dirs[i]);
	}
	free(dirs);
}

/*
 * --loads: processes holding memory on each NUMA node, in the first
 * cgroups of a tree (node by node), each bound to its node (MPOL_BIND):
 * a node without CPUs gets its memory as well.
 */
struct loads {
	pid_t *pids;
	int n;
};

#define MPOL_BIND 2 /* linux/mempolicy.h */

/* A load: joins @dir, binds its memory to @node, touches LOAD_MIB of anon memory, says so on @fd, sleeps until killed. */
static void load_child(const char *dir, unsigned int node, int fd)
{
	size_t len = (size_t)LOAD_MIB << 20, page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned long mask[STAT_MAX_NODES / (8 * sizeof(unsigned long))] = { 0 };
	char path[8192];
	char *mem;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (node >= STAT_MAX_NODES || write_file(path, "0"))
		_exit(1);
	mask[node / (8 * sizeof(mask[0]))] = 1UL << (node % (8 * sizeof(mask[0])));
	if (syscall(SYS_set_mempolicy, MPOL_BIND, mask, STAT_MAX_NODES + 1))
		_exit(1);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		_exit(1);
	for (size_t off = 0; off < len; off += page)
		mem[off] = 1;
	if (write(fd, "", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

static void stop_loads(struct loads *l)
{
	for (int i = 0; i < l->n; i++)
		kill(l->pids[i], SIGKILL);
	for (int i = 0; i < l->n; i++)
		waitpid(l->pids[i], NULL, 0);
	free(l->pids);
	l->pids = NULL;
	l->n = 0;
}

/* @per_node loads on each of @nodes in dirs[1..]; prints where their anon memory landed. */
static int start_loads(char **dirs, long n, const unsigned int *nodes, size_t nr_nodes, int per_node,
		       struct loads *l)
{
	int fds[2], err = 0;
	char c;

	if ((long)nr_nodes * per_node > n) {
		mb_err("--loads %d on %zu nodes needs %zu cgroups, the tree has %ld", per_node, nr_nodes,
		       nr_nodes * per_node, n);
		return -EINVAL;
	}
	l->pids = calloc(nr_nodes * per_node, sizeof(*l->pids));
	if (!l->pids)
		return -ENOMEM;
	if (pipe(fds))
		return -errno;
	for (size_t k = 0; k < nr_nodes && !err; k++) {
		for (int j = 0; j < per_node && !err; j++) {
			pid_t pid = fork();

			if (pid < 0) {
				err = -errno;
			} else if (pid == 0) {
				close(fds[0]);
				load_child(dirs[1 + k * per_node + j], nodes[k], fds[1]);
			} else {
				l->pids[l->n++] = pid;
			}
		}
	}
	close(fds[1]);
	/* the loads hold the pipe's other end: one that fails leaves a byte missing, not EOF */
	for (int i = 0; i < l->n && !err; i++) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };

		if (poll(&pfd, 1, LOAD_WAIT_MS) != 1 || read(fds[0], &c, 1) != 1) {
			mb_err("%d of %d load processes had their memory in place after %d s", i, l->n,
			       LOAD_WAIT_MS / 1000);
			err = -ECHILD;
		}
	}
	close(fds[0]);
	if (err) {
		stop_loads(l);
		return err;
	}
	printf("# loads: %d cgroups per node, %d MiB of anon memory each, bound to the node;", per_node, LOAD_MIB);
	for (size_t k = 0; k < nr_nodes; k++) {
		char path[8192], line[512] = "";
		FILE *f;

		snprintf(path, sizeof(path), "%s/memory.numa_stat", dirs[1 + k * per_node]);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(line, sizeof(line), f)) /* the first line: anon */
				line[0] = '\0';
			fclose(f);
		}
		line[strcspn(line, "\n")] = '\0';
		printf(" %s (node %u): %s;", strrchr(dirs[1 + k * per_node], '/') + 1, nodes[k], line);
	}
	printf("\n");
	return 0;
}

/*
 * --read-file: the median time of one read of @path (open, read to the
 * end, close) in ms, over *@reads reads: READ_FILE_MAX, fewer when they
 * took READ_FILE_BUDGET_NS in all (at least 3).
 */
static int time_read_file(const char *path, double *ms, int *reads)
{
	static char buf[1 << 16];
	uint64_t ns[READ_FILE_MAX], spent = 0;
	int i, fd, err = 0;
	ssize_t len;

	for (i = 0; i < READ_FILE_MAX && (i < 3 || spent < READ_FILE_BUDGET_NS); i++) {
		uint64_t start = now_ns();

		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		while ((len = read(fd, buf, sizeof(buf))) > 0)
			;
		if (len < 0)
			err = -errno;
		close(fd);
		if (err)
			return err;
		ns[i] = now_ns() - start;
		spent += ns[i];
	}
	*reads = i;
	*ms = median_us(ns, i) / 1000.0;
	return 0;
}

/* nr_descendants and nr_dying_descendants of the cgroup whose file @path is. */
static void cgroups_below(const char *path, long *live, long *dying)
{
	const char *slash = strrchr(path, '/');
	char stat[8192], key[64];
	long v;
	FILE *f;

	*live = *dying = -1;
	if (slash)
		snprintf(stat, sizeof(stat), "%.*s/cgroup.stat", (int)(slash - path), path);
	else
		snprintf(stat, sizeof(stat), "cgroup.stat");
	f = fopen(stat, "r");
	if (!f)
		return;
	while (fscanf(f, "%63s %ld", key, &v) == 2) {
		if (!strcmp(key, "nr_descendants"))
			*live = v;
		else if (!strcmp(key, "nr_dying_descendants"))
			*dying = v;
	}
	fclose(f);
}

/*
 * The four readers of one tree. They take turns, one sample each per round,
 * so that drift in the machine's speed (TCG is noisy) hits them alike.
 */
enum reader { R_TEXT, R_PLAIN, R_BPF, R_BARE, R_MINIMAL, NR_READERS };

struct readers {
	bool on[NR_READERS];                 /* R_PLAIN: off with per-node stats; R_MINIMAL: where it cannot read the same */
	struct sampler *sampler[NR_READERS]; /* R_PLAIN, R_MINIMAL: none */
	struct sample_table table[NR_READERS];
	struct plain_reader *plain;
	struct minimal_walk *minimal;
	uint64_t *plain_values;
	size_t rows[NR_READERS];
};

static int open_readers(struct readers *r, const char *root, char **dirs, long n,
			const struct selection *sel, enum sampler_backend bpf)
{
	const enum sampler_backend backend[NR_READERS] = {
		[R_TEXT] = SAMPLER_TEXT, [R_BPF] = bpf, [R_BARE] = bpf,
	};
	const char *names[STAT_SELECTION_MAX];
	int err;

	for (int k = 0; k < NR_READERS; k++) {
		struct sampler_opts opts = {
			.cgroup_root = root, .max_depth = -1, .backend = backend[k],
		};

		r->on[k] = k != R_PLAIN || !sel->nr_numa;
		if (k == R_PLAIN || k == R_MINIMAL)
			continue;
		if (k != R_BARE) {
			opts.stats = (const struct stat_def **)sel->stats;
			opts.nr_stats = sel->nr_stats;
			opts.numa_stats = (const struct stat_def **)sel->numa;
			opts.nr_numa_stats = sel->nr_numa;
		}
		err = sampler_open(&opts, &r->sampler[k]);
		if (err)
			return err;
		sampler_table_init(r->sampler[k], &r->table[k]);
	}
	/* the per-node values are not the minimal walk's: it would be timed doing less */
	err = sel->nr_numa ? -EOPNOTSUPP : minimal_walk_open(r->sampler[R_BPF], n + 1 + 64, &r->minimal);
	r->on[R_MINIMAL] = !err;
	if (err && err != -EOPNOTSUPP)
		return err;
	if (!r->on[R_PLAIN])
		return 0;
	for (size_t k = 0; k < sel->nr_stats; k++)
		names[k] = sel->stats[k]->name;
	r->plain_values = calloc((n + 1) * sel->nr_stats, sizeof(*r->plain_values));
	if (!r->plain_values)
		return -ENOMEM;
	r->rows[R_PLAIN] = n + 1;
	return plain_reader_open(dirs, n + 1, names, sel->nr_stats, &r->plain);
}

/* The per-node columns of a table (*@cols) and how many of their values the kernel did not give. */
static size_t missing_node_values(const struct sample_table *t, size_t *cols)
{
	size_t missing = 0;

	*cols = 0;
	for (size_t c = 0; c < t->nr_stats; c++) {
		if (!t->stats[c]->node)
			continue;
		(*cols)++;
		for (size_t i = 0; i < t->nr_rows; i++)
			missing += t->rows[i].values[c] == SAMPLE_VALUE_MISSING;
	}
	return missing;
}

/*
 * With per-node stats, text and bpf must sample the same of them: the same
 * per-node columns, and bpf leaving no value missing that text has (a
 * backend that drops the per-node stats, as it does on a node layout it
 * does not know, would be timed doing less). Checked on their first
 * samples. (The other stats may differ: oom_victims_local is bpf's alone.)
 */
static int check_like_for_like(const struct readers *r, enum sampler_backend bpf)
{
	const struct sample_table *text = &r->table[R_TEXT], *walk = &r->table[R_BPF];
	size_t cols_text, cols_walk, miss_text, miss_walk;

	miss_text = missing_node_values(text, &cols_text);
	miss_walk = missing_node_values(walk, &cols_walk);
	if (sampler_backend_used(r->sampler[R_BPF]) != bpf || cols_walk != cols_text ||
	    walk->nr_rows != text->nr_rows || miss_walk > miss_text) {
		mb_err("%s and text do not sample the same per-node stats: %zu and %zu columns, %zu and %zu rows, "
		       "%zu and %zu values missing", sampler_backend_name(sampler_backend_used(r->sampler[R_BPF])),
		       cols_walk, cols_text, walk->nr_rows, text->nr_rows, miss_walk, miss_text);
		return -EPROTO;
	}
	return 0;
}

static int run_reader(struct readers *r, enum reader k)
{
	int err;

	if (!r->on[k])
		return 0;
	if (k == R_PLAIN)
		return plain_reader_read(r->plain, r->plain_values);
	if (k == R_MINIMAL)
		return minimal_walk_sample(r->minimal, &r->rows[k]);
	err = sampler_sample(r->sampler[k], &r->table[k]);
	r->rows[k] = r->table[k].nr_rows;
	return err;
}

static void close_readers(struct readers *r)
{
	for (int k = 0; k < NR_READERS; k++) {
		sample_table_free(&r->table[k]);
		sampler_close(r->sampler[k]);
	}
	plain_reader_close(r->plain);
	minimal_walk_close(r->minimal);
	free(r->plain_values);
}

/* Median wall time of one whole-tree sample of each reader, in µs per cgroup (0: not run). */
static int time_readers(const char *root, char **dirs, long n, const struct selection *sel,
			int repeat, enum sampler_backend bpf, double us[NR_READERS])
{
	struct readers r = { 0 };
	uint64_t *ns[NR_READERS] = { 0 };
	int err, i, k;

	err = open_readers(&r, root, dirs, n, sel, bpf);
	for (k = 0; k < NR_READERS && !err; k++)
		if (!(ns[k] = calloc(repeat, sizeof(uint64_t))))
			err = -ENOMEM;
	for (i = -3; i < repeat && !err; i++) { /* 3 warm-up rounds */
		for (k = 0; k < NR_READERS && !err; k++) {
			uint64_t start = now_ns();

			err = run_reader(&r, k);
			if (i >= 0)
				ns[k][i] = now_ns() - start;
		}
		if (i == -3 && !err && sel->nr_numa)
			err = check_like_for_like(&r, bpf);
		if (i == -3 && !err && r.on[R_MINIMAL] && r.rows[R_MINIMAL] != r.rows[R_BPF]) {
			mb_err("the minimal walk found %zu memory cgroups, the bpf walk %zu", r.rows[R_MINIMAL],
			       r.rows[R_BPF]);
			err = -EPROTO;
		}
	}
	for (k = 0; k < NR_READERS; k++) {
		if (!err && r.on[k])
			us[k] = median_us(ns[k], repeat) / (r.rows[k] ? r.rows[k] : 1);
		free(ns[k]);
	}
	close_readers(&r);
	return err;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: memcg-bench [--parent DIR] [--stats LIST|default|none] [--numa LIST|all] [--repeat N]\n"
		"                   [--sizes 10,100,1000] [--backend bpf|bpf-core] [--loads N] [--read-file FILE]\n"
		"  --stats none    no stats but the per-node ones of --numa: per-node sampling alone\n"
		"  --numa LIST     per-node stats of memory.numa_stat (\"all\": every one), a column per node\n"
		"                  with memory; the plain reader (memory.stat only) sits out\n"
		"  --loads N       N cgroups per NUMA node hold %d MiB of anon memory on that node\n"
		"  --read-file F   with each tree also time one read of F (median of up to %d reads)\n",
		LOAD_MIB, READ_FILE_MAX);
}

static int parse_args(int argc, char **argv, struct bench_opts *o)
{
	static const struct option longopts[] = {
		{ "parent", required_argument, NULL, 'p' },
		{ "stats", required_argument, NULL, 's' },
		{ "numa", required_argument, NULL, 'N' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "sizes", required_argument, NULL, 'n' },
		{ "backend", required_argument, NULL, 'b' },
		{ "loads", required_argument, NULL, 'l' },
		{ "read-file", required_argument, NULL, 'f' },
		{ 0 },
	};
	char *tok, *save = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "p:s:N:r:n:b:l:f:", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (sampler_backend_parse(optarg, &o->bpf) ||
			    (o->bpf != SAMPLER_BPF && o->bpf != SAMPLER_BPF_CORE)) {
				fprintf(stderr, "memcg-bench: --backend is bpf or bpf-core\n");
				return -EINVAL;
			}
			break;
		case 'p':
			o->parent = optarg;
			break;
		case 's':
			o->stats = optarg;
			break;
		case 'N':
			o->numa = optarg;
			break;
		case 'r':
			o->repeat = atoi(optarg);
			break;
		case 'l':
			o->loads = atoi(optarg);
			break;
		case 'f':
			o->read_file = optarg;
			break;
		case 'n':
			o->nr_sizes = 0;
			for (tok = strtok_r(optarg, ",", &save); tok && o->nr_sizes < 8;
			     tok = strtok_r(NULL, ",", &save))
				o->sizes[o->nr_sizes++] = atol(tok);
			break;
		default:
			usage();
			return -EINVAL;
		}
	}
	if (o->stats && !strcmp(o->stats, "none") && !o->numa) {
		fprintf(stderr, "memcg-bench: --stats none samples nothing without --numa\n");
		return -EINVAL;
	}
	if (o->loads && !o->numa) {
		fprintf(stderr, "memcg-bench: --loads goes with --numa\n");
		return -EINVAL;
	}
	return o->repeat > 0 && o->nr_sizes > 0 && o->loads >= 0 ? 0 : -EINVAL;
}

/*
 * Both fd-keeping readers are open at once and each wants 3 fds per cgroup:
 * give them room (root may raise the hard limit), else the hard limit.
 */
static void raise_fd_limit(void)
{
	struct rlimit rl = { .rlim_cur = 65536, .rlim_max = 65536 };

	if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
		return;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* The stats of --stats and --numa; the nodes with memory when there are per-node stats. */
static int select_stats(struct bench_opts *o, struct selection *sel, unsigned int *nodes, size_t *nr_nodes)
{
	int err;

	if (!o->stats)
		o->stats = BENCH_DEFAULT_STATS;
	else if (!strcmp(o->stats, "default")) /* the plugin's default set */
		o->stats = STAT_DEFAULT_LIST;
	if (strcmp(o->stats, "none") && stat_parse_list(o->stats, sel->stats, STAT_SELECTION_MAX, &sel->nr_stats))
		return -EINVAL;
	*nr_nodes = 0;
	if (!o->numa)
		return 0;
	if (numa_stat_parse_list(o->numa, sel->numa, STAT_SELECTION_MAX, &sel->nr_numa))
		return -EINVAL;
	err = numa_nodes_with_memory(STAT_MAX_NODES, nodes, STAT_MAX_NODES, nr_nodes);
	if (err)
		mb_err("--numa: no NUMA nodes with memory (%s): %s", NUMA_NODES_WITH_MEMORY, strerror(-err));
	return err;
}

static void print_header(const struct bench_opts *o, const struct selection *sel, size_t nr_nodes)
{
	const char *core = o->bpf == SAMPLER_BPF ? "bpf" : "core";
	char ratio[3][16];

	if (sel->nr_numa)
		printf("# memcg-bench: %zu stats (%s) and %zu per-node stats (%s) on %zu nodes: %zu columns, "
		       "median of %d samples, us per cgroup\n", sel->nr_stats, o->stats, sel->nr_numa, o->numa,
		       nr_nodes, sel->nr_stats + sel->nr_numa * nr_nodes, o->repeat);
	else
		printf("# memcg-bench: %zu stats (%s), median of %d samples, us per cgroup\n", sel->nr_stats,
		       o->stats, o->repeat);
	if (o->read_file)
		printf("# read_ms: one read of %s (open, read, close), median of up to %d reads; "
		       "below: its cgroup's nr_descendants and nr_dying_descendants\n", o->read_file, READ_FILE_MAX);
	snprintf(ratio[0], sizeof(ratio[0]), "text/%s", core);
	snprintf(ratio[1], sizeof(ratio[1]), "%s/bare", core);
	snprintf(ratio[2], sizeof(ratio[2]), "%s/min", core);
	printf("%8s %10s", "cgroups", "text");
	if (!sel->nr_numa)
		printf(" %10s", "plain");
	printf(" %10s %10s %10s %9s %9s %9s", sampler_backend_name(o->bpf), "bare_walk", "minimal", ratio[0], ratio[1],
	       ratio[2]);
	if (!sel->nr_numa)
		printf(" %10s", "text/plain");
	if (o->read_file)
		printf(" %10s %6s %7s %7s", "read_ms", "reads", "below", "dying");
	printf("\n");
}

/* One tree of @n cgroups: made, loaded, timed, removed. */
static int bench_size(const struct bench_opts *o, const struct selection *sel, const unsigned int *nodes,
		      size_t nr_nodes, long n)
{
	double us[NR_READERS] = { 0 }, read_ms = 0;
	char root[4096], **dirs = NULL;
	struct loads loads = { 0 };
	long live = -1, dying = -1;
	int err, reads = 0;

	snprintf(root, sizeof(root), "%s/memcg-bench-%ld", o->parent, n);
	err = make_tree(o->parent, root, n, &dirs);
	if (err) {
		mb_err("cannot create %ld cgroups under %s: %s", n, root, strerror(-err));
		return err;
	}
	if (o->loads)
		err = start_loads(dirs, n, nodes, nr_nodes, o->loads, &loads);
	if (!err)
		err = time_readers(root, dirs, n, sel, o->repeat, o->bpf, us);
	if (!err && o->read_file) {
		err = time_read_file(o->read_file, &read_ms, &reads);
		if (err)
			mb_err("cannot read %s: %s", o->read_file, strerror(-err));
		cgroups_below(o->read_file, &live, &dying);
	}
	stop_loads(&loads);
	remove_tree(dirs, n);
	if (err) {
		mb_err("benchmark at %ld cgroups failed: %s", n, strerror(-err));
		return err;
	}
	printf("%8ld %10.2f", n + 1, us[R_TEXT]);
	if (!sel->nr_numa)
		printf(" %10.2f", us[R_PLAIN]);
	printf(" %10.2f %10.2f", us[R_BPF], us[R_BARE]);
	if (us[R_MINIMAL] > 0)
		printf(" %10.2f", us[R_MINIMAL]);
	else
		printf(" %10s", "-");
	printf(" %9.1f %9.2f", us[R_TEXT] / us[R_BPF], us[R_BPF] / us[R_BARE]);
	if (us[R_MINIMAL] > 0)
		printf(" %9.2f", us[R_BPF] / us[R_MINIMAL]);
	else
		printf(" %9s", "-");
	if (!sel->nr_numa)
		printf(" %10.2f", us[R_TEXT] / us[R_PLAIN]);
	if (o->read_file)
		printf(" %10.3f %6d %7ld %7ld", read_ms, reads, live, dying);
	printf("\n");
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct bench_opts o = {
		.parent = "/sys/fs/cgroup", .repeat = 30, .sizes = { 10, 100, 1000 }, .nr_sizes = 3,
		.bpf = SAMPLER_BPF,
	};
	static struct selection sel;
	unsigned int nodes[STAT_MAX_NODES];
	size_t nr_nodes;

	if (parse_args(argc, argv, &o))
		return 2;
	if (select_stats(&o, &sel, nodes, &nr_nodes))
		return 2;
	mb_log_set_level(LOG_WARNING);
	raise_fd_limit();
	print_header(&o, &sel, nr_nodes);
	for (int i = 0; i < o.nr_sizes; i++)
		if (bench_size(&o, &sel, nodes, nr_nodes, o.sizes[i]))
			return 1;
	return 0;
}
