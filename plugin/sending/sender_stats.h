/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the sender counts: the numbers the plugin dispatches and ships as
 * memcg_bpf_sender_* self metrics. The delivery policy (delivery.h) keeps
 * most of them; the thread (sender.h) adds the interval and queue counts.
 */
#ifndef MEMCG_BPF_SENDER_STATS_H
#define MEMCG_BPF_SENDER_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "wire/wire_format.h"

enum drop_reason {
	DROP_QUEUE_FULL,
	DROP_REJECTED,
	DROP_ENCODE,
	DROP_SHUTDOWN,
	DROP_SPOOL_FULL,
	DROP_SPOOL_ERROR,
	DROP_DUPLICATE_SERIES, /* a series twice in one interval (series_set.h: nr_duplicates) */
	DROP_NR,
};

/* Where the sender thread's CPU goes (CLOCK_THREAD_CPUTIME_ID). */
enum sender_cpu {
	SENDER_CPU_SERIES,   /* an interval's rows -> series, labels, stale markers */
	SENDER_CPU_ENCODE,   /* protobuf, compression excluded */
	SENDER_CPU_COMPRESS, /* snappy / zstd / gzip */
	SENDER_CPU_POST,     /* the HTTP requests (libcurl), retries included */
	SENDER_CPU_NR,
};

struct sender_stats {
	uint64_t batches_sent;
	uint64_t samples_sent;      /* series values, stale markers and self metrics included */
	uint64_t retries;
	uint64_t bytes_sent;        /* request bodies as sent (compressed) */
	uint64_t dropped_batches[DROP_NR];
	uint64_t dropped_samples[DROP_NR];
	uint64_t fallbacks;         /* remote write 2.0 -> 1.0 switches */
	double last_latency_s;      /* of the last successful request */
	uint64_t intervals;         /* snapshots processed */
	size_t queued;
	uint64_t spool_batches;     /* requests waiting on disk */
	uint64_t spool_bytes;       /* their segments' size */
	enum wire_format format;    /* the format in use now */
	uint64_t cpu_ns[SENDER_CPU_NR];

};

#endif
