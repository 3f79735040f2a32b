// SPDX-License-Identifier: GPL-2.0-only
/*
 * Finds the memory-controller hierarchy under a cgroup root. A candidate
 * directory qualifies when it is on cgroupfs (v1 or v2 magic) and holds a
 * readable memory.stat. Candidates, in order: ROOT, ROOT/memory (v1 in the
 * hybrid layout), ROOT/unified (v2 next to v1 controllers).
 */
#include "sampling/cgroup_mount.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "base/macros.h"
#include "base/log.h"

/*
 * Checks one candidate. Returns 0 with *version set, or a negative errno
 * with @why describing what it found.
 */
static int probe(const char *dir, int *version, char *why, size_t why_len)
{
	struct statfs sfs;
	int dfd = -1, fd = -1, err;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		err = -errno;
		snprintf(why, why_len, "%s: %s", dir, strerror(-err));
		return err == -ENOTDIR ? -ENOENT : err;
	}
	if (fstatfs(dfd, &sfs) < 0) {
		err = -errno;
		snprintf(why, why_len, "%s: statfs: %s", dir, strerror(-err));
		goto close_dir;
	}
	if (sfs.f_type == CGROUP2_SUPER_MAGIC) {
		*version = 2;
	} else if (sfs.f_type == CGROUP_SUPER_MAGIC) {
		*version = 1;
	} else {
		err = -ENOENT;
		snprintf(why, why_len, "%s: not a cgroup filesystem (magic 0x%lx)", dir,
			 (unsigned long)sfs.f_type);
		goto close_dir;
	}
	fd = openat(dfd, "memory.stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(why, why_len, "%s: cgroup v%d without memory.stat (%s)", dir, *version,
			 strerror(-err));
		if (err == -ENOTDIR)
			err = -ENOENT;
		goto close_dir;
	}
	err = 0;
	close(fd);
close_dir:
	close(dfd);
	return err;
}

static int join(char *out, size_t len, const char *root, const char *sub)
{
	size_t rlen = strlen(root);
	int n;

	while (rlen > 1 && root[rlen - 1] == '/')
		rlen--;
	if (sub)
		n = snprintf(out, len, "%.*s%s%s", (int)rlen, root, rlen == 1 && root[0] == '/' ? "" : "/", sub);
	else
		n = snprintf(out, len, "%.*s", (int)rlen, root);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int cgroup_mount_resolve(const char *root, struct cgroup_mount *out)
{
	static const char *const subs[] = { NULL, "memory", "unified" };
	char tried[3][PATH_MAX + 96];
	char dir[PATH_MAX];
	int err = -ENOENT, version = 0;

	memset(out, 0, sizeof(*out));
	if (!root || !root[0]) {
		mb_err("cgroup root is empty");
		return -EINVAL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(subs); i++) {
		int e;

		tried[i][0] = '\0';
		e = join(dir, sizeof(dir), root, subs[i]);
		if (e) {
			snprintf(tried[i], sizeof(tried[i]), "%s/%s: %s", root, subs[i] ? subs[i] : "",
				 strerror(-e));
			if (err == -ENOENT)
				err = e;
			continue;
		}
		e = probe(dir, &version, tried[i], sizeof(tried[i]));
		if (!e) {
			memcpy(out->dir, dir, sizeof(out->dir));
			out->version = version;
			return 0;
		}
		/* the most telling failure wins: a permission problem beats absence */
		if (e != -ENOENT && err == -ENOENT)
			err = e;
		/* the root itself missing: nothing below it either */
		if (i == 0 && (e == -ENOENT || e == -ENOTDIR) && access(root, F_OK) < 0) {
			mb_err("cgroup root %s: %s", root, strerror(errno));
			return -ENOENT;
		}
	}
	mb_err("no memory cgroup hierarchy under %s: tried %s; %s; %s", root, tried[0], tried[1], tried[2]);
	return err;
}
