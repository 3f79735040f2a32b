// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the cgroup index (over a fake tree of plain directories
 * under /tmp) and of cgroup_mount_resolve (its errors on plain
 * directories; its successes only where the host has cgroupfs, read only).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "sampling/cgroup_index.h"
#include "sampling/cgroup_mount.h"
#include "base/log.h"

static char last_log[1024];

static void capture_log(int level, const char *msg)
{
	snprintf(last_log, sizeof(last_log), "%s", msg);
}

struct tree {
	char root[PATH_MAX];
	struct cgroup_index *idx;
};

/* Removes everything below @dfd (closed here); fd-relative, so deeper than PATH_MAX is fine. */
static void rm_below(int dfd)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;

	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type == DT_DIR) {
			sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
			if (sub >= 0)
				rm_below(sub);
			unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
		} else {
			unlinkat(dirfd(d), de->d_name, 0);
		}
		rewinddir(d);
	}
	closedir(d);
}

static int setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	strcpy(t->root, "/tmp/textbe-test-XXXXXX");
	if (!mkdtemp(t->root))
		return -1;
	last_log[0] = '\0';
	mb_log_set_sink(capture_log);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tree *t = *state;

	cgroup_index_close(t->idx);
	rm_below(open(t->root, O_RDONLY | O_DIRECTORY));
	rmdir(t->root);
	free(t);
	mb_log_set_sink(NULL);
	return 0;
}

