// SPDX-License-Identifier: GPL-2.0-only
/* The OOM tracker's book of victim cgroups (sampling/oom_victims.h). */
#include "sampling/oom_victims.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/u64_map.h"

struct victim {
	uint64_t kills;
	char *path;            /* relative to the walk root, "/" for it; NULL when outside */
	int depth;
	bool zero_sent;        /* its first sample (0) went out */
	unsigned gone_reports; /* samples its count went out in while its cgroup was gone */
	uint64_t seen_in;      /* the last fill whose walk had the cgroup */
};

struct oom_victims {
	struct oom_walk walk;
	struct u64_map *map; /* cgroup id -> struct victim */
	uint64_t round;      /* fills so far */
	bool cut_warned;
};

int oom_victims_new(const struct oom_walk *walk, struct oom_victims **out)
{
	struct oom_victims *vs = calloc(1, sizeof(*vs));
	int err;

	*out = NULL;
	if (!vs)
		return -ENOMEM;
	vs->walk = *walk;
	err = u64_map_new(64, &vs->map);
	if (err) {
		free(vs);
		return err;
	}
	*out = vs;
	return 0;
}

/*
 * Where the kernel's path of @id lies below the walk root: sets @v's path
 * and depth, or leaves path NULL when it is outside the walk, deeper than
 * max_depth, or cut. 0 or -ENOMEM.
 */
static int place(struct oom_victims *vs, uint64_t id, const struct oom_victim *k, struct victim *v)
{
	unsigned n = k->nr_levels < OOM_PATH_MAX_LEVELS ? k->nr_levels : OOM_PATH_MAX_LEVELS;
	const char *rel = NULL;
	int depth = -1;

	v->path = NULL;
	if (k->flags & OOM_VICTIM_PATH_CUT) {
		if (!vs->cut_warned)
			mb_warn("OOM kills in cgroup id %llu are counted only while it exists: its path is longer "
				"than the OOM tracker keeps (%d levels, %d bytes)", (unsigned long long)id,
				OOM_PATH_MAX_LEVELS, OOM_PATH_OFFSET_MAX);
		vs->cut_warned = true;
		return 0;
	}
	for (unsigned j = 0; j < n; j++)
		if (k->ids[j] == vs->walk.root_id && k->name_end[j] < OOM_PATH_LEN) {
			rel = k->path + k->name_end[j];
			depth = (int)(n - 1 - j);
		}
	if (!rel && vs->walk.root_is_top) {
		rel = k->path;
		depth = (int)n;
	}
	if (!rel || (vs->walk.max_depth >= 0 && depth > vs->walk.max_depth))
		return 0;
	v->path = strndup(*rel ? rel : "/", OOM_PATH_LEN);
	if (!v->path)
		return -ENOMEM;
	v->depth = depth;
	return 0;
}

int oom_victims_update(struct oom_victims *vs, uint64_t id, const struct oom_victim *kernel)
{
	struct victim *v = u64_map_get(vs->map, id);
	int err;

	if (!v) {
		v = calloc(1, sizeof(*v));
		if (!v)
			return -ENOMEM;
		err = place(vs, id, kernel, v);
		if (!err)
			err = u64_map_put(vs->map, id, v);
		if (err) {
			free(v->path);
			free(v);
			return err;
		}
	}
	v->kills = kernel->kills;
	return 0;
}

/* The value a victim's row reads this sample: 0 the first time, then its count. */
static uint64_t report(struct victim *v)
{
	uint64_t value = v->zero_sent ? v->kills : 0;

	v->zero_sent = true;
	return value;
}

struct fill_round {
	struct oom_victims *vs;
	struct sample_table *t;
	size_t column;
	void (*forget)(uint64_t id, void *arg);
	void *arg;
	int err;
};

/* A victim the walk did not see: a row of its own while it lingers, else dropped. */
static bool report_gone(uint64_t id, void *value, void *arg)
{
	struct fill_round *f = arg;
	struct victim *v = value;
	struct sample_row *row;

	if (v->seen_in == f->vs->round || f->err)
		return false;
	if (!v->path || (v->zero_sent && v->gone_reports >= OOM_VICTIMS_LINGER)) {
		f->forget(id, f->arg);
		free(v->path);
		free(v);
		return true;
	}
	row = sample_table_add(f->t, id, v->path, v->depth);
	if (!row) {
		f->err = -ENOMEM;
		return false;
	}
	if (v->zero_sent)
		v->gone_reports++;
	row->values[f->column] = report(v);
	return false;
}

int oom_victims_fill(struct oom_victims *vs, struct sample_table *t, size_t column,
		     void (*forget)(uint64_t id, void *arg), void *arg)
{
	struct fill_round f = { .vs = vs, .t = t, .column = column, .forget = forget, .arg = arg };

	vs->round++;
	for (size_t r = 0; r < t->nr_rows; r++) {
		struct victim *v = u64_map_get(vs->map, t->rows[r].cgroup_id);

		if (!v)
			continue;
		v->seen_in = vs->round;
		v->gone_reports = 0;
		t->rows[r].values[column] = report(v);
	}
	u64_map_remove_if(vs->map, report_gone, &f);
	return f.err;
}

const char *oom_victims_path(const struct oom_victims *vs, uint64_t id)
{
	const struct victim *v = u64_map_get(vs->map, id);

	return v ? v->path : NULL;
}

size_t oom_victims_count(const struct oom_victims *vs)
{
	return u64_map_count(vs->map);
}

static bool drop(uint64_t id, void *value, void *arg)
{
	struct victim *v = value;

	free(v->path);
	free(v);
	return true;
}

void oom_victims_free(struct oom_victims *vs)
{
	if (!vs)
		return;
	u64_map_remove_if(vs->map, drop, NULL);
	u64_map_free(vs->map);
	free(vs);
}
