// SPDX-License-Identifier: GPL-2.0-only
#include "series/cgroup_labels.h"

#include <stdbool.h>
#include <string.h>

#include "base/macros.h"

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n > k && memcmp(s + n - k, suffix, k) == 0;
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

/* The container id in one component: the 64 hex digits after the last '-' or alone. */
static bool component_id(const char *p, size_t n, char out[CONTAINER_ID_LEN + 1])
{
	const char *start = p, *end = p + n;

	if (ends_with(p, n, ".scope"))
		end -= strlen(".scope");
	for (const char *q = p; q < end; q++)
		if (*q == '-')
			start = q + 1;
	if (end - start != CONTAINER_ID_LEN)
		return false;
	for (const char *q = start; q < end; q++)
		if (!is_hex(*q))
			return false;
	memcpy(out, start, CONTAINER_ID_LEN);
	out[CONTAINER_ID_LEN] = '\0';
	return true;
}

void cgroup_container_id_label(const char *path, char buf[CONTAINER_ID_LEN + 1])
{
	char id[CONTAINER_ID_LEN + 1];
	const char *rest = path, *c;
	size_t n;

	buf[0] = '\0';
	while ((c = next_component(&rest, &n)))
		if (component_id(c, n, id))
			memcpy(buf, id, sizeof(id));
}
