/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The NUMA nodes with memory (N_MEMORY), the nodes memory.numa_stat prints:
 * /sys/devices/system/node/has_memory, a list such as "0-1,3".
 */
#ifndef MEMCG_BPF_NUMA_NODES_H
#define MEMCG_BPF_NUMA_NODES_H

#include <stddef.h>

#define NUMA_NODES_WITH_MEMORY "/sys/devices/system/node/has_memory"

/*
 * Parses a node list ("0", "0-1,3\n") into @ids, ascending, at most @max of
 * them, each below @limit. Returns 0; -EINVAL for a malformed list; -ERANGE
 * for a node id at or above @limit, or more than @max nodes.
 */
int numa_nodes_parse(const char *list, unsigned int limit, unsigned int *ids, size_t max, size_t *n);

/*
 * The nodes of NUMA_NODES_WITH_MEMORY. Returns 0; -ENOENT when the kernel
 * has no such file (built without CONFIG_NUMA); -EINVAL, -ERANGE as above;
 * another negative errno when it cannot be read. Logs nothing.
 */
int numa_nodes_with_memory(unsigned int limit, unsigned int *ids, size_t max, size_t *n);

#endif
