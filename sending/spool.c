// SPDX-License-Identifier: GPL-2.0-only
#include "sending/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/log.h"
#include "base/name_table.h"

#define STATE_PENDING 'P'
#define STATE_SENT 'S'
#define SEGMENT_MIN (4u << 10)
#define SEGMENT_MAX (64ull << 20)

static const uint8_t file_magic[8] = { 'M', 'B', 'S', 'P', 'O', 'O', 'L', 0 };
static const uint8_t record_magic[4] = { 'M', 'B', 'S', 'R' };

struct segment {
	uint64_t id;
	int fd;             /* -1 while not in use */
	uint64_t size;      /* bytes on disk */
	uint64_t read_off;  /* the next record that may be pending */
	uint64_t end;       /* end of the good records */
	uint64_t pending, pending_samples;
	bool writable;      /* created by this process, records go here */
	struct hole *holes; /* damaged stretches found when it was read, in order */
	size_t nr_holes;
	size_t next_hole;   /* the first hole not behind read_off */
};

struct spool {
	char *dir;
	int dir_fd, lock_fd;
	uint64_t max_bytes, segment_bytes;
	struct segment *segs; /* oldest first */
	size_t nr_segs, cap_segs;
	uint64_t next_id, next_seq;
	uint64_t bytes, pending, pending_samples;
	uint8_t *buf; /* record being read or written */
	size_t buf_cap;
	bool peeked;
	uint64_t peek_len, peek_samples;
	uint64_t full_at;    /* spool bytes when the disk was last found full; 0: not full */
	ssize_t (*write_at)(int fd, const void *buf, size_t len, off_t off);
};

/* ---- little-endian fields */
static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static uint32_t record_crc(const uint8_t *hdr, const uint8_t *body, size_t len)
{
	uLong crc = crc32(0L, Z_NULL, 0);

	crc = crc32(crc, hdr + 12, SPOOL_RECORD_HEADER - 12);
	while (len) {
		uInt chunk = len > UINT_MAX ? UINT_MAX : (uInt)len;

		crc = crc32(crc, body, chunk);
		body += chunk;
		len -= chunk;
	}
	return (uint32_t)crc;
}

static const char *const bad_names[] = {
	[SPOOL_BAD_NONE] = "clean end",
	[SPOOL_BAD_HEADER] = "bad file header",
	[SPOOL_BAD_SHORT] = "record cut short",
	[SPOOL_BAD_MAGIC] = "bad record magic",
	[SPOOL_BAD_LENGTH] = "impossible record length",
	[SPOOL_BAD_CRC] = "CRC mismatch",
};
DEFINE_NAME_OF(spool_bad, int, bad_names)

/*
 * The reader, over any byte source: read(ctx, off, dst, len) is 0 when all
 * @len bytes were there. @scratch grows to hold a body.
 */
typedef int (*read_fn)(void *ctx, uint64_t off, void *dst, size_t len);

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *p;

	if (need <= *cap)
		return 0;
	p = realloc(*buf, need);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = need;
	return 0;
}

/*
 * Checks the record at @off (file size @size). 0 and the header in @hdr, the
 * body in *@scratch; or SPOOL_BAD_*; or -ENOMEM.
 */
static int check_record(read_fn rd, void *ctx, uint64_t off, uint64_t size, uint8_t hdr[SPOOL_RECORD_HEADER],
			uint8_t **scratch, size_t *cap)
{
	uint32_t len;

	if (size - off < SPOOL_RECORD_HEADER || rd(ctx, off, hdr, SPOOL_RECORD_HEADER))
		return SPOOL_BAD_SHORT;
	if (memcmp(hdr, record_magic, 4) != 0)
		return SPOOL_BAD_MAGIC;
	len = get32(hdr + 12);
	if (len > SPOOL_MAX_BODY)
		return SPOOL_BAD_LENGTH;
	if (size - off - SPOOL_RECORD_HEADER < len)
		return SPOOL_BAD_SHORT;
	if (grow(scratch, cap, len ? len : 1))
		return -ENOMEM;
	if (rd(ctx, off + SPOOL_RECORD_HEADER, *scratch, len))
		return SPOOL_BAD_SHORT;
	if (record_crc(hdr, *scratch, len) != get32(hdr + 4))
		return SPOOL_BAD_CRC;
	return 0;
}

