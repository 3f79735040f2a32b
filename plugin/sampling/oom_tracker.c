// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OOM tracker's user side: loads bpf/oom_kills.bpf.c, reads its map of
 * victim cgroups and its ring of kill events each sample, and turns them
 * into the oom_victims_local column (sampling/oom_tracker.h).
 */
#include "sampling/oom_tracker.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/oom_kills.h"
#include "bpf/oom_kills.skel.h"

#include "base/log.h"
#include "base/u64_map.h"

/* What user space keeps of a victim cgroup. */
struct victim {
	uint64_t kills;
	char *path;       /* relative to the walk root, "/" for it; NULL when outside */
	int depth;
	bool zero_sent;   /* its first sample (0) went out */
	unsigned gone_reports; /* samples its count went out in while its cgroup was gone */
	uint64_t seen_in; /* the sample (tracker->round) whose walk had the cgroup */
};

struct oom_tracker {
	struct oom_kills_bpf *skel;
	struct ring_buffer *ring;
	struct u64_map *victims; /* cgroup id -> struct victim */
	int victims_fd;
	uint64_t root_id;        /* the walk root's cgroup id (its inode) */
	bool root_is_top;        /* the walk root is its hierarchy's root */
	int max_depth;
	uint64_t round;
	unsigned logged, unlogged; /* kills logged one by one / left out, this sample */
	uint64_t unmapped_warned;
	bool cut_warned;
};

/* The walk root is its hierarchy's root: v2's root has no cgroup.type, v1's alone has release_agent. */
static bool is_hierarchy_root(const struct cgroup_mount *mount)
{
	char p[sizeof(mount->dir) + sizeof("/release_agent")];

	if (mount->version == 2) {
		snprintf(p, sizeof(p), "%s/cgroup.type", mount->dir);
		return access(p, F_OK) != 0 && errno == ENOENT;
	}
	snprintf(p, sizeof(p), "%s/release_agent", mount->dir);
	return access(p, F_OK) == 0;
}

/*
 * Where @bv's cgroup lies relative to the walk root: sets @v's path and
 * depth, or leaves path NULL when it is outside the walk (or too deep, or
 * its path was cut). 0 or -ENOMEM.
 */
static int place_victim(struct oom_tracker *tr, uint64_t id, const struct oom_victim *bv, struct victim *v)
{
	const char *rel = NULL;
	unsigned n = bv->nr_levels < OOM_PATH_MAX_LEVELS ? bv->nr_levels : OOM_PATH_MAX_LEVELS;
	int depth = -1;

	v->path = NULL;
	if (bv->flags & OOM_VICTIM_PATH_CUT) {
		if (!tr->cut_warned)
			mb_warn("OOM kills in cgroup id %llu are counted only while it exists: its path is longer "
				"than the OOM tracker keeps (%d levels, %d bytes)", (unsigned long long)id,
				OOM_PATH_MAX_LEVELS, OOM_PATH_OFFSET_MAX);
		tr->cut_warned = true;
		return 0;
	}
	for (unsigned j = 0; j < n; j++)
		if (bv->ids[j] == tr->root_id && bv->name_end[j] < OOM_PATH_LEN) {
			rel = bv->path + bv->name_end[j];
			depth = (int)(n - 1 - j);
		}
	if (!rel && tr->root_is_top) {
		rel = bv->path;
		depth = (int)n;
	}
	if (!rel || (tr->max_depth >= 0 && depth > tr->max_depth))
		return 0;
	v->path = strndup(*rel ? rel : "/", OOM_PATH_LEN);
	if (!v->path)
		return -ENOMEM;
	v->depth = depth;
	return 0;
}

