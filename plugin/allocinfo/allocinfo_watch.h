/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The plugin's view of the allocation profile: read every interval of its
 * own (AllocInfoInterval), ranked to the top N call sites plus "other".
 * A kernel without the profile, profiling switched off (vm.mem_profiling
 * = 0) or a file it may not read is said once as a NOTICE, not an error;
 * the watch keeps looking, so that profiling switched on later ships
 * without a restart, and says so when it does.
 */
#ifndef MEMCG_BPF_ALLOCINFO_WATCH_H
#define MEMCG_BPF_ALLOCINFO_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "allocinfo/allocinfo.h"

#define ALLOCINFO_SYSCTL "/proc/sys/vm/mem_profiling"

struct allocinfo_watch;

/* @path: the file read (ALLOCINFO_PATH; another path skips the sysctl check). 0 or -ENOMEM. */
int allocinfo_watch_new(const char *path, size_t top, uint64_t interval_ns, struct allocinfo_watch **out);
void allocinfo_watch_free(struct allocinfo_watch *w);

/* One read's ranking: valid until the next allocinfo_watch_poll(). */
struct allocinfo_ranked {
	const struct alloc_row **top;
	size_t nr_top;
	struct alloc_other other;
};

/*
 * At monotonic time @now_ns: 1 with *@out filled when a read was due and
 * gave the profile, or when the profile went away since the last one (then
 * with no rows, so that its series end); 0 when nothing is due or there is
 * nothing to say; never an error (what went wrong was logged once).
 */
int allocinfo_watch_poll(struct allocinfo_watch *w, uint64_t now_ns, struct allocinfo_ranked *out);

#endif
