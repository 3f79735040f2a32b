// SPDX-License-Identifier: GPL-2.0-only
/*
 * memcg-bench's minimal walk, user side: loads minimal_walk.bpf.c with the
 * real walk's reads and flavor, and times nothing itself (memcg_bench.c
 * does). A sample is what the real one must do at the least: the walk, and
 * every value read once from the mmapped rows.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/log.h"
#include "bpf/memcg_sample.h"
#include "minimal_walk.h"
#include "tests/bench/minimal_walk.skel.h"

struct minimal_walk {
	struct minimal_walk_bpf *skel;
	struct bpf_link *link;
	int root_fd;
	int flush_fd; /* MEMCG_WALK_CORE: the root's memory.stat, read before each walk */
	const __u64 *rows;
	size_t rows_len;
	size_t stride; /* bytes per row */
	__u32 capacity;
	size_t nr_reads;
};

/* What minimal_walk.bpf.c reads for each flavor. */
static bool read_known(int flavor, const struct memcg_read *r)
{
	if (flavor == MEMCG_WALK_KFUNC)
		return r->kind == MEMCG_READ_PAGE_STATE || r->kind == MEMCG_READ_VM_EVENT ||
		       r->kind == MEMCG_READ_USAGE || r->kind == MEMCG_READ_MEMORY_EVENT;
	return r->kind == MEMCG_READ_VMSTAT_STATE || r->kind == MEMCG_READ_VMSTAT_EVENT ||
	       r->kind == MEMCG_READ_EVENT ||
	       (r->kind == MEMCG_READ_PAGE_COUNTER &&
		r->index == MEMCG_COUNTER_READ(MEMCG_COUNTER_MEMORY, MEMCG_FIELD_USAGE));
}

static struct bpf_program *walk_program(const struct minimal_walk *w, int flavor)
{
	switch (flavor) {
	case MEMCG_WALK_KFUNC:
		return w->skel->progs.minimal_kfunc;
	case MEMCG_WALK_CORE_FLUSH:
		return w->skel->progs.minimal_core_flush;
	default:
		return w->skel->progs.minimal_core;
	}
}

static int check_plan(const struct sampler_walk_plan *plan)
{
	if (plan->nr_reads > MINIMAL_MAX_READS) {
		mb_err("minimal walk: the walk has %zu reads, at most %d here", plan->nr_reads, MINIMAL_MAX_READS);
		return -EOPNOTSUPP;
	}
	for (size_t i = 0; i < plan->nr_reads; i++) {
		if (!read_known(plan->flavor, &plan->reads[i])) {
			mb_err("minimal walk: read %zu (kind %u, index %u) is not one it makes on this flavor (%d)", i,
			       plan->reads[i].kind, plan->reads[i].index, plan->flavor);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

int minimal_walk_open(const struct sampler *s, __u32 capacity, struct minimal_walk **out)
{
	LIBBPF_OPTS(bpf_iter_attach_opts, iter_opts);
	union bpf_iter_link_info linfo = { 0 };
	struct sampler_walk_plan plan;
	struct minimal_walk *w;
	char path[4200];
	size_t len, page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;
	int err;

	*out = NULL;
	err = sampler_walk_plan(s, &plan);
	if (err)
		return err;
	err = check_plan(&plan);
	if (err)
		return err;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->root_fd = w->flush_fd = -1;
	w->capacity = capacity;
	w->nr_reads = plan.nr_reads;
	w->stride = (1 + plan.nr_reads) * sizeof(__u64);
	w->root_fd = open(plan.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->root_fd < 0) {
		err = -errno;
		mb_err("minimal walk: cannot open %s: %s", plan.dir, strerror(-err));
		goto close_walk;
	}
	if (plan.flavor == MEMCG_WALK_CORE) {
		snprintf(path, sizeof(path), "%s/memory.stat", plan.dir);
		w->flush_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (w->flush_fd < 0) {
			err = -errno;
			mb_err("minimal walk: cannot open %s: %s", path, strerror(-err));
			goto close_walk;
		}
	}
	w->skel = minimal_walk_bpf__open();
	if (!w->skel) {
		err = -errno;
		mb_err("minimal walk: cannot open the BPF program: %s", strerror(-err));
		goto close_walk;
	}
	w->skel->rodata->nr_reads = plan.nr_reads;
	memcpy((void *)w->skel->rodata->reads, plan.reads, plan.nr_reads * sizeof(plan.reads[0]));
	w->skel->rodata->capacity = capacity;
	w->skel->rodata->page_size = page;
	for (int f = MEMCG_WALK_KFUNC; f <= MEMCG_WALK_CORE; f++)
		bpf_program__set_autoload(walk_program(w, f), f == plan.flavor);
	err = bpf_map__set_value_size(w->skel->maps.rows, w->stride);
	if (!err)
		err = bpf_map__set_max_entries(w->skel->maps.rows, capacity);
	if (!err)
		err = minimal_walk_bpf__load(w->skel);
	if (err) {
		mb_err("minimal walk: cannot load the BPF program: %s", strerror(-err));
		goto close_walk;
	}
	linfo.cgroup.cgroup_fd = w->root_fd;
	linfo.cgroup.order = BPF_CGROUP_ITER_DESCENDANTS_PRE;
	iter_opts.link_info = &linfo;
	iter_opts.link_info_len = sizeof(linfo);
	w->link = bpf_program__attach_iter(walk_program(w, plan.flavor), &iter_opts);
	if (!w->link) {
		err = -errno;
		mb_err("minimal walk: cannot attach the cgroup iterator to %s: %s", plan.dir, strerror(-err));
		goto close_walk;
	}
	len = ((size_t)capacity * w->stride + page - 1) / page * page;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, bpf_map__fd(w->skel->maps.rows), 0);
	if (p == MAP_FAILED) {
		err = -errno;
		mb_err("minimal walk: cannot mmap its rows (%zu bytes): %s", len, strerror(-err));
		goto close_walk;
	}
	w->rows = p;
	w->rows_len = len;
	*out = w;
	return 0;

close_walk:
	minimal_walk_close(w);
	return err;
}

int minimal_walk_sample(struct minimal_walk *w, size_t *rows)
{
	char buf[4096];
	volatile __u64 sink;
	__u64 sum = 0, nr;
	ssize_t n;
	int fd, err = 0;

	if (w->flush_fd >= 0) {
		for (off_t off = 0; (n = pread(w->flush_fd, buf, sizeof(buf), off)) > 0; off += n)
			;
		if (n < 0)
			return -errno;
	}
	w->skel->bss->nr_rows = 0;
	fd = bpf_iter_create(bpf_link__fd(w->link));
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	nr = w->skel->bss->nr_rows;
	if (nr > w->capacity)
		return -EOVERFLOW;
	for (size_t i = 0; i < nr * (1 + w->nr_reads); i++)
		sum += w->rows[i];
	sink = sum;
	(void)sink;
	*rows = nr;
	return 0;
}

void minimal_walk_close(struct minimal_walk *w)
{
	if (!w)
		return;
	if (w->rows)
		munmap((void *)w->rows, w->rows_len);
	bpf_link__destroy(w->link);
	minimal_walk_bpf__destroy(w->skel);
	if (w->flush_fd >= 0)
		close(w->flush_fd);
	if (w->root_fd >= 0)
		close(w->root_fd);
	free(w);
}
