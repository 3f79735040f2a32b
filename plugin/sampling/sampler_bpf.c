// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bpf backends: a sleepable cgroup iterator that calls the memcg kfuncs
 * (bpf, Linux >= 7.0), or reads the same counters with CO-RE where the
 * kernel has no memcg kfuncs (bpf-core, Linux 6.1 to 6.19: slots from
 * sampling/memcg_layout.c). Loaded and attached once; each sample is one
 * bpf_iter_create() + read(), after which the records are read straight
 * from the mmapped array map.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

#include "bpf/memcg_sample.h"
#include "bpf/memcg_sample.skel.h"

#include "base/clock.h"
#include "base/macros.h"
#include "base/u64_map.h"
#include "sampling/btf_enums.h"
#include "sampling/cgroup_budget.h"
#include "sampling/cgroup_index.h"
#include "sampling/cgroup_probe.h"
#include "sampling/libbpf_log.h"
#include "sampling/memcg_layout.h"
#include "base/log.h"
#include "sampling/sampler_backend.h"
#include "sampling/sampler_bpf.h"

/* Slots for a tree of n cgroups: room for half as many again, and a few. */
#define CAPACITY_SLACK 64

/* The kfuncs the program calls; all of them must be in the kernel BTF. */
static const char *const required_kfuncs[] = {
	"bpf_get_mem_cgroup", "bpf_put_mem_cgroup", "bpf_mem_cgroup_flush_stats",
	"bpf_mem_cgroup_page_state", "bpf_mem_cgroup_vm_events", "bpf_mem_cgroup_usage",
	"bpf_mem_cgroup_memory_events",
};

_Static_assert(MEMCG_READ_UNLIMITED == SAMPLE_VALUE_UNLIMITED, "one encoding of \"max\"");


static bool has_cap(int cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { 0 };

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[CAP_TO_INDEX(cap)].effective & CAP_TO_MASK(cap);
}

/* Loading a tracing program takes CAP_BPF + CAP_PERFMON, or CAP_SYS_ADMIN. */
static int check_caps(char *why, size_t why_len)
{
	bool bpf = has_cap(CAP_BPF), perfmon = has_cap(CAP_PERFMON);

	if (has_cap(CAP_SYS_ADMIN) || (bpf && perfmon))
		return 0;
	snprintf(why, why_len, "loading the BPF program needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN); "
		 "missing: %s%s%s", bpf ? "" : "CAP_BPF", !bpf && !perfmon ? ", " : "",
		 perfmon ? "" : "CAP_PERFMON");
	return -EPERM;
}

