/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sender: a thread owned by the plugin that turns each interval's
 * snapshot into requests and POSTs them, so that the read callback never
 * waits on the network.
 *
 *   read callback --sender_submit()--> send_queue --> thread:
 *       series_set_build (labels, stale markers) -> batch_encode -> http_post
 *
 * Delivery rules:
 *   2xx           sent (remote write 2.0: only with an
 *                 X-Prometheus-Remote-Write-*-Written header, else fallback)
 *   415 on 2.0    fall back to remote write 1.0 for good, resend the interval
 *   429, 5xx,     retried with exponential backoff (0.5 s doubling up to 30 s,
 *   no answer     jitter: a random point in the upper half) or after
 *                 Retry-After when given (at most 300 s); 5xx and transport
 *                 errors move to the next URL (failover, round robin)
 *   other 4xx     the request is dropped, status and body logged once,
 *                 counted as dropped with reason "rejected"
 * Without SpoolDir: while the thread retries, the queue keeps the newest
 * intervals; the oldest is dropped when it is full (reason "queue_full"). At
 * stop, what is queued gets one attempt each (failures: reason "shutdown").
 *
 * With SpoolDir, the thread never sleeps on a failing collector
 * while snapshots wait: a request that fails with a retryable error goes to
 * the disk spool (spool.h), and so does every later request while the spool
 * holds anything, so that order is kept. The spool's oldest record is tried
 * again after the backoff; each one that is taken is marked sent; between
 * records the thread drains the queue into the spool. A healthy collector
 * never sees the disk (no write-ahead). Drops: "spool_full" (the cap evicted
 * the oldest records), "spool_error" (a record found corrupt, or a write
 * that failed), "rejected" (4xx, also for spooled requests). At stop, the
 * queue is sent or spooled, then the spool is replayed for at most
 * SENDER_SHUTDOWN_S seconds (when not in backoff); the rest stays on disk
 * for the next start.
 */
#ifndef MEMCG_BPF_SENDER_H
#define MEMCG_BPF_SENDER_H

#include <stdint.h>

#define SENDER_SHUTDOWN_S 5.0

#include "sending/sender_config.h"
#include "series/snapshot.h"

enum drop_reason {
	DROP_QUEUE_FULL,
	DROP_REJECTED,
	DROP_ENCODE,
	DROP_SHUTDOWN,
	DROP_SPOOL_FULL,
	DROP_SPOOL_ERROR,
	DROP_NR,
};

struct sender_stats {
	uint64_t batches_sent;
	uint64_t samples_sent;      /* series values, stale markers and self metrics included */
	uint64_t retries;
	uint64_t bytes_sent;        /* request bodies as sent (compressed) */
	uint64_t raw_bytes_sent;    /* the same requests before compression */
	uint64_t dropped_batches[DROP_NR];
	uint64_t dropped_samples[DROP_NR];
	uint64_t fallbacks;         /* remote write 2.0 -> 1.0 switches */
	double last_latency_s;      /* of the last successful request */
	double cpu_s;               /* the thread's CPU time building, encoding and sending */
	uint64_t intervals;         /* snapshots processed */
	size_t queued;
	uint64_t spool_batches;     /* requests waiting on disk */
	uint64_t spool_bytes;       /* their segments' size */
	uint64_t spooled;           /* requests written to the spool */
	uint64_t replayed;          /* requests sent from the spool */
	enum wire_format format;    /* the format in use now */
};

struct sender;

const char *drop_reason_name(enum drop_reason r);

/* curl_global_init() must have run. Logs why on failure. */
int sender_start(const struct sender_config *c, struct sender **out);
/* Takes @snap (ownership); never blocks on the network. */
void sender_submit(struct sender *s, struct snapshot *snap);
void sender_get_stats(struct sender *s, struct sender_stats *out);
/* Stops the thread (one last attempt for what is queued) and frees; accepts NULL. */
void sender_stop(struct sender *s);

#endif
