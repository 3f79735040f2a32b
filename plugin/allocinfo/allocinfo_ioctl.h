/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * /proc/allocinfo's binary interface (Linux >= 7.3, include/uapi/linux/
 * alloc_tag.h): the layouts and requests, defined here from the kernel's
 * documented ABI (bookworm's headers do not have them), and the reader
 * that walks it.
 *
 * The walk: CONTENT_ID, GET_AT {pos 0, MIN_SIZE 1}, GET_NEXT until ENOENT,
 * CONTENT_ID again; a walk that saw the id change (a module came or went)
 * is walked again. MIN_SIZE 1 leaves the sites that hold nothing in the
 * kernel (most of them), so the rows that cross are exactly those that
 * count, and the top and "other" still add up to the whole.
 *
 * The kernel cuts names of 64 bytes or more to their last 63. A name that
 * may have been cut is completed from one text read per CONTENT_ID (the
 * file is the same table in text); a name the text does not have either is
 * shipped marked, starting with "...", never as if it were whole.
 */
#ifndef MEMCG_BPF_ALLOCINFO_IOCTL_H
#define MEMCG_BPF_ALLOCINFO_IOCTL_H

#include <stdint.h>
#include <sys/ioctl.h>

#include "allocinfo/allocinfo.h"

#define ALLOCINFO_ABI_STR 64 /* 63 bytes and a NUL */

struct allocinfo_abi_tag {
	char modname[ALLOCINFO_ABI_STR];
	char function[ALLOCINFO_ABI_STR];
	char filename[ALLOCINFO_ABI_STR];
	uint64_t lineno;
};

struct allocinfo_abi_counter {
	uint64_t bytes;
	uint64_t calls;
	uint8_t accurate;
	uint8_t pad[7];
} __attribute__((aligned(8)));

struct allocinfo_abi_tag_data {
	struct allocinfo_abi_tag tag;
	struct allocinfo_abi_counter counter;
};

#define ALLOCINFO_ABI_FILTER_MIN_SIZE (1ULL << 5)

struct allocinfo_abi_filter {
	uint64_t mask;
	struct allocinfo_abi_tag fields;
	uint64_t min_size;
	uint64_t max_size;
	uint64_t inaccurate;
};

struct allocinfo_abi_get_at {
	uint64_t pos;                      /* in: among the rows that pass the filter */
	struct allocinfo_abi_filter filter; /* in: kept for the GET_NEXTs that follow */
	struct allocinfo_abi_tag_data data; /* out */
};

struct allocinfo_abi_content_id {
	uint64_t id;
};

#define ALLOCINFO_ABI_IOC_CONTENT_ID _IOR(0xA6, 0, struct allocinfo_abi_content_id)
#define ALLOCINFO_ABI_IOC_GET_AT _IOWR(0xA6, 1, struct allocinfo_abi_get_at)
#define ALLOCINFO_ABI_IOC_GET_NEXT _IOR(0xA6, 2, struct allocinfo_abi_tag_data)

/*
 * Where the walk's requests go: ioctl(2) on an open /proc/allocinfo, or a
 * test's kernel. @request returns 0 or -errno; @read_text fills a table from
 * the file's text (for full names), as allocinfo_read_text() does.
 */
struct allocinfo_ioctl_io {
	int (*request)(void *ctx, unsigned long req, void *arg);
	int (*read_text)(void *ctx, struct allocinfo_table *t, char *why, size_t why_len);
	void *ctx;
};

/* The names of the last text read, to complete cut ones; zeroed to start. */
struct allocinfo_names {
	struct allocinfo_table text;
	uint64_t content_id;
	bool valid;
};

void allocinfo_names_free(struct allocinfo_names *n);

/*
 * One walk into @t (its rows and names). Returns 0; -EOPNOTSUPP when the
 * kernel has no such interface (ENOTTY: before Linux 7.3) with @why; -EAGAIN
 * when the table kept changing under ten walks; another negative errno with
 * @why.
 */
int allocinfo_read_ioctl(const struct allocinfo_ioctl_io *io, struct allocinfo_names *names,
			 struct allocinfo_table *t, char *why, size_t why_len);

#endif
