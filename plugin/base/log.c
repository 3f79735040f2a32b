// SPDX-License-Identifier: GPL-2.0-only
#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>

static mb_log_sink_t log_sink;
static int log_max_level = LOG_INFO;
static bool log_quiet;

bool mb_log_set_quiet(bool quiet)
{
	bool was = log_quiet;

	log_quiet = quiet;
	return was;
}

void mb_log_set_sink(mb_log_sink_t sink)
{
	log_sink = sink;
}

void mb_log_set_level(int max_level)
{
	log_max_level = max_level;
}

void mb_log(int level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (log_quiet || (level > log_max_level && !log_sink))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (log_sink)
		log_sink(level, msg);
	else
		fprintf(stderr, "%s%s\n", MB_LOG_PREFIX, msg);
}
