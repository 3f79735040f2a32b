/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The spool's state and its SpoolDir: the list of segment files, oldest
 * first, what spool_open() found there, and removing a segment. Shared by
 * the spool's own files (spool_dir.c, spool_append.c, spool_replay.c); the
 * rest of the code goes through spool.h.
 */
#ifndef MEMCG_BPF_SPOOL_DIR_H
#define MEMCG_BPF_SPOOL_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sending/spool.h"
#include "sending/spool_format.h"

struct spool_segment {
	uint64_t id;
	int fd;             /* -1 while not in use */
	uint64_t size;      /* bytes on disk */
	uint64_t read_off;  /* the next record that may be pending */
	uint64_t end;       /* end of the good records */
	uint64_t pending, pending_samples;
	bool writable;      /* created by this process, records go here */
	struct spool_hole *holes; /* damaged stretches found when it was read, in order */
	size_t nr_holes;
	size_t next_hole;   /* the first hole not behind read_off */
};

struct spool {
	char *dir;
	int dir_fd, lock_fd;
	uint64_t max_bytes, segment_bytes;
	struct spool_segment *segs; /* oldest first */
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

/* The file name of segment @id ("%016x.spool") in @name. */
void spool_segment_file_name(uint64_t id, char *name, size_t len);
/* Closes *@fd when open and sets it to -1. */
void spool_close_fd(int *fd);
/* Appends @seg (newest) to the list. 0 or -ENOMEM. */
int spool_add_segment(struct spool *sp, const struct spool_segment *seg);
/* Removes the oldest segment from the disk and the list. */
void spool_drop_oldest(struct spool *sp);

#endif
