// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the disk spool (spool.h) in a private temp directory:
 * write/read, torn tail, corrupt middle, the cap, replay order across
 * restarts, the lock, hostile segment files.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/macros.h"
#include "base/log.h"
#include "sending/spool.h"

static char dir[64];

static void quiet(int level, const char *msg)
{
	if (getenv("SPOOL_TEST_LOG"))
		fprintf(stderr, "log: %s\n", msg);
}

static int make_dir(void **state)
{
	mb_log_set_sink(quiet);
	strcpy(dir, "/tmp/memcg_bpf-spool.XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int remove_dir(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static struct spool *open_spool(uint64_t max, uint64_t seg, struct spool_loss *loss)
{
	struct spool_opts o = { .dir = dir, .max_bytes = max, .segment_bytes = seg };
	struct spool *sp = NULL;

	assert_int_equal(spool_open(&o, &sp, loss), 0);
	return sp;
}

/* A record whose body is @len bytes of the pattern for @n. */
static void append_n(struct spool *sp, unsigned int n, size_t len, struct spool_loss *loss)
{
	uint8_t *body = malloc(len);
	struct spool_record r = { .format = 1, .compression = 2, .raw_len = (uint32_t)(len * 2),
				  .nr_samples = 10, .body = body, .len = len };

	assert_non_null(body);
	for (size_t i = 0; i < len; i++)
		body[i] = (uint8_t)(n * 31 + i);
	int err = spool_append(sp, &r, loss);

	free(body);
	assert_int_equal(err, 0);
}

/* Peeks the next record and returns its pattern number (checks every byte). */
static unsigned int peek_n(struct spool *sp)
{
	struct spool_record r;
	struct spool_loss loss = { 0 };
	unsigned int n;

	assert_int_equal(spool_peek(sp, &r, &loss), 0);
	assert_true(r.len > 0);
	assert_int_equal(r.format, 1);
	assert_int_equal(r.compression, 2);
	assert_int_equal(r.raw_len, r.len * 2);
	assert_int_equal(r.nr_samples, 10);
	n = 0;
	for (unsigned int cand = 0; cand < 256; cand++)
		if ((uint8_t)(cand * 31) == r.body[0]) {
			n = cand;
			break;
		}
	for (size_t i = 0; i < r.len; i++)
		assert_int_equal(r.body[i], (uint8_t)(n * 31 + i));
	return n;
}

static int count_segments(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strstr(de->d_name, ".spool") != NULL;
	closedir(d);
	return n;
}

/* The path of the segment with the lowest or highest name. */
static void segment_file(bool newest, char *path, size_t len)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort), pick = -1;

	assert_true(n > 0);
	for (int i = 0; i < n; i++)
		if (strstr(list[i]->d_name, ".spool") && (pick < 0 || newest))
			pick = i;
	assert_true(pick >= 0);
	snprintf(path, len, "%s/%s", dir, list[pick]->d_name);
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

static void test_write_read(void **state)
{
	struct spool_loss loss = { 0 };
	struct spool *sp = open_spool(1 << 20, 0, &loss);
	struct spool_record r;

	assert_int_equal(spool_peek(sp, &r, &loss), -ENOENT);
	for (unsigned int i = 1; i <= 3; i++)
		append_n(sp, i, 100 * i, &loss);
	assert_int_equal(spool_sync(sp), 0);
	assert_int_equal(spool_pending(sp), 3);
	assert_int_equal(spool_pending_samples(sp), 30);
	assert_int_equal(spool_bytes(sp), SPOOL_FILE_HEADER + 3 * SPOOL_RECORD_HEADER + 600);
	for (unsigned int i = 1; i <= 3; i++) {
		assert_int_equal(peek_n(sp), i);
		assert_int_equal(peek_n(sp), i); /* peek again: same record */
		assert_int_equal(spool_ack(sp), 0);
	}
	assert_int_equal(spool_ack(sp), -EINVAL); /* nothing peeked */
	assert_int_equal(spool_peek(sp, &r, &loss), -ENOENT);
	assert_int_equal(spool_pending(sp), 0);
	assert_int_equal(spool_bytes(sp), 0);
	assert_int_equal(count_segments(), 0); /* drained: nothing left on disk */
	assert_int_equal(loss.full_batches + loss.corrupt_batches, 0);
	spool_close(sp);
}

static void test_torn_tail(void **state)
{
	struct spool_loss loss = { 0 };
	struct spool *sp = open_spool(1 << 20, 0, &loss);
	char path[512];
	struct stat st;

	for (unsigned int i = 1; i <= 3; i++)
		append_n(sp, i, 500, &loss);
	spool_close(sp);
	/* kill -9 in the middle of the third record */
	segment_file(true, path, sizeof(path));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size - 123), 0);

	sp = open_spool(1 << 20, 0, &loss);
	assert_int_equal(loss.corrupt_batches, 1);
	assert_int_equal(spool_pending(sp), 2);
	append_n(sp, 4, 50, &loss); /* goes to a new segment, after the old ones */
	assert_int_equal(count_segments(), 2);
	assert_int_equal(peek_n(sp), 1);
	assert_int_equal(spool_ack(sp), 0);
	assert_int_equal(peek_n(sp), 2);
	assert_int_equal(spool_ack(sp), 0);
	assert_int_equal(peek_n(sp), 4);
	assert_int_equal(spool_ack(sp), 0);
	assert_int_equal(spool_pending(sp), 0);
	assert_int_equal(count_segments(), 0); /* the torn file went with its last good record */
	spool_close(sp);
}

