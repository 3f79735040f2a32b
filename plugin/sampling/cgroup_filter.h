/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which cgroups an output reports, by their path relative to the walk root
 * ("/" for the root, "/a/b" below it).
 *
 * A pattern is either a glob matched with fnmatch(3) without flags, so '*'
 * also matches '/' ("/system.slice*" selects /system.slice and its whole
 * subtree, "/system.slice" the cgroup alone), or "/regex/": a POSIX
 * extended regular expression between two slashes, searched anywhere in the
 * path (anchor it with ^ and $).
 *
 * With no pattern every cgroup is selected. Otherwise a cgroup is selected
 * when some pattern matches it, or, with ignore_selected, when none does.
 */
#ifndef MEMCG_BPF_CGROUP_FILTER_H
#define MEMCG_BPF_CGROUP_FILTER_H

#include <stdbool.h>
#include <stddef.h>

struct cgroup_filter;

/* Returns NULL on ENOMEM. */
struct cgroup_filter *cgroup_filter_new(void);
/*
 * Adds @pattern. Returns 0, -ENOMEM, or -EINVAL with the reason in @why
 * (an empty pattern, a regular expression that does not compile).
 */
int cgroup_filter_add(struct cgroup_filter *f, const char *pattern, char *why, size_t why_len);
void cgroup_filter_set_ignore_selected(struct cgroup_filter *f, bool ignore_selected);
size_t cgroup_filter_count(const struct cgroup_filter *f);
bool cgroup_filter_selected(const struct cgroup_filter *f, const char *path);
/* Safe on NULL. */
void cgroup_filter_free(struct cgroup_filter *f);

#endif