/* A damaged stretch of a segment: [from, to) holds no record to keep. */
struct hole {
	uint64_t from, to;
};

struct scan_result {
	uint64_t records, pending, pending_samples;
	uint64_t first_pending; /* offset; the end when none */
	uint64_t good_end;      /* after the last good record */
	uint64_t last_seq;
	int bad;                /* why the first damaged stretch failed to read */
	uint64_t damaged, damaged_samples; /* records lost in damaged stretches, their samples */
	struct hole *holes;     /* the damaged stretches before good_end */
	size_t nr_holes;
};

#define RESYNC_WINDOW 4096

/*
 * Resynchronises after a damaged record at @off: the offset of the next
 * record that checks out (a record magic whose record reads back with its
 * CRC), or @size when there is none; in @more, the record magics passed on
 * the way whose records did not check out (more damaged records).
 * 0 or -ENOMEM.
 */
static int find_next_record(read_fn rd, void *ctx, uint64_t off, uint64_t size, uint8_t **scratch,
			    size_t *cap, uint64_t *next, uint64_t *more)
{
	uint8_t win[RESYNC_WINDOW], hdr[SPOOL_RECORD_HEADER];
	uint64_t from = off + 1;

	while (from + SPOOL_RECORD_HEADER <= size) {
		size_t n = size - from < sizeof(win) ? (size_t)(size - from) : sizeof(win);

		if (rd(ctx, from, win, n))
			break;
		for (size_t i = 0; i + sizeof(record_magic) <= n; i++) {
			int bad;

			if (memcmp(win + i, record_magic, sizeof(record_magic)) != 0)
				continue;
			bad = check_record(rd, ctx, from + i, size, hdr, scratch, cap);
			if (bad < 0)
				return bad;
			if (!bad) {
				*next = from + i;
				return 0;
			}
			(*more)++;
		}
		if (n < sizeof(win))
			break;
		from += n - (sizeof(record_magic) - 1); /* a magic may straddle two windows */
	}
	*next = size;
	return 0;
}

/*
 * The samples a damaged record at @off held, from its header @hdr (@have
 * bytes of it read): counted when the header says the record was pending and
 * its length leads exactly to the next good record @next (or past the end of
 * a torn file), so that a damaged header is not taken at its word.
 */
static uint64_t damaged_samples(const uint8_t *hdr, size_t have, uint64_t off, uint64_t next, uint64_t size)
{
	uint64_t end;

	if (have < SPOOL_RECORD_HEADER || memcmp(hdr, record_magic, 4) != 0 || hdr[8] == STATE_SENT)
		return 0;
	end = off + SPOOL_RECORD_HEADER + get32(hdr + 12);
	return end == next || (next == size && end > size) ? get32(hdr + 20) : 0;
}

static int add_hole(struct scan_result *r, uint64_t from, uint64_t to)
{
	struct hole *h = realloc(r->holes, (r->nr_holes + 1) * sizeof(*h));

	if (!h)
		return -ENOMEM;
	h[r->nr_holes++] = (struct hole){ from, to };
	r->holes = h;
	return 0;
}

/*
 * Reads the records of a segment of @size bytes from offset @off on (the
 * file header is checked when @off is 0). A damaged record costs only
 * itself: reading goes on at the next good record, and the stretch between
 * becomes a hole. 0 or -ENOMEM; the caller frees r->holes.
 */
static int scan(read_fn rd, void *ctx, uint64_t size, uint64_t off, uint8_t **scratch, size_t *cap,
		struct scan_result *r)
{
	uint8_t fh[SPOOL_FILE_HEADER], hdr[SPOOL_RECORD_HEADER];
	bool seen_pending = false;
	int err;

