// SPDX-License-Identifier: GPL-2.0-only
/*
 * memcg-bench: cost per cgroup of one sample of a whole tree, for the text
 * backend, the bpf backend, a bare bpf walk that reads no stats, and the
 * plain hand-written reader. It creates flat trees of N cgroups under
 * --parent (run it in a VM or on a machine whose cgroup tree is yours) and
 * removes them afterwards. Prints medians in microseconds per cgroup.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "plain_reader.h"
#include "sampler.h"
#include "stat_catalog.h"

struct bench_opts {
	const char *parent;
	const char *stats;
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
static int make_tree(const char *root, long n, char ***dirs_out)
{
	char path[8192], **dirs;
	int err;

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

/* Median wall time of one whole-tree sample, in µs per cgroup. */
static int time_sampler(const char *root, enum sampler_backend backend, const struct stat_def **stats,
			size_t nr_stats, int repeat, double *us_per_cgroup)
{
	struct sampler_opts opts = {
		.cgroup_root = root, .max_depth = -1, .backend = backend,
		.stats = stats, .nr_stats = nr_stats,
	};
	struct sample_table t;
	struct sampler *s;
	uint64_t *ns;
	size_t rows = 0;
	int err, i;

	err = sampler_open(&opts, &s);
	if (err)
		return err;
	ns = calloc(repeat, sizeof(*ns));
	sampler_table_init(s, &t);
	for (i = -3; i < repeat && !err; i++) { /* 3 warm-up rounds */
		uint64_t start = now_ns();

		err = sampler_sample(s, &t);
		if (i >= 0)
			ns[i] = now_ns() - start;
		rows = t.nr_rows;
	}
	if (!err)
		*us_per_cgroup = median_us(ns, repeat) / (rows ? rows : 1);
	free(ns);
	sample_table_free(&t);
	sampler_close(s);
	return err;
}

static int time_plain(char **dirs, long n, const struct stat_def **stats, size_t nr_stats, int repeat,
		      double *us_per_cgroup)
{
	const char *names[128];
	struct plain_reader *r;
	uint64_t *values, *ns;
	int err, i;

	for (size_t k = 0; k < nr_stats; k++)
		names[k] = stats[k]->name;
	err = plain_reader_open(dirs, n + 1, names, nr_stats, &r);
	if (err)
		return err;
	values = calloc((n + 1) * nr_stats, sizeof(*values));
	ns = calloc(repeat, sizeof(*ns));
	for (i = -3; i < repeat && !err; i++) {
		uint64_t start = now_ns();

		err = plain_reader_read(r, values);
		if (i >= 0)
			ns[i] = now_ns() - start;
	}
	if (!err)
		*us_per_cgroup = median_us(ns, repeat) / (n + 1);
	free(ns);
	free(values);
	plain_reader_close(r);
	return err;
}

static int parse_args(int argc, char **argv, struct bench_opts *o)
{
	static const struct option longopts[] = {
		{ "parent", required_argument, NULL, 'p' },
		{ "stats", required_argument, NULL, 's' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "sizes", required_argument, NULL, 'n' },
		{ 0 },
	};
	char *tok, *save = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "p:s:r:n:", longopts, NULL)) != -1) {
		switch (c) {
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
			fprintf(stderr, "usage: memcg-bench [--parent DIR] [--stats LIST] [--repeat N] "
					"[--sizes 10,100,1000]\n");
			return -EINVAL;
		}
	}
	return o->repeat > 0 && o->nr_sizes > 0 ? 0 : -EINVAL;
}

int main(int argc, char **argv)
{
	struct bench_opts o = {
		.parent = "/sys/fs/cgroup", .repeat = 30, .sizes = { 10, 100, 1000 }, .nr_sizes = 3,
	};
	const struct stat_def *stats[128];
	size_t nr_stats;
	int err;

	if (parse_args(argc, argv, &o))
		return 2;
	if (stat_parse_list(o.stats, stats, 128, &nr_stats))
		return 2;
	mb_log_set_level(LOG_WARNING);
	printf("# memcg-bench: %zu stats (%s), median of %d samples, us per cgroup\n", nr_stats,
	       o.stats ? o.stats : STAT_DEFAULT_LIST, o.repeat);
	printf("%8s %10s %10s %10s %10s %9s %9s %10s\n", "cgroups", "text", "plain", "bpf", "bare_walk",
	       "text/bpf", "bpf/bare", "text/plain");
	for (int i = 0; i < o.nr_sizes; i++) {
		double text = 0, plain = 0, bpf = 0, bare = 0;
		char root[4096], **dirs = NULL;
		long n = o.sizes[i];

		snprintf(root, sizeof(root), "%s/memcg-bench-%ld", o.parent, n);
		err = make_tree(root, n, &dirs);
		if (err) {
			mb_err("cannot create %ld cgroups under %s: %s", n, root, strerror(-err));
			return 1;
		}
		err = time_sampler(root, SAMPLER_TEXT, stats, nr_stats, o.repeat, &text);
		if (!err)
			err = time_plain(dirs, n, stats, nr_stats, o.repeat, &plain);
		if (!err)
			err = time_sampler(root, SAMPLER_BPF, stats, nr_stats, o.repeat, &bpf);
		if (!err)
			err = time_sampler(root, SAMPLER_BPF, NULL, 0, o.repeat, &bare);
		remove_tree(dirs, n);
		if (err) {
			mb_err("benchmark at %ld cgroups failed: %s", n, strerror(-err));
			return 1;
		}
		printf("%8ld %10.2f %10.2f %10.2f %10.2f %9.1f %9.2f %10.2f\n", n + 1, text, plain, bpf, bare,
		       text / bpf, bpf / bare, text / plain);
		fflush(stdout);
	}
	return 0;
}
