// SPDX-License-Identifier: GPL-2.0-only
#include "sampling/memcg_layout.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "sampling/btf_enums.h"
#include "sampling/memcg_slot_maps.h"

/* One array's map: by enum value, or the names of its slots in order. */
struct slot_map {
	const char *enum_names[2]; /* the enums whose constants index it */
	uint32_t nr_slots;         /* the array's length in the BTF */
	bool by_value;
	const char **names;        /* by_value false: names[slot] */
	const char *source;        /* the list's name, or "enum values" */
};

struct memcg_layout {
	const struct btf *btf;     /* the one given to open: look-ups need it */
	struct slot_map state, events;
	long page_size;
	char description[256];
};


static int enum_value(const struct btf *btf, const struct slot_map *m, const char *name, int64_t *value)
{
	for (size_t i = 0; i < 2 && m->enum_names[i]; i++)
		if (btf_enum_value(btf, m->enum_names[i], name, value) == 0)
			return 0;
	return -ENOENT;
}

/* Length of array member @member of struct @type, or 0. */
static uint32_t array_len(const struct btf *btf, const char *type, const char *member)
{
	const struct btf_member *m;
	const struct btf_type *t;
	__s32 id;

	id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	if (id < 0)
		return 0;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (__u16 i = 0; i < btf_vlen(t); i++, m++) {
		const struct btf_type *mt;

		if (strcmp(btf__name_by_offset(btf, m->name_off), member) != 0)
			continue;
		mt = btf__type_by_id(btf, m->type);
		while (mt && (btf_is_typedef(mt) || btf_is_mod(mt)))
			mt = btf__type_by_id(btf, mt->type);
		return mt && btf_is_array(mt) ? btf_array(mt)->nelems : 0;
	}
	return 0;
}

/* CONFIG_MEMCG_V1: struct mem_cgroup keeps its v1-only page counters. */
static bool has_memcg_v1(const struct btf *btf)
{
	const struct btf_member *m;
	const struct btf_type *t;
	__s32 id = btf__find_by_name_kind(btf, "mem_cgroup", BTF_KIND_STRUCT);

	if (id < 0)
		return false;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (__u16 i = 0; i < btf_vlen(t); i++, m++)
		if (strcmp(btf__name_by_offset(btf, m->name_off), "tcpmem") == 0)
			return true;
	return false;
}

/*
 * Keeps the entries of @list this kernel compiled in, into m->names when
 * they are exactly m->nr_slots. Returns true when the list fits.
 */
static bool list_fits(const struct btf *btf, struct slot_map *m, const struct slot_list *list, bool v1)
{
	uint32_t n = 0;
	int64_t value;

	for (size_t i = 0; i < list->nr_entries + list->nr_tail; i++) {
		const struct slot_entry *e = i < list->nr_entries ? &list->entries[i] : &list->tail[i - list->nr_entries];
		bool exists = enum_value(btf, m, e->name, &value) == 0;

		if (e->when == SLOT_ALWAYS && !exists)
			return false;
		if (!exists || (e->when == SLOT_IF_MEMCG_V1 && !v1))
			continue;
		if (n == m->nr_slots)
			return false;
		m->names[n++] = e->name;
	}
	if (n != m->nr_slots)
		return false;
	m->source = list->name;
	return true;
}

static int map_slots(const struct btf *btf, struct slot_map *m, const char *type, const char *member,
		     const char *nr_constant, const struct slot_list *lists, size_t nr_lists, char *why, size_t why_len)
{
	bool v1 = has_memcg_v1(btf);
	int64_t nr;

	m->nr_slots = array_len(btf, type, member);
	if (!m->nr_slots) {
		snprintf(why, why_len, "the kernel BTF has no struct %s with an array %s", type, member);
		return -EOPNOTSUPP;
	}
	if (enum_value(btf, m, nr_constant, &nr) == 0 && nr == m->nr_slots) {
		m->by_value = true;
		m->source = "enum values";
		return 0;
	}
	m->names = calloc(m->nr_slots, sizeof(m->names[0]));
	if (!m->names)
		return -ENOMEM;
	for (size_t i = 0; i < nr_lists; i++)
		if (list_fits(btf, m, &lists[i], v1))
			return 0;
	snprintf(why, why_len, "unknown memcg layout: %s.%s has %u slots and no slot list this "
		 "version knows fits it (sampling/memcg_slot_maps.h)", type, member, m->nr_slots);
	return -EOPNOTSUPP;
}

