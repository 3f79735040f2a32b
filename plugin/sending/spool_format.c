// SPDX-License-Identifier: GPL-2.0-only
/* The spool's segment format and its reader (spool_format.h). */
#include "sending/spool_format.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/name_table.h"

static const uint8_t file_magic[8] = { 'M', 'B', 'S', 'P', 'O', 'O', 'L', 0 };
static const uint8_t record_magic[4] = { 'M', 'B', 'S', 'R' };

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

void spool_file_header_encode(uint8_t fh[SPOOL_FILE_HEADER])
{
	memset(fh, 0, SPOOL_FILE_HEADER);
	memcpy(fh, file_magic, 8);
	put32(fh + 8, 1);
}

void spool_record_header_encode(uint8_t hdr[SPOOL_RECORD_HEADER], const struct spool_record *r, uint64_t seq)
{
	memset(hdr, 0, SPOOL_RECORD_HEADER);
	memcpy(hdr, record_magic, 4);
	hdr[SPOOL_STATE_AT] = SPOOL_STATE_PENDING;
	put32(hdr + 12, (uint32_t)r->len);
	put32(hdr + 16, r->raw_len);
	put32(hdr + 20, r->nr_samples);
	hdr[24] = r->format;
	hdr[25] = r->compression;
	put64(hdr + 32, seq);
	put32(hdr + 4, record_crc(hdr, r->body, r->len));
}

void spool_record_header_decode(const uint8_t hdr[SPOOL_RECORD_HEADER], struct spool_record *out)
{
	out->len = get32(hdr + 12);
	out->raw_len = get32(hdr + 16);
	out->nr_samples = get32(hdr + 20);
	out->format = hdr[24];
	out->compression = hdr[25];
}

uint32_t spool_record_body_len(const uint8_t hdr[SPOOL_RECORD_HEADER])
{
	return get32(hdr + 12);
}

bool spool_record_sent(const uint8_t hdr[SPOOL_RECORD_HEADER])
{
	return hdr[SPOOL_STATE_AT] == SPOOL_STATE_SENT;
}

/* ---- the reader, over any byte source (spool_read_fn) */
static int grow_buffer(uint8_t **buf, size_t *cap, size_t need)
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

int spool_check_record(spool_read_fn rd, void *ctx, uint64_t off, uint64_t size, uint8_t hdr[SPOOL_RECORD_HEADER],
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
	if (grow_buffer(scratch, cap, len ? len : 1))
		return -ENOMEM;
	if (rd(ctx, off + SPOOL_RECORD_HEADER, *scratch, len))
		return SPOOL_BAD_SHORT;
	if (record_crc(hdr, *scratch, len) != get32(hdr + 4))
		return SPOOL_BAD_CRC;
	return 0;
}

#define RESYNC_WINDOW 4096

/*
 * Resynchronises after a damaged record at @off: the offset of the next
 * record that checks out (a record magic whose record reads back with its
 * CRC), or @size when there is none; in @more, the record magics passed on
 * the way whose records did not check out (more damaged records).
 * 0 or -ENOMEM.
 */
static int find_next_record(spool_read_fn rd, void *ctx, uint64_t off, uint64_t size, uint8_t **scratch,
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
			bad = spool_check_record(rd, ctx, from + i, size, hdr, scratch, cap);
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

	if (have < SPOOL_RECORD_HEADER || memcmp(hdr, record_magic, 4) != 0 || spool_record_sent(hdr))
		return 0;
	end = off + SPOOL_RECORD_HEADER + get32(hdr + 12);
	return end == next || (next == size && end > size) ? get32(hdr + 20) : 0;
}

static int add_hole(struct spool_scan_result *r, uint64_t from, uint64_t to)
{
	struct spool_hole *h = realloc(r->holes, (r->nr_holes + 1) * sizeof(*h));

	if (!h)
		return -ENOMEM;
	h[r->nr_holes++] = (struct spool_hole){ from, to };
	r->holes = h;
	return 0;
}

int spool_scan_segment(spool_read_fn rd, void *ctx, uint64_t size, uint64_t off, uint8_t **scratch, size_t *cap,
		       struct spool_scan_result *r)
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
		int bad = spool_check_record(rd, ctx, off, size, hdr, scratch, cap);
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
		if (!spool_record_sent(hdr)) {
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

int spool_fd_read(void *ctx, uint64_t off, void *dst, size_t len)
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
	struct spool_scan_result r;
	uint8_t *scratch = NULL;
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	if (spool_scan_segment(mem_read, &m, len, 0, &scratch, &cap, &r)) {
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