static void test_torn_header(void **state)
{
	struct spool_loss loss = { 0 };
	struct spool *sp = open_spool(1 << 20, 0, &loss);
	char path[512];
	struct stat st;

	append_n(sp, 1, 300, &loss);
	append_n(sp, 2, 300, &loss);
	spool_close(sp);
	/* only part of the second record's header made it */
	segment_file(true, path, sizeof(path));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size - 300 - 20), 0);
	sp = open_spool(1 << 20, 0, &loss);
	assert_int_equal(loss.corrupt_batches, 1);
	assert_int_equal(spool_pending(sp), 1);
	assert_int_equal(peek_n(sp), 1);
	spool_close(sp);
}

static void flip_byte(const char *path, off_t off)
{
	int fd = open(path, O_RDWR);
	uint8_t b;

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &b, 1, off), 1);
	b ^= 0x40;
	assert_int_equal(pwrite(fd, &b, 1, off), 1);
	close(fd);
}

/* A bit flip costs only the record it hits; its samples are counted. */
static void test_corrupt_middle(void **state)
{
	const size_t rec = SPOOL_RECORD_HEADER + 200;
	struct spool_loss loss = { 0 };
	struct spool *sp = open_spool(1 << 20, 0, &loss);
	char path[512];

	for (unsigned int i = 1; i <= 4; i++)
		append_n(sp, i, 200, &loss);
	spool_close(sp);
	segment_file(true, path, sizeof(path));
	flip_byte(path, SPOOL_FILE_HEADER + rec + SPOOL_RECORD_HEADER + 17); /* body of record 2 */
	sp = open_spool(1 << 20, 0, &loss);
	assert_int_equal(loss.corrupt_batches, 1);
	assert_int_equal(loss.corrupt_samples, 10);
	assert_int_equal(spool_pending(sp), 3);
	assert_int_equal(spool_pending_samples(sp), 30);
	for (unsigned int want = 1; want <= 4; want += want == 1 ? 2 : 1) {
		assert_int_equal(peek_n(sp), want);
		assert_int_equal(spool_ack(sp), 0);
	}
	assert_int_equal(spool_peek(sp, &(struct spool_record){ 0 }, &loss), -ENOENT);
	assert_int_equal(loss.corrupt_batches, 1); /* the known hole is not counted twice */
	spool_close(sp);
}

