/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kubernetes names of pods and containers, read from the files kubelet
 * keeps on the node: no API server, no runtime socket.
 *
 *   <PodLogDir>/<namespace>_<pod>_<uid>/
 *       one directory per pod, made before its sandbox starts: uid ->
 *       namespace, pod. Namespace and pod names are DNS names without
 *       '_', so the split is unambiguous.
 *   <ContainerLogDir>/<pod>_<namespace>_<container>-<id>.log
 *       kubelet's symlink for each container it started, pointing to
 *       <PodLogDir>/<namespace>_<pod>_<uid>/<container>/<n>.log: container
 *       id -> pod uid, container name. The log path under PodLogDir
 *       does not hold the id, so this is the one node-local map from a
 *       container id to its name. A link whose name and target disagree
 *       is skipped (kubelet cuts names longer than 255 bytes, id first).
 *
 * Both directories are read into an index on the first lookup, and again
 * when a lookup misses, at most once every POD_NAMES_RESCAN_MS, so that a
 * churn of pods costs one scan per period, not one per sample. Containers
 * that have no symlink (the pod sandbox, "pause") keep missing: on a
 * Kubernetes node the scan then runs once a period.
 *
 * Not thread safe: one user (the sender thread).
 */
#ifndef MEMCG_BPF_POD_NAMES_H
#define MEMCG_BPF_POD_NAMES_H

#include <stdint.h>

#define POD_NAMES_POD_LOG_DIR "/var/log/pods"
#define POD_NAMES_CONTAINER_LOG_DIR "/var/log/containers"
#define POD_NAMES_RESCAN_MS 30000

struct pod_names;

/* What a lookup found; NULL where nothing. Valid until the next lookup. */
struct pod_name {
	const char *ns, *pod, *container;
};

/* NULL directories: the defaults above. @now_ms NULL: the monotonic clock. */
struct pod_names *pod_names_new(const char *pod_log_dir, const char *container_log_dir,
				int64_t (*now_ms)(void));
void pod_names_free(struct pod_names *pn);

/*
 * The names of pod @uid and, when @container_id is not NULL, of that
 * container; the container only when its link names the same pod.
 */
void pod_names_lookup(struct pod_names *pn, const char *uid, const char *container_id, struct pod_name *out);

/* How many times the directories were read. */
unsigned long pod_names_scans(const struct pod_names *pn);

#endif
