// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bpf backend: a sleepable cgroup iterator that calls the memcg kfuncs
 * (Linux >= 7.0). Loaded and attached once; each sample is one
 * bpf_iter_create() + read(), after which the records are read straight
 * from the mmapped array map.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
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
#include "sampling/btf_enums.h"
#include "sampling/cgroup_index.h"
#include "base/log.h"
#include "sampling/sampler_backend.h"

/* Slots for a tree of n cgroups: room for half as many again, and a few. */
#define CAPACITY_SLACK 64

/* The kfuncs the program calls; all of them must be in the kernel BTF. */
static const char *const required_kfuncs[] = {
	"bpf_get_mem_cgroup", "bpf_put_mem_cgroup", "bpf_mem_cgroup_flush_stats",
	"bpf_mem_cgroup_page_state", "bpf_mem_cgroup_vm_events", "bpf_mem_cgroup_usage",
	"bpf_mem_cgroup_memory_events",
};

/* Which enum holds a constant decides which kfunc reads it. */
static const struct {
	const char *enum_name;
	enum memcg_read_kind kind;
} read_enums[] = {
	{ "node_stat_item", MEMCG_READ_PAGE_STATE },
	{ "memcg_stat_item", MEMCG_READ_PAGE_STATE },
	{ "vm_event_item", MEMCG_READ_VM_EVENT },
	{ "memcg_memory_event", MEMCG_READ_MEMORY_EVENT },
};

/* A column is the sum of up to STAT_MAX_TERMS reads. */
struct bpf_column {
	unsigned int nr_terms;
	unsigned int term[STAT_MAX_TERMS];
};

struct bpf_backend {
	struct memcg_sample_bpf *skel;
	struct bpf_link *link;
	int root_fd;
	void *records;      /* the first records_len bytes of the map, mmapped */
	size_t records_len; /* grows with the tree, up to capacity records */
	__u32 capacity;
	size_t stride;

	struct memcg_read reads[MEMCG_SAMPLE_MAX_READS];
	unsigned int nr_reads;
	struct bpf_column *columns;
	struct cgroup_index *index;
	libbpf_print_fn_t previous_print; /* libbpf's printer before bpf_open() */
	bool print_set;
};

static int libbpf_to_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char msg[1024];
	size_t len;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	len = strlen(msg);
	while (len && msg[len - 1] == '\n')
		msg[--len] = '\0';
	mb_log(level == LIBBPF_WARN ? LOG_WARNING : LOG_DEBUG, "libbpf: %s", msg);
	return 0;
}

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

static int check_kernel(struct btf **btf_out, char *why, size_t why_len)
{
	struct btf *btf;
	size_t i;

	btf = btf__load_vmlinux_btf();
	if (!btf) {
		snprintf(why, why_len, "cannot read the kernel BTF (/sys/kernel/btf/vmlinux): %s",
			 strerror(errno));
		return -EOPNOTSUPP;
	}
	for (i = 0; i < ARRAY_SIZE(required_kfuncs); i++) {
		if (!btf_has_func(btf, required_kfuncs[i])) {
			snprintf(why, why_len, "kernel lacks kfunc %s (memcg kfuncs need Linux >= 7.0)",
				 required_kfuncs[i]);
			btf__free(btf);
			return -EOPNOTSUPP;
		}
	}
	*btf_out = btf;
	return 0;
}

/* Index of the read {kind, index}, added if new; -E2BIG when full. */
static int add_read(struct bpf_backend *b, __u32 kind, __u32 index)
{
	unsigned int i;

	for (i = 0; i < b->nr_reads; i++)
		if (b->reads[i].kind == kind && b->reads[i].index == index)
			return i;
	if (b->nr_reads == MEMCG_SAMPLE_MAX_READS)
		return -E2BIG;
	b->reads[b->nr_reads].kind = kind;
	b->reads[b->nr_reads].index = index;
	return b->nr_reads++;
}

