// SPDX-License-Identifier: GPL-2.0-only
/*
 * allocinfo-bench: the cost of one read of the kernel's allocation profile
 * ranked to its top N, with the text reader and with the binary one (Linux
 * >= 7.3), taking turns; medians in microseconds and their ratio. Run where
 * /proc/allocinfo is (the profiling VM: make bench's allocinfo set).
 *
 *   allocinfo-bench [-n READS] [-t TOP] [FILE]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "allocinfo/allocinfo.h"
#include "allocinfo/allocinfo_ioctl.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One read and ranking; its time in ns, or 0 on error (said). */
static uint64_t one_read(struct allocinfo_reader *r, struct allocinfo_table *t, const struct alloc_row **top,
			 size_t n, size_t *rows)
{
	struct alloc_other other;
	char why[512];
	uint64_t start = now_ns();
	int err = allocinfo_reader_read(r, t, why, sizeof(why));

	if (!err && allocinfo_top(t, n, top, &other) < 0)
		err = -ENOMEM;
	if (err) {
		fprintf(stderr, "allocinfo-bench: %s\n", err == -ENOMEM ? strerror(ENOMEM) : why);
		return 0;
	}
	*rows = t->nr_rows;
	return now_ns() - start;
}

/* The file read whole, unparsed; its time in ns, or 0 on error. */
static uint64_t raw_text(const char *path)
{
	static char buf[1 << 16];
	uint64_t start = now_ns();
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return n < 0 ? 0 : now_ns() - start;
}

/* The binary walk alone at @min_size, rows counted into @rows; its time in ns, or 0 on error. */
static uint64_t raw_walk(int fd, uint64_t min_size, size_t *rows)
{
	struct allocinfo_abi_get_at at = { .pos = 0 };
	struct allocinfo_abi_tag_data d;
	uint64_t start = now_ns();
	int err;

	at.filter.mask = ALLOCINFO_ABI_FILTER_MIN_SIZE;
	at.filter.min_size = min_size;
	*rows = 0;
	err = ioctl(fd, ALLOCINFO_ABI_IOC_GET_AT, &at);
	while (!err) {
		(*rows)++;
		err = ioctl(fd, ALLOCINFO_ABI_IOC_GET_NEXT, &d);
	}
	return errno == ENOENT ? now_ns() - start : 0;
}

static uint64_t median(uint64_t *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

/* The second table: where the time goes (see the top of this file). */
static int breakdown(const char *path, long reads, long top, uint64_t nth_bytes)
{
	uint64_t *t_text = calloc((size_t)reads, sizeof(uint64_t)), *t_all = calloc((size_t)reads, sizeof(uint64_t)),
		 *t_top = calloc((size_t)reads, sizeof(uint64_t));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t rows_all = 0, rows_top = 0;
	int err = 0;

	if (!t_text || !t_all || !t_top || fd < 0)
		err = -1;
	for (long i = 0; !err && i < reads; i++) {
		t_text[i] = raw_text(path);
		t_all[i] = raw_walk(fd, 1, &rows_all);
		t_top[i] = raw_walk(fd, nth_bytes ? nth_bytes : 1, &rows_top);
		if (!t_text[i] || !t_all[i] || !t_top[i])
			err = -1;
	}
	if (!err) {
		printf("# where it goes: the text read alone (no parsing); the binary walk alone (rows counted)\n"
		       "# at MIN_SIZE 1 (the reader's) and at MIN_SIZE %llu (the %ld-th site's bytes: the top alone)\n",
		       (unsigned long long)nth_bytes, top);
		printf("%10s %10s %10s %10s %10s\n", "read_us", "walk_us", "walk_rows", "wtop_us", "wtop_rows");
		printf("%10.1f %10.1f %10zu %10.1f %10zu\n", median(t_text, reads) / 1000.0,
		       median(t_all, reads) / 1000.0, rows_all, median(t_top, reads) / 1000.0, rows_top);
	} else {
		fprintf(stderr, "allocinfo-bench: the raw reads of %s failed: %s\n", path, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	free(t_text);
	free(t_all);
	free(t_top);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *path = ALLOCINFO_PATH;
	long reads = 101, top = 50;
	struct allocinfo_reader *text, *bin;
	struct allocinfo_table tt, tb;
	const struct alloc_row **sel;
	uint64_t *ts, *tb_ns;
	size_t rows_text = 0, rows_bin = 0;
	struct alloc_other other;
	int opt, k;

	while ((opt = getopt(argc, argv, "n:t:")) != -1) {
		if (opt == 'n')
			reads = strtol(optarg, NULL, 10);
		else if (opt == 't')
			top = strtol(optarg, NULL, 10);
		else
			return 2;
	}
	if (optind < argc)
		path = argv[optind];
	if (reads < 1 || top < 1)
		return 2;
	sel = calloc((size_t)top, sizeof(*sel));
	ts = calloc((size_t)reads, sizeof(*ts));
	tb_ns = calloc((size_t)reads, sizeof(*tb_ns));
	if (!sel || !ts || !tb_ns || allocinfo_reader_new(path, ALLOCINFO_TEXT, &text) ||
	    allocinfo_reader_new(path, ALLOCINFO_IOCTL, &bin))
		return 1;
	allocinfo_table_init(&tt);
	allocinfo_table_init(&tb);
	for (long i = 0; i < reads; i++) { /* turns: both see the same moments */
		ts[i] = one_read(text, &tt, sel, (size_t)top, &rows_text);
		tb_ns[i] = one_read(bin, &tb, sel, (size_t)top, &rows_bin);
		if (!ts[i] || !tb_ns[i])
			return 1;
	}
	qsort(ts, (size_t)reads, sizeof(*ts), cmp_u64);
	qsort(tb_ns, (size_t)reads, sizeof(*tb_ns), cmp_u64);
	printf("# allocinfo-bench: one read of %s ranked to the top %ld, median of %ld reads, us\n", path, top, reads);
	printf("%10s %10s %10s %10s %10s\n", "text_us", "ioctl_us", "text/ioctl", "text_rows", "ioctl_rows");
	printf("%10.1f %10.1f %10.2f %10zu %10zu\n", ts[reads / 2] / 1000.0, tb_ns[reads / 2] / 1000.0,
	       (double)ts[reads / 2] / (double)tb_ns[reads / 2], rows_text, rows_bin);
	k = allocinfo_top(&tb, (size_t)top, sel, &other);
	if (breakdown(path, reads, top, k > 0 ? (uint64_t)sel[k - 1]->bytes : 1))
		return 1;
	allocinfo_reader_free(text);
	allocinfo_reader_free(bin);
	allocinfo_table_free(&tt);
	allocinfo_table_free(&tb);
	free(sel);
	free(ts);
	free(tb_ns);
	return 0;
}
