/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The running kernel's memcg counter layout, for the bpf-core backend: which
 * slot of struct memcg_vmstats' state[] and events[] holds an enum constant's
 * counter, and the unit memory.stat prints it in. Worked out from the
 * kernel's BTF and the lists in memcg_slot_maps.h.
 */
#ifndef MEMCG_BPF_MEMCG_LAYOUT_H
#define MEMCG_BPF_MEMCG_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

struct btf;
struct memcg_layout;

/*
 * Returns 0 and a layout, valid while @btf is, or -EOPNOTSUPP with @why set when the BTF lacks
 * struct memcg_vmstats or no known slot list fits it; -ENOMEM.
 */
int memcg_layout_open(const struct btf *btf, struct memcg_layout **out, char *why, size_t why_len);
void memcg_layout_free(struct memcg_layout *l);

/*
 * The state slot of node_stat_item / memcg_stat_item constant @name and the
 * bytes per unit memory.stat multiplies it by; -ENOENT when the kernel keeps
 * no per-memcg counter for it.
 */
int memcg_layout_state(const struct memcg_layout *l, const char *name, uint32_t *slot, uint64_t *unit);
/* The events slot of vm_event_item constant @name; -ENOENT as above. */
int memcg_layout_event(const struct memcg_layout *l, const char *name, uint32_t *slot);

/* One line for the log: the slot maps used and the arrays' lengths. */
const char *memcg_layout_describe(const struct memcg_layout *l);

/*
 * The per-node counters (memory.numa_stat): memcg->nodeinfo[nid]->lruvec_stats
 * .state[], indexed by the node_stat_item value (Linux 6.1 to 6.10) or packed
 * as memcg_node_stat_items[] (6.11 on; the lists in memcg_slot_maps.h), the
 * array's length in the BTF telling which. A layout of its state[] alone:
 * look slots up with memcg_layout_state(), free it with memcg_layout_free().
 * -EOPNOTSUPP with @why when no list fits.
 */
int memcg_node_layout_open(const struct btf *btf, struct memcg_layout **out, char *why, size_t why_len);

#endif
