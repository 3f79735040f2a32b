// SPDX-License-Identifier: GPL-2.0-only
#include "sampling/numa_nodes.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* One decimal node id at *@p, moving *@p past it. */
static int parse_id(const char **p, unsigned long *id)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	*id = strtoul(*p, &end, 10);
	if (errno)
		return -ERANGE;
	*p = end;
	return 0;
}

int numa_nodes_parse(const char *list, unsigned int limit, unsigned int *ids, size_t max, size_t *n)
{
	const char *p = list;
	unsigned long lo, hi;
	int err;

	*n = 0;
	while (*p && *p != '\n') {
		err = parse_id(&p, &lo);
		if (err)
			return err;
		hi = lo;
		if (*p == '-') {
			p++;
			err = parse_id(&p, &hi);
			if (err)
				return err;
		}
		if (hi < lo || (*n && lo <= ids[*n - 1]))
			return -EINVAL;
		if (hi >= limit)
			return -ERANGE;
		for (unsigned long id = lo; id <= hi; id++) {
			if (*n == max)
				return -ERANGE;
			ids[(*n)++] = (unsigned int)id;
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return *n ? 0 : -EINVAL;
}

int numa_nodes_with_memory(unsigned int limit, unsigned int *ids, size_t max, size_t *n)
{
	char buf[4096];
	ssize_t len;
	int fd, err;

	*n = 0;
	fd = open(NUMA_NODES_WITH_MEMORY, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	err = len < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	buf[len] = '\0';
	return numa_nodes_parse(buf, limit, ids, max, n);
}
