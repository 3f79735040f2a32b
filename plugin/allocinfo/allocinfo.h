/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's allocation profile (memory allocation profiling, Linux >= 6.10,
 * CONFIG_MEM_ALLOC_PROFILING): per allocation call site, the bytes it holds
 * and the calls that allocated them, as /proc/allocinfo lists them.
 *
 * A table holds one read of the profile: every call site as a row, its names
 * (site "file:line", module, func) pointing into the table's own storage.
 * The text reader (allocinfo_text.c) parses the file's formats 1.0 and 2.0;
 * both readers fill the same rows. allocinfo_top() ranks them.
 */
#ifndef MEMCG_BPF_ALLOCINFO_H
#define MEMCG_BPF_ALLOCINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ALLOCINFO_PATH "/proc/allocinfo"

struct alloc_row {
	int64_t bytes;      /* held now (the kernel's counter is signed) */
	uint64_t calls;     /* allocations not yet freed */
	const char *site;   /* "file:line", NUL-terminated */
	const char *module; /* "" for the kernel itself */
	const char *func;
	bool accurate;      /* false: the kernel marked the counters "accurate:no" */
};

struct allocinfo_table {
	int version_major, version_minor; /* of the text format read; 0 for the ioctl reader */
	struct alloc_row *rows;
	size_t nr_rows, cap_rows;
	char *text;                      /* the names' storage (the text read, NULs written into it) */
	size_t text_len, text_cap;
	struct alloc_row *sites;         /* allocinfo_top()'s: the rows merged by name */
	void *bin;                       /* the binary reader's rows as the kernel gave them (names in them) */
	size_t bin_cap;
};

void allocinfo_table_init(struct allocinfo_table *t);
void allocinfo_table_free(struct allocinfo_table *t);

/*
 * Parses @t->text (@t->text_len bytes, the whole file as read, with room for
 * one more byte: text_cap > text_len, else -EINVAL) into @t's rows,
 * writing NULs into the text to end the names. Accepts format 1.x (no
 * accurate field) and 2.x; within a row, fields other than the site, the
 * [module] and func: are skipped ("accurate:no" clears accurate; a field it
 * does not know is ignored). Returns 0; -EPROTO with @why naming the line
 * and what was wrong for a damaged file or an unknown major version; -ENOMEM.
 */
int allocinfo_parse_text(struct allocinfo_table *t, char *why, size_t why_len);

/*
 * Reads file @path (ALLOCINFO_PATH, or a copy of it) whole into @t->text
 * and parses it. Returns 0; -ENOENT (no such file: a kernel without
 * memory allocation profiling, or with it off for good) and -EACCES (the
 * file is mode 0400: root only) with @why saying so; -EPROTO as above;
 * another negative errno with @why.
 */
int allocinfo_read_text(const char *path, struct allocinfo_table *t, char *why, size_t why_len);

/* What the rows outside the top hold, so that the top and it add up to the whole. */
struct alloc_other {
	size_t sites;
	int64_t bytes;
	uint64_t calls;
	bool accurate; /* all of them accurate */
};

/*
 * The @n call sites of @t with the most bytes into @top (room for @n),
 * largest first; ties by calls, then site, module and func, so that every
 * reader ranks alike. Only rows that hold memory (bytes != 0) count: the
 * binary reader never sees the others. A site is a (site, module, func):
 * rows the kernel lists twice under one name are summed (their series are
 * one). The rest summed into @other (other.sites: how many). Returns how many were written
 * (fewer than @n when there are fewer sites); -ENOMEM. @top points into
 * @t, valid until its next read.
 */
int allocinfo_top(struct allocinfo_table *t, size_t n, const struct alloc_row **top, struct alloc_other *other);

/*
 * A reader of the profile that lasts: text, ioctl (Linux >= 7.3), or auto
 * (ioctl where the file answers it, else text: a copy of the file, or an
 * older kernel, answers ENOTTY). It keeps the file open between reads and,
 * for the ioctl, the whole names of the last text read.
 */
enum allocinfo_backend {
	ALLOCINFO_AUTO,
	ALLOCINFO_IOCTL,
	ALLOCINFO_TEXT,
};

struct allocinfo_reader;

/* "auto", "ioctl", "text" (any case); -EINVAL for another name. */
int allocinfo_backend_parse(const char *s, enum allocinfo_backend *out);
const char *allocinfo_backend_name(enum allocinfo_backend b);

int allocinfo_reader_new(const char *path, enum allocinfo_backend want, struct allocinfo_reader **out);
void allocinfo_reader_free(struct allocinfo_reader *r);
/*
 * One read of the whole profile into @t. Its rows may point into @r (sites
 * the ioctl cannot tell apart, as the text gives them): they last until
 * @r's next read or its free. Errors as allocinfo_read_text();
 * with ioctl asked for on a kernel without it, -EOPNOTSUPP with @why.
 */
int allocinfo_reader_read(struct allocinfo_reader *r, struct allocinfo_table *t, char *why, size_t why_len);
/* The reader the last read used (ALLOCINFO_AUTO before the first). */
enum allocinfo_backend allocinfo_reader_used(const struct allocinfo_reader *r);

#endif
