// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading /proc/allocinfo (or a copy of it): whole, then parsed as text; or
 * through its binary interface (allocinfo_ioctl.c); and the reader that
 * picks one.
 */
#include "allocinfo/allocinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "allocinfo/allocinfo_ioctl.h"
#include "base/name_table.h"

/* The whole file into t->text, one byte of room left after it. */
static int slurp(int fd, struct allocinfo_table *t)
{
	t->text_len = 0;
	for (;;) {
		ssize_t n;

		if (t->text_cap - t->text_len < 2) {
			size_t cap = t->text_cap ? t->text_cap * 2 : 1 << 20;
			char *p = realloc(t->text, cap);

			if (!p)
				return -ENOMEM;
			t->text = p;
			t->text_cap = cap;
		}
		n = read(fd, t->text + t->text_len, t->text_cap - t->text_len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		t->text_len += (size_t)n;
	}
}

int allocinfo_read_text(const char *path, struct allocinfo_table *t, char *why, size_t why_len)
{
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (err == -ENOENT)
			snprintf(why, why_len, "no %s: the kernel has no memory allocation profiling "
				 "(CONFIG_MEM_ALLOC_PROFILING, Linux >= 6.10), or it is off for good "
				 "(sysctl.vm.mem_profiling=never)", path);
		else if (err == -EACCES || err == -EPERM)
			snprintf(why, why_len, "cannot read %s: it is mode 0400, readable by root only "
				 "(or with CAP_DAC_READ_SEARCH)", path);
		else
			snprintf(why, why_len, "cannot open %s: %s", path, strerror(-err));
		return err == -EPERM ? -EACCES : err;
	}
	err = slurp(fd, t);
	close(fd);
	if (err) {
		snprintf(why, why_len, "cannot read %s: %s", path, strerror(-err));
		return err;
	}
	err = allocinfo_parse_text(t, why, why_len);
	if (err == -EPROTO) {
		char line[160];

		snprintf(line, sizeof(line), "%s", why);
		snprintf(why, why_len, "%s, %s", path, line);
	}
	return err;
}

static const char *const backend_names[] = {
	[ALLOCINFO_AUTO] = "auto",
	[ALLOCINFO_IOCTL] = "ioctl",
	[ALLOCINFO_TEXT] = "text",
};

DEFINE_NAME_TABLE(allocinfo_backend, enum allocinfo_backend, backend_names)

struct allocinfo_reader {
	char *path;
	enum allocinfo_backend want, used;
	int fd; /* the ioctl's, kept open; -1 */
	struct allocinfo_names names;
};

int allocinfo_reader_new(const char *path, enum allocinfo_backend want, struct allocinfo_reader **out)
{
	struct allocinfo_reader *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r || !(r->path = strdup(path))) {
		free(r);
		return -ENOMEM;
	}
	r->want = want;
	r->fd = -1;
	*out = r;
	return 0;
}

void allocinfo_reader_free(struct allocinfo_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	allocinfo_names_free(&r->names);
	free(r->path);
	free(r);
}

enum allocinfo_backend allocinfo_reader_used(const struct allocinfo_reader *r)
{
	return r->used;
}

static int fd_request(void *ctx, unsigned long req, void *arg)
{
	const struct allocinfo_reader *r = ctx;

	return ioctl(r->fd, req, arg) < 0 ? -errno : 0;
}

static int path_read_text(void *ctx, struct allocinfo_table *t, char *why, size_t why_len)
{
	const struct allocinfo_reader *r = ctx;

	return allocinfo_read_text(r->path, t, why, why_len);
}

static int read_ioctl(struct allocinfo_reader *r, struct allocinfo_table *t, char *why, size_t why_len)
{
	const struct allocinfo_ioctl_io io = { fd_request, path_read_text, r };
	int err;

	if (r->fd < 0) {
		r->fd = open(r->path, O_RDONLY | O_CLOEXEC);
		if (r->fd < 0) /* the text reader's open says why, in the same words */
			return allocinfo_read_text(r->path, t, why, why_len);
	}
	err = allocinfo_read_ioctl(&io, &r->names, t, why, why_len);
	if (err && err != -EAGAIN) { /* open again next time: profiling may have gone and come back */
		close(r->fd);
		r->fd = -1;
	}
	return err;
}

int allocinfo_reader_read(struct allocinfo_reader *r, struct allocinfo_table *t, char *why, size_t why_len)
{
	int err;

	if (r->want == ALLOCINFO_TEXT || (r->want == ALLOCINFO_AUTO && r->used == ALLOCINFO_TEXT)) {
		r->used = ALLOCINFO_TEXT;
		return allocinfo_read_text(r->path, t, why, why_len);
	}
	err = read_ioctl(r, t, why, why_len);
	if (err == -EOPNOTSUPP && r->want == ALLOCINFO_AUTO) {
		r->used = ALLOCINFO_TEXT; /* the file has no binary interface: text from now on */
		return allocinfo_read_text(r->path, t, why, why_len);
	}
	if (!err)
		r->used = ALLOCINFO_IOCTL;
	return err;
}