static int check_kfuncs(const struct sampler *s, const struct btf *btf, char *why, size_t why_len)
{
	for (size_t i = 0; i < ARRAY_SIZE(required_kfuncs); i++) {
		if (!btf_has_func(btf, required_kfuncs[i])) {
			snprintf(why, why_len, "kernel lacks kfunc %s (memcg kfuncs need Linux >= 7.0)",
				 required_kfuncs[i]);
			return -EOPNOTSUPP;
		}
	}
	if (s->mount.version != 2) {
		snprintf(why, why_len, "the memory controller at %s is on cgroup v1; "
			 "the kfunc iterator walks cgroup v2 only", s->mount.dir);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* bpf-core: the cgroup iterator, a known counter layout, and how to flush. */
static int check_core(struct bpf_backend *b, const struct btf *btf, char *why, size_t why_len)
{
	int err;

	if (btf__find_by_name_kind(btf, "bpf_iter__cgroup", BTF_KIND_STRUCT) < 0) {
		snprintf(why, why_len, "kernel has no cgroup iterator (bpf_iter__cgroup: Linux >= 6.1)");
		return -EOPNOTSUPP;
	}
	err = memcg_layout_open(btf, &b->layout, why, why_len);
	if (err)
		return err;
	b->flavor = btf_has_func(btf, "cgroup_rstat_flush") ? MEMCG_WALK_CORE_FLUSH : MEMCG_WALK_CORE;
	return 0;
}

/*
 * Without cgroup_rstat_flush() (Linux >= 6.16 has css_rstat_flush(), which
 * wants the memory css as a trusted pointer; a cgroup iterator only reads
 * it) the walk root's memory.stat is read before each walk: the kernel
 * flushes the subtree's counters for it, as for any reader of the file.
 */
static int flush_by_reading(struct bpf_backend *b)
{
	char buf[4096];
	ssize_t n;
	off_t off = 0;

	while ((n = pread(b->flush_fd, buf, sizeof(buf), off)) > 0)
		off += n;
	if (n < 0) {
		int err = -errno;

		mb_err("cannot read %s/memory.stat to flush the memcg counters: %s", b->mount_dir, strerror(-err));
		return err;
	}
	return 0;
}

static void unload_program(struct bpf_backend *b)
{
	if (b->records)
		munmap(b->records, b->records_len);
	b->records = NULL;
	b->records_len = 0;
	bpf_link__destroy(b->link);
	b->link = NULL;
	memcg_sample_bpf__destroy(b->skel);
	b->skel = NULL;
}

/*
 * libbpf parses the kernel's vmlinux BTF (~6 MB, read into a buffer and
 * copied: ~12 MB at the peak) for CO-RE and kfunc resolution while it loads,
 * and frees it after. glibc keeps freed heap it got by brk unless told to
 * give it back; without this the process could keep the peak for good.
 */
static void release_freed_memory(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

/*
 * Maps (more of) the record map so that its first @nr records can be read.
 * Only what the tree uses is mapped: every mapped page of the map counts in
 * the process's RSS, read or not.
 */
static int map_records(struct bpf_backend *b, __u64 nr)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), want, full;
	void *p;
	int err;

	want = (size_t)nr * b->stride;
	if (want <= b->records_len)
		return 0;
	full = ((size_t)b->capacity * b->stride + page - 1) / page * page;
	want += want / 8; /* a little room for the tree to grow in */
	want = (want + page - 1) / page * page;
	if (want > full)
		want = full;
	p = mmap(NULL, want, PROT_READ, MAP_SHARED, bpf_map__fd(b->skel->maps.records), 0);
	if (p == MAP_FAILED) {
		err = -errno;
		mb_err("cannot mmap the record map (%zu bytes): %s", want, strerror(-err));
		return err;
	}
	if (b->records)
		munmap(b->records, b->records_len);
	b->records = p;
	b->records_len = want;
	return 0;
}

/* The walk of each flavor; only the one that runs is loaded. */
static struct bpf_program *walk_program(const struct bpf_backend *b, enum memcg_walk_flavor flavor)
{
	switch (flavor) {
	case MEMCG_WALK_KFUNC:
		return b->skel->progs.sample_memcg;
	case MEMCG_WALK_CORE_FLUSH:
		return b->skel->progs.sample_memcg_core_flush;
	case MEMCG_WALK_CORE:
		return b->skel->progs.sample_memcg_core;
	}
	return NULL;
}

/*
 * The slots of state[] (span 0) and events[] (span 1) the bpf-core reads
 * use: the walk copies each span in one read per cgroup.
 */
static void vmstat_spans(const struct bpf_backend *b, struct memcg_span span[2])
{
	__u32 hi[2] = { 0, 0 }, i, k;

	span[0] = span[1] = (struct memcg_span){ .lo = UINT32_MAX, .n = 0 };
	for (i = 0; i < b->nr_reads; i++) {
		if (b->reads[i].kind != MEMCG_READ_VMSTAT_STATE && b->reads[i].kind != MEMCG_READ_VMSTAT_EVENT)
			continue;
		k = b->reads[i].kind == MEMCG_READ_VMSTAT_EVENT;
		if (b->reads[i].index < span[k].lo)
			span[k].lo = b->reads[i].index;
		if (b->reads[i].index + 1 > hi[k])
			hi[k] = b->reads[i].index + 1;
	}
	for (k = 0; k < 2; k++) {
		if (!hi[k]) {
			span[k].lo = 0;
			continue;
		}
		span[k].n = hi[k] - span[k].lo;
		if (span[k].n > MEMCG_VMSTAT_SPAN_MAX) /* the rest is read slot by slot */
			span[k].n = MEMCG_VMSTAT_SPAN_MAX;
	}
}

/*
 * What it cost the verifier to check the loaded walk (bpf_prog_info's
 * verified_insns, Linux >= 5.16): the figure its 1,000,000-instruction
 * limit applies to. 0 when the kernel does not say.
 */
static __u32 verified_insns(const struct bpf_program *prog)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return 0;
	return info.verified_insns;
}

