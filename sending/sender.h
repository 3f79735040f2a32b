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
 * is the thread around it. Without SpoolDir: while the thread retries, the
 * queue keeps the newest intervals; the oldest is dropped when it is full
 * (reason "queue_full"). At stop, what is queued gets one attempt each
 * (failures: reason "shutdown").
 *
 * With SpoolDir, the thread drains the queue at once into the policy, which
 * sends or spools; while the spool holds anything, the thread replays it
 * when the backoff has passed, and between records drains the queue into
 * the spool. At stop, the queue is sent or spooled, then the spool is
 * replayed for at most SENDER_SHUTDOWN_S seconds (when not in backoff); the
 * rest stays on disk for the next start.
 */
#ifndef MEMCG_BPF_SENDER_H
#define MEMCG_BPF_SENDER_H

#include <stdint.h>

#define SENDER_SHUTDOWN_S 5.0

#include "sending/sender_config.h"
#include "sending/sender_stats.h"
#include "series/snapshot.h"

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
