/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The bpf backends' state, shared by the two files that make them:
 * sampler_bpf.c (checks, load, walk, records to rows) and bpf_stat_reads.c
 * (which reads of the program give each stat). Not for other callers: they
 * use sampling/sampler.h.
 */
#ifndef MEMCG_BPF_SAMPLER_BPF_H
#define MEMCG_BPF_SAMPLER_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

#include "bpf/memcg_sample.h"
#include "sampling/memcg_layout.h"
#include "sampling/sampler_backend.h"
#include "sampling/stat_catalog.h"

struct cgroup_index;
struct memcg_sample_bpf;

/*
 * A column is the sum of up to STAT_MAX_TERMS values of the record; none for
 * a derived stat. A per-node column's values are of node node_k, raw longs
 * (below 0 reads as 0); until bpf_resolve_stats() places them, slot and unit
 * say which of the node's counters and what one is worth.
 */
struct bpf_column {
	unsigned int nr_terms;
	unsigned int term[STAT_MAX_TERMS];
	bool node;
	unsigned int node_k;
	__u32 slot[STAT_MAX_TERMS];
	uint64_t unit[STAT_MAX_TERMS];
};

struct bpf_backend {
	enum memcg_walk_flavor flavor;
	struct memcg_layout *layout; /* bpf-core: where the counters are; during open only */
	struct memcg_layout *node_layout; /* per-node columns: where their counters are; during open only */
	char node_why[200];          /* why there is no node_layout */
	__u32 node_ids[MEMCG_MAX_NODES]; /* the nodes of the per-node columns, in order */
	__u32 nr_nodes;
	int flush_fd;                /* bpf-core without a flush kfunc: the root's memory.stat */
	int root_usage_fd;           /* cgroup v1: the walk root's memory.usage_in_bytes */
	struct memcg_sample_bpf *skel;
	struct bpf_link *link;
	int root_fd;
	const char *mount_dir;
	void *records;      /* the first records_len bytes of the map, mmapped */
	size_t records_len; /* grows with the tree, up to capacity records */
	__u32 capacity;
	size_t stride;

	struct memcg_read reads[MEMCG_SAMPLE_MAX_READS];
	uint64_t scale[MEMCG_SAMPLE_MAX_VALUES]; /* what a value is multiplied by: memory.stat's unit */
	unsigned int nr_reads;
	unsigned int nr_values;          /* the reads', then nr_nodes * node_span.n per-node ones */
	struct memcg_span node_span;     /* the slots of each node's state[] copied */
	struct bpf_column *columns;
	struct cgroup_index *index;
	bool pressure_read;               /* a read is of memory.pressure (the walk finds cgrp->psi) */
	__u32 verified_insns;             /* the verifier's cost of the loaded walk (0: unknown) */
	__u32 rank_read;                  /* the read of the rank stat (usage), or MEMCG_NO_READ */
	size_t rank_column;               /* its column, or SIZE_MAX */
	struct u64_map *rank_only;        /* the ids in the program's rank_only map (bpf_rank_only.c) */
	bool attach_failed;               /* the program loaded, the iterator refused the root */
	libbpf_print_fn_t previous_print; /* libbpf's printer before bpf_open() */
	bool print_set;
};

/*
 * bpf_rank_only.c: the cgroups whose values nobody ships get the rank read
 * alone (sampler_rank_only()). bpf_rank_only_set() makes the program's map
 * the rows of @t with @ships false; bpf_rank_only_reload() fills a freshly
 * loaded program's map from the mirror. 0 or a negative errno.
 */
int bpf_rank_only_set(struct bpf_backend *b, const struct sample_table *t, const bool *ships);
int bpf_rank_only_reload(struct bpf_backend *b);

/*
 * Resolves the reads of each of @s's stats for the kernel @btf describes
 * (b->flavor: kfunc indices or CO-RE slots): fills b->reads, b->scale and
 * b->columns; a stat the kernel or tree lacks gets no column, with a
 * warning. 0 or a negative errno.
 */
int bpf_resolve_stats(struct sampler *s, struct bpf_backend *b, const struct btf *btf);

#endif
