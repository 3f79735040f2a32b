// SPDX-License-Identifier: GPL-2.0-only
#include "sampling/cgroup_filter.h"

#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pattern {
	bool is_regex;
	char *glob;
	regex_t re;
};

struct cgroup_filter {
	struct pattern *patterns;
	size_t count, cap;
	bool ignore_selected;
};

struct cgroup_filter *cgroup_filter_new(void)
{
	return calloc(1, sizeof(struct cgroup_filter));
}

static bool is_regex_pattern(const char *pattern, size_t len)
{
	return len >= 2 && pattern[0] == '/' && pattern[len - 1] == '/';
}

int cgroup_filter_add(struct cgroup_filter *f, const char *pattern, char *why, size_t why_len)
{
	size_t len = strlen(pattern);
	struct pattern *p;
	char *body;
	int err;

	if (len == 0) {
		snprintf(why, why_len, "an empty pattern matches no cgroup");
		return -EINVAL;
	}
	if (f->count == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 8;
		struct pattern *grown = realloc(f->patterns, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		f->patterns = grown;
		f->cap = cap;
	}
	p = &f->patterns[f->count];
	memset(p, 0, sizeof(*p));
	if (!is_regex_pattern(pattern, len)) {
		p->glob = strdup(pattern);
		if (!p->glob)
			return -ENOMEM;
		f->count++;
		return 0;
	}

	body = strndup(pattern + 1, len - 2);
	if (!body)
		return -ENOMEM;
	err = regcomp(&p->re, body, REG_EXTENDED | REG_NOSUB);
	if (err) {
		char msg[256];

		regerror(err, &p->re, msg, sizeof(msg));
		snprintf(why, why_len, "not a valid POSIX extended regular expression: %s", msg);
		err = -EINVAL;
		goto free_body;
	}
	p->is_regex = true;
	f->count++;
free_body:
	free(body);
	return err;
}

void cgroup_filter_set_ignore_selected(struct cgroup_filter *f, bool ignore_selected)
{
	f->ignore_selected = ignore_selected;
}

size_t cgroup_filter_count(const struct cgroup_filter *f)
{
	return f->count;
}

bool cgroup_filter_selected(const struct cgroup_filter *f, const char *path)
{
	bool matched = false;

	if (!f || f->count == 0)
		return true;
	for (size_t i = 0; i < f->count && !matched; i++) {
		const struct pattern *p = &f->patterns[i];

		if (p->is_regex)
			matched = regexec(&p->re, path, 0, NULL, 0) == 0;
		else
			matched = fnmatch(p->glob, path, 0) == 0;
	}
	return matched != f->ignore_selected;
}

void cgroup_filter_free(struct cgroup_filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->count; i++) {
		if (f->patterns[i].is_regex)
			regfree(&f->patterns[i].re);
		free(f->patterns[i].glob);
	}
	free(f->patterns);
	free(f);
}
