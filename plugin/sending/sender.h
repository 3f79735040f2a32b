/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sender: a thread owned by the plugin that turns each interval's
 * snapshot into requests and POSTs them, so that the read callback never
 * waits on the network.
 *
 *   read callback --sender_submit()--> send_queue --> thread:
 *       series_set_build (labels, stale markers) -> batch_encode -> http_post
 *
 * What happens to each request (retry, backoff, failover, the fallback to
 * remote write 1.0, the disk spool) is the delivery policy, delivery.h; this
 * is the thread around it. Intervals that wait together (the collector is
 * slower than the interval) are packed into the same requests, up to
 * MaxSamplesPerSend, so the sender catches up instead of falling behind.
 * With BatchSendDeadline, intervals that come faster than the deadline
 * wait for each other to share requests the same way (not while the spool
 * holds a backlog).
 *
 * Without SpoolDir: while the thread retries, the queue keeps the newest
 * intervals; the oldest is dropped when it is full (reason "queue_full",
 * logged at most once a minute). At stop, what is queued gets one attempt
 * each until the deadline (failures: reason "shutdown").
 *
 * With SpoolDir, the thread drains the queue at once into the policy, which
 * sends or spools; while the spool holds anything, the thread replays it
 * when the backoff has passed, and between records drains the queue into
 * the spool. An interval the full queue makes room for goes to the spill
 * list and from there to the spool, not to the floor. At stop, the queue is
 * sent or spooled, then the spool is replayed until the deadline; the rest
 * stays on disk for the next start.
 *
 * Stop: SENDER_SHUTDOWN_S after sender_stop() every request still running
 * is cut off, so a hung collector cannot hold collectd's shutdown.
 */
#ifndef MEMCG_BPF_SENDER_H
#define MEMCG_BPF_SENDER_H

#include <stdint.h>

/*
 * The stop's deadline: what is still running then is cut off (spooled with
 * a SpoolDir, else dropped as "shutdown"); a stop takes at most about this
 * plus one second, whatever Timeout and QueueLength are.
 */
#define SENDER_SHUTDOWN_S 5.0
/* Intervals waiting together that are packed into the same requests. */
#define SENDER_MAX_PACK 32
/*
 * Snapshots the thread is done with, kept for the read callback to fill
 * again: several, as intervals that share a request are in the thread's
 * hands together.
 */
#define SENDER_MAX_SPARE 4
/* With a SpoolDir: intervals the full queue handed over, before the oldest is dropped. */
#define SENDER_MAX_SPILL 1024

#include "sending/sender_config.h"
#include "sending/sender_stats.h"
#include "series/snapshot.h"

struct sender;

const char *drop_reason_name(enum drop_reason r);
/* "series", "encode", "compress", "post" */
const char *sender_cpu_name(enum sender_cpu stage);

/* curl_global_init() must have run. Logs why on failure. */
int sender_start(const struct sender_config *c, struct sender **out);
/* Takes @snap (ownership); never blocks on the network. */
void sender_submit(struct sender *s, struct snapshot *snap);
/*
 * A snapshot the thread is done with, for the caller to fill again
 * (snapshot_take_rows()) and submit: the next interval then needs no new
 * memory. NULL when there is none. The caller owns it.
 */
struct snapshot *sender_take_spare(struct sender *s);
void sender_get_stats(struct sender *s, struct sender_stats *out);
/* Stops the thread (one last attempt for what is queued) and frees; accepts NULL. */
void sender_stop(struct sender *s);

#endif
