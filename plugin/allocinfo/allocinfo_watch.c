// SPDX-License-Identifier: GPL-2.0-only
#include "allocinfo/allocinfo_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"

enum watch_state {
	WATCH_UNKNOWN, /* not read yet */
	WATCH_ON,      /* read and shipped */
	WATCH_OFF,     /* vm.mem_profiling is 0 */
	WATCH_ABSENT,  /* no file: no profiling in this kernel, or never */
	WATCH_DENIED,  /* the file may not be read */
	WATCH_BROKEN,  /* the file could not be parsed */
};

struct allocinfo_watch {
	const char *path;
	bool check_sysctl;
	size_t top_n;
	uint64_t interval_ns, next_ns;
	enum watch_state state;
	struct allocinfo_reader *reader; /* auto: ioctl where the kernel has it */
	struct allocinfo_table table;
	const struct alloc_row **top;
};

int allocinfo_watch_new(const char *path, size_t top, uint64_t interval_ns, struct allocinfo_watch **out)
{
	struct allocinfo_watch *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->top = calloc(top ? top : 1, sizeof(*w->top));
	if (!w->top || allocinfo_reader_new(path, ALLOCINFO_AUTO, &w->reader)) {
		free(w->top);
		free(w);
		return -ENOMEM;
	}
	w->path = path;
	w->check_sysctl = strcmp(path, ALLOCINFO_PATH) == 0;
	w->top_n = top;
	w->interval_ns = interval_ns;
	allocinfo_table_init(&w->table);
	*out = w;
	return 0;
}

void allocinfo_watch_free(struct allocinfo_watch *w)
{
	if (!w)
		return;
	allocinfo_table_free(&w->table);
	allocinfo_reader_free(w->reader);
	free(w->top);
	free(w);
}

/* vm.mem_profiling: false only when it reads "0" (the file is absent where profiling is). */
static bool profiling_on(void)
{
	char buf[16] = "";
	ssize_t n;
	int fd = open(ALLOCINFO_SYSCTL, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return !(n > 0 && buf[0] == '0');
}

/* Logs the move to @to once per move; says why with @why where there is one. */
static void move_to(struct allocinfo_watch *w, enum watch_state to, const char *why)
{
	if (w->state == to)
		return;
	switch (to) {
	case WATCH_ON:
		mb_log(LOG_NOTICE, "AllocInfo: reading %s (%s) every %.0f s, shipping its top %zu call sites",
		       w->path, allocinfo_backend_name(allocinfo_reader_used(w->reader)) ?: "?",
		       (double)w->interval_ns / 1e9, w->top_n);
		break;
	case WATCH_OFF:
		mb_log(LOG_NOTICE, "AllocInfo: memory allocation profiling is off (" ALLOCINFO_SYSCTL " is 0): "
		       "nothing shipped until it is switched on (echo 1 > " ALLOCINFO_SYSCTL ")");
		break;
	case WATCH_ABSENT:
	case WATCH_DENIED:
	case WATCH_BROKEN:
		mb_log(to == WATCH_BROKEN ? LOG_WARNING : LOG_NOTICE, "AllocInfo: %s; nothing shipped", why);
		break;
	case WATCH_UNKNOWN:
		break;
	}
	w->state = to;
}

int allocinfo_watch_poll(struct allocinfo_watch *w, uint64_t now_ns, struct allocinfo_ranked *out)
{
	bool was_on = w->state == WATCH_ON;
	char why[512];
	int err, n;

	if (now_ns < w->next_ns)
		return 0;
	w->next_ns = now_ns + w->interval_ns;
	memset(out, 0, sizeof(*out));
	if (w->check_sysctl && !profiling_on()) {
		move_to(w, WATCH_OFF, NULL);
		return was_on; /* its series end */
	}
	err = allocinfo_reader_read(w->reader, &w->table, why, sizeof(why));
	if (err) {
		move_to(w, err == -ENOENT ? WATCH_ABSENT : err == -EACCES ? WATCH_DENIED : WATCH_BROKEN, why);
		return was_on;
	}
	n = allocinfo_top(&w->table, w->top_n, w->top, &out->other);
	if (n < 0) {
		move_to(w, WATCH_BROKEN, strerror(-n));
		return was_on;
	}
	move_to(w, WATCH_ON, NULL);
	out->top = w->top;
	out->nr_top = (size_t)n;
	return 1;
}
