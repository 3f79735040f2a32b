/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The spool's segment format, as laid out in spool.h: writing a file header
 * and a record header, and the reader that checks records over any byte
 * source (a file, a buffer) and resynchronises after a damaged one. Used by
 * the spool's own files; the rest of the code goes through spool.h.
 */
#ifndef MEMCG_BPF_SPOOL_FORMAT_H
#define MEMCG_BPF_SPOOL_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sending/spool.h"

#define SPOOL_STATE_AT 8 /* the state byte's offset in a record header */
#define SPOOL_STATE_PENDING 'P'
#define SPOOL_STATE_SENT 'S'

/* A byte source: 0 when all @len bytes at @off were there. */
typedef int (*spool_read_fn)(void *ctx, uint64_t off, void *dst, size_t len);

/* A damaged stretch of a segment: [from, to) holds no record to keep. */
struct spool_hole {
	uint64_t from, to;
};

struct spool_scan_result {
	uint64_t records, pending, pending_samples;
	uint64_t first_pending; /* offset; the end when none */
	uint64_t good_end;      /* after the last good record */
	uint64_t last_seq;
	int bad;                /* why the first damaged stretch failed to read */
	uint64_t damaged, damaged_samples; /* records lost in damaged stretches, their samples */
	struct spool_hole *holes; /* the damaged stretches before good_end */
	size_t nr_holes;
};

/* The 16 bytes a segment starts with. */
void spool_file_header_encode(uint8_t fh[SPOOL_FILE_HEADER]);
/* The header of a pending record @r numbered @seq, its CRC over @r's body included. */
void spool_record_header_encode(uint8_t hdr[SPOOL_RECORD_HEADER], const struct spool_record *r, uint64_t seq);
/* @out's fields from a record header; the body is left to the caller. */
void spool_record_header_decode(const uint8_t hdr[SPOOL_RECORD_HEADER], struct spool_record *out);
uint32_t spool_record_body_len(const uint8_t hdr[SPOOL_RECORD_HEADER]);
bool spool_record_sent(const uint8_t hdr[SPOOL_RECORD_HEADER]);

/*
 * Checks the record at @off (file size @size). 0 and the header in @hdr, the
 * body in *@scratch (grown to hold it); or SPOOL_BAD_*; or -ENOMEM.
 */
int spool_check_record(spool_read_fn rd, void *ctx, uint64_t off, uint64_t size, uint8_t hdr[SPOOL_RECORD_HEADER],
		       uint8_t **scratch, size_t *cap);
/*
 * Reads the records of a segment of @size bytes from offset @off on (the
 * file header is checked when @off is 0). A damaged record costs only
 * itself: reading goes on at the next good record, and the stretch between
 * becomes a hole. 0 or -ENOMEM; the caller frees r->holes.
 */
int spool_scan_segment(spool_read_fn rd, void *ctx, uint64_t size, uint64_t off, uint8_t **scratch, size_t *cap,
		       struct spool_scan_result *r);
/* A spool_read_fn over a file: @ctx points to its fd. */
int spool_fd_read(void *ctx, uint64_t off, void *dst, size_t len);

#endif
