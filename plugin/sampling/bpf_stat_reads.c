// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which reads of the iterator program give each stat: enum constants looked
 * up by name in the kernel's BTF (the kfunc that takes the enum reads it),
 * CO-RE slots for bpf-core (sampling/memcg_layout.c), the page counters for
 * the limit files, and sums of several reads for a stat that is one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/macros.h"
#include "sampling/btf_enums.h"
#include "sampling/cgroup_probe.h"
#include "sampling/sampler_bpf.h"

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



/* The page counter and field each file of one is read from. */
static const struct {
	enum stat_file file;
	enum memcg_counter counter;
	enum memcg_counter_field field;
} counter_reads[] = {
	{ STAT_FILE_MEMORY_MAX, MEMCG_COUNTER_MEMORY, MEMCG_FIELD_MAX },
	{ STAT_FILE_MEMORY_HIGH, MEMCG_COUNTER_MEMORY, MEMCG_FIELD_HIGH },
	{ STAT_FILE_MEMORY_LOW, MEMCG_COUNTER_MEMORY, MEMCG_FIELD_LOW },
	{ STAT_FILE_MEMORY_MIN, MEMCG_COUNTER_MEMORY, MEMCG_FIELD_MIN },
	{ STAT_FILE_MEMORY_PEAK, MEMCG_COUNTER_MEMORY, MEMCG_FIELD_WATERMARK },
	{ STAT_FILE_SWAP_CURRENT, MEMCG_COUNTER_SWAP, MEMCG_FIELD_USAGE },
	{ STAT_FILE_SWAP_MAX, MEMCG_COUNTER_SWAP, MEMCG_FIELD_MAX },
};

/* Index of the read {kind, index}, added if new; -E2BIG when full. */
static int add_read(struct bpf_backend *b, __u32 kind, __u32 index, uint64_t scale)
{
	unsigned int i;

	for (i = 0; i < b->nr_reads; i++)
		if (b->reads[i].kind == kind && b->reads[i].index == index)
			return i;
	if (b->nr_reads == MEMCG_SAMPLE_MAX_READS)
		return -E2BIG;
	b->reads[b->nr_reads].kind = kind;
	b->reads[b->nr_reads].index = index;
	b->scale[b->nr_reads] = scale;
	b->pressure_read |= kind == MEMCG_READ_PRESSURE;
	return b->nr_reads++;
}

/*
 * bpf-core: the CO-RE read of what the kfunc read @kind would return, at the
 * slot the layout gives. -ENOENT when the kernel keeps no per-memcg counter
 * for @name.
 */
static int core_read(const struct bpf_backend *b, const char *name, __u32 *kind, __u32 *index, uint64_t *scale)
{
	__u32 slot;

	switch (*kind) {
	case MEMCG_READ_PAGE_STATE:
		if (memcg_layout_state(b->layout, name, &slot, scale))
			return -ENOENT;
		*kind = MEMCG_READ_VMSTAT_STATE;
		break;
	case MEMCG_READ_VM_EVENT:
		if (memcg_layout_event(b->layout, name, &slot))
			return -ENOENT;
		*kind = MEMCG_READ_VMSTAT_EVENT;
		break;
	case MEMCG_READ_MEMORY_EVENT:
		*kind = MEMCG_READ_EVENT;
		return 0;
	default:
		return 0;
	}
	*index = slot;
	return 0;
}

/* Looks one enum constant up in the enums the kfuncs take: the read that gives it. */
static int resolve_constant(const struct bpf_backend *b, const struct btf *btf, const char *name, __u32 *kind,
			    __u32 *index, uint64_t *scale)
{
	int64_t value;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(read_enums); i++) {
		if (btf_enum_value(btf, read_enums[i].enum_name, name, &value) == 0) {
			*kind = read_enums[i].kind;
			*index = (__u32)value;
			*scale = 1;
			return b->flavor == MEMCG_WALK_KFUNC ? 0 : core_read(b, name, kind, index, scale);
		}
	}
	return -ENOENT;
}

