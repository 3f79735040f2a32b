// SPDX-License-Identifier: GPL-2.0-only
/*
 * memcg-bpf-sample: the operator's CLI over the sampler core. It prints what
 * the collectd plugin would sample on this host, with the same backends.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>

#include "base/name_table.h"
#include "base/log.h"
#include "allocinfo/allocinfo.h"
#include "cli/allocinfo_report.h"
#include "cli/path_escape.h"
#include "sampling/cgroup_budget.h"
#include "sampling/sampler.h"
#include "sampling/stat_catalog.h"

enum output_format { FORMAT_TABLE, FORMAT_JSON };

static const char *const output_format_names[] = {
	[FORMAT_TABLE] = "table",
	[FORMAT_JSON] = "json",
};

struct cli_opts {
	struct sampler_opts sampler;
	struct cgroup_budget_limits budget; /* none unless asked for */
	const struct stat_def *stats[STAT_SELECTION_MAX];
	const struct stat_def *numa_stats[STAT_SELECTION_MAX];
	bool numa;
	bool allocinfo;                      /* --allocinfo: the allocation profile instead of cgroups */
	struct allocinfo_report_opts alloc;
	long count;
	double interval;
	enum output_format format;
	bool quiet;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = 1;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: memcg-bpf-sample [OPTION]...\n"
		"Samples memory-cgroup stats of every cgroup under a root, as the memcg_bpf\n"
		"collectd plugin does.\n\n"
		"  -r, --root DIR        cgroup root (default /sys/fs/cgroup)\n"
		"  -s, --stats LIST      comma-separated memory.stat names, \"all\" or \"default\"\n"
		"                        (default: %s)\n"
		"  -b, --backend NAME    auto (default), bpf, bpf-core or text\n"
		"  -d, --max-depth N     levels below the root to walk (default: all)\n"
		"      --max-children N  as the plugin's MaxChildren: at most N children of a cgroup\n"
		"                        are shown (default: all; the plugin's default is %d)\n"
		"      --max-cgroups N   as MaxCgroups: at most N cgroups shown (default: all;\n"
		"                        the plugin's is %d); a footer says what was cut\n"
		"  -c, --count N         samples to take (default 1; 0 = until interrupted)\n"
		"  -i, --interval SECS   time between samples (default 1)\n"
		"  -f, --format FMT      table (default) or json (one object per cgroup per line)\n"
		"  -q, --quiet           no per-sample summary on stderr\n"
		"  -N, --numa            also per NUMA node (memory.numa_stat): the stats --stats names\n"
		"                        that have per-node values, or all per-node stats; JSON rows\n"
		"                        get \"numa\":{\"<stat>\":{\"<node>\":value}}, the table numa_<stat>_N<node>\n"
		"      --allocinfo [FILE] the kernel's allocation profile instead of cgroups: the top\n"
		"                        call sites by bytes from FILE (default " ALLOCINFO_PATH ")\n"
		"      --allocinfo-top N call sites shown (default 25); the rest sum to one 'other' line\n"
		"      --allocinfo-backend auto|ioctl|text  how the profile is read: the binary\n"
		"                        interface (Linux >= 7.3), the text, or auto (default: the\n"
		"                        text, the cheaper for one read)\n"
		"  -l, --list-stats      list the catalog of stats and exit\n"
		"  -h, --help            this help\n\n"
		"Exit status: 0 ok, 1 runtime error, 2 usage or configuration error.\n",
		STAT_DEFAULT_LIST, CGROUP_BUDGET_MAX_CHILDREN, CGROUP_BUDGET_MAX_CGROUPS);
}

/* Where cgroup v1 has the stat: "file:key" for keyed files, the file otherwise, "-" for none. */
static void v1_source(const struct stat_def *def, char *buf, size_t len)
{
	const char *file = stat_file_name(def->file, 1);

	if (!stat_on_version(def, 1))
		snprintf(buf, len, "-");
	else if (def->file == STAT_FILE_DERIVED)
		snprintf(buf, len, "(derived)");
	else if (def->file == STAT_FILE_OOM_TRACKER)
		snprintf(buf, len, "(bpf_oom_tracker)");
	else if (def->file == STAT_FILE_MEMORY_STAT)
		snprintf(buf, len, "total_%s", def->v1_name);
	else if (stat_file_format(def->file) == STAT_FORMAT_KEYED)
		snprintf(buf, len, "%s:%s", file, def->v1_name);
	else
		snprintf(buf, len, "%s", file);
}

