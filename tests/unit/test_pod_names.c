// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kubernetes names from a fake kubelet tree (a PodLogDir and a
 * ContainerLogDir in a temporary directory): the index, its rescans under
 * a scripted clock, links that must be skipped; then the series of
 * snapshots whose cgroups are those pods' (series_set with a stale tracker).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sampling/sample_table.h"
#include "series/pod_names.h"
#include "series/series_set.h"
#include "series/snapshot.h"
#include "item_labels.h"

#define ID1 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID2 "1111111111111111111111111111111111111111111111111111111111111111"
#define ID3 "2222222222222222222222222222222222222222222222222222222222222222"
#define SANDBOX "3333333333333333333333333333333333333333333333333333333333333333"
#define UID1 "6f1c3b9a-2d4e-4c8f-9a1b-3e5d7f9b1c2d"
#define UID1_US "6f1c3b9a_2d4e_4c8f_9a1b_3e5d7f9b1c2d"
#define UID2 "81e09ae0-12ec-4ec5-94b8-51cda7906370"
#define UID2_US "81e09ae0_12ec_4ec5_94b8_51cda7906370"
#define STATIC_UID "33d556edd3ae8ef21980288cef77ae8b"

static char top[64], pods[128], ctrs[128];
static int64_t fake_now;

static int64_t now_ms(void)
{
	return fake_now;
}

