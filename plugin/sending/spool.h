/* SPDX-License-Identifier: GPL-2.0-only
 *
 * The disk spool: encoded requests (compressed protobuf bodies, ready to
 * POST) that could not be sent yet, kept in SpoolDir until the collector
 * takes them, oldest first, across restarts of collectd.
 *
 * Layout: SpoolDir holds "lock" (flock: one process per directory) and
 * segment files "%016x.spool" named by an increasing number. A process
 * never appends to a segment it did not create: after a restart (or a
 * kill -9) the old segments are only read, and new records go to a new one.
 * A segment is a 16-byte file header ("MBSPOOL\0", version 1, 0) followed by
 * records, all numbers little-endian:
 *
 *   0  "MBSR"        magic
 *   4  u32 crc       zlib crc32 of bytes 12..39 and the body
 *   8  u8  state     'P' pending, 'S' sent (not under the CRC: set in place)
 *   9  3 bytes 0
 *  12  u32 len       body bytes
 *  16  u32 raw_len   protobuf bytes before compression
 *  20  u32 samples   series values in the request
 *  24  u8 format, u8 compression (enum wire_format, enum compression), u16 0
 *  28  u32 0
 *  32  u64 seq       record number, increasing over the spool's life
 *  40  body
 *
 * A record that is short, has a bad magic, an impossible length or a wrong
 * CRC costs only itself: reading resynchronises on the next record magic
 * whose record checks out (its CRC), and the records after it are kept. The
 * damaged record is logged and counted as one corrupt batch, with its
 * samples when its header is whole and its length leads to the next good
 * record. A torn write at kill -9 can only damage the last record of the
 * segment being written, never an earlier one.
 *
 * SpoolDir may hold other entries (a directory, a link, a file of another
 * name): they are ignored with one warning. Only regular files named
 * exactly 16 lowercase hex digits + ".spool" are segments.
 *
 * Durability: records are written with write(2), so a kill -9 of collectd
 * loses nothing already written (the data is in the kernel's page cache).
 * spool_sync() (fdatasync) is called by the sender once per interval that
 * went to disk, so a power loss costs at most the last interval. Marking a
 * record sent is a one-byte pwrite without fsync: after a crash at the
 * wrong moment a sent record may be sent again (at least once delivery).
 *
 * The cap: the segments' bytes on disk never exceed max_bytes. A new record
 * that does not fit evicts whole segments, oldest first (segments are about
 * max_bytes / 8); what they still held is reported to the caller (to count
 * as dropped, reason "spool_full") and logged. A full disk (ENOSPC, EDQUOT,
 * EFBIG) is the same: the oldest segments make room until the record fits,
 * or the record itself is dropped when nothing older is left; one warning
 * when the disk fills, one line when writing works again.
 *
 * Not thread safe: the sender thread alone uses a spool.
 *
 * The files: spool_format.c (the format above and the reader that checks
 * it), spool_dir.c (SpoolDir, its segments, open and close), spool_append.c
 * (the writer and the cap), spool_replay.c (peek, ack).
 */
#ifndef MEMCG_BPF_SPOOL_H
#define MEMCG_BPF_SPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SPOOL_FILE_HEADER 16
#define SPOOL_RECORD_HEADER 40
#define SPOOL_MAX_BODY (64u << 20) /* a longer length field is corruption */

struct spool_record {
	uint8_t format;      /* enum wire_format */
	uint8_t compression; /* enum compression */
	uint32_t raw_len;
	uint32_t nr_samples;
	const uint8_t *body;
	size_t len;
};

/* What an operation had to give up: dropped for lack of room or found corrupt. */
struct spool_loss {
	uint64_t full_batches, full_samples;       /* no room: SpoolMaxBytes or a full disk */
	uint64_t corrupt_batches, corrupt_samples; /* damaged records (samples when their header says) */
};

struct spool_opts {
	const char *dir;
	uint64_t max_bytes;
	uint64_t segment_bytes; /* 0: max_bytes / 8, at least 4 KiB */
	/* pwrite(2) when NULL; tests put a full disk here */
	ssize_t (*write_at)(int fd, const void *buf, size_t len, off_t off);
};

struct spool;

/*
 * Creates @o->dir (one level, mode 0700) when missing, takes its lock, reads
 * the segments left by earlier runs (corrupt tails reported in @loss).
 * 0, -EBUSY (another process holds the lock) or a negative errno; logs why.
 */
int spool_open(const struct spool_opts *o, struct spool **out, struct spool_loss *loss);
/* Appends a record (evicting the oldest segments when full, see @loss). */
int spool_append(struct spool *sp, const struct spool_record *r, struct spool_loss *loss);
/* fdatasync of the segment being written; 0 when there is none. */
int spool_sync(struct spool *sp);
/*
 * The oldest pending record; its body stays valid until the next call.
 * -ENOENT when there is none. A record found corrupt now is skipped with
 * the rest of its segment (@loss).
 */
int spool_peek(struct spool *sp, struct spool_record *out, struct spool_loss *loss);
/* Marks the record spool_peek() returned as sent; removes finished segments. */
int spool_ack(struct spool *sp);
uint64_t spool_pending(const struct spool *sp);       /* records */
uint64_t spool_pending_samples(const struct spool *sp);
uint64_t spool_bytes(const struct spool *sp);         /* on disk, segments only */
/* Closes everything (the data stays on disk); accepts NULL. */
void spool_close(struct spool *sp);

/*
 * Checks one segment's bytes as the reader does: the number of good records
 * (and how many are pending), and the offset where reading stopped. For
 * tests and the fuzzer; never fails.
 */
struct spool_scan {
	size_t records, pending;
	uint64_t pending_samples;
	size_t good_end;  /* offset after the last good record */
	int bad;          /* 0: clean; else why the first damaged record failed (SPOOL_BAD_*) */
	uint64_t damaged, damaged_samples; /* damaged records skipped, the samples they held */
};
enum { SPOOL_BAD_NONE, SPOOL_BAD_HEADER, SPOOL_BAD_SHORT, SPOOL_BAD_MAGIC, SPOOL_BAD_LENGTH, SPOOL_BAD_CRC };
void spool_scan_buffer(const uint8_t *buf, size_t len, struct spool_scan *out);
const char *spool_bad_name(int bad);

#endif