/*
 * Resolves one alternative ("A" or "A+B+...") into reads. Returns 0, or
 * -ENOENT naming the first constant the kernel lacks in @missing.
 */
static int resolve_alternative(struct bpf_backend *b, const struct btf *btf, const struct stat_def *def,
			       const char *alt, struct bpf_column *col, char *missing, size_t missing_len)
{
	__u32 kinds[STAT_MAX_TERMS], indexes[STAT_MAX_TERMS];
	uint64_t scales[STAT_MAX_TERMS];
	char term[64];
	unsigned int n = 0, i;
	const char *p = alt;
	int r;

	while (*p && n < STAT_MAX_TERMS) {
		size_t len = strcspn(p, "+");

		snprintf(term, sizeof(term), "%.*s", (int)len, p);
		if (resolve_constant(b, btf, term, &kinds[n], &indexes[n], &scales[n])) {
			snprintf(missing, missing_len, "%s", term);
			return -ENOENT;
		}
		/* memory.events.local: the same constants, another array */
		if ((kinds[n] == MEMCG_READ_MEMORY_EVENT || kinds[n] == MEMCG_READ_EVENT) &&
		    def->file == STAT_FILE_MEMORY_EVENTS_LOCAL)
			kinds[n] = MEMCG_READ_EVENT_LOCAL;
		n++;
		p += len + (p[len] == '+');
	}
	col->nr_terms = 0;
	for (i = 0; i < n; i++) {
		r = add_read(b, kinds[i], indexes[i], scales[i]);
		if (r < 0)
			return r;
		col->term[col->nr_terms++] = r;
	}
	return 0;
}

/* The one read of a column that is not a sum of enum constants; 0 or -ENOENT. */
static int single_read(const struct bpf_backend *b, const struct stat_def *def, const struct btf *btf,
		       __u32 *kind, __u32 *index)
{
	int64_t psi_state, avgs, nr_states;

	switch (def->file) {
	case STAT_FILE_USAGE:
		/* memory.current: the kfunc, or the page counter it reads */
		*kind = b->flavor == MEMCG_WALK_KFUNC ? MEMCG_READ_USAGE : MEMCG_READ_PAGE_COUNTER;
		*index = b->flavor == MEMCG_WALK_KFUNC ? 0 : MEMCG_COUNTER_READ(MEMCG_COUNTER_MEMORY, MEMCG_FIELD_USAGE);
		return 0;
	case STAT_FILE_PRESSURE:
		/* psi_group.total[NR_PSI_AGGREGATORS][NR_PSI_STATES - 1], the PSI_AVGS row */
		if (btf_enum_value(btf, "psi_states", def->kernel[0], &psi_state) ||
		    btf_enum_value(btf, "psi_states", "NR_PSI_STATES", &nr_states) ||
		    btf_enum_value(btf, "psi_aggregators", "PSI_AVGS", &avgs))
			return -ENOENT;
		*kind = MEMCG_READ_PRESSURE;
		*index = (__u32)(avgs * (nr_states - 1) + psi_state);
		return 0;
	case STAT_FILE_SOFT_LIMIT: /* cgroup v1 only: the kfunc walk never sees it */
		*kind = MEMCG_READ_SOFT_LIMIT;
		*index = 0;
		return 0;
	default:
		break;
	}
	for (size_t i = 0; i < ARRAY_SIZE(counter_reads); i++) {
		if (counter_reads[i].file == def->file) {
			*kind = MEMCG_READ_PAGE_COUNTER;
			*index = MEMCG_COUNTER_READ(counter_reads[i].counter, counter_reads[i].field);
			return 0;
		}
	}
	return -ENOENT;
}

/* The index of node @id in b->node_ids, added if new; -E2BIG when full. */
static int node_index(struct bpf_backend *b, unsigned int id)
{
	for (__u32 k = 0; k < b->nr_nodes; k++)
		if (b->node_ids[k] == id)
			return (int)k;
	if (b->nr_nodes == MEMCG_MAX_NODES)
		return -E2BIG;
	b->node_ids[b->nr_nodes] = id;
	return (int)b->nr_nodes++;
}

