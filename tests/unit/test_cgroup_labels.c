// SPDX-License-Identifier: GPL-2.0-only
/*
 * Identity labels from cgroup paths: kubelet's pod cgroups under both
 * cgroup drivers, the container cgroups of containerd, CRI-O and Docker
 * below them, the same runtimes outside Kubernetes, and look-alikes that
 * must get nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "series/cgroup_labels.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define UID "6f1c3b9a-2d4e-4c8f-9a1b-3e5d7f9b1c2d"
#define UID_US "6f1c3b9a_2d4e_4c8f_9a1b_3e5d7f9b1c2d" /* as the systemd driver writes it */
#define STATIC_UID "33d556edd3ae8ef21980288cef77ae8b"   /* a static pod's: a hash, no dashes */

struct want {
	const char *path, *pod_uid, *container_id, *unit;
};

static void check(const struct want *w)
{
	char uid[POD_UID_MAX + 1], id[CONTAINER_ID_LEN + 1], unit[256];

	cgroup_pod_uid_label(w->path, uid);
	cgroup_container_id_label(w->path, id);
	cgroup_unit_label(w->path, unit, sizeof(unit));
	if (strcmp(uid, w->pod_uid) || strcmp(id, w->container_id) || (w->unit && strcmp(unit, w->unit)))
		fail_msg("%s:\n  pod_uid \"%s\" (want \"%s\")\n  container_id \"%s\" (want \"%s\")\n  unit \"%s\" (want \"%s\")",
			 w->path, uid, w->pod_uid, id, w->container_id, unit, w->unit ? w->unit : "(any)");
}

static void check_all(const struct want *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		check(&w[i]);
}

/* kubelet's systemd driver: containerd, CRI-O, Docker (cri-dockerd); every QoS class */
static void test_systemd_driver(void **state)
{
	static const struct want w[] = {
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_US ".slice/cri-containerd-" ID ".scope",
		  UID, ID, "cri-containerd-" ID ".scope" },
		{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_US ".slice/crio-" ID ".scope",
		  UID, ID, "crio-" ID ".scope" },
		{ "/kubepods.slice/kubepods-pod" UID_US ".slice/docker-" ID ".scope", UID, ID, NULL },
		/* Guaranteed: no QoS level; the pod cgroup itself has no container */
		{ "/kubepods.slice/kubepods-pod" UID_US ".slice", UID, "", "kubepods-pod" UID_US ".slice" },
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_US ".slice", UID, "", NULL },
		/* a static pod's uid */
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" STATIC_UID ".slice/cri-containerd-" ID ".scope",
		  STATIC_UID, ID, NULL },
		/* a process cgroup the container made below its scope belongs to it */
		{ "/kubepods.slice/kubepods-pod" UID_US ".slice/crio-" ID ".scope/container", UID, ID, "crio-" ID ".scope" },
		/* the QoS and kubepods slices are no pod's */
		{ "/kubepods.slice/kubepods-burstable.slice", "", "", "kubepods-burstable.slice" },
		{ "/kubepods.slice", "", "", "kubepods.slice" },
	};

	check_all(w, sizeof(w) / sizeof(w[0]));
}

/* kubelet's cgroupfs driver: containerd and Docker name the cgroup by the bare id, CRI-O "crio-<id>" */
static void test_cgroupfs_driver(void **state)
{
	static const struct want w[] = {
		{ "/kubepods/burstable/pod" UID "/" ID, UID, ID, "" },
		{ "/kubepods/besteffort/pod" UID "/crio-" ID, UID, ID, "" },
		{ "/kubepods/pod" UID "/" ID, UID, ID, "" }, /* Guaranteed */
		{ "/kubepods/pod" UID, UID, "", "" },
		{ "/kubepods/burstable/pod" STATIC_UID "/" ID, STATIC_UID, ID, "" },
		{ "/kubepods/burstable", "", "", "" },
	};

	check_all(w, sizeof(w) / sizeof(w[0]));
}

