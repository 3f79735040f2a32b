// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bpf backends' rank_only map: cgroups whose values nobody ships
 * (outside the selection, or cut by the budget) get one read in the walk,
 * the rank stat's, instead of every stat's. User space keeps a mirror of
 * the map (a u64_map of the same ids), so that a new set costs one map
 * update per id that changed, and a reloaded program (a bigger record map)
 * gets the set back.
 */
#include <errno.h>
#include <string.h>

#include <bpf/bpf.h>

#include "bpf/memcg_sample.h"
#include "bpf/memcg_sample.skel.h"

#include "base/u64_map.h"
#include "sampling/sampler_bpf.h"

static void *const PRESENT = (void *)1;

struct rank_only_diff {
	int map_fd;
	const struct u64_map *next;
	int err;
};

/* Drops from the mirror, and the map, every id the next set lacks. */
static bool drop_missing(uint64_t id, void *value, void *arg)
{
	struct rank_only_diff *d = arg;
	__u64 key = id;

	if (u64_map_get(d->next, id))
		return false;
	if (bpf_map_delete_elem(d->map_fd, &key) && errno != ENOENT && !d->err)
		d->err = -errno;
	return true;
}

static int add_one(struct bpf_backend *b, int map_fd, uint64_t id)
{
	__u64 key = id;
	__u8 one = 1;

	if (bpf_map_update_elem(map_fd, &key, &one, BPF_ANY))
		return -errno; /* E2BIG: the map is full; that cgroup is read whole */
	return u64_map_put(b->rank_only, id, PRESENT);
}

static int drop_one(struct bpf_backend *b, int map_fd, uint64_t id)
{
	__u64 key = id;

	u64_map_remove(b->rank_only, id);
	if (bpf_map_delete_elem(map_fd, &key) && errno != ENOENT)
		return -errno;
	return 0;
}

/* Drops from the mirror and the map the ids of cgroups that left the tree. */
static int sweep_gone(struct bpf_backend *b, int map_fd, const struct sample_table *t, const bool *ships)
{
	struct rank_only_diff d = { .map_fd = map_fd };
	struct u64_map *next;
	int err = u64_map_new(t->nr_rows, &next);

	for (size_t r = 0; r < t->nr_rows && !err; r++)
		if (!ships[r])
			err = u64_map_put(next, t->rows[r].cgroup_id, PRESENT);
	if (!err) {
		d.next = next;
		u64_map_remove_if(b->rank_only, drop_missing, &d);
		err = d.err;
	}
	u64_map_free(next);
	return err;
}

/*
 * Tells the walk whether to look cgroups up in the map at all. The mirror
 * holds no id the map lacks (an id goes into it after its update, out of
 * it before its delete): where the two differ, the walk reads a cgroup
 * whole, which loses nothing.
 */
static void mark_used(struct bpf_backend *b)
{
	b->skel->data->rank_only_used = b->rank_only && u64_map_count(b->rank_only) > 0;
}

/*
 * The walk's rows say what the map held: a partial row was read for its
 * rank alone. So only the rows whose verdict changed cost an update, and
 * steady state costs a look at each row's flag; the ids of cgroups gone
 * since are swept only when the mirror holds more ids than rows want (or
 * the map is full).
 */
int bpf_rank_only_set(struct bpf_backend *b, const struct sample_table *t, const bool *ships)
{
	int map_fd = bpf_map__fd(b->skel->maps.rank_only);
	size_t wanted = 0;
	int err = 0;

	if (!b->rank_only && u64_map_new(1024, &b->rank_only))
		return -ENOMEM;
	for (size_t r = 0; r < t->nr_rows && (!err || err == -E2BIG); r++) {
		const struct sample_row *row = &t->rows[r];

		wanted += !ships[r];
		if (ships[r] && row->partial)
			err = drop_one(b, map_fd, row->cgroup_id);
		else if (!ships[r] && !row->partial && !u64_map_get(b->rank_only, row->cgroup_id))
			err = add_one(b, map_fd, row->cgroup_id);
	}
	/* a full map (E2BIG) may be full of gone ids too */
	if (err == -E2BIG || (!err && u64_map_count(b->rank_only) > wanted))
		err = sweep_gone(b, map_fd, t, ships);
	if (err == -E2BIG)
		err = 0; /* past the map's room the walk reads whole rows: nothing lost */
	mark_used(b);
	return err;
}

int bpf_rank_only_reload(struct bpf_backend *b)
{
	int map_fd = bpf_map__fd(b->skel->maps.rank_only);
	size_t pos = 0;
	uint64_t id;
	void *value;
	__u8 one = 1;

	mark_used(b);
	if (!b->rank_only)
		return 0;
	while (u64_map_next(b->rank_only, &pos, &id, &value)) {
		__u64 key = id;

		if (bpf_map_update_elem(map_fd, &key, &one, BPF_ANY))
			return errno == E2BIG ? 0 : -errno;
	}
	return 0;
}