/* Reads the kernel's count of every victim cgroup. 0 or -ENOMEM. */
static int read_victims(struct oom_tracker *tr)
{
	struct oom_victim bv;
	uint64_t key, next;
	bool first = true;
	int err;

	while (bpf_map_get_next_key(tr->victims_fd, first ? NULL : &key, &next) == 0) {
		struct victim *v;

		first = false;
		key = next;
		if (bpf_map_lookup_elem(tr->victims_fd, &key, &bv))
			continue; /* deleted meanwhile */
		v = u64_map_get(tr->victims, key);
		if (!v) {
			v = calloc(1, sizeof(*v));
			if (!v)
				return -ENOMEM;
			err = place_victim(tr, key, &bv, v);
			if (!err)
				err = u64_map_put(tr->victims, key, v);
			if (err) {
				free(v->path);
				free(v);
				return err;
			}
		}
		v->kills = bv.kills;
	}
	return 0;
}

/* @s with its bytes that are not printable ASCII as '?'. */
static void printable(char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			*s = '?';
}

static int log_kill(void *ctx, void *data, size_t size)
{
	struct oom_tracker *tr = ctx;
	const struct oom_kill_event *ev = data;
	const struct victim *v;
	char comm[sizeof(ev->comm) + 1], where[64];

	if (size < sizeof(*ev))
		return 0;
	if (tr->logged >= OOM_TRACKER_LOG_KILLS) {
		tr->unlogged++;
		return 0;
	}
	tr->logged++;
	memcpy(comm, ev->comm, sizeof(ev->comm));
	comm[sizeof(ev->comm)] = '\0';
	printable(comm);
	v = u64_map_get(tr->victims, ev->cgroup_id);
	if (ev->global)
		snprintf(where, sizeof(where), "a system-wide OOM");
	else if (ev->oom_memcg_id == ev->cgroup_id)
		snprintf(where, sizeof(where), "its own limit");
	else
		snprintf(where, sizeof(where), "the limit of cgroup id %llu", (unsigned long long)ev->oom_memcg_id);
	if (v && v->path)
		mb_notice("OOM kill: process %u (%s) of cgroup %s (id %llu), for %s", ev->pid, comm, v->path,
			  (unsigned long long)ev->cgroup_id, where);
	else
		mb_notice("OOM kill: process %u (%s) of cgroup id %llu, outside the walk, for %s", ev->pid, comm,
			  (unsigned long long)ev->cgroup_id, where);
	return 0;
}

struct fill_round {
	struct oom_tracker *tr;
	struct sample_table *t;
	size_t column;
	int err;
};

/* The value a victim's row reads this sample: 0 the first time, then its count. */
static uint64_t report(struct victim *v)
{
	uint64_t value = v->zero_sent ? v->kills : 0;

	v->zero_sent = true;
	return value;
}

static void forget(struct oom_tracker *tr, uint64_t id, struct victim *v)
{
	bpf_map_delete_elem(tr->victims_fd, &id);
	free(v->path);
	free(v);
}

