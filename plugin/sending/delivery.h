/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The delivery policy: what happens to each encoded request of an interval
 * between the encoder and the collector. It runs on the sender thread
 * (sender.h), which owns the queue; everything it waits on or asks the
 * outside world goes through struct delivery_ops, so that a unit test can
 * script every answer of the collector, the clock and the jitter.
 *
 * Delivery rules:
 *   2xx           sent (remote write 2.0: only with an
 *                 X-Prometheus-Remote-Write-*-Written header, else fallback)
 *   415 on 2.0    fall back to remote write 1.0 for good, resend the interval
 *   429, 5xx,     retried with exponential backoff (0.5 s doubling up to 30 s,
 *   no answer     jitter: a random point in the upper half) or after
 *                 Retry-After when given (taken within 1 s .. 300 s); 5xx
 *                 and transport errors move to the next URL (failover,
 *                 round robin)
 *   3xx           not followed (the URL must name the receiver): dropped,
 *                 logged once with the Location, counted as "rejected"
 *   other 4xx     the request is dropped, status and body logged once,
 *                 counted as dropped with reason "rejected"; in replay the
 *                 backlog then waits a backoff, so that a collector that
 *                 rejects for a while (a 404 while it restarts) costs the
 *                 requests it answered, not the whole backlog
 * Without a spool, a request is retried (ops->wait between tries) until it
 * is sent, rejected, or the sender stops: once ops->stopping() holds, a
 * request gets one try and a failure is dropped with reason "shutdown".
 *
 * With a spool (spool.h), delivery never waits on a failing collector: a
 * request that fails with a retryable error goes to the spool, and so does
 * every later request while the spool holds anything, so that order is kept.
 * delivery_replay() tries the spool's oldest record again once the backoff
 * has passed (delivery_retry_at()); each one that is taken is marked sent.
 * A healthy collector never sees the disk (no write-ahead). Drops:
 * "spool_full" (the cap evicted the oldest records), "spool_error" (a record
 * found corrupt, or a write that failed), "rejected" (4xx, also for spooled
 * requests, and spooled 2.0 requests after the fallback to 1.0).
 */
#ifndef MEMCG_BPF_DELIVERY_H
#define MEMCG_BPF_DELIVERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sending/http_sender.h"
#include "sending/sender_stats.h"
#include "series/series_set.h"
#include "wire/batch_encode.h"

#define DELIVERY_BACKOFF_MIN_S 0.5
#define DELIVERY_BACKOFF_MAX_S 30.0
/* Retry-After is taken within [1 s, 300 s]: 0 or a past date cannot make a storm, a day cannot stall */
#define DELIVERY_RETRY_AFTER_MIN_S 1.0
#define DELIVERY_RETRY_AFTER_MAX_S 300.0

/* The outside world of the policy; every member is required. */
struct delivery_ops {
	/*
	 * One POST of @p to URL number @url: 0 when an HTTP answer came (any
	 * status), a negative errno on a transport error (r->error says why).
	 */
	int (*post)(void *ctx, size_t url, const struct payload *p, struct http_response *r);
	/* Seconds on a monotonic clock (the spool's retry times). */
	double (*now)(void *ctx);
	/* Waits @secs or until the sender stops; true when stopping. */
	bool (*wait)(void *ctx, double secs);
	bool (*stopping)(void *ctx);
	/* A random number in [0, 1], for the jitter of the backoff. */
	double (*uniform)(void *ctx);
	void *ctx;
};

struct delivery_opts {
	const char *const *urls;   /* failover order; only their names are kept (logs) */
	size_t nr_urls;            /* 1 .. SENDER_MAX_URLS */
	enum wire_format format;   /* the format to start with */
	enum compression compression;
	struct batch_limits limits;
	const char *spool_dir;     /* NULL: no spool */
	uint64_t spool_max_bytes;  /* 0: SENDER_DEFAULT_SPOOL_BYTES */
};

struct delivery;

/*
 * Opens the spool when @o->spool_dir is set. @o->urls and @o->spool_dir must
 * outlive the delivery. 0 or a negative errno; logs why.
 */
int delivery_new(const struct delivery_opts *o, const struct delivery_ops *ops, struct delivery **out);
/* Closes the spool (its records stay on disk) and frees; accepts NULL. */
void delivery_free(struct delivery *d);

/*
 * Encodes @set in the format in use and delivers each request (sent,
 * retried, spooled or dropped); after a fallback to remote write 1.0 the
 * whole interval is encoded and delivered again.
 */
void delivery_send_set(struct delivery *d, const struct series_set *set);
/* The same for intervals that waited together (oldest first), packed into few requests. */
void delivery_send_sets(struct delivery *d, const struct series_set *const *sets, size_t nr_sets);
/*
 * Intervals that waited together, one at a time, each built into the same
 * series set (so that it keeps its shape): delivery_join() patches @set
 * into the kept requests and joins them (wire/batch_encode.h, batch_join).
 * When nothing is kept for its shape yet, the first such @set is sent on
 * its own, which keeps its requests for the others; remote write 2.0
 * joins nothing and sends each @set so. -ESTALE, with nothing done, when
 * @set cannot be joined (another shape): deliver what was joined with
 * delivery_send_joined() (delivery_send_sets() does that first), then
 * @set with delivery_send_sets(). Else 0; an encoding error is logged and
 * counted. delivery_send_joined() delivers the joined requests.
 */
int delivery_join(struct delivery *d, const struct series_set *set);
void delivery_send_joined(struct delivery *d);

/*
 * Sends the spool's records oldest first while the collector takes them,
 * the backoff has passed and @max_s seconds (0: no limit) have not. After
 * each record that is settled (sent or dropped) @between(@arg) runs (may be
 * NULL): the thread hands what was queued meanwhile to delivery_send_set().
 */
void delivery_replay(struct delivery *d, double max_s, void (*between)(void *), void *arg);
/* Whether a spool is in use (SpoolDir set and usable). */
bool delivery_spool_on(const struct delivery *d);
/* Requests waiting in the spool (0 without one). */
uint64_t delivery_spool_pending(const struct delivery *d);
/* When (ops->now) the spool's oldest record may be tried again. */
double delivery_retry_at(const struct delivery *d);
/* At stop: fdatasync of the spool, and a log line on what stays on disk. */
void delivery_leave_spool(struct delivery *d);

/* Thread safe: the counters may be read and bumped from any thread. */
void delivery_count_drop(struct delivery *d, enum drop_reason r, size_t samples);
void delivery_get_stats(struct delivery *d, struct sender_stats *out);
/* Adds @ns of the sender thread's CPU to @stage (sender_stats.h). */
void delivery_add_cpu(struct delivery *d, enum sender_cpu stage, uint64_t ns);

#endif