static const char *s_or(const char *s)
{
	return s ? s : "-";
}

static void list_stats(void)
{
	size_t n;
	const struct stat_def *cat = stat_catalog(&n);
	static const char *const units[] = {
		[STAT_UNIT_BYTES] = "bytes", [STAT_UNIT_COUNT] = "count", [STAT_UNIT_MICROSECONDS] = "us",
	};
	char v1[64], kernel[128];

	printf("%-22s %-5s %-7s %-7s %-19s %-30s %s\n", "STAT", "UNIT", "TYPE", "SCOPE", "FILE", "V1",
	       "KERNEL");
	for (size_t i = 0; i < n; i++) {
		const struct stat_def *d = &cat[i];
		const char *file = stat_file_name(d->file, 2);

		v1_source(d, v1, sizeof(v1));
		if (d->file == STAT_FILE_DERIVED)
			snprintf(kernel, sizeof(kernel), "%s - %s", d->inputs[0], d->inputs[1]);
		else if (d->file == STAT_FILE_OOM_TRACKER)
			snprintf(kernel, sizeof(kernel), "(__oom_kill_process, signal_generate)");
		else if (!d->kernel[0])
			snprintf(kernel, sizeof(kernel), "(page counter)");
		else
			snprintf(kernel, sizeof(kernel), "%s%s%s", d->kernel[0], d->kernel[1] ? " | " : "",
				 d->kernel[1] ? d->kernel[1] : "");
		if (d->file == STAT_FILE_USAGE)
			snprintf(kernel, sizeof(kernel), "(memory.current)");
		printf("%-22s %-5s %-7s %-7s %-19s %-30s %s\n", d->name, units[d->unit],
		       d->type == STAT_GAUGE ? "gauge" : "counter",
		       d->scope == STAT_SCOPE_LOCAL ? "local" : "subtree",
		       file ? file : d->file == STAT_FILE_DERIVED ? "(derived)"
				   : d->file == STAT_FILE_OOM_TRACKER ? "(bpf_oom_tracker)" : "-", v1, kernel);
	}
	cat = numa_stat_catalog(&n);
	printf("\nPer NUMA node (--numa; the plugin's NumaStat), from memory.numa_stat:\n");
	for (size_t i = 0; i < n; i++) {
		const struct stat_def *d = &cat[i];

		printf("%-22s %-5s %-7s %-7s %-19s %-30s %s\n", d->name, units[d->unit],
		       d->type == STAT_GAUGE ? "gauge" : "counter", "subtree", "memory.numa_stat",
		       d->v1_name ? d->v1_name : "-", s_or(d->kernel[0]));
	}
}

static int parse_long(const char *arg, const char *what, long min, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min) {
		mb_err("%s: '%s' is not a whole number >= %ld", what, arg, min);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/*
 * --numa: the per-node stats among those --stats names ("all": every one),
 * or every per-node stat without --stats. 0, or -EINVAL when --stats names
 * none that has per-node values.
 */
static int select_numa(const char *stats, const struct stat_def **out, size_t max, size_t *n)
{
	char *copy, *tok, *save = NULL;
	int err = 0;

	*n = 0;
	if (!stats || !*stats)
		return numa_stat_parse_list(NULL, out, max, n);
	copy = strdup(stats);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ", \t\n", &save); tok && !err; tok = strtok_r(NULL, ", \t\n", &save))
		if (strcasecmp(tok, "all") == 0 || numa_stat_lookup(tok))
			err = numa_stat_select(NULL, tok, out, max, n);
	free(copy);
	if (!err && !*n) {
		mb_err("--numa: none of the stats --stats names has per-node values (see --list-stats)");
		err = -EINVAL;
	}
	return err;
}

