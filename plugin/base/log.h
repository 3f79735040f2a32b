/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Logging for the core. The collectd glue routes it into plugin_log(),
 * the CLI and the tests into stderr. Levels are syslog's, as collectd's are.
 */
#ifndef MEMCG_BPF_LOG_H
#define MEMCG_BPF_LOG_H

#include <stdbool.h>
#include <syslog.h>

#define MB_LOG_PREFIX "memcg_bpf plugin: "

typedef void (*mb_log_sink_t)(int level, const char *msg);

/* Installs the sink (NULL restores stderr) and the most verbose level shown. */
void mb_log_set_sink(mb_log_sink_t sink);
void mb_log_set_level(int max_level);

/*
 * While quiet, messages are dropped (the config parser repeats no error for
 * a key that already had one). Not thread safe: for single-threaded phases.
 * Returns the previous setting.
 */
bool mb_log_set_quiet(bool quiet);

void mb_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define mb_err(...) mb_log(LOG_ERR, __VA_ARGS__)
#define mb_warn(...) mb_log(LOG_WARNING, __VA_ARGS__)
#define mb_notice(...) mb_log(LOG_NOTICE, __VA_ARGS__)
#define mb_info(...) mb_log(LOG_INFO, __VA_ARGS__)
#define mb_debug(...) mb_log(LOG_DEBUG, __VA_ARGS__)

#endif
