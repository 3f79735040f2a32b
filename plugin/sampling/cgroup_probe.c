// SPDX-License-Identifier: GPL-2.0-only
#include "sampling/cgroup_probe.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#define PROBE_CHILDREN 64

int cgroup_probe_open(int root_fd, const char *name)
{
	char path[4096];
	struct dirent *de;
	int fd, dfd, tries = 0;
	DIR *d;

	fd = openat(root_fd, name, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	dfd = openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -ENOMEM;
	}
	fd = -ENOENT;
	while (fd < 0 && tries < PROBE_CHILDREN && (de = readdir(d))) {
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		tries++;
		if (snprintf(path, sizeof(path), "%s/%s", de->d_name, name) >= (int)sizeof(path))
			continue;
		fd = openat(root_fd, path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
	}
	closedir(d);
	return fd;
}

bool cgroup_psi_enabled(void)
{
	return access("/proc/pressure/memory", R_OK) == 0;
}