/*
 * A per-node column: the slots of its constants in the node's
 * lruvec_stats.state[] (v1: the LRU lists its hierarchical_ line sums),
 * placed by place_node_values(). 0; -ENOENT with @why set when this kernel
 * keeps no such per-node counter; another negative errno.
 */
static int resolve_node_column(const struct sampler *s, struct bpf_backend *b, const struct stat_def *def,
			       struct bpf_column *col, char *why, size_t why_len)
{
	const char *const v1[] = { def->v1_kernel, NULL };
	const char *const *alts = s->mount.version == 1 ? v1 : def->kernel;
	int k;

	if (!b->node_layout) {
		snprintf(why, why_len, "%s", b->node_why);
		return -ENOENT;
	}
	k = node_index(b, def->node_id);
	if (k < 0)
		return k;
	col->node = true;
	col->node_k = (unsigned int)k;
	/* the first alternative whose every constant this kernel keeps per node */
	snprintf(why, why_len, "this kernel keeps no per-node counter for %s", def->name);
	for (size_t a = 0; a < STAT_MAX_TERMS && alts[a]; a++) {
		const char *p = alts[a];
		bool found = true;

		col->nr_terms = 0;
		while (*p && col->nr_terms < STAT_MAX_TERMS && found) {
			size_t len = strcspn(p, "+");
			char term[64];

			snprintf(term, sizeof(term), "%.*s", (int)len, p);
			found = !memcg_layout_state(b->node_layout, term, &col->slot[col->nr_terms],
						    &col->unit[col->nr_terms]);
			if (!found)
				snprintf(why, why_len, "this kernel keeps no per-node counter %s", term);
			col->nr_terms++;
			p += len + (p[len] == '+');
		}
		if (found)
			return 0;
	}
	return -ENOENT;
}

/*
 * The per-node values go after the reads' in the record: each node's span
 * of the slots the per-node columns use. Points their terms there. A span
 * that does not fit the record leaves the per-node columns out, saying why.
 */
static int place_node_values(struct sampler *s, struct bpf_backend *b)
{
	__u32 lo = UINT32_MAX, hi = 0;
	char why[160];
	size_t c;
	int err;

	b->nr_values = b->nr_reads;
	for (c = 0; c < s->nr_stats; c++)
		for (unsigned int i = 0; b->columns[c].node && i < b->columns[c].nr_terms; i++) {
			lo = b->columns[c].slot[i] < lo ? b->columns[c].slot[i] : lo;
			hi = b->columns[c].slot[i] + 1 > hi ? b->columns[c].slot[i] + 1 : hi;
		}
	if (!hi)
		return 0;
	b->node_span = (struct memcg_span){ .lo = lo, .n = hi - lo };
	if (b->node_span.n <= MEMCG_NODE_SPAN_MAX && b->nr_reads + b->nr_nodes * b->node_span.n <= MEMCG_SAMPLE_MAX_VALUES) {
		b->nr_values = b->nr_reads + b->nr_nodes * b->node_span.n;
		for (c = 0; c < s->nr_stats; c++) {
			struct bpf_column *col = &b->columns[c];

			for (unsigned int i = 0; col->node && i < col->nr_terms; i++) {
				col->term[i] = b->nr_reads + col->node_k * b->node_span.n + col->slot[i] - lo;
				b->scale[col->term[i]] = col->unit[i];
			}
		}
		return 0;
	}
	snprintf(why, sizeof(why), "%u nodes x %u slots of per-node counters do not fit the walk's record (%d values)",
		 b->nr_nodes, b->node_span.n, MEMCG_SAMPLE_MAX_VALUES);
	b->node_span.n = 0;
	b->nr_nodes = 0;
	for (c = s->nr_stats; c-- > 0;) {
		if (!b->columns[c].node)
			continue;
		memmove(&b->columns[c], &b->columns[c + 1], (s->nr_stats - c - 1) * sizeof(b->columns[0]));
		err = sampler_drop_stat(s, c, why);
		if (err)
			return err;
	}
	return 0;
}