static int load_program(struct bpf_backend *b, int max_depth, __u32 capacity)
{
	LIBBPF_OPTS(bpf_iter_attach_opts, iter_opts);
	union bpf_iter_link_info linfo = { 0 };
	enum memcg_walk_flavor f;
	int err;

	b->skel = memcg_sample_bpf__open();
	if (!b->skel) {
		err = -errno;
		mb_err("cannot open the BPF program: %s", strerror(-err));
		return err;
	}
	b->skel->rodata->nr_reads = b->nr_reads;
	memcpy(b->skel->rodata->reads, b->reads, b->nr_reads * sizeof(b->reads[0]));
	b->skel->rodata->capacity = capacity;
	b->skel->rodata->max_depth = max_depth;
	b->skel->rodata->page_size = (__u64)sysconf(_SC_PAGESIZE);
	b->skel->rodata->counter_max = (__u64)LONG_MAX / b->skel->rodata->page_size;
	b->skel->rodata->cgroup_v1 = b->root_usage_fd >= 0;
	b->skel->rodata->rank_read = b->rank_read;
	b->skel->rodata->pressure_read = b->pressure_read;
	vmstat_spans(b, (struct memcg_span *)b->skel->rodata->vmstat_span);
	b->skel->rodata->nr_nodes = b->nr_nodes;
	memcpy((void *)b->skel->rodata->node_ids, b->node_ids, sizeof(b->node_ids));
	memcpy((void *)&b->skel->rodata->node_span, &b->node_span, sizeof(b->node_span));
	for (f = MEMCG_WALK_KFUNC; f <= MEMCG_WALK_CORE; f++)
		bpf_program__set_autoload(walk_program(b, f), f == b->flavor);
	err = bpf_map__set_value_size(b->skel->maps.records, b->stride);
	if (!err)
		err = bpf_map__set_max_entries(b->skel->maps.records, capacity);
	if (!err)
		err = bpf_map__set_max_entries(b->skel->maps.rank_only, capacity);
	if (err) {
		mb_err("cannot size the record map (%u x %zu bytes): %s", capacity, b->stride, strerror(-err));
		goto unload;
	}
	err = memcg_sample_bpf__load(b->skel);
	if (err) {
		mb_err("cannot load the BPF program (the kernel refused it; libbpf said why above): %s",
		       strerror(-err));
		goto unload;
	}

	b->verified_insns = verified_insns(walk_program(b, b->flavor));
	linfo.cgroup.cgroup_fd = b->root_fd;
	linfo.cgroup.order = BPF_CGROUP_ITER_DESCENDANTS_PRE;
	iter_opts.link_info = &linfo;
	iter_opts.link_info_len = sizeof(linfo);
	b->link = bpf_program__attach_iter(walk_program(b, b->flavor), &iter_opts);
	if (!b->link) {
		err = -errno;
		b->attach_failed = true;
		mb_err("cannot attach the cgroup iterator to %s: %s", b->mount_dir, strerror(-err));
		goto unload;
	}

	b->capacity = capacity;
	release_freed_memory();
	err = bpf_rank_only_reload(b);
	if (err) /* not fatal: those cgroups are read whole */
		mb_warn("cannot tell the reloaded walk which cgroups need one read: %s", strerror(-err));
	return 0;

unload:
	unload_program(b);
	return err;
}

static __u32 capacity_for(size_t cgroups)
{
	size_t cap = cgroups + cgroups / 2 + CAPACITY_SLACK;

	return cap < (1u << 30) ? (__u32)cap : 1u << 30;
}

/* The read behind the usage column, when one read gives it: what rank_only cgroups get. */
static void find_rank_read(const struct sampler *s, struct bpf_backend *b)
{
	size_t c = sampler_column_of(s, CGROUP_BUDGET_RANK_STAT);

	b->rank_read = MEMCG_NO_READ;
	b->rank_column = SIZE_MAX;
	if (c == SIZE_MAX || b->columns[c].nr_terms != 1)
		return;
	b->rank_read = b->columns[c].term[0];
	b->rank_column = c;
}

/*
 * Where the per-node counters are, when a per-node column is sampled. A
 * layout this version does not know sends auto on to the next backend
 * (text reads memory.numa_stat); with the backend configured, the per-node
 * columns are dropped, saying why (bpf_resolve_stats()).
 */