/* Looks one enum constant up in the enums the kfuncs take. */
static int resolve_constant(const struct btf *btf, const char *name, __u32 *kind, __u32 *index)
{
	int64_t value;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(read_enums); i++) {
		if (btf_enum_value(btf, read_enums[i].enum_name, name, &value) == 0) {
			*kind = read_enums[i].kind;
			*index = (__u32)value;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * Resolves one alternative ("A" or "A+B+...") into reads. Returns 0, or
 * -ENOENT naming the first constant the kernel lacks in @missing.
 */
static int resolve_alternative(struct bpf_backend *b, const struct btf *btf, const char *alt,
			       struct bpf_column *col, char *missing, size_t missing_len)
{
	__u32 kinds[STAT_MAX_TERMS], indexes[STAT_MAX_TERMS];
	char term[64];
	unsigned int n = 0, i;
	const char *p = alt;
	int r;

	while (*p && n < STAT_MAX_TERMS) {
		size_t len = strcspn(p, "+");

		snprintf(term, sizeof(term), "%.*s", (int)len, p);
		if (resolve_constant(btf, term, &kinds[n], &indexes[n])) {
			snprintf(missing, missing_len, "%s", term);
			return -ENOENT;
		}
		n++;
		p += len + (p[len] == '+');
	}
	col->nr_terms = 0;
	for (i = 0; i < n; i++) {
		r = add_read(b, kinds[i], indexes[i]);
		if (r < 0)
			return r;
		col->term[col->nr_terms++] = r;
	}
	return 0;
}

static int resolve_stats(struct sampler *s, struct bpf_backend *b, const struct btf *btf)
{
	char missing[64], scratch[64], why[160];
	size_t c = 0;
	int err;

	b->columns = calloc(s->nr_stats ? s->nr_stats : 1, sizeof(*b->columns));
	if (!b->columns)
		return -ENOMEM;
	while (c < s->nr_stats) {
		const struct stat_def *def = s->stats[c];
		struct bpf_column *col = &b->columns[c];
		unsigned int alt;

		if (def->file == STAT_FILE_USAGE) {
			err = add_read(b, MEMCG_READ_USAGE, 0);
			if (err < 0)
				return err;
			col->nr_terms = 1;
			col->term[0] = err;
			c++;
			continue;
		}
		/* name what the first (current kernels') alternative lacks */
		err = -ENOENT;
		snprintf(missing, sizeof(missing), "%s", def->name);
		for (alt = 0; alt < STAT_MAX_TERMS && def->kernel[alt] && err == -ENOENT; alt++)
			err = resolve_alternative(b, btf, def->kernel[alt], col,
						  alt ? scratch : missing, sizeof(missing));
		if (err == 0) {
			c++;
			continue;
		}
		if (err != -ENOENT)
			return err;
		snprintf(why, sizeof(why), "the kernel BTF has no %s", missing);
		err = sampler_drop_stat(s, c, why);
		if (err)
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

static int load_program(struct bpf_backend *b, int max_depth, __u32 capacity)
{
	LIBBPF_OPTS(bpf_iter_attach_opts, iter_opts);
	union bpf_iter_link_info linfo = { 0 };
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
	err = bpf_map__set_value_size(b->skel->maps.records, b->stride);
	if (!err)
		err = bpf_map__set_max_entries(b->skel->maps.records, capacity);
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

	linfo.cgroup.cgroup_fd = b->root_fd;
	linfo.cgroup.order = BPF_CGROUP_ITER_DESCENDANTS_PRE;
	iter_opts.link_info = &linfo;
	iter_opts.link_info_len = sizeof(linfo);
	b->link = bpf_program__attach_iter(b->skel->progs.sample_memcg, &iter_opts);
	if (!b->link) {
		err = -errno;
		mb_err("cannot attach the cgroup iterator: %s", strerror(-err));
		goto unload;
	}

	b->capacity = capacity;
	release_freed_memory();
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

static int bpf_open(struct sampler *s, char *why, size_t why_len)
{
	struct btf *btf = NULL;
	struct bpf_backend *b;
	int err;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->root_fd = -1;
	s->priv = b;
	/* process-wide: bpf_close() gives the previous printer back */
	b->previous_print = libbpf_set_print(libbpf_to_log);
	b->print_set = true;
	err = check_kernel(&btf, why, why_len);
	if (err)
		return err;
	if (s->mount.version != 2) {
		snprintf(why, why_len, "the memory controller at %s is on cgroup v1; "
			 "the kfunc iterator walks cgroup v2 only", s->mount.dir);
		err = -EOPNOTSUPP;
		goto free_btf;
	}
	err = check_caps(why, why_len);
	if (err)
		goto free_btf;
	err = resolve_stats(s, b, btf);
	if (err)
		goto free_btf;
	b->stride = memcg_record_size(b->nr_reads);
	/* every value is resolved: libbpf's load parses its own copy */
	btf__free(btf);
	btf = NULL;

	b->root_fd = open(s->mount.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b->root_fd < 0) {
		err = -errno;
		mb_err("cannot open cgroup root %s: %s", s->mount.dir, strerror(-err));
		goto free_btf;
	}
	err = cgroup_index_open(s->mount.dir, s->max_depth, &b->index);
	if (err)
		goto free_btf;
	err = load_program(b, s->max_depth, capacity_for(cgroup_index_count(b->index)));
	if (err)
		goto free_btf;
	snprintf(why, why_len, "kernel has the memcg kfuncs; %u kfunc reads per cgroup, "
		 "room for %u cgroups", b->nr_reads, b->capacity);
free_btf:
	btf__free(btf);
	return err; /* on error the caller calls bpf_close() */
}

/* One pass of the iterator over the tree. */
static int run_walk(struct bpf_backend *b)
{
	char buf[64];
	ssize_t n;
	int fd, err = 0;

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

static void fill_row(const struct bpf_backend *b, size_t nr_stats, const struct memcg_record *rec,
		     struct sample_row *row)
{
	for (size_t c = 0; c < nr_stats; c++) {
		const struct bpf_column *col = &b->columns[c];
		uint64_t sum = 0;
		unsigned int i;

		for (i = 0; i < col->nr_terms; i++) {
			__u64 v = rec->values[col->term[i]];

			if (v == MEMCG_READ_INVALID)
				break;
			sum += v;
		}
		row->values[c] = i == col->nr_terms ? sum : SAMPLE_VALUE_MISSING;
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
		fill_row(b, t->nr_stats, rec, row);
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
	free(b->columns);
	if (b->print_set)
		libbpf_set_print(b->previous_print);
	free(b);
	s->priv = NULL;
}

const struct sampler_backend_ops sampler_bpf_ops = {
	.name = "bpf",
	.open = bpf_open,
	.sample = bpf_sample,
	.close = bpf_close,
};
