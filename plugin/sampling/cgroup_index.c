// SPDX-License-Identifier: GPL-2.0-only
/*
 * cgroup id -> path index. The id is the directory's inode number; the
 * nodes are kept in a u64_map keyed by it.
 *
 * A refresh does not re-read every directory. It stats each known cgroup
 * (one fstatat, no open): a cgroup that vanished or changed inode is dropped
 * and its parent is marked for a rescan; a directory whose link count
 * changed (kernfs, like most filesystems, gives a directory 2 + its number
 * of subdirectories) is rescanned. Between them these catch additions,
 * removals and renames. Only marked directories and new subtrees are read.
 *
 * The bpf backend's walk reports each cgroup with its parent's id and its
 * name, in pre-order: cgroup_index_walk_add() builds or checks a path from
 * the parent's without any system call, and walk_end() forgets what the
 * walk no longer reports. Under churn no sample pays for a rescan.
 *
 * Walking never holds more than one directory fd: each directory is opened
 * from the root by its relative path, its subdirectories are queued, and it
 * is closed before the next one is opened. So depth costs no fds, and paths
 * are limited to PATH_MAX.
 */
#include "sampling/cgroup_index.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/u64_map.h"
#include "sampling/memory_stat_parse.h"

/* Even with no sign of change, rescan this often (see the change probe). */
#define FULL_REFRESH_EVERY 32

struct node {
	struct cgroup_entry e;
	uint64_t parent_id; /* 0 for the root */
	nlink_t nlink;      /* as last seen */
	bool dirty;         /* rescan its subdirectories */
	uint32_t seen;      /* the last walk that reported it, 0: none */
	size_t len;         /* strlen(path) */
	char path[];
};

/* A directory waiting to be read. */
struct pending {
	char *path;
	size_t len;
	int depth;
	uint64_t parent_id;
	uint64_t known_id; /* rescan of an indexed directory, else 0 */
};

struct cgroup_index {
	char *root_dir;
	int max_depth;
	uint64_t root_id;

	struct u64_map *nodes; /* id -> struct node, which it owns */

	struct node **order; /* pre-order, rebuilt when membership changes */
	size_t order_cap;
	bool order_stale;

	struct pending *todo;
	size_t nr_todo, todo_cap;

	bool warned_long, warned_open;

	/* the walk in progress (cgroup_index_walk_*) */
	uint32_t walk;
	size_t nr_seen;
	bool walk_refreshed;

	/* change probe: the root's cgroup.stat (v2 only), -1 without it */
	int stat_fd;
	uint64_t descendants;
	bool stale;
	unsigned int unchanged_probes;
};

/* ------------------------------------------------------------ the nodes */

static struct node *node_find(const struct cgroup_index *idx, uint64_t id)
{
	return u64_map_get(idx->nodes, id);
}

/* Takes ownership of @n; its id must not be indexed yet. */
static int node_insert(struct cgroup_index *idx, struct node *n)
{
	int err = u64_map_put(idx->nodes, n->e.id, n);

	if (!err)
		idx->order_stale = true;
	return err;
}

/* Removes and frees the node of @id. */
static void node_remove(struct cgroup_index *idx, uint64_t id)
{
	struct node *n = u64_map_remove(idx->nodes, id);

	if (!n)
		return;
	free(n);
	idx->order_stale = true;
}

static struct node *node_new(uint64_t id, const char *path, size_t len, int depth, uint64_t parent_id,
			     nlink_t nlink)
{
	struct node *n = malloc(sizeof(*n) + len + 1);

	if (!n)
		return NULL;
	memcpy(n->path, path, len + 1);
	n->len = len;
	n->e.id = id;
	n->e.depth = depth;
	n->e.path = n->path;
	n->parent_id = parent_id;
	n->nlink = nlink;
	n->dirty = false;
	n->seen = 0;
	return n;
}

/* Collects the ids of the nodes matching @match into a new array. */
static int collect_ids(const struct cgroup_index *idx, bool (*match)(const struct node *, const void *),
		       const void *arg, uint64_t **out, size_t *nr)
{
	size_t count = u64_map_count(idx->nodes), n = 0, pos = 0;
	uint64_t *ids = NULL, id;
	void *v;

	if (count) {
		ids = malloc(count * sizeof(*ids));
		if (!ids)
			return -ENOMEM;
	}
	while (u64_map_next(idx->nodes, &pos, &id, &v))
		if (match(v, arg))
			ids[n++] = id;
	*out = ids;
	*nr = n;
	return 0;
}