/* A victim the walk did not see: a row of its own while it lingers, else forgotten. */
static bool report_gone(uint64_t id, void *value, void *arg)
{
	struct fill_round *f = arg;
	struct victim *v = value;
	struct sample_row *row;

	if (v->seen_in == f->tr->round || f->err)
		return false;
	if (!v->path || (v->zero_sent && v->gone_reports >= OOM_TRACKER_LINGER)) {
		forget(f->tr, id, v);
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

int oom_tracker_fill(struct oom_tracker *tr, struct sample_table *t, size_t column)
{
	struct oom_tracker_losses loss;
	struct fill_round f = { .tr = tr, .t = t, .column = column };
	int err;

	tr->round++;
	err = read_victims(tr);
	if (err)
		return err;
	tr->logged = tr->unlogged = 0;
	ring_buffer__consume(tr->ring);
	if (tr->unlogged)
		mb_notice("OOM kill: %u more kills since the last sample, not logged one by one", tr->unlogged);
	for (size_t r = 0; r < t->nr_rows; r++) {
		struct victim *v = u64_map_get(tr->victims, t->rows[r].cgroup_id);

		if (!v)
			continue;
		v->seen_in = tr->round;
		v->gone_reports = 0;
		t->rows[r].values[column] = report(v);
	}
	u64_map_remove_if(tr->victims, report_gone, &f);
	oom_tracker_losses(tr, &loss);
	if (loss.unmapped_kills > tr->unmapped_warned) {
		mb_warn("%llu OOM kills not counted: the OOM tracker's map of victim cgroups is full (%d cgroups "
			"with kills at once)", (unsigned long long)(loss.unmapped_kills - tr->unmapped_warned),
			OOM_VICTIMS_MAX);
		tr->unmapped_warned = loss.unmapped_kills;
	}
	return f.err;
}

void oom_tracker_losses(const struct oom_tracker *tr, struct oom_tracker_losses *out)
{
	out->dropped_events = __atomic_load_n(&tr->skel->bss->dropped_events, __ATOMIC_RELAXED);
	out->unmapped_kills = __atomic_load_n(&tr->skel->bss->unmapped_kills, __ATOMIC_RELAXED);
}

/* Why the tracker's program did not @what, as a sysadmin can act on it. */
static void explain_failure(const char *what, int err, char *why, size_t why_len)
{
	const char *hint = "this kernel lacks BTF or fentry for out_of_memory() and __oom_kill_process()";

	if (err == -EPERM || err == -EACCES)
		hint = "the kernel refused a tracing program (lockdown, an LSM or seccomp policy, or no CAP_PERFMON)";
	else if (err == -ENOMEM)
		hint = "not enough locked memory for its maps";
	snprintf(why, why_len, "the OOM tracker's BPF program did not %s (%s): %s", what, strerror(-err), hint);
}

int oom_tracker_open(const struct cgroup_mount *mount, int max_depth, struct oom_tracker **out, char *why,
		     size_t why_len)
{
	struct oom_tracker *tr;
	struct stat st;
	int err;

	*out = NULL;
	if (stat(mount->dir, &st)) {
		err = -errno;
		snprintf(why, why_len, "cannot stat %s: %s", mount->dir, strerror(-err));
		return err;
	}
	tr = calloc(1, sizeof(*tr));
	if (!tr)
		return -ENOMEM;
	tr->root_id = st.st_ino;
	tr->root_is_top = is_hierarchy_root(mount);
	tr->max_depth = max_depth;
	err = u64_map_new(64, &tr->victims);
	if (err)
		goto free_tracker;
	tr->skel = oom_kills_bpf__open_and_load();
	if (!tr->skel) {
		err = -errno;
		explain_failure("load", err, why, why_len);
		err = -EOPNOTSUPP;
		goto free_map;
	}
	err = oom_kills_bpf__attach(tr->skel);
	if (err) {
		explain_failure("attach to the OOM killer", err, why, why_len);
		err = -EOPNOTSUPP;
		goto destroy_skel;
	}
	tr->victims_fd = bpf_map__fd(tr->skel->maps.victims);
	tr->ring = ring_buffer__new(bpf_map__fd(tr->skel->maps.kills), log_kill, tr, NULL);
	if (!tr->ring) {
		err = -errno;
		snprintf(why, why_len, "cannot read its event ring (%s)", strerror(-err));
		goto destroy_skel;
	}
	*out = tr;
	return 0;

destroy_skel:
	oom_kills_bpf__destroy(tr->skel);
free_map:
	u64_map_free(tr->victims);
free_tracker:
	free(tr);
	return err;
}

static bool drop_all(uint64_t id, void *value, void *arg)
{
	struct victim *v = value;

	free(v->path);
	free(v);
	return true;
}

void oom_tracker_close(struct oom_tracker *tr)
{
	if (!tr)
		return;
	ring_buffer__free(tr->ring);
	oom_kills_bpf__destroy(tr->skel);
	if (tr->victims)
		u64_map_remove_if(tr->victims, drop_all, NULL);
	u64_map_free(tr->victims);
	free(tr);
}
