/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The image of a Kubernetes container, read from its runtime's own state on
 * the node: no API server, no runtime socket. The CRI runtimes write each
 * container's OCI config with the image name as an annotation:
 *
 *   containerd  <ContainerdStateDir>/k8s.io/<id>/config.json
 *               "io.kubernetes.cri.image-name": "docker.io/library/nginx:1.25"
 *               (ContainerdStateDir: /run/containerd/io.containerd.runtime.v2.task)
 *   CRI-O       <CrioStateDir>/<id>/userdata/config.json
 *               "io.kubernetes.cri-o.ImageName": "..."
 *               (CrioStateDir: /run/containers/storage/overlay-containers)
 *
 * The file is written before the container's cgroup exists, and the image
 * of a container id never changes: one read per container, when its
 * identity is first derived. Only the annotation's key followed by ':'
 * counts (a quote inside a JSON string is escaped, so an environment
 * variable or another annotation a tenant chose cannot pass for it); its
 * value is decoded as a JSON string. A file that is missing, larger than
 * IMAGE_NAMES_MAX_FILE, or without the key gives no image, never a guess.
 */
#ifndef MEMCG_BPF_IMAGE_NAMES_H
#define MEMCG_BPF_IMAGE_NAMES_H

#include <stddef.h>

#define IMAGE_NAMES_CONTAINERD_DIR "/run/containerd/io.containerd.runtime.v2.task"
#define IMAGE_NAMES_CRIO_DIR "/run/containers/storage/overlay-containers"
#define IMAGE_NAMES_MAX_FILE (4 << 20)
#define IMAGE_NAME_MAX 1024 /* bytes of a name, decoded; longer ones are not taken */

/*
 * The image of container @container_id (64 hex digits) into @buf, "" when
 * none is found; NULL directories: the defaults above.
 */
void image_name_lookup(const char *containerd_dir, const char *crio_dir, const char *container_id,
		       char buf[IMAGE_NAME_MAX + 1]);

/*
 * The JSON string value of key @key in @json (@len bytes) into @buf, decoded;
 * "" when the key is not there or its value is not a string of at most
 * IMAGE_NAME_MAX bytes without control characters. For tests and fuzzing.
 */
void image_name_from_json(const char *json, size_t len, const char *key, char buf[IMAGE_NAME_MAX + 1]);

#endif
