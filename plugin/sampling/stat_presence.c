// SPDX-License-Identifier: GPL-2.0-only
#include "sampling/stat_presence.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One file's keys: its lines' first words (up to ' ' or '=', as v1's numa_stat writes them). */
struct file_keys {
	bool read;   /* the file could be read */
	char *text;  /* the keys, each NUL-ended, in a row */
	size_t size;
};

struct stat_presence {
	int version;
	struct file_keys stat, numa;
};

/* The whole of @dir/@name, NUL-ended, or NULL. */
static char *read_whole(const char *dir, const char *name)
{
	size_t len = 0, cap = 8192;
	char *buf = malloc(cap), *grown;
	char path[4096];
	ssize_t n;
	int fd;

	if (!buf)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (len + 1 < cap)
			continue;
		grown = realloc(buf, cap * 2);
		if (!grown) {
			n = -1;
			break;
		}
		buf = grown;
		cap *= 2;
	}
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/* Cuts each line of @text to its key, in place: "anon N0=1" -> "anon". */
static void keep_keys(char *text, struct file_keys *k)
{
	char *out = text, *line = text;

	while (*line) {
		size_t key = strcspn(line, " =\n"), rest = strcspn(line, "\n");

		memmove(out, line, key);
		out[key] = '\0';
		out += key + 1;
		line += rest + (line[rest] == '\n');
	}
	k->text = text;
	k->size = (size_t)(out - text);
	k->read = true;
}

static void read_keys(const char *dir, const char *name, struct file_keys *k)
{
	char *text = read_whole(dir, name);

	if (text)
		keep_keys(text, k);
}

int stat_presence_read(const char *dir, int version, struct stat_presence **out)
{
	struct stat_presence *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->version = version;
	read_keys(dir, stat_file_name(STAT_FILE_MEMORY_STAT, version), &p->stat);
	read_keys(dir, stat_file_name(STAT_FILE_NUMA_STAT, version), &p->numa);
	*out = p;
	return 0;
}

static bool has_key(const struct file_keys *k, const char *key)
{
	if (!k->read)
		return true;
	if (!key)
		return false;
	for (size_t at = 0; at < k->size; at += strlen(k->text + at) + 1)
		if (strcmp(k->text + at, key) == 0)
			return true;
	return false;
}

bool stat_presence_has(const struct stat_presence *p, const struct stat_def *def)
{
	switch (def->file) {
	case STAT_FILE_MEMORY_STAT:
		return has_key(&p->stat, stat_key(def, p->version));
	case STAT_FILE_NUMA_STAT:
		return has_key(&p->numa, stat_key(def, p->version));
	default:
		return true;
	}
}

void stat_presence_free(struct stat_presence *p)
{
	if (!p)
		return;
	free(p->stat.text);
	free(p->numa.text);
	free(p);
}
