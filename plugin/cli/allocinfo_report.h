/* SPDX-License-Identifier: GPL-2.0-only */
/* memcg-bpf-sample --allocinfo: the kernel's allocation profile, top call sites. */
#ifndef MEMCG_BPF_ALLOCINFO_REPORT_H
#define MEMCG_BPF_ALLOCINFO_REPORT_H

#include <stdbool.h>
#include <stddef.h>

struct allocinfo_report_opts {
	const char *path; /* the file read as text (ALLOCINFO_PATH by default) */
	size_t top;       /* call sites shown */
	bool json;        /* one JSON object per row (else a table) */
	int backend;      /* enum allocinfo_backend */
};

/* Prints the report on stdout; errors on stderr. Returns the CLI's exit status (0, 1 runtime error). */
int allocinfo_report(const struct allocinfo_report_opts *o);

#endif
