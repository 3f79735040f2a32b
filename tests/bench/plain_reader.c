// SPDX-License-Identifier: GPL-2.0-only
#include "plain_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { F_STAT, F_CURRENT, F_EVENTS, NR_FILES };

struct plain_reader {
	size_t nr_dirs, nr_names;
	const char **names; /* copied: the caller's array may go */
	size_t *name_len;
	int *fds; /* nr_dirs x NR_FILES, -1 where not needed */
	char buf[16384];
};

int plain_reader_open(char **dirs, size_t nr_dirs, const char *const *names, size_t nr_names,
		      struct plain_reader **out)
{
	static const char *const files[NR_FILES] = { "memory.stat", "memory.current", "memory.events" };
	struct plain_reader *r;
	char path[4096];

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->nr_dirs = nr_dirs;
	r->nr_names = nr_names;
	r->names = calloc(nr_names, sizeof(*r->names));
	r->name_len = calloc(nr_names, sizeof(*r->name_len));
	r->fds = malloc(nr_dirs * NR_FILES * sizeof(int));
	if (!r->names || !r->name_len || !r->fds) {
		r->nr_dirs = 0; /* no fds to close yet */
		plain_reader_close(r);
		return -ENOMEM;
	}
	for (size_t n = 0; n < nr_names; n++) {
		r->names[n] = names[n];
		r->name_len[n] = strlen(names[n]);
	}
	for (size_t d = 0; d < nr_dirs; d++) {
		for (int f = 0; f < NR_FILES; f++) {
			snprintf(path, sizeof(path), "%s/%s", dirs[d], files[f]);
			r->fds[d * NR_FILES + f] = open(path, O_RDONLY | O_CLOEXEC);
		}
	}
	*out = r;
	return 0;
}

/* "name value\n" lines: a linear look-up of each line's name among the wanted ones. */
static void parse(struct plain_reader *r, const char *p, const char *end, uint64_t *values)
{
	while (p < end) {
		const char *name = p, *sp = memchr(p, ' ', end - p);
		uint64_t v = 0;

		if (!sp)
			return;
		for (p = sp + 1; p < end && *p >= '0' && *p <= '9'; p++)
			v = v * 10 + (uint64_t)(*p - '0');
		for (size_t n = 0; n < r->nr_names; n++) {
			if (r->name_len[n] == (size_t)(sp - name) && memcmp(r->names[n], name, sp - name) == 0) {
				values[n] = v;
				break;
			}
		}
		while (p < end && *p++ != '\n')
			;
	}
}

int plain_reader_read(struct plain_reader *r, uint64_t *values)
{
	for (size_t d = 0; d < r->nr_dirs; d++) {
		uint64_t *row = values + d * r->nr_names;

		for (int f = 0; f < NR_FILES; f++) {
			int fd = r->fds[d * NR_FILES + f];
			ssize_t n;

			if (fd < 0)
				continue;
			n = pread(fd, r->buf, sizeof(r->buf), 0);
			if (n < 0)
				return -errno;
			if (f == F_CURRENT) {
				for (size_t k = 0; k < r->nr_names; k++)
					if (strcmp(r->names[k], "usage") == 0)
						row[k] = strtoull(r->buf, NULL, 10);
				continue;
			}
			parse(r, r->buf, r->buf + n, row);
		}
	}
	return 0;
}

void plain_reader_close(struct plain_reader *r)
{
	if (!r)
		return;
	if (r->fds)
		for (size_t i = 0; i < r->nr_dirs * NR_FILES; i++)
			if (r->fds[i] >= 0)
				close(r->fds[i]);
	free(r->fds);
	free(r->name_len);
	free(r->names);
	free(r);
}