/* A damaged length or magic: the reader finds the next record that checks out. */
static void test_corrupt_length_and_magic(void **state)
{
	const size_t rec = SPOOL_RECORD_HEADER + 64;
	struct spool_loss loss = { 0 };
	struct spool *sp = open_spool(1 << 20, 0, &loss);
	char path[512];

	for (unsigned int i = 1; i <= 3; i++)
		append_n(sp, i, 64, &loss);
	spool_close(sp);
	segment_file(true, path, sizeof(path));
	flip_byte(path, SPOOL_FILE_HEADER + rec + 15); /* length of record 2: huge */
	sp = open_spool(1 << 20, 0, &loss);
	assert_int_equal(spool_pending(sp), 2);
	assert_int_equal(loss.corrupt_batches, 1);
	assert_int_equal(loss.corrupt_samples, 0); /* a header with a damaged length is not believed */
	spool_close(sp);
	flip_byte(path, SPOOL_FILE_HEADER + 1); /* magic of record 1 */
	memset(&loss, 0, sizeof(loss));
	sp = open_spool(1 << 20, 0, &loss);
	assert_int_equal(spool_pending(sp), 1);
	assert_int_equal(loss.corrupt_batches, 2);
	assert_int_equal(peek_n(sp), 3);
	spool_close(sp);
}

/* A record damaged on disk after the spool read it: found at peek, only it is lost. */
static void test_corrupt_after_open(void **state)
{
	const size_t rec = SPOOL_RECORD_HEADER + 100;
	struct spool_loss loss = { 0 };
	struct spool *sp = open_spool(1 << 20, 0, &loss);
	char path[512];

	for (unsigned int i = 1; i <= 4; i++)
		append_n(sp, i, 100, &loss);
	spool_close(sp);
	sp = open_spool(1 << 20, 0, &loss);
	assert_int_equal(spool_pending(sp), 4);
	segment_file(true, path, sizeof(path));
	flip_byte(path, SPOOL_FILE_HEADER + 2 * rec + SPOOL_RECORD_HEADER + 5); /* body of record 3 */
	assert_int_equal(peek_n(sp), 1);
	assert_int_equal(spool_ack(sp), 0);
	assert_int_equal(peek_n(sp), 2);
	assert_int_equal(spool_ack(sp), 0);
	assert_int_equal(spool_peek(sp, &(struct spool_record){ 0 }, &loss), 0); /* finds the damage */
	assert_int_equal(loss.corrupt_batches, 1);
	assert_int_equal(loss.corrupt_samples, 10);
	assert_int_equal(peek_n(sp), 4);
	assert_int_equal(spool_pending(sp), 1);
	spool_close(sp);
}

/* Entries that are not segments are ignored; real segments load once. */
static void test_stray_entries(void **state)
{
	static const char *const strays[] = {
		"00000000000000AA.spool",  /* uppercase hex */
		"+000000000000001.spool",  /* a sign sscanf would take */
		"0x00000000000001.spool",  /* a prefix sscanf would take */
		"0000000000000001.spool~", /* an editor's backup */
		"notes.txt",
	};
	struct spool_loss loss = { 0 };
	struct spool *sp = open_spool(1 << 20, 0, &loss);
	char path[512];
	FILE *f;

	append_n(sp, 1, 50, &loss);
	spool_close(sp);
	for (size_t i = 0; i < ARRAY_SIZE(strays); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, strays[i]);
		assert_non_null(f = fopen(path, "w"));
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/00000000000000ff.spool", dir); /* a directory */
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/00000000000000fe.spool", dir); /* a dangling link */
	assert_int_equal(symlink("/nonexistent/memcg_bpf", path), 0);
	sp = open_spool(1 << 20, 0, &loss);
	assert_int_equal(loss.corrupt_batches, 0);
	assert_int_equal(spool_pending(sp), 1);
	append_n(sp, 2, 50, &loss);
	assert_int_equal(peek_n(sp), 1);
	assert_int_equal(spool_ack(sp), 0);
	assert_int_equal(peek_n(sp), 2);
	assert_int_equal(spool_ack(sp), 0);
	assert_int_equal(spool_peek(sp, &(struct spool_record){ 0 }, &loss), -ENOENT);
	spool_close(sp);
}

/* A disk of disk_size bytes holding only the test's directory. */
static off_t disk_size;

