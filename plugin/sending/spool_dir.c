// SPDX-License-Identifier: GPL-2.0-only
/*
 * SpoolDir and the spool's life (spool_dir.h): opening (the directory, its
 * lock, the segments earlier runs left), the list of segments, removing
 * one, the counters, closing.
 */
#include "sending/spool_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"

#define SEGMENT_MIN (4u << 10)
#define SEGMENT_MAX (64ull << 20)

/* ---- segments */
void spool_segment_file_name(uint64_t id, char *name, size_t len)
{
	snprintf(name, len, "%016" PRIx64 ".spool", id);
}

void spool_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int spool_add_segment(struct spool *sp, const struct spool_segment *seg)
{
	if (sp->nr_segs == sp->cap_segs) {
		size_t cap = sp->cap_segs ? sp->cap_segs * 2 : 16;
		struct spool_segment *p = realloc(sp->segs, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		sp->segs = p;
		sp->cap_segs = cap;
	}
	sp->segs[sp->nr_segs++] = *seg;
	return 0;
}

void spool_drop_oldest(struct spool *sp)
{
	struct spool_segment *seg = &sp->segs[0];
	char name[32];

	spool_segment_file_name(seg->id, name, sizeof(name));
	spool_close_fd(&seg->fd);
	free(seg->holes);
	if (unlinkat(sp->dir_fd, name, 0) && errno != ENOENT)
		mb_warn("spool %s/%s: cannot remove: %s", sp->dir, name, strerror(errno));
	sp->bytes -= seg->size;
	sp->pending -= seg->pending;
	sp->pending_samples -= seg->pending_samples;
	memmove(&sp->segs[0], &sp->segs[1], (sp->nr_segs - 1) * sizeof(*seg));
	sp->nr_segs--;
	sp->peeked = false;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Reads the segment @id left by an earlier run. */
static int load_segment(struct spool *sp, uint64_t id, struct spool_loss *loss)
{
	struct spool_segment seg = { .id = id, .fd = -1 };
	struct spool_scan_result r;
	struct stat st;
	char name[32];
	int fd, err;

	spool_segment_file_name(id, name, sizeof(name));
	fd = openat(sp->dir_fd, name, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		mb_err("spool %s/%s: cannot open: %s", sp->dir, name, strerror(-err));
		return err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		goto close_fd;
	}
	err = spool_scan_segment(spool_fd_read, &fd, (uint64_t)st.st_size, 0, &sp->buf, &sp->buf_cap, &r);
	if (err)
		goto close_fd;
	if (r.bad == SPOOL_BAD_HEADER) {
		mb_warn("spool %s/%s: bad file header: nothing in it can be read; counted as one lost batch "
			"and removed", sp->dir, name);
		loss->corrupt_batches++;
	} else if (r.bad) {
		mb_warn("spool %s/%s: %s; %" PRIu64 " damaged record%s (%" PRIu64 " samples) skipped, "
			"%" PRIu64 " good records kept",
			sp->dir, name, spool_bad_name(r.bad), r.damaged, r.damaged == 1 ? "" : "s",
			r.damaged_samples, r.records);
		loss->corrupt_batches += r.damaged;
		loss->corrupt_samples += r.damaged_samples;
	}
	seg.holes = r.holes;
	seg.nr_holes = r.nr_holes;
	if (r.last_seq >= sp->next_seq)
		sp->next_seq = r.last_seq + 1;
	seg.size = (uint64_t)st.st_size;
	seg.read_off = r.first_pending;
	seg.end = r.good_end;
	seg.pending = r.pending;
	seg.pending_samples = r.pending_samples;
	err = spool_add_segment(sp, &seg);
	if (err) {
		free(seg.holes);
		goto close_fd;
	}
	sp->bytes += seg.size;
	sp->pending += seg.pending;
	sp->pending_samples += seg.pending_samples;
	err = 0;
close_fd:
	if (err && err != -ENOMEM)
		mb_err("spool %s/%s: cannot read: %s", sp->dir, name, strerror(-err));
	close(fd);
	return err;
}

/* Whether @name is exactly 16 lowercase hex digits + ".spool"; its number in @id. */
static bool segment_name(const char *name, uint64_t *id)
{
	uint64_t v = 0;

	if (strlen(name) != 22 || strcmp(name + 16, ".spool") != 0)
		return false;
	for (int i = 0; i < 16; i++) {
		char c = name[i];

		if (c >= '0' && c <= '9')
			v = v << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (uint64_t)(c - 'a' + 10);
		else
			return false;
	}
	*id = v;
	return true;
}

/* One warning for every entry of SpoolDir that is not the spool's own. */
struct strays {
	size_t n;
	char first[64];
};

static void note_stray(struct strays *st, const char *name)
{
	if (st->n++)
		return;
	for (size_t i = 0; i + 1 < sizeof(st->first) && name[i]; i++) {
		unsigned char c = (unsigned char)name[i];

		st->first[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
		st->first[i + 1] = '\0';
	}
}

static int push_id(uint64_t **ids, size_t *n, size_t *cap, uint64_t id)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		uint64_t *p = realloc(*ids, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*ids = p;
		*cap = c;
	}
	(*ids)[(*n)++] = id;
	return 0;
}

/*
 * Reads every segment in SpoolDir, oldest first. Entries that are not
 * segments are ignored (one warning); a segment that cannot be read is
 * skipped with an error of its own. 0 or -ENOMEM (or the errno of reading
 * the directory).
 */
static int load_segments(struct spool *sp, struct spool_loss *loss)
{
	struct strays strays = { 0 };
	uint64_t *ids = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int fd, err = 0;

	fd = openat(sp->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		err = -errno;
		close(fd);
		return err;
	}
	while ((de = readdir(d))) {
		struct stat st;
		uint64_t id;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !strcmp(de->d_name, "lock"))
			continue;
		if (!segment_name(de->d_name, &id) ||
		    fstatat(sp->dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode)) {
			note_stray(&strays, de->d_name);
			continue;
		}
		err = push_id(&ids, &n, &cap, id);
		if (err)
			goto close_dir;
	}
	if (strays.n)
		mb_warn("SpoolDir \"%s\": ignoring %zu entr%s that %s not spool segments (such as \"%s\")",
			sp->dir, strays.n, strays.n == 1 ? "y" : "ies", strays.n == 1 ? "is" : "are",
			strays.first);
	if (n)
		qsort(ids, n, sizeof(*ids), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		if (ids[i] >= sp->next_id)
			sp->next_id = ids[i] + 1;
		err = load_segment(sp, ids[i], loss);
		if (err == -ENOMEM)
			goto close_dir;
		err = 0; /* that segment is skipped (logged); the others still count */
	}
close_dir:
	closedir(d);
	free(ids);
	return err;
}

int spool_open(const struct spool_opts *o, struct spool **out, struct spool_loss *loss)
{
	struct spool *sp;
	int err;

	memset(loss, 0, sizeof(*loss));
	if (!o->dir || !o->dir[0] || o->max_bytes < 2 * SEGMENT_MIN)
		return -EINVAL;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	sp->dir_fd = sp->lock_fd = -1;
	sp->write_at = o->write_at ? o->write_at : pwrite;
	sp->max_bytes = o->max_bytes;
	sp->segment_bytes = o->segment_bytes ? o->segment_bytes : o->max_bytes / 8;
	if (sp->segment_bytes < SEGMENT_MIN)
		sp->segment_bytes = SEGMENT_MIN;
	if (sp->segment_bytes > SEGMENT_MAX)
		sp->segment_bytes = SEGMENT_MAX;
	sp->dir = strdup(o->dir);
	err = -ENOMEM;
	if (!sp->dir)
		goto free_spool;
	if (mkdir(o->dir, 0700) && errno != EEXIST) {
		err = -errno;
		mb_err("SpoolDir \"%s\": cannot create: %s", o->dir, strerror(-err));
		goto free_spool;
	}
	sp->dir_fd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sp->dir_fd < 0) {
		err = -errno;
		mb_err("SpoolDir \"%s\": cannot open: %s", o->dir, strerror(-err));
		goto free_spool;
	}
	sp->lock_fd = openat(sp->dir_fd, "lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (sp->lock_fd < 0) {
		err = -errno;
		mb_err("SpoolDir \"%s\": cannot create its lock file: %s", o->dir, strerror(-err));
		goto free_spool;
	}
	if (flock(sp->lock_fd, LOCK_EX | LOCK_NB)) {
		err = errno == EWOULDBLOCK ? -EBUSY : -errno;
		mb_err("SpoolDir \"%s\": %s", o->dir,
		       err == -EBUSY ? "in use by another process (each plugin instance needs its own)"
				     : strerror(-err));
		goto free_spool;
	}
	err = load_segments(sp, loss);
	if (err) {
		mb_err("SpoolDir \"%s\": cannot read: %s", o->dir, strerror(-err));
		goto free_spool;
	}
	if (sp->pending)
		mb_info("spool %s: %" PRIu64 " batches (%" PRIu64 " samples, %" PRIu64
			" bytes) from an earlier run wait to be sent",
			sp->dir, sp->pending, sp->pending_samples, sp->bytes);
	*out = sp;
	return 0;

free_spool:
	spool_close(sp);
	return err;
}

uint64_t spool_pending(const struct spool *sp)
{
	return sp->pending;
}

uint64_t spool_pending_samples(const struct spool *sp)
{
	return sp->pending_samples;
}

uint64_t spool_bytes(const struct spool *sp)
{
	return sp->bytes;
}

void spool_close(struct spool *sp)
{
	if (!sp)
		return;
	for (size_t i = 0; i < sp->nr_segs; i++) {
		spool_close_fd(&sp->segs[i].fd);
		free(sp->segs[i].holes);
	}
	spool_close_fd(&sp->lock_fd); /* releases the flock */
	spool_close_fd(&sp->dir_fd);
	free(sp->segs);
	free(sp->buf);
	free(sp->dir);
	free(sp);
}
