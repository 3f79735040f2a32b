// SPDX-License-Identifier: GPL-2.0-only
/*
 * opens FILE COUNT SECS: watches FILE with inotify (IN_OPEN) and prints one
 * line per open of it, the CLOCK_MONOTONIC time in seconds, until COUNT
 * opens were seen or SECS seconds passed. Exit 0 after COUNT opens, 1 on
 * timeout, 2 on a usage or system error.
 *
 * The bench's peer (bench_netdata.sh) counts netdata's collections this
 * way: its cgroups collector opens each cgroup's memory.stat once per
 * collection and nothing else does. A reader blocked in read() gets each
 * event at once, so two opens are never merged into one event (inotify
 * merges only identical events still unread).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	long count, seen = 0;
	double deadline;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: opens FILE COUNT SECS\n");
		return 2;
	}
	count = strtol(argv[2], NULL, 10);
	deadline = now_s() + strtod(argv[3], NULL);
	fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0 || inotify_add_watch(fd, argv[1], IN_OPEN) < 0) {
		fprintf(stderr, "opens: watching %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	while (seen < count) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		double left = deadline - now_s();
		ssize_t n;
		char *q;
		int rc;

		if (left <= 0)
			return 1;
		rc = poll(&p, 1, (int)(left * 1000) + 1);
		if (rc < 0 && errno != EINTR) {
			fprintf(stderr, "opens: poll: %s\n", strerror(errno));
			return 2;
		}
		if (rc <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			fprintf(stderr, "opens: read: %s\n", strerror(errno));
			return 2;
		}
		for (q = buf; q < buf + n && seen < count;) {
			const struct inotify_event *e = (const struct inotify_event *)q;

			if (e->mask & IN_OPEN) {
				printf("%.3f\n", now_s());
				fflush(stdout);
				seen++;
			}
			q += sizeof(*e) + e->len;
		}
	}
	return 0;
}
