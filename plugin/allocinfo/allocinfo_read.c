// SPDX-License-Identifier: GPL-2.0-only
/* Reading /proc/allocinfo (or a copy of it) whole, then parsing it as text. */
#include "allocinfo/allocinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