static bool in_subtree(const struct node *n, const void *arg)
{
	const struct node *top = arg;

	if (top->len == 1) /* "/" */
		return true;
	return n->len >= top->len && memcmp(n->path, top->path, top->len) == 0 &&
	       (n->len == top->len || n->path[top->len] == '/');
}

/* Drops @top and everything below it (a renamed or replaced directory). */
static int remove_subtree(struct cgroup_index *idx, struct node *top)
{
	uint64_t *ids;
	size_t nr;
	int err;

	err = collect_ids(idx, in_subtree, top, &ids, &nr);
	if (err)
		return err;
	for (size_t i = 0; i < nr; i++)
		node_remove(idx, ids[i]);
	free(ids);
	return 0;
}

/* ------------------------------------------------------------ walking */

static bool descends(const struct cgroup_index *idx, int depth)
{
	return idx->max_depth < 0 || depth < idx->max_depth;
}

static void warn_long(struct cgroup_index *idx)
{
	if (!idx->warned_long)
		mb_warn("cgroup index %s: skipping cgroups whose path is longer than %d bytes",
			idx->root_dir, PATH_MAX - 1);
	idx->warned_long = true;
}

/* The path handed to *at() calls: "a/b" for "/a/b", "." for "/". */
static const char *rel(const char *path)
{
	return path[1] ? path + 1 : ".";
}

static int push(struct cgroup_index *idx, const char *path, size_t len, int depth, uint64_t parent_id,
		uint64_t known_id)
{
	struct pending *p;

	if (idx->nr_todo == idx->todo_cap) {
		size_t cap = idx->todo_cap ? idx->todo_cap * 2 : 64;

		p = realloc(idx->todo, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		idx->todo = p;
		idx->todo_cap = cap;
	}
	p = &idx->todo[idx->nr_todo];
	p->path = malloc(len + 1);
	if (!p->path)
		return -ENOMEM;
	memcpy(p->path, path, len + 1);
	p->len = len;
	p->depth = depth;
	p->parent_id = parent_id;
	p->known_id = known_id;
	idx->nr_todo++;
	return 0;
}

static void drop_todo(struct cgroup_index *idx)
{
	while (idx->nr_todo)
		free(idx->todo[--idx->nr_todo].path);
}

/* Queues the subdirectories of @dir (open on @fd, which this closes) not yet indexed. */
static int queue_children(struct cgroup_index *idx, int fd, const struct pending *dir, uint64_t dir_id)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int err = 0;

	d = fdopendir(fd);
	if (!d) {
		err = -errno;
		close(fd);
		return err;
	}
	/* "/" + name for the root, "/a/b" + "/" + name below */
	size_t base = dir->len == 1 ? 0 : dir->len;

	memcpy(path, dir->path, base);
	path[base] = '/';
	while ((errno = 0, de = readdir(d))) {
		size_t nlen, len;
		struct node *known;

		if (de->d_name[0] == '.' &&
		    (de->d_name[1] == '\0' || (de->d_name[1] == '.' && de->d_name[2] == '\0')))
			continue;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;

			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
				continue;
		} else if (de->d_type != DT_DIR) {
			continue;
		}
		nlen = strlen(de->d_name);
		len = base + 1 + nlen;
		if (len >= PATH_MAX) {
			warn_long(idx);
			continue;
		}
		memcpy(path + base + 1, de->d_name, nlen + 1);
		known = node_find(idx, (uint64_t)de->d_ino);
		if (known && known->len == len && memcmp(known->path, path, len) == 0)
			continue;
		err = push(idx, path, len, dir->depth + 1, dir_id, 0);
		if (err)
			break;
	}
	if (!err && errno)
		err = -errno;
	closedir(d);
	return err;
}

