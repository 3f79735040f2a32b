/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Identity labels read from a cgroup path alone (cgroup_ident.c adds the
 * Kubernetes names from series/pod_names.h). Each writes "" when the path
 * does not match; an empty label is not sent. A layout not listed here gives
 * no label rather than a guessed one.
 *
 *   unit          the last path component that is a systemd unit
 *                 (*.service, *.scope, *.slice, *.socket, *.mount, *.swap);
 *
 *   pod_uid       the Kubernetes pod UID, with dashes, from kubelet's pod
 *                 cgroup under its kubepods root, QoS level optional
 *                 (Guaranteed pods have none):
 *                   cgroupfs driver  .../kubepods[/burstable|/besteffort]/pod<uid>
 *                   systemd driver   .../P.slice[/P-burstable.slice|/P-besteffort.slice]/
 *                                    P[-burstable|-besteffort]-pod<uid_with_underscores>.slice
 *                                    where P is "kubepods" or ends in "-kubepods"
 *                                    (kubelet's cgroupRoot, e.g. kubelet.slice/kubelet-kubepods.slice)
 *                 The uid is a UUID (8-4-4-4-12 lowercase hex) or 32 lowercase hex
 *                 (static pods: a hash of the manifest).
 *
 *   container_id  64 lowercase hex digits, the last component that is one of
 *                   <id>                       cgroupfs driver: containerd, Docker (and k8s on them)
 *                   docker-<id>.scope          Docker (and cri-dockerd) under systemd
 *                   cri-containerd-<id>.scope  containerd's CRI plugin under systemd
 *                   crio-<id>.scope, crio-<id> CRI-O under systemd, cgroupfs
 *                   libpod-<id>.scope, libpod-<id>  podman
 *                 (".scope" optional). Below a pod cgroup only components
 *                 below the pod count, so a pod inside a container (kind)
 *                 does not take the node container's id. The monitor
 *                 cgroups crio-conmon-<id> and libpod-conmon-<id> are not
 *                 the container and get none.
 */
#ifndef MEMCG_BPF_CGROUP_LABELS_H
#define MEMCG_BPF_CGROUP_LABELS_H

#include <stddef.h>

#define CONTAINER_ID_LEN 64
#define POD_UID_MAX 36

void cgroup_unit_label(const char *path, char *buf, size_t len);
void cgroup_pod_uid_label(const char *path, char buf[POD_UID_MAX + 1]);
void cgroup_container_id_label(const char *path, char buf[CONTAINER_ID_LEN + 1]);

#endif
