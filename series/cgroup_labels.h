/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Labels derived from a cgroup path, each off by default (UnitLabel,
 * ContainerIdLabel):
 *   unit          the last path component that is a systemd unit
 *                 (*.service, *.scope, *.slice, *.socket, *.mount, *.swap);
 *   container_id  64 hex digits found in the last component that holds them,
 *                 alone or as docker-ID.scope, cri-containerd-ID.scope,
 *                 crio-ID.scope, libpod-ID.scope (prefix up to the last '-').
 * Both write "" when nothing matches; an empty label is not sent.
 */
#ifndef MEMCG_BPF_CGROUP_LABELS_H
#define MEMCG_BPF_CGROUP_LABELS_H

#include <stddef.h>

#define CONTAINER_ID_LEN 64

void cgroup_unit_label(const char *path, char *buf, size_t len);
void cgroup_container_id_label(const char *path, char buf[CONTAINER_ID_LEN + 1]);

#endif
