// SPDX-License-Identifier: GPL-2.0-only
/*
 * churn: makes and removes cgroups as fast as it can, for the churn soak of
 * the VM tests (run-tests.sh, churn_soak).
 *
 *   churn [-w WORKERS] [-n NAMES] [-k LIVE] [-N NICE] PARENT LOG SECONDS
 *
 * Each of WORKERS processes owns PARENT/w<k> (made here; the memory
 * controller is enabled in PARENT/w<k>/cgroup.subtree_control, so every
 * churned cgroup has a memcg of its own) and cycles through NAMES names in
 * it: each step makes the next name and removes the one made LIVE steps
 * before, so LIVE cgroups per worker exist at any moment and every name is
 * made again after NAMES steps (a new cgroup id under an old path). Worker
 * 0's names include one with a space, a tab, a backslash, a quote and a
 * byte that is not UTF-8, and one of 255 bytes (the longest name
 * component). (A newline cannot be: cgroup_mkdir() refuses it, EINVAL.)
 *
 * NICE (default 0) is added to the workers' nice value (busybox has no nice).
 *
 * Every directory made is logged to LOG, one write(2) per line with
 * O_APPEND, right after its mkdir: "INODE PATH\n", PATH relative to the
 * cgroupfs root (PARENT must be below /sys/fs/cgroup), bytes < 0x20, >= 0x7f
 * and '\' written as \xNN (check_values ids reads it back).
 *
 * After SECONDS (or SIGTERM/SIGINT) every worker removes what it still has,
 * and one line goes to stdout:
 *   churn: workers=W seconds=S made=N removed=M errors=E made_per_s=R removed_per_s=R
 * Exit 0 when no mkdir, rmdir or log write failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CGROUPFS "/sys/fs/cgroup"
#define MAX_NAMES 256

struct counts {
	unsigned long made, removed, errors;
};

static volatile sig_atomic_t stop;

/* The first few failures of a worker are printed, the rest only counted. */
#define complain(c, ...) \
	do { \
		if ((c)->errors++ < 5) \
			fprintf(stderr, __VA_ARGS__); \
	} while (0)

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Appends @s to @out (size PATH_MAX * 4 + 64) with the LOG escaping. */
static size_t escape(char *out, size_t o, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '\\')
			o += (size_t)sprintf(out + o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = 0;
	return o;
}

/* One worker: cycles through its names in @dir until stop. */
static void worker(int k, const char *dir, const char *rel, int logfd, unsigned names,
		   unsigned live, double until, struct counts *c)
{
	static char name[MAX_NAMES][NAME_MAX + 1];
	static char line[PATH_MAX * 4 + 64];
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0) {
		fprintf(stderr, "churn: %s: %s\n", dir, strerror(errno));
		c->errors++;
		return;
	}
	for (unsigned j = 0; j < names; j++) {
		if (k == 0 && j == 1) {
			snprintf(name[j], sizeof(name[j]), "odd \t\\\"\351-%u", j);
		} else if (k == 0 && j == 2) {
			memset(name[j], 'L', NAME_MAX);
			name[j][NAME_MAX] = 0;
			name[j][0] = 'n';
			name[j][1] = '2';
		} else {
			snprintf(name[j], sizeof(name[j]), "n%u", j);
		}
	}
	for (unsigned long i = 0; !stop && now() < until; i++) {
		const char *mk = name[i % names];
		struct stat st;
		size_t o;
		int fd;

		if (i >= live && unlinkat(dfd, name[(i - live) % names], AT_REMOVEDIR) == 0)
			c->removed++;
		else if (i >= live)
			complain(c, "churn: rmdir in %s: %s\n", dir, strerror(errno));
		if (mkdirat(dfd, mk, 0755) < 0) {
			complain(c, "churn: mkdir in %s: %s\n", dir, strerror(errno));
			continue;
		}
		c->made++;
		fd = openat(dfd, mk, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0) {
			complain(c, "churn: stat of a new dir in %s: %s\n", dir, strerror(errno));
			if (fd >= 0)
				close(fd);
			continue;
		}
		close(fd);
		o = (size_t)sprintf(line, "%llu ", (unsigned long long)st.st_ino);
		o = escape(line, o, rel);
		line[o++] = '/';
		o = escape(line, o, mk);
		line[o++] = '\n';
		if (write(logfd, line, o) != (ssize_t)o)
			complain(c, "churn: log write: %s\n", strerror(errno));
	}
	/* Leave the tree as it was: remove what is still there. */
	for (unsigned j = 0; j < names; j++)
		if (unlinkat(dfd, name[j], AT_REMOVEDIR) == 0)
			c->removed++;
	close(dfd);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

