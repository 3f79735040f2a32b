/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The parser of memory.numa_stat: one line per stat, a value per NUMA node.
 *   cgroup v2: "anon N0=1234 N1=0"          (memory.stat's unit: bytes, or a count)
 *   cgroup v1: "hierarchical_anon=12 N0=10 N1=2" (pages; the sum before the nodes)
 * Made once for the wanted (key, node) pairs and reused for every cgroup.
 * Buffers need no NUL.
 */
#ifndef MEMCG_BPF_NUMA_STAT_PARSE_H
#define MEMCG_BPF_NUMA_STAT_PARSE_H

#include <stddef.h>
#include <stdint.h>

struct numa_stat_parser;

/*
 * A parser that stores node @nodes[i]'s value of line @keys[i] into
 * values[@slots[i]], times @multiplier (v1's pages: the page size).
 * Returns 0, -EINVAL (an empty key, one holding ' ', '=' or '\n', or a node
 * id >= 1024) or -ENOMEM.
 */
int numa_stat_parser_new(const char *const *keys, const unsigned int *nodes, const size_t *slots, size_t nr,
			 uint64_t multiplier, struct numa_stat_parser **out);

/*
 * Parses @len bytes of lines. Each wanted value found is written to
 * values[slot]; the others are left as they were (callers pre-fill
 * SAMPLE_VALUE_MISSING). A wanted value that is not a decimal fitting in
 * 64 bits (after the multiplier) is left unset and counted. Returns the
 * number of slots set.
 */
size_t numa_stat_parse(struct numa_stat_parser *p, const char *buf, size_t len, uint64_t *values);

/* Wanted values that were not a number, over the parser's life. */
uint64_t numa_stat_parser_bad_values(const struct numa_stat_parser *p);

/* NULL-safe. */
void numa_stat_parser_free(struct numa_stat_parser *p);

/* Whether @buf has a line @key (probing a kernel's file). */
int numa_stat_has_key(const char *buf, size_t len, const char *key);

#endif
