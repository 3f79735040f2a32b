// SPDX-License-Identifier: GPL-2.0-only
/*
 * memcg-bench: cost per cgroup of one sample of a whole tree, for the text
 * backend, the bpf backend (or bpf-core: --backend), a bare walk of it that
 * reads no stats, and the plain hand-written reader, taking turns. It creates flat trees of N cgroups under
 * --parent (run it in a VM or on a machine whose cgroup tree is yours) and
 * removes them afterwards. Prints medians in microseconds per cgroup.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "plain_reader.h"
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

struct bench_opts {
	const char *parent;
	const char *stats;
	enum sampler_backend bpf; /* the backend of the bpf and bare_walk columns */
	int repeat;
	long sizes[8];
	int nr_sizes;
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
 * The four readers of one tree. They take turns, one sample each per round,
 * so that drift in the machine's speed (TCG is noisy) hits them alike.
 */
enum reader { R_TEXT, R_PLAIN, R_BPF, R_BARE, NR_READERS };

struct readers {
	struct sampler *sampler[NR_READERS]; /* R_PLAIN: none */
	struct sample_table table[NR_READERS];
	struct plain_reader *plain;
	uint64_t *plain_values;
	size_t rows[NR_READERS];
};

static int open_readers(struct readers *r, const char *root, char **dirs, long n,
			const struct stat_def **stats, size_t nr_stats, enum sampler_backend bpf)
{
	const enum sampler_backend backend[NR_READERS] = {
		[R_TEXT] = SAMPLER_TEXT, [R_BPF] = bpf, [R_BARE] = bpf,
	};
	const char *names[128];
	int err;

	for (int k = 0; k < NR_READERS; k++) {
		struct sampler_opts opts = {
			.cgroup_root = root, .max_depth = -1, .backend = backend[k],
			.stats = k == R_BARE ? NULL : stats, .nr_stats = k == R_BARE ? 0 : nr_stats,
		};

		if (k == R_PLAIN)
			continue;
		err = sampler_open(&opts, &r->sampler[k]);
		if (err)
			return err;
		sampler_table_init(r->sampler[k], &r->table[k]);
	}
	for (size_t k = 0; k < nr_stats; k++)
		names[k] = stats[k]->name;
	r->plain_values = calloc((n + 1) * nr_stats, sizeof(*r->plain_values));
	if (!r->plain_values)
		return -ENOMEM;
	r->rows[R_PLAIN] = n + 1;
	return plain_reader_open(dirs, n + 1, names, nr_stats, &r->plain);
}

static int run_reader(struct readers *r, enum reader k)
{
	int err;

	if (k == R_PLAIN)
		return plain_reader_read(r->plain, r->plain_values);
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
	free(r->plain_values);
}

/* Median wall time of one whole-tree sample of each reader, in µs per cgroup. */
static int time_readers(const char *root, char **dirs, long n, const struct stat_def **stats,
			size_t nr_stats, int repeat, enum sampler_backend bpf, double us[NR_READERS])
{
	struct readers r = { 0 };
	uint64_t *ns[NR_READERS] = { 0 };
	int err, i, k;

	err = open_readers(&r, root, dirs, n, stats, nr_stats, bpf);
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
	}
	for (k = 0; k < NR_READERS; k++) {
		if (!err)
			us[k] = median_us(ns[k], repeat) / (r.rows[k] ? r.rows[k] : 1);
		free(ns[k]);
	}
	close_readers(&r);
	return err;
}

static int parse_args(int argc, char **argv, struct bench_opts *o)
{
	static const struct option longopts[] = {
		{ "parent", required_argument, NULL, 'p' },
		{ "stats", required_argument, NULL, 's' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "sizes", required_argument, NULL, 'n' },
		{ "backend", required_argument, NULL, 'b' },
		{ 0 },
	};
	char *tok, *save = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "p:s:r:n:b:", longopts, NULL)) != -1) {
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
		case 'r':
			o->repeat = atoi(optarg);
			break;
		case 'n':
			o->nr_sizes = 0;
			for (tok = strtok_r(optarg, ",", &save); tok && o->nr_sizes < 8;
			     tok = strtok_r(NULL, ",", &save))
				o->sizes[o->nr_sizes++] = atol(tok);
			break;
		default:
			fprintf(stderr, "usage: memcg-bench [--parent DIR] [--stats LIST|default] [--repeat N] "
					"[--sizes 10,100,1000] [--backend bpf|bpf-core]\n");
			return -EINVAL;
		}
	}
	return o->repeat > 0 && o->nr_sizes > 0 ? 0 : -EINVAL;
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

int main(int argc, char **argv)
{
	struct bench_opts o = {
		.parent = "/sys/fs/cgroup", .repeat = 30, .sizes = { 10, 100, 1000 }, .nr_sizes = 3,
		.bpf = SAMPLER_BPF,
	};
	const struct stat_def *stats[128];
	size_t nr_stats;
	int err;

	if (parse_args(argc, argv, &o))
		return 2;
	if (!o.stats)
		o.stats = BENCH_DEFAULT_STATS;
	else if (!strcmp(o.stats, "default")) /* the plugin's default set */
		o.stats = STAT_DEFAULT_LIST;
	if (stat_parse_list(o.stats, stats, 128, &nr_stats))
		return 2;
	mb_log_set_level(LOG_WARNING);
	raise_fd_limit();
	printf("# memcg-bench: %zu stats (%s), median of %d samples, us per cgroup\n", nr_stats,
	       o.stats, o.repeat);
	printf("%8s %10s %10s %10s %10s %9s %9s %10s\n", "cgroups", "text", "plain", sampler_backend_name(o.bpf),
	       "bare_walk", o.bpf == SAMPLER_BPF ? "text/bpf" : "text/core", o.bpf == SAMPLER_BPF ? "bpf/bare" : "core/bare",
	       "text/plain");
	for (int i = 0; i < o.nr_sizes; i++) {
		double us[NR_READERS] = { 0 };
		char root[4096], **dirs = NULL;
		long n = o.sizes[i];

		snprintf(root, sizeof(root), "%s/memcg-bench-%ld", o.parent, n);
		err = make_tree(o.parent, root, n, &dirs);
		if (err) {
			mb_err("cannot create %ld cgroups under %s: %s", n, root, strerror(-err));
			return 1;
		}
		err = time_readers(root, dirs, n, stats, nr_stats, o.repeat, o.bpf, us);
		remove_tree(dirs, n);
		if (err) {
			mb_err("benchmark at %ld cgroups failed: %s", n, strerror(-err));
			return 1;
		}
		printf("%8ld %10.2f %10.2f %10.2f %10.2f %9.1f %9.2f %10.2f\n", n + 1, us[R_TEXT],
		       us[R_PLAIN], us[R_BPF], us[R_BARE], us[R_TEXT] / us[R_BPF], us[R_BPF] / us[R_BARE],
		       us[R_TEXT] / us[R_PLAIN]);
		fflush(stdout);
	}
	return 0;
}