/* Returns 0 to run, 1 to exit successfully, or a negative errno (usage error). */
static int parse_args(int argc, char **argv, struct cli_opts *o)
{
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "max-children", required_argument, NULL, 'C' },
		{ "max-cgroups", required_argument, NULL, 'G' },
		{ "stats", required_argument, NULL, 's' },
		{ "backend", required_argument, NULL, 'b' },
		{ "max-depth", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'c' },
		{ "interval", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "list-stats", no_argument, NULL, 'l' },
		{ "numa", no_argument, NULL, 'N' },
		{ "allocinfo", optional_argument, NULL, 'A' },
		{ "allocinfo-top", required_argument, NULL, 'T' },
		{ "allocinfo-backend", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *stats = NULL;
	bool alloc_path_given = false;
	long depth, limit;
	char *end;
	int c, err;

	while ((c = getopt_long(argc, argv, "r:s:b:d:c:i:f:qNlh", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			o->sampler.cgroup_root = optarg;
			break;
		case 's':
			stats = optarg;
			break;
		case 'b':
			if (sampler_backend_parse(optarg, &o->sampler.backend)) {
				mb_err("--backend: '%s' is not one of auto, bpf, bpf-core, text", optarg);
				return -EINVAL;
			}
			break;
		case 'd':
			err = parse_long(optarg, "--max-depth", 0, &depth);
			if (err)
				return err;
			o->sampler.max_depth = depth > 4096 ? 4096 : (int)depth;
			break;
		case 'C':
		case 'G':
			err = parse_long(optarg, c == 'C' ? "--max-children" : "--max-cgroups", 0, &limit);
			if (err)
				return err;
			if (limit > CGROUP_BUDGET_LIMIT)
				limit = CGROUP_BUDGET_LIMIT;
			*(c == 'C' ? &o->budget.max_children : &o->budget.max_cgroups) = (unsigned int)limit;
			break;
		case 'c':
			err = parse_long(optarg, "--count", 0, &o->count);
			if (err)
				return err;
			break;
		case 'i':
			o->interval = strtod(optarg, &end);
			if (end == optarg || *end || !isfinite(o->interval) || o->interval < 0) {
				mb_err("--interval: '%s' is not a number of seconds >= 0", optarg);
				return -EINVAL;
			}
			break;
		case 'f':
			err = NAME_PARSE(output_format_names, optarg);
			if (err < 0) {
				mb_err("--format: '%s' is not one of table, json", optarg);
				return -EINVAL;
			}
			o->format = (enum output_format)err;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'N':
			o->numa = true;
			break;
		case 'A':
			o->allocinfo = true;
			if (optarg) {
				o->alloc.path = optarg;
				alloc_path_given = true;
			}
			break;
		case 'B': {
			enum allocinfo_backend b;

			if (allocinfo_backend_parse(optarg, &b)) {
				mb_err("--allocinfo-backend: '%s' is not one of auto, ioctl, text", optarg);
				return -EINVAL;
			}
			o->alloc.backend = (int)b;
			break;
		}
		case 'T':
			err = parse_long(optarg, "--allocinfo-top", 1, &limit);
			if (err)
				return err;
			o->alloc.top = limit > 100000 ? 100000 : (size_t)limit;
			break;
		case 'l':
			list_stats();
			return 1;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	/* --allocinfo FILE as well as --allocinfo=FILE */
	if (o->allocinfo && !alloc_path_given && optind < argc)
		o->alloc.path = argv[optind++];
	o->alloc.json = o->format == FORMAT_JSON;
	if (optind < argc) {
		mb_err("unexpected argument '%s' (see --help)", argv[optind]);
		return -EINVAL;
	}
	o->sampler.default_stats = !stats || !*stats;
	err = stat_parse_list(stats, o->stats, ARRAY_SIZE(o->stats),
			      &o->sampler.nr_stats);
	if (err)
		return err;
	o->sampler.stats = o->stats;
	o->sampler.rank_stat = cgroup_budget_rank_stat(&o->budget);
	if (o->numa) {
		err = select_numa(stats, o->numa_stats, ARRAY_SIZE(o->numa_stats), &o->sampler.nr_numa_stats);
		if (err)
			return err;
		o->sampler.numa_stats = o->numa_stats;
	}
	return 0;
}

/* Prints @path escaped by @escape (cli/path_escape.h). */
static void print_path(const char *path, size_t (*escape)(const char *, size_t, char *, size_t))
{
	char small[512], *buf = small;
	size_t len = strlen(path), need = escape(path, len, small, sizeof(small));

	if (need >= sizeof(small)) {
		buf = malloc(need + 1);
		if (!buf) { /* cannot happen for paths under PATH_MAX; print what fit */
			fputs(small, stdout);
			return;
		}
		escape(path, len, buf, need + 1);
	}
	fputs(buf, stdout);
	if (buf != small)
		free(buf);
}

/*
 * The per-node columns of @row as "numa":{"<stat>":{"<node>":value,...},...}
 * (the columns come stat by stat, in node order); nothing without any.
 */
static void print_json_numa(const struct sample_table *t, const struct sample_row *row)
{
	const char *open_stat = NULL;
	bool any = false;

	for (size_t c = 0; c < t->nr_stats; c++) {
		const struct stat_def *def = t->stats[c];

		if (!def->node || row->values[c] == SAMPLE_VALUE_MISSING)
			continue;
		if (!any)
			printf(",\"numa\":{");
		if (!open_stat || strcmp(open_stat, def->name) != 0) {
			printf("%s\"%s\":{", open_stat ? "}," : "", def->name);
			open_stat = def->name;
		} else {
			putchar(',');
		}
		printf("\"%s\":%llu", def->node, (unsigned long long)row->values[c]);
		any = true;
	}
	if (any)
		printf("}}");
}

static void print_json(const struct sample_table *t, const bool *keep, long sample, const char *backend)
{
	for (size_t r = 0; r < t->nr_rows; r++) {
		const struct sample_row *row = &t->rows[r];
		bool first = true;

		if (!keep[r])
			continue;
		printf("{\"sample\":%ld,\"ts_ms\":%llu,\"backend\":\"%s\",\"cgroup_id\":%llu,\"path\":",
		       sample, (unsigned long long)(t->timestamp_ns / 1000000), backend,
		       (unsigned long long)row->cgroup_id);
		print_path(row->path, path_escape_json);
		printf(",\"depth\":%d,\"values\":{", row->depth);
		for (size_t c = 0; c < t->nr_stats; c++) {
			if (row->values[c] == SAMPLE_VALUE_MISSING || t->stats[c]->node)
				continue;
			if (row->values[c] == SAMPLE_VALUE_UNLIMITED) /* as the kernel prints it */
				printf("%s\"%s\":\"max\"", first ? "" : ",", t->stats[c]->name);
			else
				printf("%s\"%s\":%llu", first ? "" : ",", t->stats[c]->name,
				       (unsigned long long)row->values[c]);
			first = false;
		}
		printf("}");
		print_json_numa(t, row);
		printf("}\n");
	}
}

static void print_table(const struct sample_table *t, const bool *keep)
{
	int path_width = 4;

	for (size_t r = 0; r < t->nr_rows; r++) {
		const char *path = t->rows[r].path;
		int len = (int)path_escape_table(path, strlen(path), NULL, 0);

		if (keep[r] && len > path_width)
			path_width = len;
	}
	printf("%-*s", path_width, "PATH");
	for (size_t c = 0; c < t->nr_stats; c++) {
		const char *name = stat_column_name(t->stats[c]);

		printf(" %*s", (int)(strlen(name) > 12 ? strlen(name) : 12), name);
	}
	putchar('\n');
	for (size_t r = 0; r < t->nr_rows; r++) {
		const struct sample_row *row = &t->rows[r];
		int len = (int)path_escape_table(row->path, strlen(row->path), NULL, 0);

		if (!keep[r])
			continue;
		print_path(row->path, path_escape_table);
		printf("%*s", path_width - len, "");
		for (size_t c = 0; c < t->nr_stats; c++) {
			const char *name = stat_column_name(t->stats[c]);
			int width = strlen(name) > 12 ? (int)strlen(name) : 12;

			if (row->values[c] == SAMPLE_VALUE_MISSING)
				printf(" %*s", width, "-");
			else if (row->values[c] == SAMPLE_VALUE_UNLIMITED)
				printf(" %*s", width, "max");
			else
				printf(" %*llu", width, (unsigned long long)row->values[c]);
		}
		putchar('\n');
	}
}

/*
 * What the budget cut, as one line: "# cut: 2900 of 3021 cgroups, below 1
 * parent: /tenant (2900)", at most 5 parents named.
 */
static void print_cut(FILE *out, const struct cgroup_budget *b)
{
	const struct cgroup_budget_cut *cuts;
	struct cgroup_budget_tally tally;
	size_t n = cgroup_budget_cut_parents(b, &cuts);

	cgroup_budget_tally(b, &tally);
	if (!tally.cut)
		return;
	fprintf(out, "# cut: %zu of %zu cgroups, below %zu parent%s:", tally.cut, tally.seen, n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n && i < 5; i++) {
		char path[1024];

		/* as the table shows paths; a longer one is cut short */
		path_escape_table(cuts[i].child_path, cuts[i].parent_len, path, sizeof(path));
		fprintf(out, " %s (%zu)%s", path, cuts[i].by_children + cuts[i].by_cgroups,
			i + 1 < n && i < 4 ? "," : "");
	}
	fprintf(out, "%s\n", n > 5 ? " ..." : "");
}

/* The rows to show (*@keep, the budget's array): all, or the budget's. 0 or -ENOMEM. */
static int choose_rows(struct cgroup_budget *b, const struct sample_table *t, size_t usage_column, bool **keep)
{
	*keep = cgroup_budget_rows(b, t->nr_rows);
	if (!*keep)
		return -ENOMEM;
	for (size_t r = 0; r < t->nr_rows; r++)
		(*keep)[r] = true;
	return cgroup_budget_apply(b, t, usage_column, *keep);
}

static void sleep_seconds(double secs)
{
	struct timespec ts = { .tv_sec = (time_t)secs };

	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	while (!stop_requested && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* A deep tree wants more fds than the default soft limit for the text backend. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	struct cli_opts o = {
		.sampler = { .max_depth = -1, .backend = SAMPLER_AUTO },
		.alloc = { .path = ALLOCINFO_PATH, .top = 25 },
		.count = 1,
		.interval = 1.0,
	};
	struct sample_table table;
	struct cgroup_budget *budget;
	struct sampler *s;
	bool *keep = NULL;
	size_t usage_column;
	int err;

	err = parse_args(argc, argv, &o);
	if (err)
		return err > 0 ? 0 : 2;
	if (o.allocinfo)
		return allocinfo_report(&o.alloc);
	raise_fd_limit();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	if (cgroup_budget_new(&o.budget, &budget))
		return 1;
	err = sampler_open(&o.sampler, &s);
	if (err) {
		cgroup_budget_free(budget);
		return err == -EINVAL || err == -ENOENT ? 2 : 1;
	}
	usage_column = sampler_column_of(s, CGROUP_BUDGET_RANK_STAT);
	sampler_table_init(s, &table);
	for (long n = 0; !stop_requested && (o.count == 0 || n < o.count); n++) {
		if (n)
			sleep_seconds(o.interval);
		if (stop_requested)
			break;
		err = sampler_sample(s, &table);
		if (!err)
			err = choose_rows(budget, &table, usage_column, &keep);
		if (err)
			break;
		if (o.format == FORMAT_JSON) {
			print_json(&table, keep, n, sampler_backend_name(sampler_backend_used(s)));
		} else {
			print_table(&table, keep);
			print_cut(stdout, budget);
		}
		fflush(stdout);
		if (o.format == FORMAT_JSON && !o.quiet)
			print_cut(stderr, budget);
		if (!o.quiet)
			fprintf(stderr, "sample %ld: backend=%s cgroups=%zu skipped=%u duration_us=%llu\n", n,
				sampler_backend_name(sampler_backend_used(s)), table.nr_rows, table.skipped,
				(unsigned long long)(table.duration_ns / 1000));
	}
	sample_table_free(&table);
	sampler_close(s);
	cgroup_budget_free(budget);
	return err ? 1 : 0;
}