/* kubelet's cgroupRoot moves kubepods below a prefix: kind's kubelet.slice, a node inside a container */
static void test_kubepods_below_a_prefix(void **state)
{
	static const struct want w[] = {
		{ "/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-burstable.slice/kubelet-kubepods-burstable-pod" UID_US
		  ".slice/cri-containerd-" ID ".scope",
		  UID, ID, NULL },
		{ "/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod" UID_US ".slice", UID, "", NULL },
		/* kind from the host: the pod slice inside the node's docker scope takes no node id */
		{ "/system.slice/docker-" ID2 ".scope/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
		  "kubelet-kubepods-besteffort-pod" UID_US ".slice",
		  UID, "", NULL },
		{ "/system.slice/docker-" ID2 ".scope/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
		  "kubelet-kubepods-besteffort-pod" UID_US ".slice/cri-containerd-" ID ".scope",
		  UID, ID, NULL },
		{ "/system.slice/docker-" ID2 ".scope/kubelet.slice", "", ID2, NULL },
		{ "/kubelet/kubepods/burstable/pod" UID "/" ID, UID, ID, "" },
		/* CgroupRoot set to the QoS slice: the pod slice names itself */
		{ "/kubepods-burstable-pod" UID_US ".slice/cri-containerd-" ID ".scope", UID, ID, NULL },
	};

	check_all(w, sizeof(w) / sizeof(w[0]));
}

/* the runtimes outside Kubernetes: a container id, never a pod uid */
static void test_runtimes_without_kubernetes(void **state)
{
	static const struct want w[] = {
		{ "/system.slice/docker-" ID ".scope", "", ID, "docker-" ID ".scope" },
		{ "/docker/" ID, "", ID, "" },
		{ "/machine.slice/libpod-" ID ".scope", "", ID, NULL },
		{ "/machine.slice/libpod-" ID ".scope/container", "", ID, "libpod-" ID ".scope" },
		{ "/libpod_parent/libpod-" ID, "", ID, "" },
		{ "/system.slice/containerd.service", "", "", "containerd.service" },
		{ "/system.slice/ssh.service", "", "", "ssh.service" },
		{ "/user.slice/user-1000.slice/session-3.scope", "", "", "session-3.scope" },
		{ "/", "", "", "" },
	};

	check_all(w, sizeof(w) / sizeof(w[0]));
}

/* look-alikes: the wrong parent, the wrong escaping, a cut uid or id, a monitor cgroup */
static void test_look_alikes_get_nothing(void **state)
{
	static const struct want w[] = {
		{ "/kubepods/burstable/podcast", "", "", "" },
		{ "/kubepods/burstable/pod6f1c3b9a-2d4e-4c8f-9a1b-3e5d7f9b1c2", "", "", "" }, /* one short */
		{ "/kubepods/burstable/pod" UID "0", "", "", "" },
		{ "/kubepods/burstable/pod6F1C3B9A-2D4E-4C8F-9A1B-3E5D7F9B1C2D", "", "", "" }, /* not kubelet's case */
		{ "/kubepods/burstable/pod" UID_US, "", "", "" },        /* underscores need the systemd form */
		{ "/kubepods/guaranteed/pod" UID, "", "", "" },          /* no such QoS directory */
		{ "/notkubepods/burstable/pod" UID, "", "", "" },
		{ "/system.slice/pod" UID, "", "", "system.slice" },
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID ".slice", "", "", NULL }, /* dashes */
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-besteffort-pod" UID_US ".slice", "", "", NULL },
		{ "/system.slice/mykubepods-pod" UID_US ".slice", "", "", NULL },
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_US "x.slice", "", "", NULL },
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_US ".service", "", "", NULL },
		/* the pod is right, the component below it is no container */
		{ "/kubepods/burstable/pod" UID "/garbage", UID, "", "" },
		{ "/kubepods/burstable/pod" UID "/" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde", UID, "",
		  "" },
		/* CRI-O's and podman's monitors are not the container */
		{ "/kubepods.slice/kubepods-pod" UID_US ".slice/crio-conmon-" ID ".scope", UID, "", NULL },
		{ "/machine.slice/libpod-conmon-" ID ".scope", "", "", NULL },
		/* ids: cut, too long, upper case, an unknown prefix */
		{ "/docker/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde", "", "", "" },
		{ "/docker/" ID "0", "", "", "" },
		{ "/docker/0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef", "", "", "" },
		{ "/system.slice/foo-" ID ".scope", "", "", NULL },
		{ "/system.slice/docker-" ID ".service", "", "", NULL },
	};

	check_all(w, sizeof(w) / sizeof(w[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_systemd_driver),
		cmocka_unit_test(test_cgroupfs_driver),
		cmocka_unit_test(test_kubepods_below_a_prefix),
		cmocka_unit_test(test_runtimes_without_kubernetes),
		cmocka_unit_test(test_look_alikes_get_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
