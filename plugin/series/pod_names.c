// SPDX-License-Identifier: GPL-2.0-only
#include "series/pod_names.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"

#define ID_LEN 64

struct pod_entry {
	char *uid, *ns, *pod; /* one allocation, at uid */
};

struct container_entry {
	char *id, *uid, *name; /* one allocation, at id */
};

struct pod_index {
	struct pod_entry *pods;
	size_t nr_pods, cap_pods;
	struct container_entry *ctrs;
	size_t nr_ctrs, cap_ctrs;
};

struct pod_names {
	char *pod_dir, *ctr_dir;
	int64_t (*now_ms)(void);
	struct pod_index idx;
	bool scanned;
	int64_t scanned_at;
	unsigned long scans;
	bool warned;
};

static int64_t mono_ms(void)
{
	return (int64_t)(clock_ns(CLOCK_MONOTONIC) / 1000000u);
}

static void index_free(struct pod_index *x)
{
	for (size_t i = 0; i < x->nr_pods; i++)
		free(x->pods[i].uid);
	for (size_t i = 0; i < x->nr_ctrs; i++)
		free(x->ctrs[i].id);
	free(x->pods);
	free(x->ctrs);
	memset(x, 0, sizeof(*x));
}

struct pod_names *pod_names_new(const char *pod_log_dir, const char *container_log_dir,
				int64_t (*now_ms)(void))
{
	struct pod_names *pn = calloc(1, sizeof(*pn));

	if (!pn)
		return NULL;
	pn->pod_dir = strdup(pod_log_dir ? pod_log_dir : POD_NAMES_POD_LOG_DIR);
	pn->ctr_dir = strdup(container_log_dir ? container_log_dir : POD_NAMES_CONTAINER_LOG_DIR);
	pn->now_ms = now_ms ? now_ms : mono_ms;
	if (!pn->pod_dir || !pn->ctr_dir) {
		pod_names_free(pn);
		return NULL;
	}
	return pn;
}

void pod_names_free(struct pod_names *pn)
{
	if (!pn)
		return;
	index_free(&pn->idx);
	free(pn->pod_dir);
	free(pn->ctr_dir);
	free(pn);
}

unsigned long pod_names_scans(const struct pod_names *pn)
{
	return pn->scans;
}

/* Three strings in one allocation: @a (@na bytes), @b, @c; *@out_b, *@out_c point into it. */
static char *join3(const char *a, size_t na, const char *b, size_t nb, const char *c, size_t nc, char **out_b,
		   char **out_c)
{
	char *p = malloc(na + nb + nc + 3);

	if (!p)
		return NULL;
	memcpy(p, a, na);
	p[na] = '\0';
	*out_b = p + na + 1;
	memcpy(*out_b, b, nb);
	(*out_b)[nb] = '\0';
	*out_c = *out_b + nb + 1;
	memcpy(*out_c, c, nc);
	(*out_c)[nc] = '\0';
	return p;
}

/* "<namespace>_<pod>_<uid>" of @n bytes: each part not empty, namespace and pod without '_'. */
static bool split_pod_dir(const char *s, size_t n, size_t *ns_len, size_t *pod_off, size_t *pod_len,
			  size_t *uid_off)
{
	const char *first = memchr(s, '_', n), *last = NULL;

	for (const char *q = s + n; q > s; q--)
		if (q[-1] == '_') {
			last = q - 1;
			break;
		}
	if (!first || last == first || memchr(s, '/', n))
		return false;
	*ns_len = (size_t)(first - s);
	*pod_off = *ns_len + 1;
	*pod_len = (size_t)(last - first - 1);
	*uid_off = (size_t)(last - s) + 1;
	return *ns_len && *pod_len && *uid_off < n && !memchr(s + *pod_off, '_', *pod_len);
}