static int open_node_layout(const struct sampler *s, struct bpf_backend *b, const struct btf *btf, char *why,
			    size_t why_len)
{
	bool wanted = false;
	int err;

	for (size_t c = 0; c < s->nr_stats; c++)
		wanted |= s->stats[c]->node != NULL;
	if (!wanted)
		return 0;
	err = memcg_node_layout_open(btf, &b->node_layout, b->node_why, sizeof(b->node_why));
	if (err == -EOPNOTSUPP && !s->backend_chosen) {
		snprintf(why, why_len, "per-node stats: %s", b->node_why);
		return err;
	}
	return err == -EOPNOTSUPP ? 0 : err;
}

static int open_walk(struct sampler *s, bool core, char *why, size_t why_len)
{
	char desc[512];
	struct btf *btf = NULL;
	struct bpf_backend *b;
	int err;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->root_fd = b->flush_fd = b->root_usage_fd = -1;
	b->mount_dir = s->mount.dir;
	s->priv = b;
	/* process-wide: bpf_close() gives the previous printer back */
	b->previous_print = libbpf_set_print(libbpf_log_print);
	b->print_set = true;
	btf = btf__load_vmlinux_btf();
	if (!btf) {
		snprintf(why, why_len, "cannot read the kernel BTF (/sys/kernel/btf/vmlinux): %s",
			 strerror(errno));
		return -EOPNOTSUPP;
	}
	b->flavor = MEMCG_WALK_KFUNC;
	err = core ? check_core(b, btf, why, why_len) : check_kfuncs(s, btf, why, why_len);
	if (err)
		goto free_btf;
	err = check_caps(why, why_len);
	if (err)
		goto free_btf;
	b->root_fd = open(s->mount.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b->root_fd < 0) {
		err = -errno;
		mb_err("cannot open cgroup root %s: %s", s->mount.dir, strerror(-err));
		goto free_btf;
	}
	err = open_node_layout(s, b, btf, why, why_len);
	if (err)
		goto free_btf;
	err = bpf_resolve_stats(s, b, btf);
	if (err)
		goto free_btf;
	find_rank_read(s, b);
	b->stride = memcg_record_size(b->nr_values);
	if (b->layout)
		snprintf(desc, sizeof(desc), "cgroup iterator with CO-RE reads of struct memcg_vmstats (%s), "
			 "flushed by %s", memcg_layout_describe(b->layout),
			 b->flavor == MEMCG_WALK_CORE_FLUSH ? "cgroup_rstat_flush()" : "reading the root's memory.stat");
	else
		snprintf(desc, sizeof(desc), "kernel has the memcg kfuncs");
	if (b->node_layout) {
		size_t len = strlen(desc);

		snprintf(desc + len, sizeof(desc) - len, "; %s on %u NUMA nodes", memcg_layout_describe(b->node_layout),
			 b->nr_nodes);
	}
	/* every value is resolved: libbpf's load parses its own copy */
	memcg_layout_free(b->layout);
	b->layout = NULL;
	memcg_layout_free(b->node_layout);
	b->node_layout = NULL;
	btf__free(btf);
	btf = NULL;
	if (b->flavor == MEMCG_WALK_CORE) {
		b->flush_fd = openat(b->root_fd, "memory.stat", O_RDONLY | O_CLOEXEC);
		if (b->flush_fd < 0) {
			err = -errno;
			mb_err("cannot open %s/memory.stat: %s", s->mount.dir, strerror(-err));
			goto free_btf;
		}
	}
	if (s->mount.version == 1) {
		b->root_usage_fd = openat(b->root_fd, "memory.usage_in_bytes", O_RDONLY | O_CLOEXEC);
		if (b->root_usage_fd < 0) {
			err = -errno;
			mb_err("cannot open %s/memory.usage_in_bytes: %s", s->mount.dir, strerror(-err));
			goto free_btf;
		}
	}
	err = cgroup_index_open(s->mount.dir, s->max_depth, &b->index);
	if (err)
		goto free_btf;
	err = load_program(b, s->max_depth, capacity_for(cgroup_index_count(b->index)));
	if (err && core && b->attach_failed && s->mount.version == 1) {
		snprintf(why, why_len, "this kernel's cgroup iterator does not walk the cgroup v1 hierarchy at %s",
			 s->mount.dir);
		err = -EOPNOTSUPP;
	}
	if (err)
		goto free_btf;
	snprintf(why, why_len, "%s; %u values per cgroup, room for %u cgroups; the verifier checked %u instructions",
		 desc, b->nr_values, b->capacity, b->verified_insns);
free_btf:
	memcg_layout_free(b->layout);
	b->layout = NULL;
	memcg_layout_free(b->node_layout);
	b->node_layout = NULL;
	btf__free(btf);
	return err; /* on error the caller calls bpf_close() */
}