/* mkdir ROOT/rel (rel without leading '/'). */
static void mk(const struct tree *t, const char *rel)
{
	char p[PATH_MAX * 2];

	snprintf(p, sizeof(p), "%s/%s", t->root, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static void rm(const struct tree *t, const char *rel)
{
	char p[PATH_MAX * 2];

	snprintf(p, sizeof(p), "%s/%s", t->root, rel);
	assert_int_equal(rmdir(p), 0);
}

static void touch(const struct tree *t, const char *rel)
{
	char p[PATH_MAX * 2];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", t->root, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
}

static uint64_t ino(const struct tree *t, const char *rel)
{
	char p[PATH_MAX * 2];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", t->root, rel);
	assert_int_equal(lstat(p, &st), 0);
	return (uint64_t)st.st_ino;
}

/* Asserts that the index maps ROOT/rel's inode to @path at @depth. */
static void expect(const struct tree *t, const char *rel, const char *path, int depth)
{
	const struct cgroup_entry *e = cgroup_index_find(t->idx, ino(t, rel));

	assert_non_null(e);
	assert_string_equal(e->path, path);
	assert_int_equal(e->depth, depth);
}

static void test_build(void **state)
{
	struct tree *t = *state;

	mk(t, "a");
	mk(t, "a/b");
	mk(t, "c");
	touch(t, "memory.stat");
	touch(t, "a/memory.stat");
	assert_int_equal(cgroup_index_open(t->root, -1, &t->idx), 0);
	assert_int_equal(cgroup_index_count(t->idx), 4);
	expect(t, ".", "/", 0);
	expect(t, "a", "/a", 1);
	expect(t, "a/b", "/a/b", 2);
	expect(t, "c", "/c", 1);
}

static void test_order_parents_first(void **state)
{
	struct tree *t = *state;
	static const char *const want[] = { "/", "/a", "/a/b", "/a b", "/a0", "/b" };

	mk(t, "b");
	mk(t, "a0");
	mk(t, "a b");
	mk(t, "a");
	mk(t, "a/b");
	assert_int_equal(cgroup_index_open(t->root, -1, &t->idx), 0);
	assert_int_equal(cgroup_index_count(t->idx), 6);
	for (size_t i = 0; i < 6; i++)
		assert_string_equal(cgroup_index_at(t->idx, i)->path, want[i]);
	assert_null(cgroup_index_at(t->idx, 6));
}

static void test_unknown_id(void **state)
{
	struct tree *t = *state;

	assert_int_equal(cgroup_index_open(t->root, -1, &t->idx), 0);
	assert_null(cgroup_index_find(t->idx, 0));
	assert_null(cgroup_index_find(t->idx, UINT64_MAX));
	assert_null(cgroup_index_find(t->idx, ino(t, ".") + 1000000));
}

static void test_skips_files_and_symlinks(void **state)
{
	struct tree *t = *state;
	char link[PATH_MAX + 8];

	mk(t, "a");
	touch(t, "plain");
	snprintf(link, sizeof(link), "%s/ln", t->root);
	assert_int_equal(symlink("a", link), 0);
	assert_int_equal(cgroup_index_open(t->root, -1, &t->idx), 0);
	assert_int_equal(cgroup_index_count(t->idx), 2);
}

static void test_max_depth(void **state)
{
	struct tree *t = *state;

	mk(t, "a");
	mk(t, "a/b");
	mk(t, "a/b/c");
	assert_int_equal(cgroup_index_open(t->root, 0, &t->idx), 0);
	assert_int_equal(cgroup_index_count(t->idx), 1);
	cgroup_index_close(t->idx);
	assert_int_equal(cgroup_index_open(t->root, 1, &t->idx), 0);
	assert_int_equal(cgroup_index_count(t->idx), 2);
	assert_null(cgroup_index_find(t->idx, ino(t, "a/b")));
	/* growth below the limit stays invisible after a refresh */
	mk(t, "a/b/d");
	mk(t, "e");
	assert_int_equal(cgroup_index_refresh(t->idx), 0);
	assert_int_equal(cgroup_index_count(t->idx), 3);
	expect(t, "e", "/e", 1);
}

static void test_refresh_add(void **state)
{
	struct tree *t = *state;

	mk(t, "a");
	assert_int_equal(cgroup_index_open(t->root, -1, &t->idx), 0);
	mk(t, "a/new");
	mk(t, "a/new/deeper");
	mk(t, "top");
	assert_int_equal(cgroup_index_refresh(t->idx), 0);
	assert_int_equal(cgroup_index_count(t->idx), 5);
	expect(t, "a/new/deeper", "/a/new/deeper", 3);
	expect(t, "top", "/top", 1);
}

static void test_refresh_remove(void **state)
{
	struct tree *t = *state;
	uint64_t gone_b, gone_c;

	mk(t, "a");
	mk(t, "a/b");
	mk(t, "a/b/c");
	assert_int_equal(cgroup_index_open(t->root, -1, &t->idx), 0);
	gone_b = ino(t, "a/b");
	gone_c = ino(t, "a/b/c");
	rm(t, "a/b/c");
	rm(t, "a/b");
	assert_int_equal(cgroup_index_refresh(t->idx), 0);
	assert_int_equal(cgroup_index_count(t->idx), 2);
	assert_null(cgroup_index_find(t->idx, gone_b));
	assert_null(cgroup_index_find(t->idx, gone_c));
	expect(t, "a", "/a", 1);
}

static void test_refresh_remove_and_add_same_parent(void **state)
{
	struct tree *t = *state;
	uint64_t gone;

	/* the parent's link count does not change: the vanished child must trigger the rescan */
	mk(t, "p");
	mk(t, "p/old");
	assert_int_equal(cgroup_index_open(t->root, -1, &t->idx), 0);
	gone = ino(t, "p/old");
	rm(t, "p/old");
	mk(t, "p/new");
	assert_int_equal(cgroup_index_refresh(t->idx), 0);
	assert_int_equal(cgroup_index_count(t->idx), 3);
	expect(t, "p/new", "/p/new", 2);
	if (ino(t, "p/new") != gone) /* filesystems may hand the inode number out again */
		assert_null(cgroup_index_find(t->idx, gone));
}

static void test_refresh_recreated_same_name(void **state)
{
	struct tree *t = *state;
	uint64_t old_id;

	mk(t, "x");
	mk(t, "keep");
	assert_int_equal(cgroup_index_open(t->root, -1, &t->idx), 0);
	old_id = ino(t, "x");
	rm(t, "x");
	mk(t, "keep/tmp"); /* takes the freed inode number on some filesystems */
	mk(t, "x");
	assert_int_equal(cgroup_index_refresh(t->idx), 0);
	assert_int_equal(cgroup_index_count(t->idx), 4);
	expect(t, "x", "/x", 1);
	expect(t, "keep/tmp", "/keep/tmp", 2);
	if (ino(t, "x") != old_id && ino(t, "keep/tmp") != old_id)
		assert_null(cgroup_index_find(t->idx, old_id));
}

static void test_refresh_rename(void **state)
{
	struct tree *t = *state;
	char a[PATH_MAX * 2], b[PATH_MAX * 2];
	uint64_t id;

	mk(t, "before");
	mk(t, "before/child");
	assert_int_equal(cgroup_index_open(t->root, -1, &t->idx), 0);
	id = ino(t, "before");
	snprintf(a, sizeof(a), "%s/before", t->root);
	snprintf(b, sizeof(b), "%s/after", t->root);
	assert_int_equal(rename(a, b), 0);
	assert_int_equal(cgroup_index_refresh(t->idx), 0);
	assert_int_equal(cgroup_index_count(t->idx), 3);
	assert_int_equal(ino(t, "after"), id);
	expect(t, "after", "/after", 1);
	expect(t, "after/child", "/after/child", 2);
}

static void test_refresh_unchanged(void **state)
{
	struct tree *t = *state;

	mk(t, "a");
	mk(t, "a/b");
	assert_int_equal(cgroup_index_open(t->root, -1, &t->idx), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(cgroup_index_refresh(t->idx), 0);
	assert_int_equal(cgroup_index_count(t->idx), 3);
	expect(t, "a/b", "/a/b", 2);
}

static void test_odd_names(void **state)
{
	struct tree *t = *state;
	char longname[256], path[512];

	memset(longname, 'L', 255);
	longname[255] = '\0';
	mk(t, "with space");
	mk(t, "new\nline");
	mk(t, "bad\xff\xfeutf8");
	mk(t, "quote\"'`$");
	mk(t, "-dash");
	mk(t, "...");
	mk(t, longname);
	snprintf(path, sizeof(path), "%s/%s", longname, "with space");
	mk(t, path);
	assert_int_equal(cgroup_index_open(t->root, -1, &t->idx), 0);
	assert_int_equal(cgroup_index_count(t->idx), 9);
	expect(t, "with space", "/with space", 1);
	expect(t, "new\nline", "/new\nline", 1);
	expect(t, "bad\xff\xfeutf8", "/bad\xff\xfeutf8", 1);
	expect(t, "quote\"'`$", "/quote\"'`$", 1);
	expect(t, "...", "/...", 1);
	snprintf(path, sizeof(path), "/%s/with space", longname);
	expect(t, path + 1, path, 2);
	/* and after a rename among them */
	rm(t, "new\nline");
	mk(t, "tab\there");
	assert_int_equal(cgroup_index_refresh(t->idx), 0);
	assert_int_equal(cgroup_index_count(t->idx), 9);
	expect(t, "tab\there", "/tab\there", 1);
}

/* Builds a chain of 255-byte directories as deep as PATH_MAX allows, with mkdirat. */
static void test_deep_path(void **state)
{
	struct tree *t = *state;
	char name[256];
	int fd, depth = 0;
	size_t len = 0;

	memset(name, 'd', 255);
	name[255] = '\0';
	fd = open(t->root, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	/* "/" + 255 bytes per level while more than one more level fits in PATH_MAX - 1 */
	while (PATH_MAX - 1 - len > 256 + 2) {
		int next;

		assert_int_equal(mkdirat(fd, name, 0755), 0);
		next = openat(fd, name, O_RDONLY | O_DIRECTORY);
		assert_true(next >= 0);
		close(fd);
		fd = next;
		len += 256;
		depth++;
	}
	/* one more level with a name that brings the path to PATH_MAX - 1 bytes */
	memset(name, 'e', sizeof(name));
	name[PATH_MAX - 1 - len - 1] = '\0';
	assert_int_equal(mkdirat(fd, name, 0755), 0);
	depth++;
	/* and one that would exceed it: skipped with a warning, not an error */
	int last = openat(fd, name, O_RDONLY | O_DIRECTORY);

	assert_true(last >= 0);
	assert_int_equal(mkdirat(last, "toolong", 0755), 0);
	close(last);
	close(fd);

	assert_int_equal(cgroup_index_open(t->root, -1, &t->idx), 0);
	assert_int_equal(cgroup_index_count(t->idx), (size_t)depth + 1);
	const struct cgroup_entry *e = cgroup_index_at(t->idx, (size_t)depth);

	assert_non_null(e);
	assert_int_equal(e->depth, depth);
	assert_int_equal(strlen(e->path), PATH_MAX - 1);
	assert_non_null(strstr(last_log, "longer than"));
	assert_int_equal(cgroup_index_refresh(t->idx), 0);
	assert_int_equal(cgroup_index_count(t->idx), (size_t)depth + 1);
}

static void test_open_missing_root(void **state)
{
	struct tree *t = *state;
	char p[PATH_MAX + 16];
	struct cgroup_index *idx = (void *)1;

	snprintf(p, sizeof(p), "%s/nope", t->root);
	assert_int_equal(cgroup_index_open(p, -1, &idx), -ENOENT);
	assert_null(idx);
	assert_non_null(strstr(last_log, p));
}

static void test_close_null(void **state)
{
	cgroup_index_close(NULL);
}

static double secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 10,100 directories: build, a no-change refresh, a refresh after one change anywhere. */
static void test_scale_10k(void **state)
{
	struct tree *t = *state;
	char p[64];
	double t0, t_open, t_refresh, t_change;

	for (int i = 0; i < 100; i++) {
		snprintf(p, sizeof(p), "s%d", i);
		mk(t, p);
		for (int j = 0; j < 100; j++) {
			snprintf(p, sizeof(p), "s%d/c%d", i, j);
			mk(t, p);
		}
	}
	t0 = secs();
	assert_int_equal(cgroup_index_open(t->root, -1, &t->idx), 0);
	t_open = secs() - t0;
	assert_int_equal(cgroup_index_count(t->idx), 10101);
	t0 = secs();
	assert_int_equal(cgroup_index_refresh(t->idx), 0);
	t_refresh = secs() - t0;
	mk(t, "s50/c50/new");
	rm(t, "s7/c3");
	t0 = secs();
	assert_int_equal(cgroup_index_refresh(t->idx), 0);
	t_change = secs() - t0;
	assert_int_equal(cgroup_index_count(t->idx), 10101);
	expect(t, "s50/c50/new", "/s50/c50/new", 3);
	print_message("10101 dirs: open %.1f ms, refresh %.1f ms, refresh after 2 changes %.1f ms\n",
		      t_open * 1e3, t_refresh * 1e3, t_change * 1e3);
}

/* ------------------------------------------------------------ cgroup_mount_resolve */

static void test_mount_plain_dir_enoent(void **state)
{
	struct tree *t = *state;
	struct cgroup_mount m;

	mk(t, "memory");
	mk(t, "unified");
	touch(t, "memory.stat");
	touch(t, "memory/memory.stat");
	assert_int_equal(cgroup_mount_resolve(t->root, &m), -ENOENT);
	assert_non_null(strstr(last_log, t->root));
	assert_non_null(strstr(last_log, "not a cgroup filesystem"));
	assert_non_null(strstr(last_log, "unified"));
}

static void test_mount_missing_root(void **state)
{
	struct tree *t = *state;
	struct cgroup_mount m;
	char p[PATH_MAX + 16];

	snprintf(p, sizeof(p), "%s/absent", t->root);
	assert_int_equal(cgroup_mount_resolve(p, &m), -ENOENT);
	assert_non_null(strstr(last_log, p));
}

static void test_mount_file_root(void **state)
{
	struct tree *t = *state;
	struct cgroup_mount m;
	char p[PATH_MAX + 16];

	touch(t, "file");
	snprintf(p, sizeof(p), "%s/file", t->root);
	assert_int_equal(cgroup_mount_resolve(p, &m), -ENOENT);
	assert_non_null(strstr(last_log, p));
}

static void test_mount_empty_root(void **state)
{
	struct cgroup_mount m;

	assert_int_equal(cgroup_mount_resolve("", &m), -EINVAL);
}

/* The host's own hierarchy, read only; skipped where there is none. */
static void test_mount_host(void **state)
{
	struct cgroup_mount m;
	struct statfs sfs;

	if (statfs("/sys/fs/cgroup", &sfs) < 0)
		skip();
	if (access("/sys/fs/cgroup/memory/memory.stat", R_OK) == 0) {
		/* hybrid v1 layout */
		assert_int_equal(cgroup_mount_resolve("/sys/fs/cgroup/", &m), 0);
		assert_string_equal(m.dir, "/sys/fs/cgroup/memory");
		assert_int_equal(m.version, 1);
		assert_int_equal(cgroup_mount_resolve("/sys/fs/cgroup/memory", &m), 0);
		assert_int_equal(m.version, 1);
		if (statfs("/sys/fs/cgroup/unified", &sfs) == 0 && sfs.f_type == CGROUP2_SUPER_MAGIC &&
		    access("/sys/fs/cgroup/unified/memory.stat", F_OK) < 0)
			assert_int_equal(cgroup_mount_resolve("/sys/fs/cgroup/unified", &m), -ENOENT);
	} else if (sfs.f_type == CGROUP2_SUPER_MAGIC && access("/sys/fs/cgroup/memory.stat", R_OK) == 0) {
		assert_int_equal(cgroup_mount_resolve("/sys/fs/cgroup", &m), 0);
		assert_string_equal(m.dir, "/sys/fs/cgroup");
		assert_int_equal(m.version, 2);
	} else {
		skip();
	}
}

/* ROOT/cgroup.stat as cgroup v2 keeps it: "nr_descendants N". */
static void write_descendants(const struct tree *t, int n)
{
	char p[PATH_MAX * 2];
	FILE *f;

	snprintf(p, sizeof(p), "%s/cgroup.stat", t->root);
	f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, "nr_descendants %d\nnr_dying_descendants 0\n", n);
	fclose(f);
}

static void test_probe_skips_rescan_while_count_unchanged(void **state)
{
	struct tree *t = *state;

	mk(t, "a");
	write_descendants(t, 1);
	assert_int_equal(cgroup_index_open(t->root, -1, &t->idx), 0);
	mk(t, "b"); /* the count was not updated: the probe must not look */
	assert_int_equal(cgroup_index_refresh_if_changed(t->idx), 0);
	assert_null(cgroup_index_find(t->idx, ino(t, "b")));
	write_descendants(t, 2);
	assert_int_equal(cgroup_index_refresh_if_changed(t->idx), 0);
	assert_non_null(cgroup_index_find(t->idx, ino(t, "b")));
}

static void test_probe_rescans_when_marked_stale(void **state)
{
	struct tree *t = *state;
	uint64_t a;

	mk(t, "a");
	write_descendants(t, 1);
	assert_int_equal(cgroup_index_open(t->root, -1, &t->idx), 0);
	a = ino(t, "a");
	mk(t, "c"); /* before the rmdir, so that c does not reuse a's inode */
	rm(t, "a"); /* same count: only a failed read of "a" tells */
	cgroup_index_mark_stale(t->idx);
	assert_int_equal(cgroup_index_refresh_if_changed(t->idx), 0);
	assert_null(cgroup_index_find(t->idx, a));
	assert_non_null(cgroup_index_find(t->idx, ino(t, "c")));
}

static void test_probe_full_refresh_periodically(void **state)
{
	struct tree *t = *state;
	int i;

	write_descendants(t, 0);
	assert_int_equal(cgroup_index_open(t->root, -1, &t->idx), 0);
	mk(t, "late");
	for (i = 0; i < 40 && !cgroup_index_find(t->idx, ino(t, "late")); i++)
		assert_int_equal(cgroup_index_refresh_if_changed(t->idx), 0);
	assert_non_null(cgroup_index_find(t->idx, ino(t, "late")));
	assert_true(i > 1);
}

static void test_probe_without_cgroup_stat_always_rescans(void **state)
{
	struct tree *t = *state;

	assert_int_equal(cgroup_index_open(t->root, -1, &t->idx), 0);
	mk(t, "x");
	assert_int_equal(cgroup_index_refresh_if_changed(t->idx), 0);
	assert_non_null(cgroup_index_find(t->idx, ino(t, "x")));
}

/* ------------------------------------------------------------ the walk's view */

/* walk_add of (@id, @parent, @depth, @name) that must succeed; returns the entry (NULL: gone). */
static const struct cgroup_entry *walk(struct tree *t, uint64_t id, uint64_t parent, int depth, const char *name)
{
	const struct cgroup_walk_item it = {
		.id = id, .parent_id = parent, .depth = depth, .name = name,
		.name_len = name ? strlen(name) : SIZE_MAX,
	};
	const struct cgroup_entry *e = (void *)1;

	assert_int_equal(cgroup_index_walk_add(t->idx, &it, &e), 0);
	return e;
}

/* Opens the index over the whole tree; returns the root's id. */
static uint64_t open_index(struct tree *t)
{
	assert_int_equal(cgroup_index_open(t->root, -1, &t->idx), 0);
	return ino(t, ".");
}

/* An id cgroupfs never had gets its path from its parent's and its name: no rescan needed. */
static void test_walk_adds_unknown_without_cgroupfs(void **state)
{
	struct tree *t = *state;
	uint64_t root, a;

	mk(t, "a");
	root = open_index(t);
	a = ino(t, "a");
	cgroup_index_walk_begin(t->idx);
	assert_string_equal(walk(t, root, 0, 0, "ignored")->path, "/");
	assert_string_equal(walk(t, a, root, 1, "a")->path, "/a");
	/* not on disk: only the record names them */
	assert_string_equal(walk(t, 900000001, a, 2, "new")->path, "/a/new");
	assert_string_equal(walk(t, 900000002, 900000001, 3, "x y\\z")->path, "/a/new/x y\\z");
	assert_int_equal(walk(t, 900000002, 900000001, 3, "x y\\z")->depth, 3);
	cgroup_index_walk_end(t->idx);
	assert_int_equal(cgroup_index_count(t->idx), 4);
	assert_string_equal(cgroup_index_find(t->idx, 900000001)->path, "/a/new");
}

/* A rename keeps the id: the new name shows, and so does every descendant's new path. */
static void test_walk_rename_moves_subtree(void **state)
{
	struct tree *t = *state;
	uint64_t root, a, b;

	mk(t, "a");
	mk(t, "a/b");
	root = open_index(t);
	a = ino(t, "a");
	b = ino(t, "a/b");
	cgroup_index_walk_begin(t->idx);
	walk(t, root, 0, 0, "");
	assert_string_equal(walk(t, a, root, 1, "renamed")->path, "/renamed");
	/* b's own name is unchanged, its parent's is not */
	assert_string_equal(walk(t, b, a, 2, "b")->path, "/renamed/b");
	cgroup_index_walk_end(t->idx);
	assert_string_equal(cgroup_index_find(t->idx, b)->path, "/renamed/b");
	assert_int_equal(cgroup_index_count(t->idx), 3);
}

/* Ids the walk no longer reports are dropped: the index stays the size of the live tree. */
static void test_walk_forgets_unreported(void **state)
{
	struct tree *t = *state;
	uint64_t root, a, id;

	mk(t, "a");
	mk(t, "gone");
	root = open_index(t);
	a = ino(t, "a");
	for (id = 1000000; id < 1000000 + 5000; id++) {
		cgroup_index_walk_begin(t->idx);
		walk(t, root, 0, 0, "");
		walk(t, a, root, 1, "a");
		walk(t, id, a, 2, "churn");
		cgroup_index_walk_end(t->idx);
		assert_int_equal(cgroup_index_count(t->idx), 3);
	}
	assert_null(cgroup_index_find(t->idx, ino(t, "gone")));
	assert_null(cgroup_index_find(t->idx, id - 2));
	assert_string_equal(cgroup_index_find(t->idx, id - 1)->path, "/a/churn");
}

/* A record the walk cannot place (parent not reported, no name) falls back to cgroupfs. */
static void test_walk_falls_back_to_refresh(void **state)
{
	struct tree *t = *state;
	uint64_t root;

	mk(t, "a");
	root = open_index(t);
	mk(t, "a/late");
	cgroup_index_walk_begin(t->idx);
	walk(t, root, 0, 0, "");
	/* parent "a" not reported in this walk: found by a refresh */
	assert_string_equal(walk(t, ino(t, "a/late"), ino(t, "a"), 2, "late")->path, "/a/late");
	/* no name: known ids keep their path, unknown ones are gone */
	assert_string_equal(walk(t, ino(t, "a"), root, 1, NULL)->path, "/a");
	assert_null(walk(t, 900000003, root, 1, NULL));
	assert_null(walk(t, 900000004, root, 1, "bad/name"));
	assert_null(walk(t, 900000005, root, 1, ".."));
	cgroup_index_walk_end(t->idx);
	assert_int_equal(cgroup_index_count(t->idx), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_build, setup, teardown),
		cmocka_unit_test_setup_teardown(test_order_parents_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_skips_files_and_symlinks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_depth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refresh_add, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refresh_remove, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refresh_remove_and_add_same_parent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refresh_recreated_same_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refresh_rename, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refresh_unchanged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_odd_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deep_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_missing_root, setup, teardown),
		cmocka_unit_test(test_close_null),
		cmocka_unit_test_setup_teardown(test_scale_10k, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mount_plain_dir_enoent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mount_missing_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mount_file_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mount_empty_root, setup, teardown),
		cmocka_unit_test(test_mount_host),
		cmocka_unit_test_setup_teardown(test_probe_skips_rescan_while_count_unchanged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_rescans_when_marked_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_full_refresh_periodically, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_without_cgroup_stat_always_rescans, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_adds_unknown_without_cgroupfs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_rename_moves_subtree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_forgets_unreported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_falls_back_to_refresh, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