/* Reads one queued directory: indexes it if new, queues its subdirectories. */
static int visit(struct cgroup_index *idx, int root_fd, const struct pending *p)
{
	struct node *n;
	struct stat st;
	int fd = -1, err;

	fd = openat(root_fd, rel(p->path), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (err == -ENOENT || err == -ENOTDIR || err == -ELOOP || err == -ENODEV)
			return 0; /* vanished meanwhile */
		if (!idx->warned_open)
			mb_warn("cgroup index: cannot open %s%s: %s", idx->root_dir, p->path, strerror(-err));
		idx->warned_open = true;
		return 0;
	}
	if (p->known_id) {
		if (!node_find(idx, p->known_id))
			goto close_fd_ok; /* dropped as renamed meanwhile */
		return queue_children(idx, fd, p, p->known_id);
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto close_fd;
	}
	n = node_find(idx, (uint64_t)st.st_ino);
	if (n && n->len == p->len && memcmp(n->path, p->path, p->len) == 0) {
		n->nlink = st.st_nlink;
	} else {
		if (n) {
			/* the same cgroup under another name: re-index its subtree */
			err = remove_subtree(idx, n);
			if (err)
				goto close_fd;
		}
		n = node_new((uint64_t)st.st_ino, p->path, p->len, p->depth, p->parent_id, st.st_nlink);
		if (!n) {
			err = -ENOMEM;
			goto close_fd;
		}
		err = node_insert(idx, n);
		if (err) {
			free(n);
			goto close_fd;
		}
	}
	if (p->depth == 0)
		idx->root_id = n->e.id;
	if (!descends(idx, p->depth))
		goto close_fd_ok;
	return queue_children(idx, fd, p, n->e.id);

close_fd_ok:
	err = 0;
close_fd:
	close(fd);
	return err;
}

static int run_todo(struct cgroup_index *idx, int root_fd)
{
	int err = 0;

	while (idx->nr_todo && !err) {
		struct pending p = idx->todo[--idx->nr_todo];

		err = visit(idx, root_fd, &p);
		free(p.path);
	}
	drop_todo(idx);
	return err;
}

static int cmp_path(const void *a, const void *b)
{
	const unsigned char *x = (const unsigned char *)(*(struct node *const *)a)->path;
	const unsigned char *y = (const unsigned char *)(*(struct node *const *)b)->path;

	/* '/' sorts before every other byte: a parent comes right before its subtree */
	for (;; x++, y++) {
		unsigned int cx = *x == '/' ? 1 : *x ? *x + 1u : 0;
		unsigned int cy = *y == '/' ? 1 : *y ? *y + 1u : 0;

		if (cx != cy)
			return cx < cy ? -1 : 1;
		if (!cx)
			return 0;
	}
}

static int rebuild_order(struct cgroup_index *idx)
{
	size_t count = u64_map_count(idx->nodes), n = 0, pos = 0;
	uint64_t id;
	void *v;

	if (!idx->order_stale)
		return 0;
	if (count > idx->order_cap) {
		struct node **o = realloc(idx->order, count * sizeof(*o));

		if (!o)
			return -ENOMEM;
		idx->order = o;
		idx->order_cap = count;
	}
	while (u64_map_next(idx->nodes, &pos, &id, &v))
		idx->order[n++] = v;
	qsort(idx->order, n, sizeof(*idx->order), cmp_path);
	idx->order_stale = false;
	return 0;
}

static int open_root(const struct cgroup_index *idx, int *fd)
{
	*fd = open(idx->root_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0) {
		int err = -errno;

		mb_err("cgroup index: cannot open %s: %s", idx->root_dir, strerror(-err));
		return err;
	}
	return 0;
}

static bool free_node(uint64_t id, void *n, void *arg)
{
	free(n);
	return true;
}

static void clear(struct cgroup_index *idx)
{
	u64_map_remove_if(idx->nodes, free_node, NULL);
	idx->order_stale = true;
}

/* ------------------------------------------------------------ change probe */

/*
 * cgroup v2 counts a cgroup's live descendants in its cgroup.stat. While
 * that count stays what it was at the last refresh and no indexed cgroup
 * failed to read since (cgroup_index_mark_stale), the tree is taken as
 * unchanged: an addition changes the count, a removal of an indexed cgroup
 * fails its reads. One read replaces a stat per cgroup. What the count can
 * miss (a removal outside the index paired with an addition) is caught by a
 * full refresh every FULL_REFRESH_EVERY probes.
 */
static int read_descendants(const struct cgroup_index *idx, uint64_t *out)
{
	char buf[256];
	ssize_t n;

	n = pread(idx->stat_fd, buf, sizeof(buf), 0);
	if (n < 0)
		return -errno;
	return memory_stat_find(buf, (size_t)n, "nr_descendants", out);
}

void cgroup_index_mark_stale(struct cgroup_index *idx)
{
	idx->stale = true;
}

int cgroup_index_refresh_if_changed(struct cgroup_index *idx)
{
	uint64_t descendants = 0;
	int err;

	if (idx->stat_fd >= 0 && !idx->stale && ++idx->unchanged_probes < FULL_REFRESH_EVERY &&
	    read_descendants(idx, &descendants) == 0 && descendants == idx->descendants)
		return 0;
	err = cgroup_index_refresh(idx);
	if (err)
		return err;
	if (idx->stat_fd >= 0 && read_descendants(idx, &descendants) == 0)
		idx->descendants = descendants;
	idx->stale = false;
	idx->unchanged_probes = 0;
	return 0;
}