	memset(r, 0, sizeof(*r));
	if (off == 0) {
		if (size < SPOOL_FILE_HEADER || rd(ctx, 0, fh, sizeof(fh)) ||
		    memcmp(fh, file_magic, 8) != 0 || get32(fh + 8) != 1) {
			r->bad = SPOOL_BAD_HEADER;
			return 0;
		}
		off = SPOOL_FILE_HEADER;
	}
	r->first_pending = r->good_end = off;
	while (off < size) {
		int bad = check_record(rd, ctx, off, size, hdr, scratch, cap);
		uint64_t next;

		if (bad < 0) {
			err = bad;
			goto free_holes;
		}
		if (bad) {
			size_t have = size - off < sizeof(hdr) ? (size_t)(size - off) : sizeof(hdr);

			if (!r->bad)
				r->bad = bad;
			memset(hdr, 0, sizeof(hdr));
			rd(ctx, off, hdr, have);
			err = find_next_record(rd, ctx, off, size, scratch, cap, &next, &r->damaged);
			if (err)
				goto free_holes;
			r->damaged++;
			r->damaged_samples += damaged_samples(hdr, have, off, next, size);
			if (next == size)
				break;
			err = add_hole(r, off, next);
			if (err)
				goto free_holes;
			off = next;
			continue;
		}
		r->records++;
		r->last_seq = get64(hdr + 32);
		if (hdr[8] != STATE_SENT) {
			if (!seen_pending)
				r->first_pending = off;
			seen_pending = true;
			r->pending++;
			r->pending_samples += get32(hdr + 20);
		}
		off += SPOOL_RECORD_HEADER + get32(hdr + 12);
		r->good_end = off;
	}
	if (!seen_pending)
		r->first_pending = r->good_end;
	return 0;

free_holes:
	free(r->holes);
	r->holes = NULL;
	r->nr_holes = 0;
	return err;
}

struct mem_src {
	const uint8_t *buf;
	size_t len;
};

static int mem_read(void *ctx, uint64_t off, void *dst, size_t len)
{
	const struct mem_src *m = ctx;

	if (off > m->len || m->len - off < len)
		return -1;
	memcpy(dst, m->buf + off, len);
	return 0;
}