static int add_pod(struct pod_index *x, const char *name)
{
	size_t n = strlen(name), ns_len, pod_off, pod_len, uid_off;
	struct pod_entry *e;

	if (!split_pod_dir(name, n, &ns_len, &pod_off, &pod_len, &uid_off))
		return 0;
	if (x->nr_pods == x->cap_pods) {
		size_t cap = x->cap_pods ? 2 * x->cap_pods : 64;
		void *p = realloc(x->pods, cap * sizeof(*x->pods));

		if (!p)
			return -ENOMEM;
		x->pods = p;
		x->cap_pods = cap;
	}
	e = &x->pods[x->nr_pods];
	e->uid = join3(name + uid_off, n - uid_off, name, ns_len, name + pod_off, pod_len, &e->ns, &e->pod);
	if (!e->uid)
		return -ENOMEM;
	x->nr_pods++;
	return 0;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* The last @k components of @path ('/'-separated, no empty ones) into @c (start) and @len. */
static bool last_components(const char *path, size_t k, const char **c, size_t *len)
{
	const char *end = path + strlen(path);

	for (size_t i = k; i-- > 0;) {
		const char *start = end;

		while (start > path && start[-1] != '/')
			start--;
		if (start == end)
			return false;
		c[i] = start;
		len[i] = (size_t)(end - start);
		if (i && start == path)
			return false;
		end = start - 1;
	}
	return true;
}

/*
 * One entry of ContainerLogDir: "<pod>_<namespace>_<container>-<id>.log"
 * linking to ".../<namespace>_<pod>_<uid>/<container>/<n>.log".
 */
static int add_container(struct pod_index *x, int dirfd, const char *name)
{
	size_t n = strlen(name), stem, ns_len, pod_off, pod_len, uid_off;
	char target[PATH_MAX], *expect;
	const char *c[3];
	size_t len[3];
	struct container_entry *e;
	ssize_t tn;
	int match;

	if (n < ID_LEN + 6 || strcmp(name + n - 4, ".log") != 0 || name[n - 4 - ID_LEN - 1] != '-')
		return 0;
	stem = n - 4 - ID_LEN - 1; /* "<pod>_<namespace>_<container>" */
	for (size_t i = stem + 1; i < n - 4; i++)
		if (!is_hex(name[i]))
			return 0;
	tn = readlinkat(dirfd, name, target, sizeof(target) - 1);
	if (tn <= 0)
		return 0;
	target[tn] = '\0';
	if (!last_components(target, 3, c, len) ||
	    !split_pod_dir(c[0], len[0], &ns_len, &pod_off, &pod_len, &uid_off) || memchr(c[1], '_', len[1]))
		return 0;
	/* the link's name must spell the target's pod, namespace and container */
	expect = malloc(stem + 1);
	if (!expect)
		return -ENOMEM;
	match = snprintf(expect, stem + 1, "%.*s_%.*s_%.*s", (int)pod_len, c[0] + pod_off, (int)ns_len, c[0],
			 (int)len[1], c[1]) == (int)stem &&
		memcmp(expect, name, stem) == 0;
	free(expect);
	if (!match)
		return 0;
	if (x->nr_ctrs == x->cap_ctrs) {
		size_t cap = x->cap_ctrs ? 2 * x->cap_ctrs : 128;
		void *p = realloc(x->ctrs, cap * sizeof(*x->ctrs));

		if (!p)
			return -ENOMEM;
		x->ctrs = p;
		x->cap_ctrs = cap;
	}
	e = &x->ctrs[x->nr_ctrs];
	e->id = join3(name + stem + 1, ID_LEN, c[0] + uid_off, len[0] - uid_off, c[1], len[1], &e->uid, &e->name);
	if (!e->id)
		return -ENOMEM;
	x->nr_ctrs++;
	return 0;
}

/* Calls @add for each entry of @path; a directory that is not there is empty. */
static int read_dir(const char *path, struct pod_index *x, int (*add)(struct pod_index *, int, const char *))
{
	struct dirent *d;
	DIR *dir;
	int err = 0;

	dir = opendir(path);
	if (!dir)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	while (!err && (d = readdir(dir)))
		if (d->d_name[0] != '.')
			err = add(x, dirfd(dir), d->d_name);
	closedir(dir);
	return err;
}

static int add_pod_at(struct pod_index *x, int dirfd, const char *name)
{
	return add_pod(x, name);
}

static int cmp_pod(const void *a, const void *b)
{
	return strcmp(((const struct pod_entry *)a)->uid, ((const struct pod_entry *)b)->uid);
}

static int cmp_ctr(const void *a, const void *b)
{
	return strcmp(((const struct container_entry *)a)->id, ((const struct container_entry *)b)->id);
}

/* Reads both directories into a new index; the old one stays when that fails. */
static void scan(struct pod_names *pn)
{
	struct pod_index x = { 0 };
	const char *what = pn->pod_dir;
	int err;

	pn->scans++;
	pn->scanned = true;
	pn->scanned_at = pn->now_ms();
	err = read_dir(pn->pod_dir, &x, add_pod_at);
	if (!err) {
		what = pn->ctr_dir;
		err = read_dir(pn->ctr_dir, &x, add_container);
	}
	if (err) {
		if (!pn->warned)
			mb_warn("cannot read %s for the Kubernetes names: %s", what, strerror(-err));
		pn->warned = true;
		index_free(&x);
		return;
	}
	/* qsort's array may not be NULL, even when empty */
	if (x.nr_pods)
		qsort(x.pods, x.nr_pods, sizeof(*x.pods), cmp_pod);
	if (x.nr_ctrs)
		qsort(x.ctrs, x.nr_ctrs, sizeof(*x.ctrs), cmp_ctr);
	index_free(&pn->idx);
	pn->idx = x;
}

static const struct pod_entry *find_pod(const struct pod_index *x, const char *uid)
{
	struct pod_entry key = { .uid = (char *)uid };

	return x->nr_pods ? bsearch(&key, x->pods, x->nr_pods, sizeof(key), cmp_pod) : NULL;
}

static const struct container_entry *find_ctr(const struct pod_index *x, const char *id)
{
	struct container_entry key = { .id = (char *)id };

	return x->nr_ctrs ? bsearch(&key, x->ctrs, x->nr_ctrs, sizeof(key), cmp_ctr) : NULL;
}

void pod_names_lookup(struct pod_names *pn, const char *uid, const char *container_id, struct pod_name *out)
{
	const struct pod_entry *p = NULL;
	const struct container_entry *c = NULL;

	memset(out, 0, sizeof(*out));
	if (!uid || !uid[0])
		return;
	if (!pn->scanned)
		scan(pn);
	for (int pass = 0; pass < 2; pass++) {
		p = find_pod(&pn->idx, uid);
		c = container_id ? find_ctr(&pn->idx, container_id) : NULL;
		if ((p && (c || !container_id)) || pass ||
		    pn->now_ms() - pn->scanned_at < POD_NAMES_RESCAN_MS)
			break;
		scan(pn);
	}
	if (p) {
		out->ns = p->ns;
		out->pod = p->pod;
	}
	if (c && strcmp(c->uid, uid) == 0)
		out->container = c->name;
}
