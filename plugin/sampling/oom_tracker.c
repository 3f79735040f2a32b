// SPDX-License-Identifier: GPL-2.0-only
/*
 * The OOM tracker's user side: loads bpf/oom_kills.bpf.c, reads its map of
 * victim cgroups and its ring of kill events each sample, logs the kills,
 * and hands the counts to its book (sampling/oom_victims.c), which makes
 * the oom_victims_local column (sampling/oom_tracker.h).
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
#include "sampling/libbpf_log.h"
#include "sampling/oom_victims.h"

struct oom_tracker {
	struct oom_kills_bpf *skel;
	struct ring_buffer *ring;
	struct oom_victims *victims;
	int victims_fd;
	unsigned logged, unlogged; /* kills logged one by one / left out, this sample */
	struct oom_kill_note notes[OOM_TRACKER_LOG_KILLS]; /* the first .logged */
	uint64_t unmapped_warned, dropped_noted; /* the losses logged so far */
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

/* Reads the kernel's count of every victim cgroup. 0 or -ENOMEM. */
static int read_victims(struct oom_tracker *tr)
{
	struct oom_victim kernel;
	uint64_t key, next;
	bool first = true;
	int err;

	while (bpf_map_get_next_key(tr->victims_fd, first ? NULL : &key, &next) == 0) {
		first = false;
		key = next;
		if (bpf_map_lookup_elem(tr->victims_fd, &key, &kernel))
			continue; /* deleted meanwhile */
		err = oom_victims_update(tr->victims, key, &kernel);
		if (err)
			return err;
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
	struct oom_kill_note *note;
	const char *path;

	if (size < sizeof(*ev))
		return 0;
	if (tr->logged >= OOM_TRACKER_LOG_KILLS) {
		tr->unlogged++;
		return 0;
	}
	note = &tr->notes[tr->logged++];
	note->pid = ev->pid;
	note->cgroup_id = ev->cgroup_id;
	memcpy(note->comm, ev->comm, sizeof(ev->comm));
	note->comm[sizeof(ev->comm)] = '\0';
	printable(note->comm);
	path = oom_victims_path(tr->victims, ev->cgroup_id);
	snprintf(note->path, sizeof(note->path), "%s", path ? path : "");
	if (ev->global)
		snprintf(note->reason, sizeof(note->reason), "a system-wide OOM");
	else if (ev->oom_memcg_id == ev->cgroup_id)
		snprintf(note->reason, sizeof(note->reason), "its own limit");
	else
		snprintf(note->reason, sizeof(note->reason), "the limit of cgroup id %llu",
			 (unsigned long long)ev->oom_memcg_id);
	if (path)
		mb_notice("OOM kill: process %u (%s) of cgroup %s (id %llu), for %s", note->pid, note->comm, path,
			  (unsigned long long)note->cgroup_id, note->reason);
	else
		mb_notice("OOM kill: process %u (%s) of cgroup id %llu, outside the walk, for %s", note->pid,
			  note->comm, (unsigned long long)note->cgroup_id, note->reason);
	return 0;
}

size_t oom_tracker_kills(const struct oom_tracker *tr, const struct oom_kill_note **out)
{
	*out = tr->notes;
	return tr->logged;
}

/* A victim cgroup the book is done with: its kernel entry goes too. */
static void forget_entry(uint64_t id, void *arg)
{
	struct oom_tracker *tr = arg;

	bpf_map_delete_elem(tr->victims_fd, &id);
}

int oom_tracker_fill(struct oom_tracker *tr, struct sample_table *t, size_t column)
{
	struct oom_tracker_losses loss;
	int err;

	err = read_victims(tr);
	if (err)
		return err;
	tr->logged = tr->unlogged = 0;
	ring_buffer__consume(tr->ring);
	if (tr->unlogged)
		mb_notice("OOM kill: %u more kills since the last sample, not logged one by one", tr->unlogged);
	err = oom_victims_fill(tr->victims, t, column, forget_entry, tr);
	oom_tracker_losses(tr, &loss);
	if (loss.dropped_events > tr->dropped_noted) {
		mb_notice("OOM kill: %llu kills not logged one by one: the event ring was full (they are counted)",
			  (unsigned long long)(loss.dropped_events - tr->dropped_noted));
		tr->dropped_noted = loss.dropped_events;
	}
	if (loss.unmapped_kills > tr->unmapped_warned) {
		mb_warn("%llu OOM kills not counted: the OOM tracker's map of victim cgroups is full (%d cgroups "
			"with kills at once)", (unsigned long long)(loss.unmapped_kills - tr->unmapped_warned),
			OOM_VICTIMS_MAX);
		tr->unmapped_warned = loss.unmapped_kills;
	}
	return err;
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
	snprintf(why, why_len,
		 "the OOM tracker's BPF program did not %s (%s): %s; kills in cgroups removed before the next "
		 "sample go uncounted (oom_kill_local still counts the others)",
		 what, strerror(-err), hint);
}

int oom_tracker_open(const struct cgroup_mount *mount, int max_depth, struct oom_tracker **out, char *why,
		     size_t why_len)
{
	struct oom_tracker *tr;
	struct oom_walk walk;
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
	walk.root_id = st.st_ino;
	walk.root_is_top = is_hierarchy_root(mount);
	walk.max_depth = max_depth;
	err = oom_victims_new(&walk, &tr->victims);
	if (err)
		goto free_tracker;
	/* an optional part: its failure is one line of ours (the caller's), libbpf's at debug */
	libbpf_log_quiet(true);
	tr->skel = oom_kills_bpf__open_and_load();
	if (!tr->skel) {
		err = -errno;
		libbpf_log_quiet(false);
		explain_failure("load", err, why, why_len);
		err = -EOPNOTSUPP;
		goto free_map;
	}
	err = oom_kills_bpf__attach(tr->skel);
	libbpf_log_quiet(false);
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
	oom_victims_free(tr->victims);
free_tracker:
	free(tr);
	return err;
}

void oom_tracker_close(struct oom_tracker *tr)
{
	if (!tr)
		return;
	ring_buffer__free(tr->ring);
	oom_kills_bpf__destroy(tr->skel);
	oom_victims_free(tr->victims);
	free(tr);
}