/* A layout with no map yet, its state[] indexed by node_stat_item (and, per memcg, memcg_stat_item). */
static struct memcg_layout *layout_new(const struct btf *btf)
{
	struct memcg_layout *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->btf = btf;
	l->page_size = sysconf(_SC_PAGESIZE);
	l->state.enum_names[0] = "node_stat_item";
	return l;
}

int memcg_layout_open(const struct btf *btf, struct memcg_layout **out, char *why, size_t why_len)
{
	struct memcg_layout *l;
	int err;

	*out = layout_new(btf);
	l = *out;
	if (!l)
		return -ENOMEM;
	*out = NULL;
	l->state.enum_names[1] = "memcg_stat_item";
	l->events.enum_names[0] = "vm_event_item";
	err = map_slots(btf, &l->state, "memcg_vmstats", "state", "MEMCG_NR_STAT", memcg_state_lists,
			sizeof(memcg_state_lists) / sizeof(memcg_state_lists[0]), why, why_len);
	if (!err)
		err = map_slots(btf, &l->events, "memcg_vmstats", "events", "NR_VM_EVENT_ITEMS", memcg_event_lists,
				sizeof(memcg_event_lists) / sizeof(memcg_event_lists[0]), why, why_len);
	if (err) {
		memcg_layout_free(l);
		return err;
	}
	snprintf(l->description, sizeof(l->description), "state[%u] by %s, events[%u] by %s",
		 l->state.nr_slots, l->state.source, l->events.nr_slots, l->events.source);
	*out = l;
	return 0;
}

void memcg_layout_free(struct memcg_layout *l)
{
	if (!l)
		return;
	free(l->state.names);
	free(l->events.names);
	free(l);
}

static int slot_of(const struct memcg_layout *l, const struct slot_map *m, const char *name, uint32_t *slot)
{
	int64_t value;

	name = slot_name(name);

	if (m->by_value) {
		if (enum_value(l->btf, m, name, &value) || value < 0 || value >= m->nr_slots)
			return -ENOENT;
		*slot = (uint32_t)value;
		return 0;
	}
	for (uint32_t i = 0; i < m->nr_slots; i++)
		if (strcmp(m->names[i], name) == 0) {
			*slot = i;
			return 0;
		}
	return -ENOENT;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/*
 * memcg_page_state_output_unit() of mm/memcontrol.c (memcg_page_state_unit()
 * before 6.3): bytes for the _B items, KiB for the _KB one, a count for the
 * workingset, demotion and promotion items, pages for the rest.
 */
static uint64_t unit_of(const struct memcg_layout *l, const char *name)
{
	if (ends_with(name, "_B"))
		return 1;
	if (ends_with(name, "_KB"))
		return 1024;
	if (starts_with(name, "WORKINGSET_") || starts_with(name, "PGDEMOTE_") || starts_with(name, "PGPROMOTE_"))
		return 1;
	return (uint64_t)l->page_size;
}

int memcg_layout_state(const struct memcg_layout *l, const char *name, uint32_t *slot, uint64_t *unit)
{
	int err = slot_of(l, &l->state, name, slot);

	if (!err)
		*unit = unit_of(l, name);
	return err;
}

int memcg_layout_event(const struct memcg_layout *l, const char *name, uint32_t *slot)
{
	return slot_of(l, &l->events, name, slot);
}

const char *memcg_layout_describe(const struct memcg_layout *l)
{
	return l->description;
}

int memcg_node_layout_open(const struct btf *btf, struct memcg_layout **out, char *why, size_t why_len)
{
	struct memcg_layout *l = layout_new(btf);
	int err;

	*out = NULL;
	if (!l)
		return -ENOMEM;
	err = map_slots(btf, &l->state, "lruvec_stats", "state", "NR_VM_NODE_STAT_ITEMS", memcg_node_lists,
			sizeof(memcg_node_lists) / sizeof(memcg_node_lists[0]), why, why_len);
	if (err) {
		memcg_layout_free(l);
		return err;
	}
	snprintf(l->description, sizeof(l->description), "per-node lruvec_stats.state[%u] by %s", l->state.nr_slots,
		 l->state.source);
	*out = l;
	return 0;
}