int cgroup_index_open(const char *root_dir, int max_depth, struct cgroup_index **out)
{
	struct cgroup_index *idx;
	int root_fd = -1, err;

	*out = NULL;
	idx = calloc(1, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	idx->max_depth = max_depth;
	idx->stat_fd = -1;
	idx->root_dir = strdup(root_dir);
	if (!idx->root_dir) {
		err = -ENOMEM;
		goto free_index;
	}
	err = u64_map_new(32, &idx->nodes);
	if (err)
		goto free_index;

	err = open_root(idx, &root_fd);
	if (err)
		goto free_index;
	err = push(idx, "/", 1, 0, 0, 0);
	if (err)
		goto close_root;
	err = run_todo(idx, root_fd);
	if (err)
		goto close_root;
	if (!u64_map_count(idx->nodes)) {
		err = -ENOENT; /* the root vanished between open and walk */
		mb_err("cgroup index: %s vanished", root_dir);
		goto close_root;
	}
	err = rebuild_order(idx);
	if (err)
		goto close_root;
	idx->stat_fd = openat(root_fd, "cgroup.stat", O_RDONLY | O_CLOEXEC);
	if (idx->stat_fd >= 0 && read_descendants(idx, &idx->descendants) < 0) {
		close(idx->stat_fd);
		idx->stat_fd = -1;
	}
	close(root_fd);
	*out = idx;
	return 0;

close_root:
	close(root_fd);
free_index:
	cgroup_index_close(idx);
	return err;
}

int cgroup_index_refresh(struct cgroup_index *idx)
{
	uint64_t *gone = NULL, id;
	size_t nr_gone = 0;
	struct stat st;
	int root_fd = -1, err;
	void *v;

	err = open_root(idx, &root_fd);
	if (err)
		return err;
	if (fstat(root_fd, &st) < 0) {
		err = -errno;
		goto close_root;
	}
	if ((uint64_t)st.st_ino != idx->root_id) {
		/* the root directory itself was replaced: start over */
		clear(idx);
		err = push(idx, "/", 1, 0, 0, 0);
		if (!err)
			err = run_todo(idx, root_fd);
		goto order;
	}

	if (u64_map_count(idx->nodes)) {
		gone = malloc(u64_map_count(idx->nodes) * sizeof(*gone));
		if (!gone) {
			err = -ENOMEM;
			goto close_root;
		}
	}
	for (size_t pos = 0; u64_map_next(idx->nodes, &pos, &id, &v);) {
		struct node *n = v;
		struct stat cst;

		if (n->e.depth == 0) {
			cst = st;
		} else if (fstatat(root_fd, rel(n->path), &cst, AT_SYMLINK_NOFOLLOW) < 0 ||
			   (uint64_t)cst.st_ino != n->e.id || !S_ISDIR(cst.st_mode)) {
			struct node *parent = node_find(idx, n->parent_id);

			gone[nr_gone++] = n->e.id;
			if (parent)
				parent->dirty = true;
			continue;
		}
		/* a count below 2 means the filesystem does not keep it: always rescan */
		if (cst.st_nlink != n->nlink || cst.st_nlink < 2) {
			n->nlink = cst.st_nlink;
			if (descends(idx, n->e.depth))
				n->dirty = true;
		}
	}
	for (size_t i = 0; i < nr_gone; i++)
		node_remove(idx, gone[i]);

	for (size_t pos = 0; !err && u64_map_next(idx->nodes, &pos, &id, &v);) {
		struct node *n = v;

		if (!n->dirty)
			continue;
		n->dirty = false;
		err = push(idx, n->path, n->len, n->e.depth, n->parent_id, n->e.id);
	}
	if (!err)
		err = run_todo(idx, root_fd);
	drop_todo(idx);
order:
	if (!err)
		err = rebuild_order(idx);
	free(gone);
close_root:
	close(root_fd);
	return err;
}

/* ------------------------------------------------------------ the walk's view */

void cgroup_index_walk_begin(struct cgroup_index *idx)
{
	if (++idx->walk == 0)
		idx->walk = 1;
	idx->nr_seen = 0;
	idx->walk_refreshed = false;
}

static const struct cgroup_entry *saw(struct cgroup_index *idx, struct node *n)
{
	if (n->seen != idx->walk) {
		n->seen = idx->walk;
		idx->nr_seen++;
	}
	return &n->e;
}

/* Where a child's name starts in its path: "/" + name below the root. */
static size_t child_base(const struct node *parent)
{
	return parent->len == 1 ? 0 : parent->len;
}

/* Is @n's path @parent's path + "/" + @name? */
static bool path_is(const struct node *n, const struct node *parent, const char *name, size_t name_len)
{
	size_t base = child_base(parent);

	return n->len == base + 1 + name_len && memcmp(n->path, parent->path, base) == 0 &&
	       n->path[base] == '/' && memcmp(n->path + base + 1, name, name_len) == 0;
}

static bool name_ok(const char *name, size_t len)
{
	return len && len < NAME_MAX + 1 && !memchr(name, '/', len) && !memchr(name, '\0', len) &&
	       !(name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')));
}

/* What the walk cannot place: the index's own knowledge, after one refresh per walk. */
static int place_by_refresh(struct cgroup_index *idx, uint64_t id, const struct cgroup_entry **out)
{
	struct node *n = node_find(idx, id);
	int err;

	if (!n && !idx->walk_refreshed) {
		idx->walk_refreshed = true;
		err = cgroup_index_refresh(idx);
		if (err)
			return err;
		n = node_find(idx, id);
	}
	*out = n ? saw(idx, n) : NULL;
	return 0;
}

int cgroup_index_walk_add(struct cgroup_index *idx, const struct cgroup_walk_item *it,
			  const struct cgroup_entry **out)
{
	struct node *n = node_find(idx, it->id), *parent, *fresh;
	char path[PATH_MAX];
	size_t len;
	int err;

	*out = NULL;
	if (it->depth == 0) {
		if (n && n->len == 1)
			goto seen;
		len = 1;
		memcpy(path, "/", 2);
	} else {
		parent = node_find(idx, it->parent_id);
		if (!parent || parent->seen != idx->walk || parent->e.depth != it->depth - 1 ||
		    it->name_len == SIZE_MAX)
			return place_by_refresh(idx, it->id, out);
		/* known and unmoved, as in steady state: its name was checked when its path was made */
		if (n && path_is(n, parent, it->name, it->name_len))
			goto seen;
		if (!name_ok(it->name, it->name_len))
			return place_by_refresh(idx, it->id, out);
		size_t base = child_base(parent);

		len = base + 1 + it->name_len;
		if (len >= PATH_MAX) {
			warn_long(idx);
			return 0;
		}
		memcpy(path, parent->path, base);
		path[base] = '/';
		memcpy(path + base + 1, it->name, it->name_len);
		path[len] = '\0';
	}
	/* new, or renamed (its own name or an ancestor's): the path as of this walk */
	fresh = node_new(it->id, path, len, it->depth, it->parent_id, 0);
	if (!fresh)
		return -ENOMEM;
	node_remove(idx, it->id);
	err = node_insert(idx, fresh);
	if (err) {
		free(fresh);
		return err;
	}
	n = fresh;
seen:
	if (it->depth == 0)
		idx->root_id = it->id;
	*out = saw(idx, n);
	return 0;
}

static bool unseen(uint64_t id, void *v, void *arg)
{
	const struct cgroup_index *idx = arg;
	struct node *n = v;

	if (n->seen == idx->walk)
		return false;
	free(n);
	return true;
}

void cgroup_index_walk_end(struct cgroup_index *idx)
{
	/* a refresh mid-walk may have replaced nodes the walk had counted */
	if (idx->nr_seen == u64_map_count(idx->nodes) && !idx->walk_refreshed)
		return;
	if (u64_map_remove_if(idx->nodes, unseen, idx))
		idx->order_stale = true;
}

/* ------------------------------------------------------------ lookups */

const struct cgroup_entry *cgroup_index_find(const struct cgroup_index *idx, uint64_t id)
{
	struct node *n = node_find(idx, id);

	return n ? &n->e : NULL;
}

size_t cgroup_index_count(const struct cgroup_index *idx)
{
	return u64_map_count(idx->nodes);
}

const struct cgroup_entry *cgroup_index_at(const struct cgroup_index *idx, size_t i)
{
	if (i >= u64_map_count(idx->nodes) || idx->order_stale)
		return NULL;
	return &idx->order[i]->e;
}

void cgroup_index_close(struct cgroup_index *idx)
{
	if (!idx)
		return;
	if (idx->nodes)
		clear(idx);
	drop_todo(idx);
	free(idx->todo);
	u64_map_free(idx->nodes);
	free(idx->order);
	free(idx->root_dir);
	if (idx->stat_fd >= 0)
		close(idx->stat_fd);
	free(idx);
}
