// SPDX-License-Identifier: GPL-2.0-only
/*
 * The spool's reading side: the oldest pending record (spool_peek), marking
 * it sent (spool_ack), removing segments with nothing left to send, and
 * reading a segment again when a record went bad on disk after it was read.
 */
#include "sending/spool_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"

/* Removes the oldest segment when nothing in it waits any more. */
static bool retire_head(struct spool *sp)
{
	struct spool_segment *seg = &sp->segs[0];

	if (seg->pending)
		return false;
	spool_drop_oldest(sp); /* also the one being written: the next append starts a new one */
	return true;
}

/* Moves the head segment's read_off past a known damaged stretch. */
static void skip_holes(struct spool_segment *seg)
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
	struct spool_segment *seg = &sp->segs[0];
	struct spool_scan_result r;
	uint64_t lost, lost_samples;
	int err;

	err = spool_scan_segment(spool_fd_read, &seg->fd, seg->end, seg->read_off, &sp->buf, &sp->buf_cap, &r);
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
		struct spool_segment *seg = &sp->segs[0];
		int bad;

		if (retire_head(sp))
			continue;
		if (seg->fd < 0) {
			char name[32];

			spool_segment_file_name(seg->id, name, sizeof(name));
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
			bad = spool_check_record(spool_fd_read, &seg->fd, seg->read_off, seg->end, hdr, &sp->buf, &sp->buf_cap);
			if (bad < 0)
				return bad;
			if (bad || !spool_record_sent(hdr))
				break;
			seg->read_off += SPOOL_RECORD_HEADER + spool_record_body_len(hdr);
		}
		if (bad) {
			int err = rescan_head(sp, bad, loss);

			if (err)
				return err;
			continue;
		}
		spool_record_header_decode(hdr, out);
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
	static const uint8_t sent = SPOOL_STATE_SENT;
	struct spool_segment *seg;

	if (!sp->peeked || !sp->nr_segs)
		return -EINVAL;
	seg = &sp->segs[0];
	if (pwrite(seg->fd, &sent, 1, (off_t)(seg->read_off + SPOOL_STATE_AT)) != 1)
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