static off_t dir_bytes(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	off_t sum = 0;
	struct stat st;
	char path[512];

	assert_non_null(d);
	while ((de = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (de->d_name[0] != '.' && lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			sum += st.st_size;
	}
	closedir(d);
	return sum;
}

static ssize_t small_disk(int fd, const void *buf, size_t len, off_t off)
{
	struct stat st;
	off_t grows;

	assert_int_equal(fstat(fd, &st), 0);
	grows = off + (off_t)len > st.st_size ? off + (off_t)len - st.st_size : 0;
	if (dir_bytes() + grows > disk_size) {
		errno = ENOSPC;
		return -1;
	}
	return pwrite(fd, buf, len, off);
}

/* A full disk drops the oldest data, counted, and then the new goes on. */
static void test_disk_full(void **state)
{
	struct spool_opts o = { .dir = dir, .max_bytes = 1 << 20, .segment_bytes = 4096,
				.write_at = small_disk };
	struct spool_loss loss = { 0 };
	struct spool *sp = NULL;
	unsigned int first = 0;

	disk_size = 16 * 1024;
	assert_int_equal(spool_open(&o, &sp, &loss), 0);
	for (unsigned int i = 1; i <= 40; i++) /* 40 x 1040 bytes: far more than 16 KiB */
		append_n(sp, i, 1000, &loss);
	assert_true(loss.full_batches > 0);
	assert_int_equal(loss.full_samples, 10 * loss.full_batches);
	assert_int_equal(spool_pending(sp) + loss.full_batches, 40);
	/* what is left is the newest, in order */
	first = peek_n(sp);
	assert_int_equal(first, 40 - spool_pending(sp) + 1);
	assert_true(spool_pending(sp) >= 8); /* 16 KiB hold a dozen 1 KiB records */
	assert_true(dir_bytes() <= disk_size);
	spool_close(sp);
}

static void test_bad_file_header(void **state)
{
	struct spool_loss loss = { 0 };
	struct spool *sp;
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/00000000000000aa.spool", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("not a spool file at all", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/notes.txt", dir); /* other names are left alone */
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	sp = open_spool(1 << 20, 0, &loss);
	assert_int_equal(loss.corrupt_batches, 1);
	assert_int_equal(spool_pending(sp), 0);
	append_n(sp, 7, 10, &loss); /* numbered after the bad one */
	assert_int_equal(peek_n(sp), 7);
	assert_int_equal(spool_ack(sp), 0);
	assert_int_equal(count_segments(), 0); /* the unusable file is cleaned up too */
	assert_int_equal(access(path, F_OK), 0);
	spool_close(sp);
}

static void test_cap_eviction(void **state)
{
	const uint64_t max = 64 << 10, seg = 8 << 10;
	struct spool_loss loss = { 0 };
	struct spool *sp = open_spool(max, seg, &loss);
	unsigned int first;

	for (unsigned int i = 0; i < 200; i++) {
		append_n(sp, i, 1000, &loss);
		assert_true(spool_bytes(sp) <= max);
	}
	/* every record is either pending or counted as dropped */
	assert_int_equal(spool_pending(sp) + loss.full_batches, 200);
	assert_int_equal(loss.full_samples, loss.full_batches * 10);
	assert_true(loss.full_batches > 0);
	assert_true(spool_pending(sp) >= 50); /* at most one segment's worth below the cap */
	/* the oldest went first: what is left is the newest, in order */
	first = 200 - (unsigned int)spool_pending(sp);
	for (unsigned int i = first; i < 200; i++) {
		assert_int_equal(peek_n(sp), i % 256);
		assert_int_equal(spool_ack(sp), 0);
	}
	spool_close(sp);
}

static void test_too_big_record(void **state)
{
	struct spool_loss loss = { 0 };
	struct spool *sp = open_spool(16 << 10, 4 << 10, &loss);

	append_n(sp, 1, 20 << 10, &loss);
	assert_int_equal(loss.full_batches, 1);
	assert_int_equal(loss.full_samples, 10);
	assert_int_equal(spool_pending(sp), 0);
	spool_close(sp);
}

static void test_restart_replay_order(void **state)
{
	struct spool_loss loss = { 0 };
	struct spool *sp = open_spool(1 << 20, 4096, &loss);

	for (unsigned int i = 1; i <= 10; i++)
		append_n(sp, i, 900, &loss); /* several segments */
	assert_true(count_segments() > 2);
	assert_int_equal(peek_n(sp), 1);
	assert_int_equal(spool_ack(sp), 0);
	assert_int_equal(peek_n(sp), 2);
	assert_int_equal(spool_ack(sp), 0);
	spool_close(sp);

	sp = open_spool(1 << 20, 4096, &loss); /* restart 1: 3..10 remain */
	assert_int_equal(spool_pending(sp), 8);
	assert_int_equal(peek_n(sp), 3);
	assert_int_equal(spool_ack(sp), 0);
	append_n(sp, 11, 100, &loss);
	append_n(sp, 12, 100, &loss);
	spool_close(sp);

	sp = open_spool(1 << 20, 4096, &loss); /* restart 2 */
	assert_int_equal(spool_pending(sp), 9);
	for (unsigned int i = 4; i <= 12; i++) {
		assert_int_equal(peek_n(sp), i);
		assert_int_equal(spool_ack(sp), 0);
	}
	assert_int_equal(spool_pending(sp), 0);
	assert_int_equal(loss.corrupt_batches + loss.full_batches, 0);
	spool_close(sp);
}

static void test_lock(void **state)
{
	struct spool_opts o = { .dir = dir, .max_bytes = 1 << 20 };
	struct spool_loss loss;
	struct spool *a = NULL, *b = NULL;

	assert_int_equal(spool_open(&o, &a, &loss), 0);
	assert_int_equal(spool_open(&o, &b, &loss), -EBUSY);
	spool_close(a);
	assert_int_equal(spool_open(&o, &b, &loss), 0);
	spool_close(b);
	spool_close(NULL);
}

static void test_bad_dir(void **state)
{
	struct spool_opts o = { .dir = "/proc/no/such/dir", .max_bytes = 1 << 20 };
	struct spool_loss loss;
	struct spool *sp = NULL;

	assert_true(spool_open(&o, &sp, &loss) < 0);
	o.dir = "";
	assert_int_equal(spool_open(&o, &sp, &loss), -EINVAL);
	o.dir = dir;
	o.max_bytes = 100;
	assert_int_equal(spool_open(&o, &sp, &loss), -EINVAL);
}

static void test_scan_buffer(void **state)
{
	static const uint8_t junk[] = "MBSPOOL\0\1\0\0\0\0\0\0\0MBSR garbage that is not a record";
	struct spool_loss loss = { 0 };
	struct spool *sp = open_spool(1 << 20, 0, &loss);
	struct spool_scan s;
	char path[512];
	uint8_t buf[4096];
	ssize_t n;
	int fd;

	spool_scan_buffer(junk, sizeof(junk) - 1, &s);
	assert_int_equal(s.records, 0);
	assert_int_equal(s.bad, SPOOL_BAD_SHORT); /* 33 bytes: no room for a header */
	spool_scan_buffer(junk, 5, &s);
	assert_int_equal(s.bad, SPOOL_BAD_HEADER);
	append_n(sp, 1, 100, &loss);
	append_n(sp, 2, 100, &loss);
	segment_file(true, path, sizeof(path));
	fd = open(path, O_RDONLY);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	spool_scan_buffer(buf, (size_t)n, &s);
	assert_int_equal(s.records, 2);
	assert_int_equal(s.pending, 2);
	assert_int_equal(s.good_end, (size_t)n);
	assert_int_equal(s.bad, SPOOL_BAD_NONE);
	for (ssize_t cut = 0; cut < n; cut++) { /* every torn length keeps the whole records before it */
		spool_scan_buffer(buf, (size_t)cut, &s);
		assert_true(s.good_end <= (size_t)cut);
		assert_int_equal(s.records, cut >= (ssize_t)(SPOOL_FILE_HEADER + 2 * (SPOOL_RECORD_HEADER + 100))
						    ? 2
					    : cut >= (ssize_t)(SPOOL_FILE_HEADER + SPOOL_RECORD_HEADER + 100) ? 1
															: 0);
	}
	spool_close(sp);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, make_dir, remove_dir)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_write_read),    T(test_torn_tail),       T(test_torn_header),
		T(test_corrupt_middle), T(test_corrupt_length_and_magic), T(test_bad_file_header),
		T(test_cap_eviction),  T(test_too_big_record),  T(test_restart_replay_order),
		T(test_lock),          T(test_bad_dir),         T(test_scan_buffer),
		T(test_corrupt_after_open), T(test_stray_entries), T(test_disk_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