static int fd_read(void *ctx, uint64_t off, void *dst, size_t len)
{
	int fd = *(int *)ctx;
	uint8_t *p = dst;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

void spool_scan_buffer(const uint8_t *buf, size_t len, struct spool_scan *out)
{
	struct mem_src m = { buf, len };
	struct scan_result r;
	uint8_t *scratch = NULL;
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	if (scan(mem_read, &m, len, 0, &scratch, &cap, &r)) {
		free(scratch);
		out->bad = SPOOL_BAD_LENGTH;
		return;
	}
	free(scratch);
	free(r.holes);
	out->records = r.records;
	out->pending = r.pending;
	out->pending_samples = r.pending_samples;
	out->good_end = r.good_end;
	out->bad = r.bad;
	out->damaged = r.damaged;
	out->damaged_samples = r.damaged_samples;
}

/* ---- segments */
static void segment_path(const struct spool *sp, uint64_t id, char *path, size_t len)
{
	snprintf(path, len, "%016" PRIx64 ".spool", id);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int add_segment(struct spool *sp, const struct segment *seg)
{
	if (sp->nr_segs == sp->cap_segs) {
		size_t cap = sp->cap_segs ? sp->cap_segs * 2 : 16;
		struct segment *p = realloc(sp->segs, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		sp->segs = p;
		sp->cap_segs = cap;
	}
	sp->segs[sp->nr_segs++] = *seg;
	return 0;
}

/* Removes the oldest segment from the disk and the list. */
static void drop_oldest(struct spool *sp)
{
	struct segment *seg = &sp->segs[0];
	char name[32];

	segment_path(sp, seg->id, name, sizeof(name));
	close_fd(&seg->fd);
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
	struct segment seg = { .id = id, .fd = -1 };
	struct scan_result r;
	struct stat st;
	char name[32];
	int fd, err;

	segment_path(sp, id, name, sizeof(name));
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
	err = scan(fd_read, &fd, (uint64_t)st.st_size, 0, &sp->buf, &sp->buf_cap, &r);
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
	err = add_segment(sp, &seg);
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

/* ENOSPC and its kin: no room on the disk (or under a quota or file limit). */
static bool no_room(int err)
{
	return err == -ENOSPC || err == -EDQUOT || err == -EFBIG;
}

/* Writes all @len bytes at @off through the spool's writer. 0 or a negative errno. */
static int write_all(struct spool *sp, int fd, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = sp->write_at(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* A new segment for this process' records. Logs why it failed, except for no room. */
static int new_segment(struct spool *sp)
{
	struct segment seg = { .id = sp->next_id, .fd = -1, .writable = true };
	uint8_t fh[SPOOL_FILE_HEADER] = { 0 };
	char name[32];
	int err;

	segment_path(sp, seg.id, name, sizeof(name));
	seg.fd = openat(sp->dir_fd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (seg.fd < 0) {
		err = -errno;
		if (!no_room(err))
			mb_err("spool %s/%s: cannot create: %s", sp->dir, name, strerror(-err));
		return err;
	}
	memcpy(fh, file_magic, 8);
	put32(fh + 8, 1);
	err = write_all(sp, seg.fd, fh, sizeof(fh), 0);
	if (err)
		goto remove;
	fsync(sp->dir_fd); /* the new name survives a power loss */
	seg.size = seg.read_off = seg.end = SPOOL_FILE_HEADER;
	err = add_segment(sp, &seg);
	if (err)
		goto remove;
	sp->next_id++;
	sp->bytes += seg.size;
	return 0;

remove:
	if (!no_room(err))
		mb_err("spool %s/%s: cannot write: %s", sp->dir, name, strerror(-err));
	close(seg.fd);
	unlinkat(sp->dir_fd, name, 0);
	return err;
}

static struct segment *current(struct spool *sp)
{
	struct segment *seg = sp->nr_segs ? &sp->segs[sp->nr_segs - 1] : NULL;

	return seg && seg->writable ? seg : NULL;
}

/* Drops the oldest segment, counting what it still held in @loss. */
static void evict_oldest(struct spool *sp, struct spool_loss *loss)
{
	loss->full_batches += sp->segs[0].pending;
	loss->full_samples += sp->segs[0].pending_samples;
	drop_oldest(sp);
}

/* Evicts the oldest segments until @need more bytes fit under SpoolMaxBytes. */
static void make_room(struct spool *sp, uint64_t need, struct spool_loss *loss)
{
	struct spool_loss before = *loss;
	size_t segs = 0;

	while (sp->nr_segs && sp->bytes + need > sp->max_bytes) {
		evict_oldest(sp, loss);
		segs++;
	}
	if (!segs)
		return;
	mb_warn("spool %s full (SpoolMaxBytes %" PRIu64 "): dropped the oldest %" PRIu64 " batches (%" PRIu64
		" samples) in %zu file%s",
		sp->dir, sp->max_bytes, loss->full_batches - before.full_batches,
		loss->full_samples - before.full_samples, segs, segs == 1 ? "" : "s");
}

/*
 * One try at writing record @hdr + @r at the end of the current segment
 * (a new one when there is none or it is full). On failure the torn
 * record is cut off again. 0 or a negative errno (logged unless no room).
 */
static int write_record(struct spool *sp, const uint8_t *hdr, const struct spool_record *r,
			struct spool_loss *loss)
{
	uint64_t size = SPOOL_RECORD_HEADER + (uint64_t)r->len;
	struct segment *seg = current(sp);
	int err;

	if (seg && seg->size > SPOOL_FILE_HEADER && seg->size + size > sp->segment_bytes) {
		close_fd(&seg->fd);
		seg->writable = false; /* full: the next record starts a new segment */
		seg = NULL;
	}
	make_room(sp, size + (seg ? 0 : SPOOL_FILE_HEADER), loss);
	seg = current(sp);
	if (!seg) {
		make_room(sp, size + SPOOL_FILE_HEADER, loss); /* the current one may have gone */
		err = new_segment(sp);
		if (err)
			return err;
		seg = current(sp);
	}
	err = write_all(sp, seg->fd, hdr, SPOOL_RECORD_HEADER, seg->size);
	if (!err)
		err = write_all(sp, seg->fd, r->body, r->len, seg->size + SPOOL_RECORD_HEADER);
	if (!err) {
		seg->size += size;
		seg->end = seg->size;
		seg->pending++;
		seg->pending_samples += r->nr_samples;
		sp->bytes += size;
		return 0;
	}
	/* cut the torn record off */
	if (ftruncate(seg->fd, (off_t)seg->size))
		mb_warn("spool %s: cannot cut a torn record: %s", sp->dir, strerror(errno));
	if (!no_room(err)) {
		mb_err("spool %s/%016" PRIx64 ".spool: cannot write: %s", sp->dir, seg->id, strerror(-err));
		close_fd(&seg->fd);
		seg->writable = false; /* the segment takes no more */
	}
	return err;
}

int spool_append(struct spool *sp, const struct spool_record *r, struct spool_loss *loss)
{
	uint64_t size = SPOOL_RECORD_HEADER + (uint64_t)r->len;
	uint8_t hdr[SPOOL_RECORD_HEADER] = { 0 };
	int err;

	if (r->len > SPOOL_MAX_BODY || size + SPOOL_FILE_HEADER > sp->max_bytes) {
		mb_warn("spool %s: a request of %zu bytes is larger than the spool; dropped (%" PRIu32 " samples)",
			sp->dir, r->len, r->nr_samples);
		loss->full_batches++;
		loss->full_samples += r->nr_samples;
		return 0;
	}
	memcpy(hdr, record_magic, 4);
	hdr[8] = STATE_PENDING;
	put32(hdr + 12, (uint32_t)r->len);
	put32(hdr + 16, r->raw_len);
	put32(hdr + 20, r->nr_samples);
	hdr[24] = r->format;
	hdr[25] = r->compression;
	put64(hdr + 32, sp->next_seq);
	put32(hdr + 4, record_crc(hdr, r->body, r->len));

	/* A full disk is a smaller SpoolMaxBytes: the oldest data makes room. */
	while ((err = write_record(sp, hdr, r, loss)) && no_room(err)) {
		if (!sp->full_at)
			mb_warn("spool %s: no room on the disk (%s) at %" PRIu64 " bytes: the oldest batches make "
				"room for new ones until it has room again (counted as dropped, reason spool_full)",
				sp->dir, strerror(-err), sp->bytes);
		sp->full_at = sp->bytes ? sp->bytes : 1;
		if (!sp->nr_segs) { /* nothing older left: this one goes */
			loss->full_batches++;
			loss->full_samples += r->nr_samples;
			return 0;
		}
		evict_oldest(sp, loss);
	}
	if (err)
		return err;
	if (sp->full_at && sp->bytes > sp->full_at + sp->segment_bytes) {
		mb_info("spool %s: the disk has room again (%" PRIu64 " bytes spooled)", sp->dir, sp->bytes);
		sp->full_at = 0;
	}
	sp->pending++;
	sp->pending_samples += r->nr_samples;
	sp->next_seq++;
	return 0;
}

int spool_sync(struct spool *sp)
{
	struct segment *seg = current(sp);

	if (!seg || seg->fd < 0)
		return 0;
	return fdatasync(seg->fd) ? -errno : 0;
}

/* Removes the oldest segment when nothing in it waits any more. */
static bool retire_head(struct spool *sp)
{
	struct segment *seg = &sp->segs[0];

	if (seg->pending)
		return false;
	drop_oldest(sp); /* also the one being written: the next append starts a new one */
	return true;
}

/* Moves the head segment's read_off past a known damaged stretch. */
static void skip_holes(struct segment *seg)
{
	while (seg->next_hole < seg->nr_holes && seg->holes[seg->next_hole].from <= seg->read_off) {
		if (seg->holes[seg->next_hole].from == seg->read_off)
			seg->read_off = seg->holes[seg->next_hole].to;
		seg->next_hole++;
	}
}

/*
 * The record at the head segment's read_off went bad after the segment was
 * read (changed on disk): reads the rest of the segment again, keeping every
 * record that still checks out, and reports what was lost.
 */
static int rescan_head(struct spool *sp, int bad, struct spool_loss *loss)
{
	struct segment *seg = &sp->segs[0];
	struct scan_result r;
	uint64_t lost, lost_samples;
	int err;

	err = scan(fd_read, &seg->fd, seg->end, seg->read_off, &sp->buf, &sp->buf_cap, &r);
	if (err)
		return err;
	lost = seg->pending - (r.pending < seg->pending ? r.pending : seg->pending);
	lost_samples = seg->pending_samples - (r.pending_samples < seg->pending_samples ? r.pending_samples
										   : seg->pending_samples);
	mb_warn("spool %s/%016" PRIx64 ".spool: %s at offset %" PRIu64 " (changed on disk?); %" PRIu64
		" batches (%" PRIu64 " samples) lost, %" PRIu64 " after it kept",
		sp->dir, seg->id, spool_bad_name(bad), seg->read_off, lost, lost_samples, r.pending);
	loss->corrupt_batches += lost;
	loss->corrupt_samples += lost_samples;
	sp->pending -= lost;
	sp->pending_samples -= lost_samples;
	seg->pending -= lost;
	seg->pending_samples -= lost_samples;
	seg->read_off = r.first_pending;
	free(seg->holes);
	seg->holes = r.holes;
	seg->nr_holes = r.nr_holes;
	seg->next_hole = 0;
	if (r.good_end < seg->end)
		seg->writable = false; /* nothing may follow a damaged tail */
	return 0;
}

int spool_peek(struct spool *sp, struct spool_record *out, struct spool_loss *loss)
{
	uint8_t hdr[SPOOL_RECORD_HEADER];

	sp->peeked = false;
	while (sp->nr_segs) {
		struct segment *seg = &sp->segs[0];
		int bad;

		if (retire_head(sp))
			continue;
		if (seg->fd < 0) {
			char name[32];

			segment_path(sp, seg->id, name, sizeof(name));
			seg->fd = openat(sp->dir_fd, name, O_RDWR | O_CLOEXEC);
			if (seg->fd < 0) {
				mb_err("spool %s/%s: cannot open: %s; its %" PRIu64 " batches are lost", sp->dir,
				       name, strerror(errno), seg->pending);
				loss->corrupt_batches += seg->pending;
				seg->pending = 0;
				continue;
			}
		}
		for (;;) {
			skip_holes(seg);
			bad = check_record(fd_read, &seg->fd, seg->read_off, seg->end, hdr, &sp->buf, &sp->buf_cap);
			if (bad < 0)
				return bad;
			if (bad || hdr[8] != STATE_SENT)
				break;
			seg->read_off += SPOOL_RECORD_HEADER + get32(hdr + 12);
		}
		if (bad) {
			int err = rescan_head(sp, bad, loss);

			if (err)
				return err;
			continue;
		}
		out->len = get32(hdr + 12);
		out->raw_len = get32(hdr + 16);
		out->nr_samples = get32(hdr + 20);
		out->format = hdr[24];
		out->compression = hdr[25];
		out->body = sp->buf;
		sp->peeked = true;
		sp->peek_len = out->len;
		sp->peek_samples = out->nr_samples;
		return 0;
	}
	return -ENOENT;
}

int spool_ack(struct spool *sp)
{
	static const uint8_t sent = STATE_SENT;
	struct segment *seg;

	if (!sp->peeked || !sp->nr_segs)
		return -EINVAL;
	seg = &sp->segs[0];
	if (pwrite(seg->fd, &sent, 1, (off_t)(seg->read_off + 8)) != 1)
		mb_warn("spool %s/%016" PRIx64 ".spool: cannot mark a record sent (%s); it may be sent again "
			"after a restart", sp->dir, seg->id, strerror(errno));
	seg->read_off += SPOOL_RECORD_HEADER + sp->peek_len;
	seg->pending--;
	seg->pending_samples -= sp->peek_samples > seg->pending_samples ? seg->pending_samples : sp->peek_samples;
	sp->pending--;
	sp->pending_samples -= sp->peek_samples > sp->pending_samples ? sp->pending_samples : sp->peek_samples;
	sp->peeked = false;
	retire_head(sp);
	if (sp->full_at && !sp->pending) {
		mb_info("spool %s: emptied; writing to the disk starts afresh", sp->dir);
		sp->full_at = 0;
	}
	return 0;
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
		close_fd(&sp->segs[i].fd);
		free(sp->segs[i].holes);
	}
	close_fd(&sp->lock_fd); /* releases the flock */
	close_fd(&sp->dir_fd);
	free(sp->segs);
	free(sp->buf);
	free(sp->dir);
	free(sp);
}