static void mkdirf(const char *fmt, ...)
{
	char path[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	assert_int_equal(mkdir(path, 0755), 0);
}

/* A pod directory with its containers' directories, as kubelet makes them. */
static void add_pod(const char *ns, const char *pod, const char *uid, const char *container)
{
	mkdirf("%s/%s_%s_%s", pods, ns, pod, uid);
	if (container)
		mkdirf("%s/%s_%s_%s/%s", pods, ns, pod, uid, container);
}

/* kubelet's /var/log/containers link: @link_name NULL for the one it would make. */
static void add_link(const char *ns, const char *pod, const char *uid, const char *container, const char *id,
		     const char *link_name)
{
	char target[512], link[512];

	snprintf(target, sizeof(target), "%s/%s_%s_%s/%s/0.log", pods, ns, pod, uid, container);
	if (link_name)
		snprintf(link, sizeof(link), "%s/%s", ctrs, link_name);
	else
		snprintf(link, sizeof(link), "%s/%s_%s_%s-%s.log", ctrs, pod, ns, container, id);
	assert_int_equal(symlink(target, link), 0);
}

static int setup(void **state)
{
	snprintf(top, sizeof(top), "/tmp/test_pod_names.XXXXXX");
	assert_non_null(mkdtemp(top));
	snprintf(pods, sizeof(pods), "%s/pods", top);
	snprintf(ctrs, sizeof(ctrs), "%s/containers", top);
	mkdirf("%s", pods);
	mkdirf("%s", ctrs);
	fake_now = 1000000;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static void test_names_from_the_tree(void **state)
{
	struct pod_names *pn;
	struct pod_name n;

	add_pod("default", "web-0", UID1, "app");
	mkdirf("%s/default_web-0_%s/sidecar-proxy", pods, UID1);
	add_link("default", "web-0", UID1, "app", ID1, NULL);
	add_link("default", "web-0", UID1, "sidecar-proxy", ID2, NULL);
	add_pod("kube-system", "etcd-node1.example.com", STATIC_UID, "etcd");
	add_link("kube-system", "etcd-node1.example.com", STATIC_UID, "etcd", ID3, NULL);
	pn = pod_names_new(pods, ctrs, now_ms);
	assert_non_null(pn);

	pod_names_lookup(pn, UID1, ID1, &n);
	assert_string_equal(n.ns, "default");
	assert_string_equal(n.pod, "web-0");
	assert_string_equal(n.container, "app");
	pod_names_lookup(pn, UID1, ID2, &n);
	assert_string_equal(n.container, "sidecar-proxy");
	pod_names_lookup(pn, STATIC_UID, ID3, &n);
	assert_string_equal(n.ns, "kube-system");
	assert_string_equal(n.pod, "etcd-node1.example.com");
	assert_string_equal(n.container, "etcd");
	/* the pod alone */
	pod_names_lookup(pn, UID1, NULL, &n);
	assert_string_equal(n.pod, "web-0");
	assert_null(n.container);
	assert_int_equal(pod_names_scans(pn), 1);
	/* a container id whose link names another pod: no container */
	pod_names_lookup(pn, STATIC_UID, ID1, &n);
	assert_string_equal(n.pod, "etcd-node1.example.com");
	assert_null(n.container);
	pod_names_free(pn);
	pod_names_free(NULL);
}

/* Links kubelet cut (names over 255 bytes) or that disagree with their target are skipped. */
static void test_bad_links_are_skipped(void **state)
{
	struct pod_names *pn;
	struct pod_name n;

	add_pod("default", "web-0", UID1, "app");
	/* the id cut short */
	add_link("default", "web-0", UID1, "app", ID1,
		 "web-0_default_app-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde.log");
	/* the name says another container than the target */
	add_link("default", "web-0", UID1, "app", ID2, "web-0_default_other-" ID2 ".log");
	/* the name says another namespace */
	add_link("default", "web-0", UID1, "app", ID3, "web-0_prod_app-" ID3 ".log");
	/* not a kubelet pod directory name */
	mkdirf("%s/stray", pods);
	mkdirf("%s/a_b", pods);
	pn = pod_names_new(pods, ctrs, now_ms);
	assert_non_null(pn);
	pod_names_lookup(pn, UID1, ID1, &n);
	assert_string_equal(n.pod, "web-0");
	assert_null(n.container);
	pod_names_lookup(pn, UID1, ID2, &n);
	assert_null(n.container);
	pod_names_lookup(pn, UID1, ID3, &n);
	assert_null(n.container);
	pod_names_lookup(pn, "b", NULL, &n);
	assert_null(n.pod);
	pod_names_free(pn);
}

/* An unknown uid or id rescans, at most once every POD_NAMES_RESCAN_MS. */
static void test_rescan_is_rate_limited(void **state)
{
	struct pod_names *pn = pod_names_new(pods, ctrs, now_ms);
	struct pod_name n;

	assert_non_null(pn);
	pod_names_lookup(pn, UID1, NULL, &n);
	assert_null(n.pod);
	assert_int_equal(pod_names_scans(pn), 1);
	/* the pod appears: found at the first miss a period after the last scan */
	add_pod("default", "web-0", UID1, "app");
	for (int i = 0; i < 100; i++) {
		fake_now += 100;
		pod_names_lookup(pn, UID1, NULL, &n);
		pod_names_lookup(pn, UID2, NULL, &n);
	}
	assert_int_equal(pod_names_scans(pn), 1);
	fake_now += POD_NAMES_RESCAN_MS;
	pod_names_lookup(pn, UID1, NULL, &n);
	assert_int_equal(pod_names_scans(pn), 2);
	assert_string_equal(n.pod, "web-0");
	/* known names cost no scan */
	fake_now += 10 * POD_NAMES_RESCAN_MS;
	pod_names_lookup(pn, UID1, NULL, &n);
	assert_int_equal(pod_names_scans(pn), 2);
	/* a container started in a known pod: its id is new, so a scan */
	add_link("default", "web-0", UID1, "app", ID1, NULL);
	pod_names_lookup(pn, UID1, ID1, &n);
	assert_int_equal(pod_names_scans(pn), 3);
	assert_string_equal(n.container, "app");
	/* the sandbox has no link: it misses, but only once a period */
	fake_now += POD_NAMES_RESCAN_MS;
	for (int i = 0; i < 10; i++)
		pod_names_lookup(pn, UID1, SANDBOX, &n);
	assert_int_equal(pod_names_scans(pn), 4);
	assert_string_equal(n.pod, "web-0");
	assert_null(n.container);
	pod_names_free(pn);
}

/* No kubelet on this node: no names, no error. */
static void test_no_directories(void **state)
{
	struct pod_names *pn = pod_names_new("/nonexistent/pods", "/nonexistent/containers", NULL);
	struct pod_name n;

	assert_non_null(pn);
	pod_names_lookup(pn, UID1, ID1, &n);
	assert_null(n.ns);
	assert_null(n.pod);
	assert_null(n.container);
	pod_names_lookup(pn, NULL, ID1, &n);
	assert_null(n.pod);
	pod_names_free(pn);
}

/* ---- the series of those pods' cgroups */

static const struct stat_def *cols[1];

static struct snapshot *snap_of(const char *const *paths, size_t n, int64_t ts_ms)
{
	struct sample_table t;
	struct snapshot *s;

	cols[0] = stat_lookup("anon");
	sample_table_init(&t, cols, 1);
	t.timestamp_ns = (uint64_t)ts_ms * 1000000u;
	for (size_t i = 0; i < n; i++)
		sample_table_add(&t, i + 1, paths[i], 1)->values[0] = 100 + i;
	assert_int_equal(snapshot_from_table(&t, NULL, NULL, &s), 0);
	sample_table_free(&t);
	return s;
}

/* The item of @cgroup, stale or not. */
static const struct series_item *item(const struct series_set *set, const char *cgroup, bool stale)
{
	for (size_t i = 0; i < set->nr_items; i++)
		if (set->items[i].stale == stale && item_label(set, &set->items[i], "cgroup") &&
		    strcmp(item_label(set, &set->items[i], "cgroup"), cgroup) == 0)
			return &set->items[i];
	return NULL;
}

static void assert_label(const struct series_set *set, const struct series_item *it, const char *name,
			 const char *want)
{
	const char *v;

	assert_non_null(it);
	v = item_label(set, it, name);
	if (!want && v)
		fail_msg("label %s=\"%s\", want none", name, v);
	if (want && (!v || strcmp(v, want)))
		fail_msg("label %s=\"%s\", want \"%s\"", name, v ? v : "(none)", want);
}

static char ctrd_dir[192], crio_dir[192];

/* A containerd and a CRI-O state directory below the test's: the images of ID1 and ID2. */
static void add_runtime_state(void)
{
	char path[512];
	FILE *f;

	snprintf(ctrd_dir, sizeof(ctrd_dir), "%s/containerd", top);
	snprintf(crio_dir, sizeof(crio_dir), "%s/crio", top);
	mkdirf("%s", ctrd_dir);
	mkdirf("%s/k8s.io", ctrd_dir);
	mkdirf("%s/k8s.io/" ID1, ctrd_dir);
	snprintf(path, sizeof(path), "%s/k8s.io/" ID1 "/config.json", ctrd_dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"annotations\":{\"io.kubernetes.cri.image-name\":\"docker.io/library/nginx:1.25\"}}", f);
	fclose(f);
	mkdirf("%s", crio_dir);
	mkdirf("%s/" ID2, crio_dir);
	mkdirf("%s/" ID2 "/userdata", crio_dir);
	snprintf(path, sizeof(path), "%s/" ID2 "/userdata/config.json", crio_dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"annotations\":{\"io.kubernetes.cri-o.ImageName\":\"quay.io/team/worker:7\"}}", f);
	fclose(f);
}

static const struct series_opts all_on = {
	.host = "h1",
	.unit_label = true,
	.pod_uid_label = true,
	.container_id_label = true,
	.pod_name_labels = true,
	.container_name_label = true,
};

#define POD1 "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID1_US ".slice"
#define CTR1 POD1 "/cri-containerd-" ID1 ".scope"
#define SBX1 POD1 "/cri-containerd-" SANDBOX ".scope"
#define CTR2 "/kubepods/besteffort/pod" UID2 "/crio-" ID2

static void test_series_carry_the_names(void **state)
{
	static const char *const paths[] = { CTR1, SBX1, POD1, CTR2, "/system.slice/ssh.service" };
	struct series_opts o = all_on;
	struct series_set set;
	struct snapshot *s;

	add_pod("default", "web-0", UID1, "app");
	add_link("default", "web-0", UID1, "app", ID1, NULL);
	add_pod("batch", "job-x7k2p", UID2, "worker");
	add_link("batch", "job-x7k2p", UID2, "worker", ID2, NULL);
	o.names = pod_names_new(pods, ctrs, now_ms);
	/* the runtimes' state: the image of the containerd container and of the CRI-O one */
	add_runtime_state();
	o.image_label = true;
	o.containerd_state_dir = ctrd_dir;
	o.crio_state_dir = crio_dir;
	s = snap_of(paths, 5, 1000);
	series_set_init(&set);
	assert_int_equal(series_set_build(&set, &o, s, NULL), 0);

	assert_label(&set, item(&set, CTR1, false), "image", "docker.io/library/nginx:1.25");
	assert_label(&set, item(&set, CTR2, false), "image", "quay.io/team/worker:7");
	assert_label(&set, item(&set, SBX1, false), "image", NULL); /* no state of its own here */
	assert_label(&set, item(&set, POD1, false), "image", NULL);
	assert_label(&set, item(&set, CTR1, false), "pod_uid", UID1);
	assert_label(&set, item(&set, CTR1, false), "container_id", ID1);
	assert_label(&set, item(&set, CTR1, false), "namespace", "default");
	assert_label(&set, item(&set, CTR1, false), "pod", "web-0");
	assert_label(&set, item(&set, CTR1, false), "container", "app");
	assert_label(&set, item(&set, CTR1, false), "unit", "cri-containerd-" ID1 ".scope");
	/* the sandbox: its pod, no container name */
	assert_label(&set, item(&set, SBX1, false), "pod", "web-0");
	assert_label(&set, item(&set, SBX1, false), "container_id", SANDBOX);
	assert_label(&set, item(&set, SBX1, false), "container", NULL);
	/* the pod cgroup */
	assert_label(&set, item(&set, POD1, false), "pod", "web-0");
	assert_label(&set, item(&set, POD1, false), "container_id", NULL);
	assert_label(&set, item(&set, POD1, false), "container", NULL);
	/* cgroupfs, CRI-O */
	assert_label(&set, item(&set, CTR2, false), "namespace", "batch");
	assert_label(&set, item(&set, CTR2, false), "pod", "job-x7k2p");
	assert_label(&set, item(&set, CTR2, false), "container", "worker");
	assert_label(&set, item(&set, CTR2, false), "unit", NULL);
	/* not Kubernetes: none of them */
	for (size_t i = 0; i < 5; i++)
		assert_label(&set, item(&set, "/system.slice/ssh.service", false),
			     (const char *[]){ "pod_uid", "container_id", "namespace", "pod", "container" }[i], NULL);
	assert_label(&set, item(&set, "/system.slice/ssh.service", false), "unit", "ssh.service");

	/* each key turns its labels off */
	o.image_label = false;
	assert_int_equal(series_set_build(&set, &o, s, NULL), 0);
	assert_label(&set, item(&set, CTR1, false), "image", NULL);
	assert_label(&set, item(&set, CTR1, false), "container", "app");
	o.image_label = true; /* the image alone: it needs neither label it is found by */
	o.unit_label = o.pod_uid_label = o.container_id_label = o.pod_name_labels = o.container_name_label = false;
	assert_int_equal(series_set_build(&set, &o, s, NULL), 0);
	assert_label(&set, item(&set, CTR1, false), "image", "docker.io/library/nginx:1.25");
	assert_label(&set, item(&set, CTR1, false), "container_id", NULL);
	o.image_label = false;
	assert_int_equal(series_set_build(&set, &o, s, NULL), 0);
	for (size_t i = 0; i < set.nr_items; i++)
		assert_int_equal(set.items[i].nr_labels, 3); /* __name__, cgroup, host */
	o.pod_name_labels = true;
	assert_int_equal(series_set_build(&set, &o, s, NULL), 0);
	assert_label(&set, item(&set, CTR1, false), "pod", "web-0");
	assert_label(&set, item(&set, CTR1, false), "pod_uid", NULL);
	assert_label(&set, item(&set, CTR1, false), "container", NULL);
	series_set_free(&set);
	snapshot_free(s);
	pod_names_free(o.names);
}

/*
 * A pod's cgroup seen before its log directory: no names, then its names
 * once a rescan finds them, with stale markers for the series without.
 * Then the names stay (no lookups for complete cgroups), and the stale
 * markers of a vanished pod carry the names it was sent with even after
 * its directory went.
 */
static void test_names_found_later_and_kept(void **state)
{
	static const char *const with_pod[] = { CTR1 }, *const none[] = { "/system.slice/ssh.service" };
	struct stale_tracker *st = stale_tracker_new();
	struct series_opts o = all_on;
	struct series_set set;
	struct snapshot *s1 = snap_of(with_pod, 1, 1000), *s2 = snap_of(none, 1, 2000);
	unsigned long scans;
	char cmd[512];

	o.names = pod_names_new(pods, ctrs, now_ms);
	series_set_init(&set);
	assert_int_equal(series_set_build(&set, &o, s1, st), 0);
	assert_label(&set, item(&set, CTR1, false), "pod_uid", UID1);
	assert_label(&set, item(&set, CTR1, false), "pod", NULL);
	assert_int_equal(set.nr_stale, 0);

	add_pod("default", "web-0", UID1, "app");
	add_link("default", "web-0", UID1, "app", ID1, NULL);
	/* within the period: still nothing, and no scan */
	fake_now += POD_NAMES_RESCAN_MS / 2;
	assert_int_equal(series_set_build(&set, &o, s1, st), 0);
	assert_label(&set, item(&set, CTR1, false), "pod", NULL);
	assert_int_equal(set.nr_stale, 0);
	/* a period on: found; the series without names gets its stale marker */
	fake_now += POD_NAMES_RESCAN_MS;
	assert_int_equal(series_set_build(&set, &o, s1, st), 0);
	assert_label(&set, item(&set, CTR1, false), "pod", "web-0");
	assert_label(&set, item(&set, CTR1, false), "container", "app");
	assert_int_equal(set.nr_stale, 1);
	assert_label(&set, item(&set, CTR1, true), "pod_uid", UID1);
	assert_label(&set, item(&set, CTR1, true), "pod", NULL);

	/* complete: no more lookups, the directory may go */
	scans = pod_names_scans(o.names);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/* '%s'/*", pods, ctrs);
	assert_int_equal(system(cmd), 0);
	fake_now += 10 * POD_NAMES_RESCAN_MS;
	assert_int_equal(series_set_build(&set, &o, s1, st), 0);
	assert_int_equal(set.nr_stale, 0);
	assert_label(&set, item(&set, CTR1, false), "container", "app");
	assert_int_equal(pod_names_scans(o.names), scans);

	/* the cgroup goes: its stale marker has the labels it was sent with */
	assert_int_equal(series_set_build(&set, &o, s2, st), 0);
	assert_int_equal(set.nr_stale, 1);
	assert_label(&set, item(&set, CTR1, true), "pod", "web-0");
	assert_label(&set, item(&set, CTR1, true), "container", "app");

	series_set_free(&set);
	stale_tracker_free(st);
	snapshot_free(s1);
	snapshot_free(s2);
	pod_names_free(o.names);
}

/*
 * The sandbox never gets a container name: its series keep one label set
 * (no stale markers from interval to interval) and its misses cost one
 * scan a period. A container whose link comes after its cgroup gets its
 * name once, its pod names kept.
 */
static void test_sandbox_stays_and_container_name_comes_later(void **state)
{
	static const char *const paths[] = { SBX1, CTR1 };
	struct stale_tracker *st = stale_tracker_new();
	struct series_opts o = all_on;
	struct series_set set;
	struct snapshot *s = snap_of(paths, 2, 1000);

	add_pod("default", "web-0", UID1, "app");
	o.names = pod_names_new(pods, ctrs, now_ms);
	series_set_init(&set);
	assert_int_equal(series_set_build(&set, &o, s, st), 0);
	assert_label(&set, item(&set, CTR1, false), "pod", "web-0");
	assert_label(&set, item(&set, CTR1, false), "container", NULL);
	for (int i = 0; i < 20; i++) {
		fake_now += 1000;
		assert_int_equal(series_set_build(&set, &o, s, st), 0);
		assert_int_equal(set.nr_stale, 0);
	}
	assert_int_equal(pod_names_scans(o.names), 1);
	/* the link appears: found at the next scan; one stale marker for the series without it */
	add_link("default", "web-0", UID1, "app", ID1, NULL);
	fake_now += POD_NAMES_RESCAN_MS;
	assert_int_equal(series_set_build(&set, &o, s, st), 0);
	assert_int_equal(pod_names_scans(o.names), 2);
	assert_int_equal(set.nr_stale, 1);
	assert_label(&set, item(&set, CTR1, true), "container", NULL);
	assert_label(&set, item(&set, CTR1, true), "pod", "web-0");
	assert_label(&set, item(&set, CTR1, false), "container", "app");
	assert_label(&set, item(&set, CTR1, false), "pod", "web-0");
	assert_label(&set, item(&set, SBX1, false), "container", NULL);
	assert_label(&set, item(&set, SBX1, false), "pod", "web-0");
	series_set_free(&set);
	stale_tracker_free(st);
	snapshot_free(s);
	pod_names_free(o.names);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_names_from_the_tree),
		T(test_bad_links_are_skipped),
		T(test_rescan_is_rate_limited),
		T(test_no_directories),
		T(test_series_carry_the_names),
		T(test_names_found_later_and_kept),
		T(test_sandbox_stays_and_container_name_comes_later),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