int main(int argc, char **argv)
{
	unsigned workers = 4, names = 16, live = 8;
	int niceness = 0;
	struct counts *c;
	struct sigaction sa = { .sa_handler = on_signal };
	char dir[PATH_MAX], ctl[PATH_MAX + 32];
	const char *parent, *rel;
	double start, until, secs;
	struct counts sum = { 0 };
	pid_t pids[64];
	int opt, logfd;

	while ((opt = getopt(argc, argv, "w:n:k:N:")) != -1) {
		switch (opt) {
		case 'N': niceness = atoi(optarg); break;
		case 'w': workers = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'n': names = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'k': live = (unsigned)strtoul(optarg, NULL, 10); break;
		default: goto usage;
		}
	}
	if (argc - optind != 3 || workers < 1 || workers > 64 || names < 3 || names > MAX_NAMES ||
	    live < 1 || live >= names)
		goto usage;
	parent = argv[optind];
	if (strncmp(parent, CGROUPFS "/", strlen(CGROUPFS) + 1)) {
		fprintf(stderr, "churn: %s is not below %s\n", parent, CGROUPFS);
		return 2;
	}
	rel = parent + strlen(CGROUPFS);
	logfd = open(argv[optind + 1], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (logfd < 0) {
		fprintf(stderr, "churn: %s: %s\n", argv[optind + 1], strerror(errno));
		return 1;
	}
	c = mmap(NULL, workers * sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED) {
		perror("churn: mmap");
		return 1;
	}
	memset(c, 0, workers * sizeof(*c));
	for (unsigned k = 0; k < workers; k++) {
		snprintf(dir, sizeof(dir), "%s/w%u", parent, k);
		snprintf(ctl, sizeof(ctl), "%s/cgroup.subtree_control", dir);
		if ((mkdir(dir, 0755) < 0 && errno != EEXIST) || write_file(ctl, "+memory") < 0) {
			fprintf(stderr, "churn: cannot make %s with the memory controller: %s\n", dir,
				strerror(errno));
			return 1;
		}
	}
	errno = 0;
	if (niceness && nice(niceness) == -1 && errno) {
		perror("churn: nice");
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	start = now();
	until = start + strtod(argv[optind + 2], NULL);
	for (unsigned k = 0; k < workers; k++) {
		pid_t pid = fork();

		pids[k] = pid;
		if (pid < 0) {
			perror("churn: fork");
			stop = 1;
			break;
		}
		if (pid == 0) {
			char wrel[PATH_MAX];

			snprintf(dir, sizeof(dir), "%s/w%u", parent, k);
			snprintf(wrel, sizeof(wrel), "%s/w%u", rel, k);
			worker((int)k, dir, wrel, logfd, names, live, until, &c[k]);
			_exit(0);
		}
	}
	for (;;) {
		if (wait(NULL) > 0)
			continue;
		if (errno != EINTR)
			break;
		for (unsigned k = 0; k < workers; k++) /* pass a stop on to the workers */
			if (pids[k] > 0)
				kill(pids[k], SIGTERM);
	}
	secs = now() - start;
	for (unsigned k = 0; k < workers; k++) {
		sum.made += c[k].made;
		sum.removed += c[k].removed;
		sum.errors += c[k].errors;
	}
	printf("churn: workers=%u seconds=%.1f made=%lu removed=%lu errors=%lu made_per_s=%.0f "
	       "removed_per_s=%.0f\n",
	       workers, secs, sum.made, sum.removed, sum.errors, sum.made / secs, sum.removed / secs);
	return sum.errors ? 1 : 0;
usage:
	fprintf(stderr, "usage: churn [-w WORKERS] [-n NAMES (3..%d)] [-k LIVE (< NAMES)] [-N NICE] PARENT LOG SECONDS\n",
		MAX_NAMES);
	return 2;
}