/* Why this kernel or tree cannot give @def, or NULL when it can (as far as files tell). */
static const char *unavailable(const struct sampler *s, const struct stat_def *def, int root_fd)
{
	int fd;

	if (!stat_on_version(def, s->mount.version))
		return s->mount.version == 2 ? "cgroup v1 only" : "cgroup v2 only";
	if (def->file == STAT_FILE_PRESSURE && !cgroup_psi_enabled())
		return "PSI is off (psi=0 on the kernel command line, or a kernel without CONFIG_PSI)";
	if (def->file != STAT_FILE_SWAP_CURRENT && def->file != STAT_FILE_SWAP_MAX)
		return NULL;
	/* a cgroup with memory.current but no swap files: swap accounting is off */
	fd = cgroup_probe_open(root_fd, stat_file_name(def->file, 2));
	if (fd >= 0) {
		close(fd);
		return NULL;
	}
	fd = cgroup_probe_open(root_fd, "memory.current");
	if (fd < 0) /* no cgroup to tell by yet */
		return NULL;
	close(fd);
	return "a cgroup has memory.current but not its swap file: swap accounting is off on this kernel";
}

int bpf_resolve_stats(struct sampler *s, struct bpf_backend *b, const struct btf *btf)
{
	char missing[64], scratch[64], why[256];
	size_t c = 0;
	int err;

	b->columns = calloc(s->nr_stats ? s->nr_stats : 1, sizeof(*b->columns));
	if (!b->columns)
		return -ENOMEM;
	while (c < s->nr_stats) {
		const struct stat_def *def = s->stats[c];
		struct bpf_column *col = &b->columns[c];
		const char *lack = unavailable(s, def, b->root_fd);
		unsigned int alt;
		__u32 kind, index;

		if (lack) {
			err = sampler_drop_stat(s, c, lack);
			if (err)
				return err;
			continue;
		}
		if (def->file == STAT_FILE_NUMA_STAT) {
			err = resolve_node_column(s, b, def, col, why, sizeof(why));
			if (err == 0)
				c++;
			else if (err == -ENOENT)
				err = sampler_drop_stat(s, c, why);
			if (err)
				return err;
			continue;
		}
		if (def->file == STAT_FILE_DERIVED || def->file == STAT_FILE_OOM_TRACKER) { /* the sampler fills it */
			col->nr_terms = 0;
			c++;
			continue;
		}
		err = single_read(b, def, btf, &kind, &index);
		if (err == 0) {
			err = add_read(b, kind, index, 1);
			if (err < 0)
				return err;
			col->nr_terms = 1;
			col->term[0] = err;
			c++;
			continue;
		}
		if (def->file == STAT_FILE_PRESSURE) {
			err = sampler_drop_stat(s, c, "the kernel BTF has no PSI (a kernel without CONFIG_PSI)");
			if (err)
				return err;
			continue;
		}
		/* name what the first (current kernels') alternative lacks */
		err = -ENOENT;
		snprintf(missing, sizeof(missing), "%s", def->name);
		for (alt = 0; alt < STAT_MAX_TERMS && def->kernel[alt] && err == -ENOENT; alt++)
			err = resolve_alternative(b, btf, def, def->kernel[alt], col,
						  alt ? scratch : missing, sizeof(missing));
		if (err == 0) {
			c++;
			continue;
		}
		if (err != -ENOENT)
			return err;
		if (b->flavor == MEMCG_WALK_KFUNC)
			snprintf(why, sizeof(why), "the kernel BTF has no %s", missing);
		else
			snprintf(why, sizeof(why), "this kernel keeps no per-memcg counter %s", missing);
		err = sampler_drop_stat(s, c, why);
		if (err)
			return err;
	}
	return place_node_values(s, b);
}
