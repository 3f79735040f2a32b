// SPDX-License-Identifier: GPL-2.0-only
/*
 * memload: a load generator for the VM tests. Allocates and touches anon
 * memory, optionally writes a file (tmpfs or page cache), says it is ready,
 * then waits for a signal so that its pages stay put while a test samples.
 *
 *   memload [-a ANON_MIB] [-f FILE -s FILE_MIB] [-n NODE] [-r READY_FILE]
 *
 * -n binds its memory, anon and file pages alike, to NUMA node NODE
 * (set_mempolicy MPOL_BIND): any node, CPU-less ones too.
 *
 * Built statically (gcc -static) so that it runs in the bare initramfs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MIB (1024UL * 1024UL)
#define MPOL_BIND 2 /* linux/mempolicy.h */

/* Every page this task allocates from now on comes from @node. */
static int bind_to_node(unsigned long node)
{
	unsigned long mask[4] = { 0 };

	if (node >= 8 * sizeof(mask)) {
		fprintf(stderr, "memload: node %lu is past the %zu this takes\n", node, 8 * sizeof(mask));
		return -EINVAL;
	}
	mask[node / (8 * sizeof(mask[0]))] = 1UL << (node % (8 * sizeof(mask[0])));
	if (syscall(SYS_set_mempolicy, MPOL_BIND, mask, 8 * sizeof(mask) + 1)) {
		fprintf(stderr, "memload: set_mempolicy(MPOL_BIND, node %lu): %s\n", node, strerror(errno));
		return -errno;
	}
	return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int write_file(const char *path, unsigned long mib)
{
	static char block[65536];
	unsigned long left = mib * MIB;
	int fd, err = 0;

	memset(block, 0x5a, sizeof(block));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "memload: open %s: %s\n", path, strerror(errno));
		return -errno;
	}
	while (left > 0) {
		size_t n = left < sizeof(block) ? left : sizeof(block);
		ssize_t w = write(fd, block, n);

		if (w < 0) {
			err = -errno;
			fprintf(stderr, "memload: write %s: %s\n", path, strerror(errno));
			goto close_fd;
		}
		left -= (unsigned long)w;
	}
close_fd:
	close(fd);
	return err;
}

int main(int argc, char **argv)
{
	unsigned long anon_mib = 0, file_mib = 0;
	const char *file = NULL, *ready = NULL, *node = NULL;
	struct sigaction sa;
	sigset_t none;
	char *mem = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "a:f:s:n:r:")) != -1) {
		switch (opt) {
		case 'a': anon_mib = strtoul(optarg, NULL, 0); break;
		case 'f': file = optarg; break;
		case 's': file_mib = strtoul(optarg, NULL, 0); break;
		case 'n': node = optarg; break;
		case 'r': ready = optarg; break;
		default:
			fprintf(stderr, "usage: memload [-a ANON_MIB] [-f FILE -s FILE_MIB] [-n NODE] [-r READY_FILE]\n");
			return 2;
		}
	}
	if (node && bind_to_node(strtoul(node, NULL, 0)) < 0)
		return 1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);

	if (anon_mib) {
		size_t len = anon_mib * MIB;
		long page = sysconf(_SC_PAGESIZE);

		mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED) {
			fprintf(stderr, "memload: mmap %lu MiB: %s\n", anon_mib, strerror(errno));
			return 1;
		}
		for (size_t off = 0; off < len; off += (size_t)page)
			mem[off] = (char)(off / (size_t)page + 1);
	}
	if (file && file_mib && write_file(file, file_mib) < 0)
		return 1;
	if (ready) {
		int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0) {
			fprintf(stderr, "memload: open %s: %s\n", ready, strerror(errno));
			return 1;
		}
		close(fd);
	}

	sigemptyset(&none);
	while (!stop)
		sigsuspend(&none);
	return 0;
}
