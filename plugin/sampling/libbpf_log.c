// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* vasprintf, strchrnul */
/* libbpf's messages to the plugin's log. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "base/log.h"
#include "sampling/libbpf_log.h"

/* Of a multi-line libbpf message (a verifier log), the lines kept: its head and its end. */
#define LOG_HEAD_LINES 20
#define LOG_TAIL_LINES 80

static bool quiet;

void libbpf_log_quiet(bool q)
{
	quiet = q;
}

int libbpf_log_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	int prio = level == LIBBPF_WARN && !quiet ? LOG_WARNING : LOG_DEBUG;
	size_t nr_lines = 0, line = 0;
	char *msg = NULL, *p, *eol;

	if (level == LIBBPF_DEBUG || vasprintf(&msg, fmt, ap) < 0)
		return 0;
	for (p = msg; *p; p++)
		nr_lines += *p == '\n';
	for (p = msg; *p; p = eol + 1, line++) {
		eol = strchrnul(p, '\n');
		/* libbpf starts most of its lines with its name: said once */
		if (strncmp(p, "libbpf: ", 8) == 0)
			p += 8;
		if (line == LOG_HEAD_LINES && nr_lines > LOG_HEAD_LINES + LOG_TAIL_LINES)
			mb_log(prio, "libbpf: [... %zu lines left out ...]", nr_lines - LOG_HEAD_LINES - LOG_TAIL_LINES);
		if (line < LOG_HEAD_LINES || line + LOG_TAIL_LINES >= nr_lines)
			mb_log(prio, "libbpf: %.*s", (int)(eol - p), p);
		if (!*eol)
			break;
	}
	free(msg);
	return 0;
}