static int bpf_open(struct sampler *s, char *why, size_t why_len)
{
	return open_walk(s, false, why, why_len);
}

static int bpf_core_open(struct sampler *s, char *why, size_t why_len)
{
	return open_walk(s, true, why, why_len);
}

/* One pass of the iterator over the tree. */
static int run_walk(struct bpf_backend *b)
{
	char buf[64];
	ssize_t n;
	int fd, err = 0;

	if (b->flavor == MEMCG_WALK_CORE) {
		err = flush_by_reading(b);
		if (err)
			return err;
	}
	memset(b->skel->bss, 0, sizeof(*b->skel->bss));
	fd = bpf_iter_create(bpf_link__fd(b->link));
	if (fd < 0) {
		err = -errno;
		mb_err("cannot start the cgroup walk (bpf_iter_create): %s", strerror(-err));
		return err;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0) {
		err = -errno;
		mb_err("the cgroup walk failed (read): %s", strerror(-err));
	}
	close(fd);
	return err;
}

/* Walks; when the tree outgrew the map, reloads with a bigger one and walks again. */
static int walk_all(struct sampler *s, struct bpf_backend *b)
{
	int attempt, err;

	for (attempt = 0; attempt < 3; attempt++) {
		__u64 found;
		__u32 old;

		err = run_walk(b);
		if (err)
			return err;
		if (!b->skel->bss->overflow)
			return 0;
		found = b->skel->bss->nr_records;
		old = b->capacity;
		unload_program(b);
		err = load_program(b, s->max_depth, capacity_for(found));
		if (err)
			return err;
		mb_notice("%llu memory cgroups outgrew the record map (%u): reloaded with room for %u",
			  (unsigned long long)found, old, b->capacity);
	}
	mb_err("the cgroup tree keeps outgrowing the record map (%u cgroups); sample dropped",
	       b->capacity);
	return -EOVERFLOW;
}

/* A per-node column: its node's raw counters, below 0 as 0 (lruvec_page_state()), times their units. */
static uint64_t node_value(const struct bpf_backend *b, const struct bpf_column *col, const struct memcg_record *rec)
{
	uint64_t sum = 0;

	if (rec->nodes_failed & (1ULL << col->node_k))
		return SAMPLE_VALUE_MISSING;
	for (unsigned int i = 0; i < col->nr_terms; i++) {
		int64_t v = (int64_t)rec->values[col->term[i]];

		sum += v > 0 ? (uint64_t)v * b->scale[col->term[i]] : 0;
	}
	return sum;
}

static void fill_row(const struct bpf_backend *b, size_t nr_stats, const struct memcg_record *rec,
		     struct sample_row *row)
{
	bool rank_only = rec->flags & MEMCG_RECORD_RANK_ONLY;

	row->partial = rank_only;
	for (size_t c = 0; c < nr_stats; c++) {
		const struct bpf_column *col = &b->columns[c];
		uint64_t sum = 0;
		unsigned int i;

		if (col->nr_terms == 0 || (rank_only && c != b->rank_column)) { /* derived: the sampler fills it */
			row->values[c] = SAMPLE_VALUE_MISSING;
			continue;
		}
		if (col->node) {
			row->values[c] = node_value(b, col, rec);
			continue;
		}
		if (col->nr_terms == 1) { /* as read: MEMCG_READ_UNLIMITED too */
			__u64 v = rec->values[col->term[0]];

			if (v == MEMCG_READ_INVALID)
				row->values[c] = SAMPLE_VALUE_MISSING;
			else
				row->values[c] = v == MEMCG_READ_UNLIMITED ? v : v * b->scale[col->term[0]];
			continue;
		}
		for (i = 0; i < col->nr_terms; i++) {
			__u64 v = rec->values[col->term[i]];

			if (v == MEMCG_READ_INVALID)
				break;
			sum += v * b->scale[col->term[i]];
		}
		row->values[c] = i == col->nr_terms ? sum : SAMPLE_VALUE_MISSING;
	}
}

