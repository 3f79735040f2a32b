// SPDX-License-Identifier: GPL-2.0-only
/*
 * http-sink: an HTTP/1.1 receiver that takes POSTs and keeps nothing, for
 * the soak of make bench (tests/vm/guest/bench.sh): the agent's own cost and
 * queue at 10,000 cgroups and Interval 1, without a database that shares
 * the guest's two vCPUs. It answers 204, checks that every snappy body
 * decompresses to its stated length (the sender's patched blocks under
 * load), and on SIGTERM or SIGINT writes to STATS:
 *   requests N bytes N snappy_bad N
 * usage: http-sink PORT STATS     (listens on 127.0.0.1)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <snappy-c.h>

static volatile sig_atomic_t stop;
static unsigned long long requests, bytes, snappy_bad;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Reads until @buf holds a header block; its length (to the blank line) or -1. */
static ssize_t read_head(int fd, char *buf, size_t cap, size_t *have)
{
	for (;;) {
		char *end;
		ssize_t n;

		buf[*have] = '\0';
		end = strstr(buf, "\r\n\r\n");
		if (end)
			return end + 4 - buf;
		if (*have + 1 >= cap)
			return -1;
		n = read(fd, buf + *have, cap - 1 - *have);
		if (n <= 0)
			return -1;
		*have += (size_t)n;
	}
}

static bool header_is(const char *head, const char *name, const char *value)
{
	for (const char *p = head; (p = strstr(p, "\r\n")); p += 2)
		if (strncasecmp(p + 2, name, strlen(name)) == 0) {
			const char *v = p + 2 + strlen(name);

			while (*v == ' ')
				v++;
			return !value || strncasecmp(v, value, strlen(value)) == 0;
		}
	return false;
}

static long content_length(const char *head)
{
	for (const char *p = head; (p = strstr(p, "\r\n")); p += 2)
		if (strncasecmp(p + 2, "Content-Length:", 15) == 0)
			return strtol(p + 17, NULL, 10);
	return -1;
}

static void check_snappy(const char *body, size_t len)
{
	size_t raw_len;
	char *raw;

	if (snappy_uncompressed_length(body, len, &raw_len) != SNAPPY_OK || !(raw = malloc(raw_len ? raw_len : 1))) {
		snappy_bad++;
		return;
	}
	if (snappy_uncompress(body, len, raw, &raw_len) != SNAPPY_OK)
		snappy_bad++;
	free(raw);
}

/* Serves one connection until the peer closes it (or a request is malformed). */
static void serve(int fd)
{
	static char head[16384];
	static const char reply[] = "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n";
	/*
	 * A remote write 2.0 sender falls back to 1.0 when the answer has no
	 * X-Prometheus-Remote-Write-*-Written header (the spec's sign that 2.0
	 * was understood): the sink says so, so that the sender's 2.0 cost is
	 * what it measures. It keeps nothing, as for every request.
	 */
	static const char reply_v2[] = "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n"
				       "X-Prometheus-Remote-Write-Samples-Written: 0\r\n\r\n";
	size_t have = 0;

	while (!stop) {
		ssize_t hl = read_head(fd, head, sizeof(head), &have);
		const char *answer = reply;
		size_t answer_len = sizeof(reply) - 1;
		long cl;
		char *body;
		size_t got;

		if (hl < 0 || (cl = content_length(head)) < 0 || cl > (1L << 30) || !(body = malloc((size_t)cl + 1)))
			return;
		got = have - (size_t)hl < (size_t)cl ? have - (size_t)hl : (size_t)cl;
		memcpy(body, head + hl, got);
		memmove(head, head + hl + got, have - (size_t)hl - got);
		have -= (size_t)hl + got;
		while (got < (size_t)cl) {
			ssize_t n = read(fd, body + got, (size_t)cl - got);

			if (n <= 0) {
				free(body);
				return;
			}
			got += (size_t)n;
		}
		if (header_is(head, "Content-Encoding:", "snappy"))
			check_snappy(body, (size_t)cl);
		if (header_is(head, "Content-Type:", "application/x-protobuf;proto=io.prometheus.write.v2.Request")) {
			answer = reply_v2;
			answer_len = sizeof(reply_v2) - 1;
		}
		free(body);
		requests++;
		bytes += (unsigned long long)cl;
		if (write(fd, answer, answer_len) != (ssize_t)answer_len)
			return;
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART: accept() and read() return */
	int one = 1, lfd;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: http-sink PORT STATS\n");
		return 2;
	}
	a.sin_port = htons((unsigned short)atoi(argv[1]));
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 8)) {
		perror("http-sink: listen");
		return 1;
	}
	while (!stop) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			continue;
		serve(fd);
		close(fd);
	}
	f = fopen(argv[2], "w");
	if (!f || fprintf(f, "requests %llu bytes %llu snappy_bad %llu\n", requests, bytes, snappy_bad) < 0 ||
	    fclose(f)) {
		perror("http-sink: stats");
		return 1;
	}
	return 0;
}
