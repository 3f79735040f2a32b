// SPDX-License-Identifier: GPL-2.0-only
#include "series/cgroup_labels.h"

#include <stdbool.h>
#include <string.h>

#include "base/macros.h"

/* One path component: not NUL-terminated. */
struct comp {
	const char *p;
	size_t n;
};

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n > k && memcmp(s + n - k, suffix, k) == 0;
}

static bool comp_is(struct comp c, const char *s)
{
	return c.p && c.n == strlen(s) && memcmp(c.p, s, c.n) == 0;
}

/* The next component of a path at *@p (its length in *@n), or NULL at the end. */
static const char *next_component(const char **p, size_t *n)
{
	const char *c = *p, *end;

	while (*c == '/')
		c++;
	if (!*c)
		return NULL;
	end = strchr(c, '/');
	*n = end ? (size_t)(end - c) : strlen(c);
	*p = c + *n;
	return c;
}

void cgroup_unit_label(const char *path, char *buf, size_t len)
{
	static const char *const kinds[] = { ".service", ".scope", ".slice", ".socket", ".mount", ".swap" };
	const char *best = NULL, *rest = path, *c;
	size_t best_len = 0, n;

	while ((c = next_component(&rest, &n)))
		for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
			if (ends_with(c, n, kinds[i])) {
				best = c;
				best_len = n;
			}
	if (!len)
		return;
	if (!best || best_len >= len)
		best_len = 0;
	if (best_len)
		memcpy(buf, best, best_len);
	buf[best_len] = '\0';
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static bool all_hex(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_hex(p[i]))
			return false;
	return true;
}

/*
 * A pod uid at @p (@n bytes) whose UUID groups are separated by @sep: 36
 * characters 8-4-4-4-12, or 32 hex digits (a static pod's). Written to
 * @out with dashes.
 */
static bool pod_uid(const char *p, size_t n, char sep, char out[POD_UID_MAX + 1])
{
	if (n == 32) {
		if (!all_hex(p, n))
			return false;
	} else if (n == 36) {
		for (size_t i = 0; i < n; i++)
			if (i == 8 || i == 13 || i == 18 || i == 23 ? p[i] != sep : !is_hex(p[i]))
				return false;
	} else {
		return false;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = p[i] == sep ? '-' : p[i];
	out[n] = '\0';
	return true;
}

/* cgroupfs driver: "pod<uid>" right below "kubepods" or "kubepods/<qos>". */
static bool pod_cgroupfs(struct comp c, struct comp up1, struct comp up2, char uid[POD_UID_MAX + 1])
{
	if (c.n < 3 || memcmp(c.p, "pod", 3) != 0 || !pod_uid(c.p + 3, c.n - 3, '-', uid))
		return false;
	return comp_is(up1, "kubepods") ||
	       ((comp_is(up1, "burstable") || comp_is(up1, "besteffort")) && comp_is(up2, "kubepods"));
}

/* "kubepods", or ending in "-kubepods", optionally followed by "-burstable" or "-besteffort". */
static bool kubepods_slice_stem(const char *p, size_t n)
{
	if (ends_with(p, n, "-burstable"))
		n -= strlen("-burstable");
	else if (ends_with(p, n, "-besteffort"))
		n -= strlen("-besteffort");
	return (n == strlen("kubepods") && memcmp(p, "kubepods", n) == 0) || ends_with(p, n, "-kubepods");
}

/*
 * systemd driver: "<stem>-pod<uid>.slice", the uid's dashes escaped to
 * underscores, <stem> a kubepods slice stem; its parent (when the path
 * has one) is "<stem>.slice", as systemd's slice nesting requires.
 */
static bool pod_systemd(struct comp c, struct comp up1, char uid[POD_UID_MAX + 1])
{
	static const size_t uid_lens[] = { 36, 32 };
	size_t n;

	if (!ends_with(c.p, c.n, ".slice"))
		return false;
	n = c.n - strlen(".slice");
	for (size_t i = 0; i < ARRAY_SIZE(uid_lens); i++) {
		size_t k = uid_lens[i], stem;

		if (n <= k + 4 || memcmp(c.p + n - k - 4, "-pod", 4) != 0 || !pod_uid(c.p + n - k, k, '_', uid))
			continue;
		stem = n - k - 4;
		if (!kubepods_slice_stem(c.p, stem))
			return false;
		return !up1.p || (up1.n == stem + strlen(".slice") && memcmp(up1.p, c.p, stem) == 0 &&
				  ends_with(up1.p, up1.n, ".slice"));
	}
	return false;
}

/* The end of the deepest pod cgroup component of @path (its uid in @uid), or NULL. */
static const char *pod_component(const char *path, char uid[POD_UID_MAX + 1])
{
	struct comp c, up1 = { 0 }, up2 = { 0 };
	const char *rest = path, *end = NULL;
	char tmp[POD_UID_MAX + 1];

	while ((c.p = next_component(&rest, &c.n))) {
		if (pod_cgroupfs(c, up1, up2, tmp) || pod_systemd(c, up1, tmp)) {
			memcpy(uid, tmp, sizeof(tmp));
			end = rest;
		}
		up2 = up1;
		up1 = c;
	}
	return end;
}

void cgroup_pod_uid_label(const char *path, char buf[POD_UID_MAX + 1])
{
	buf[0] = '\0';
	if (!pod_component(path, buf))
		buf[0] = '\0';
}

/* The container id of one component, one of the forms of cgroup_labels.h. */
static bool component_id(const char *p, size_t n, char out[CONTAINER_ID_LEN + 1])
{
	static const char *const prefixes[] = { "", "docker-", "cri-containerd-", "crio-", "libpod-" };

	if (ends_with(p, n, ".scope"))
		n -= strlen(".scope");
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
		size_t k = strlen(prefixes[i]);

		if (n == k + CONTAINER_ID_LEN && memcmp(p, prefixes[i], k) == 0 && all_hex(p + k, CONTAINER_ID_LEN)) {
			memcpy(out, p + k, CONTAINER_ID_LEN);
			out[CONTAINER_ID_LEN] = '\0';
			return true;
		}
	}
	return false;
}

void cgroup_container_id_label(const char *path, char buf[CONTAINER_ID_LEN + 1])
{
	char id[CONTAINER_ID_LEN + 1], uid[POD_UID_MAX + 1];
	const char *rest = pod_component(path, uid), *c;
	size_t n;

	if (!rest)
		rest = path;
	buf[0] = '\0';
	while ((c = next_component(&rest, &n)))
		if (component_id(c, n, id))
			memcpy(buf, id, sizeof(id));
}