/*
 * cgroup v1's root (a record without a parent): its usage, which the walk
 * leaves out (memcg_sample.bpf.c, read_at_root()), from its
 * memory.usage_in_bytes as the text backend reads it. A read that fails
 * leaves the value missing.
 */
static void fill_root_usage(const struct sampler *s, const struct bpf_backend *b, struct sample_row *row)
{
	char buf[32];
	unsigned long long v;
	ssize_t n;
	char *end;

	for (size_t c = 0; c < s->nr_stats; c++) {
		if (s->stats[c]->file != STAT_FILE_USAGE)
			continue;
		n = pread(b->root_usage_fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			return;
		buf[n] = '\0';
		errno = 0;
		v = strtoull(buf, &end, 10);
		if (!errno && end != buf && (*end == '\n' || !*end))
			row->values[c] = v;
		return;
	}
}

static int bpf_sample(struct sampler *s, struct sample_table *t)
{
	struct bpf_backend *b = s->priv;
	__u64 i, nr;
	int err;

	t->timestamp_ns = clock_ns(CLOCK_REALTIME);
	t->duration_ns = clock_ns(CLOCK_MONOTONIC);
	t->cpu_ns = thread_cpu_ns();
	err = walk_all(s, b);
	if (err)
		return err;

	nr = b->skel->bss->nr_records;
	err = map_records(b, nr);
	if (err)
		return err;
	/* the records name their cgroups: paths come from them, not from cgroupfs */
	cgroup_index_walk_begin(b->index);
	for (i = 0; i < nr; i++) {
		const struct memcg_record *rec = (const void *)((const char *)b->records + i * b->stride);
		const struct cgroup_walk_item item = {
			.id = rec->cgroup_id,
			.parent_id = rec->parent_id,
			.depth = (int)rec->depth,
			.name = rec->name,
			.name_len = rec->name_len == MEMCG_NAME_UNKNOWN ? SIZE_MAX : rec->name_len,
		};
		const struct cgroup_entry *entry;
		struct sample_row *row;

		err = cgroup_index_walk_add(b->index, &item, &entry);
		if (err)
			return err;
		if (!entry) { /* removed since the walk, or a path too long */
			t->skipped++;
			continue;
		}
		row = sample_table_add(t, rec->cgroup_id, entry->path, rec->depth);
		if (!row)
			return -ENOMEM;
		fill_row(b, s->nr_stats, rec, row);
		if (rec->parent_id == 0 && b->root_usage_fd >= 0)
			fill_root_usage(s, b, row);
	}
	cgroup_index_walk_end(b->index);
	t->duration_ns = clock_ns(CLOCK_MONOTONIC) - t->duration_ns;
	t->cpu_ns = thread_cpu_ns() - t->cpu_ns;
	return 0;
}

static void bpf_close(struct sampler *s)
{
	struct bpf_backend *b = s->priv;

	if (!b)
		return;
	unload_program(b);
	cgroup_index_close(b->index);
	if (b->root_fd >= 0)
		close(b->root_fd);
	if (b->flush_fd >= 0)
		close(b->flush_fd);
	if (b->root_usage_fd >= 0)
		close(b->root_usage_fd);
	memcg_layout_free(b->layout);
	free(b->columns);
	u64_map_free(b->rank_only);
	if (b->print_set)
		libbpf_set_print(b->previous_print);
	free(b);
	s->priv = NULL;
}

int sampler_walk_plan(const struct sampler *s, struct sampler_walk_plan *plan)
{
	const struct bpf_backend *b = s->priv;

	if (s->ops != &sampler_bpf_ops && s->ops != &sampler_bpf_core_ops)
		return -EOPNOTSUPP;
	plan->flavor = b->flavor;
	plan->reads = b->reads;
	plan->nr_reads = b->nr_reads;
	plan->dir = b->mount_dir;
	return 0;
}

static int bpf_rank_only(struct sampler *s, const struct sample_table *t, const bool *ships)
{
	return bpf_rank_only_set(s->priv, t, ships);
}

const struct sampler_backend_ops sampler_bpf_ops = {
	.name = "bpf",
	.open = bpf_open,
	.sample = bpf_sample,
	.rank_only = bpf_rank_only,
	.close = bpf_close,
};

const struct sampler_backend_ops sampler_bpf_core_ops = {
	.name = "bpf-core",
	.open = bpf_core_open,
	.sample = bpf_sample,
	.rank_only = bpf_rank_only,
	.close = bpf_close,
};
