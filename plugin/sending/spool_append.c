// SPDX-License-Identifier: GPL-2.0-only
/*
 * The spool's writer: appending a record to the segment this process
 * writes (a new one when it is full), the SpoolMaxBytes cap and a full disk
 * (the oldest segments make room), and spool_sync().
 */
#include "sending/spool_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"

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
	struct spool_segment seg = { .id = sp->next_id, .fd = -1, .writable = true };
	uint8_t fh[SPOOL_FILE_HEADER];
	char name[32];
	int err;

	spool_segment_file_name(seg.id, name, sizeof(name));
	seg.fd = openat(sp->dir_fd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (seg.fd < 0) {
		err = -errno;
		if (!no_room(err))
			mb_err("spool %s/%s: cannot create: %s", sp->dir, name, strerror(-err));
		return err;
	}
	spool_file_header_encode(fh);
	err = write_all(sp, seg.fd, fh, sizeof(fh), 0);
	if (err)
		goto remove;
	fsync(sp->dir_fd); /* the new name survives a power loss */
	seg.size = seg.read_off = seg.end = SPOOL_FILE_HEADER;
	err = spool_add_segment(sp, &seg);
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

static struct spool_segment *writable_segment(struct spool *sp)
{
	struct spool_segment *seg = sp->nr_segs ? &sp->segs[sp->nr_segs - 1] : NULL;

	return seg && seg->writable ? seg : NULL;
}

/* Drops the oldest segment, counting what it still held in @loss. */
static void evict_oldest(struct spool *sp, struct spool_loss *loss)
{
	loss->full_batches += sp->segs[0].pending;
	loss->full_samples += sp->segs[0].pending_samples;
	spool_drop_oldest(sp);
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
	struct spool_segment *seg = writable_segment(sp);
	int err;

	if (seg && seg->size > SPOOL_FILE_HEADER && seg->size + size > sp->segment_bytes) {
		spool_close_fd(&seg->fd);
		seg->writable = false; /* full: the next record starts a new segment */
		seg = NULL;
	}
	make_room(sp, size + (seg ? 0 : SPOOL_FILE_HEADER), loss);
	seg = writable_segment(sp);
	if (!seg) {
		make_room(sp, size + SPOOL_FILE_HEADER, loss); /* the current one may have gone */
		err = new_segment(sp);
		if (err)
			return err;
		seg = writable_segment(sp);
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
		spool_close_fd(&seg->fd);
		seg->writable = false; /* the segment takes no more */
	}
	return err;
}

int spool_append(struct spool *sp, const struct spool_record *r, struct spool_loss *loss)
{
	uint64_t size = SPOOL_RECORD_HEADER + (uint64_t)r->len;
	uint8_t hdr[SPOOL_RECORD_HEADER];
	int err;

	if (r->len > SPOOL_MAX_BODY || size + SPOOL_FILE_HEADER > sp->max_bytes) {
		mb_warn("spool %s: a request of %zu bytes is larger than the spool; dropped (%" PRIu32 " samples)",
			sp->dir, r->len, r->nr_samples);
		loss->full_batches++;
		loss->full_samples += r->nr_samples;
		return 0;
	}
	spool_record_header_encode(hdr, r, sp->next_seq);

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
	struct spool_segment *seg = writable_segment(sp);

	if (!seg || seg->fd < 0)
		return 0;
	return fdatasync(seg->fd) ? -errno : 0;
}
