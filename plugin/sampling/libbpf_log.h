/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libbpf's own messages in the plugin's log (libbpf_set_print), for the
 * walk's loader and for the optional parts that load programs of their own.
 */
#ifndef MEMCG_BPF_LIBBPF_LOG_H
#define MEMCG_BPF_LIBBPF_LOG_H

#include <stdarg.h>
#include <stdbool.h>

#include <bpf/libbpf.h>

/*
 * The printer to give libbpf_set_print(): one log line per line of a
 * message, a failed load's verifier log cut to its head and its end (the
 * reason is at the end); warnings as warnings, the rest at debug level.
 */
int libbpf_log_print(enum libbpf_print_level level, const char *fmt, va_list ap);

/*
 * While @quiet, libbpf_log_print() puts every message at debug level: an
 * optional part (the OOM tracker) that fails to load says why in one line
 * of its own, and libbpf's advice for it (such as raising ulimit -l) is
 * not the operator's to act on. Init thread only.
 */
void libbpf_log_quiet(bool quiet);

#endif
