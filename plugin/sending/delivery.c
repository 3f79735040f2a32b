// SPDX-License-Identifier: GPL-2.0-only
#include "sending/delivery.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "sending/sender_config.h"
#include "sending/spool.h"

enum send_result {
	SEND_OK,
	SEND_DROPPED,
	SEND_FALLBACK,
};

struct delivery {
	struct delivery_ops ops;
	const char *urls[SENDER_MAX_URLS];
	size_t nr_urls, cur;
	enum wire_format format;
	enum compression compression; /* as configured */
	struct batch_limits limits;
	struct payload_list payloads;
	bool joining;      /* @payloads gathers intervals (delivery_join) */
	bool joined_alone; /* the first of them went on its own (its requests became the kept ones) */
	long last_logged_status;

	struct spool *spool;      /* NULL without a spool */
	const char *spool_dir;
	double retry_at;          /* ops->now: when the spool's oldest may be tried */
	unsigned int spool_attempt;
	bool spool_v2_logged;

	pthread_mutex_t lock;     /* stats */
	struct sender_stats stats;
};

void delivery_count_drop(struct delivery *d, enum drop_reason r, size_t samples)
{
	pthread_mutex_lock(&d->lock);
	d->stats.dropped_batches[r]++;
	d->stats.dropped_samples[r] += samples;
	pthread_mutex_unlock(&d->lock);
}

void delivery_add_cpu(struct delivery *d, enum sender_cpu stage, uint64_t ns)
{
	pthread_mutex_lock(&d->lock);
	d->stats.cpu_ns[stage] += ns;
	pthread_mutex_unlock(&d->lock);
}

void delivery_get_stats(struct delivery *d, struct sender_stats *out)
{
	pthread_mutex_lock(&d->lock);
	*out = d->stats;
	pthread_mutex_unlock(&d->lock);
}

static double backoff_delay(struct delivery *d, unsigned int attempt)
{
	double t = DELIVERY_BACKOFF_MIN_S * pow(2, attempt > 16 ? 16 : attempt);

	if (t > DELIVERY_BACKOFF_MAX_S)
		t = DELIVERY_BACKOFF_MAX_S;
	/* jitter: a random point in [t/2, t] */
	return t / 2 + (t / 2) * d->ops.uniform(d->ops.ctx);
}

enum attempt_result {
	ATTEMPT_OK,
	ATTEMPT_REJECTED, /* 4xx: counted as dropped */
	ATTEMPT_FALLBACK,
	ATTEMPT_RETRY,    /* *delay set */
};

/* What an attempt other than ATTEMPT_RETRY settles for its request. */
static enum send_result send_result_of(enum attempt_result a)
{
	if (a == ATTEMPT_OK)
		return SEND_OK;
	return a == ATTEMPT_REJECTED ? SEND_DROPPED : SEND_FALLBACK;
}

/*
 * One POST of @p, the @nth try. On a retryable failure the delay before the
 * next try is set, the failure logged (first try only), counted as a retry
 * and the next URL chosen; unless @last, when nothing of that is done.
 */
static enum attempt_result post_once(struct delivery *d, const struct payload *p, unsigned int nth, bool last,
				     double *delay)
{
	const char *url = d->urls[d->cur];
	struct http_response r;
	uint64_t cpu = thread_cpu_ns();
	int err = d->ops.post(d->ops.ctx, d->cur, p, &r);

	delivery_add_cpu(d, SENDER_CPU_POST, thread_cpu_ns() - cpu);

	if (!err && r.status >= 200 && r.status < 300) {
		if (p->format == WIRE_REMOTE_WRITE_V2 && !r.rw_written) {
			mb_warn("%s: answered %ld to remote write 2.0 without X-Prometheus-Remote-Write-*-Written "
				"headers (nothing stored); falling back to remote write 1.0",
				url, r.status);
			return ATTEMPT_FALLBACK;
		}
		pthread_mutex_lock(&d->lock);
		d->stats.batches_sent++;
		d->stats.samples_sent += p->nr_samples;
		d->stats.bytes_sent += p->len;
		d->stats.last_latency_s = r.seconds;
		pthread_mutex_unlock(&d->lock);
		d->last_logged_status = 0;
		return ATTEMPT_OK;
	}
	if (!err && r.status == 415 && p->format == WIRE_REMOTE_WRITE_V2) {
		mb_warn("%s: answered 415 to remote write 2.0; falling back to remote write 1.0", url);
		return ATTEMPT_FALLBACK;
	}
	if (!err && r.status >= 300 && r.status < 400) {
		if (r.status != d->last_logged_status)
			mb_err("%s: HTTP %ld, a redirect%s%s: redirects are not followed (set URL to the "
			       "receiver itself); dropping a request of %zu samples",
			       url, r.status, r.location[0] ? " to " : "", r.location, p->nr_samples);
		d->last_logged_status = r.status;
		delivery_count_drop(d, DROP_REJECTED, p->nr_samples);
		return ATTEMPT_REJECTED;
	}
	if (!err && r.status != 429 && r.status < 500) {
		if (r.status != d->last_logged_status)
			mb_err("%s: HTTP %ld, dropping a request of %zu samples: %.*s", url, r.status,
			       p->nr_samples, (int)r.body_len, r.body);
		d->last_logged_status = r.status;
		delivery_count_drop(d, DROP_REJECTED, p->nr_samples);
		return ATTEMPT_REJECTED;
	}
	if (last)
		return ATTEMPT_RETRY;
	*delay = backoff_delay(d, nth);
	if (!err && r.retry_after_s >= 0)
		*delay = r.retry_after_s > DELIVERY_RETRY_AFTER_MAX_S   ? DELIVERY_RETRY_AFTER_MAX_S
			 : r.retry_after_s < DELIVERY_RETRY_AFTER_MIN_S ? DELIVERY_RETRY_AFTER_MIN_S
									  : r.retry_after_s;
	if (nth == 0) {
		if (err)
			mb_warn("%s: %s; retrying in %.1f s", url, r.error, *delay);
		else
			mb_warn("%s: HTTP %ld; retrying in %.1f s", url, r.status, *delay);
	}
	if (err || r.status >= 500)
		d->cur = (d->cur + 1) % d->nr_urls; /* failover */
	pthread_mutex_lock(&d->lock);
	d->stats.retries++;
	pthread_mutex_unlock(&d->lock);
	return ATTEMPT_RETRY;
}

static bool stop_asked(struct delivery *d)
{
	return d->ops.stopping(d->ops.ctx);
}

/* Without a spool: tries until sent, rejected or stopped. */
static enum send_result send_payload(struct delivery *d, const struct payload *p)
{
	bool last_try = stop_asked(d);
	unsigned int nth = 0;

	for (;;) {
		double delay = 0;

		enum attempt_result a = post_once(d, p, nth, last_try || stop_asked(d), &delay);

		if (a != ATTEMPT_RETRY)
			return send_result_of(a);
		if (last_try || stop_asked(d) || d->ops.wait(d->ops.ctx, delay)) {
			delivery_count_drop(d, DROP_SHUTDOWN, p->nr_samples);
			return SEND_DROPPED;
		}
		nth++;
	}
}

static void fall_back(struct delivery *d)
{
	d->format = WIRE_REMOTE_WRITE;
	pthread_mutex_lock(&d->lock);
	d->stats.fallbacks++;
	d->stats.format = d->format;
	pthread_mutex_unlock(&d->lock);
}

/* ---- the disk spool */
static void spool_counts(struct delivery *d, const struct spool_loss *l)
{
	pthread_mutex_lock(&d->lock);
	d->stats.dropped_batches[DROP_SPOOL_FULL] += l->full_batches;
	d->stats.dropped_samples[DROP_SPOOL_FULL] += l->full_samples;
	d->stats.dropped_batches[DROP_SPOOL_ERROR] += l->corrupt_batches;
	d->stats.dropped_samples[DROP_SPOOL_ERROR] += l->corrupt_samples;
	d->stats.spool_batches = spool_pending(d->spool);
	d->stats.spool_bytes = spool_bytes(d->spool);
	pthread_mutex_unlock(&d->lock);
}

static void spool_synced(struct delivery *d)
{
	int err = spool_sync(d->spool);

	if (err)
		mb_warn("spool %s: fdatasync: %s", d->spool_dir, strerror(-err));
}

static void to_spool(struct delivery *d, const struct payload *p)
{
	struct spool_record r = {
		.format = (uint8_t)p->format,
		.compression = (uint8_t)p->compression,
		.raw_len = (uint32_t)p->raw_len,
		.nr_samples = (uint32_t)p->nr_samples,
		.body = p->body,
		.len = p->len,
	};
	struct spool_loss loss = { 0 };
	int err = spool_append(d->spool, &r, &loss);

	if (err) {
		mb_err("spool %s: cannot write a request of %zu samples (%s); dropped", d->spool_dir,
		       p->nr_samples, strerror(-err));
		delivery_count_drop(d, DROP_SPOOL_ERROR, p->nr_samples);
	}
	spool_counts(d, &loss);
}

/*
 * Sends @p at once when nothing waits on disk and the collector takes it;
 * else @p goes to the spool behind what is there.
 */
static enum send_result spool_or_send(struct delivery *d, const struct payload *p)
{
	double delay = 0;

	if (!spool_pending(d->spool)) {
		enum attempt_result a = post_once(d, p, 0, false, &delay);

		if (a != ATTEMPT_RETRY)
			return send_result_of(a);
		mb_warn("collector unavailable: spooling requests to %s until it takes them again", d->spool_dir);
		d->retry_at = d->ops.now(d->ops.ctx) + delay;
		d->spool_attempt = 1;
	}
	to_spool(d, p);
	return SEND_OK;
}

void delivery_send_joined(struct delivery *d);

/* Delivers the encoded requests; SEND_FALLBACK when the receiver wants remote write 1.0 (nothing sent after). */
static enum send_result send_payloads(struct delivery *d)
{
	for (size_t i = 0; i < d->payloads.n; i++) {
		const struct payload *p = &d->payloads.p[i];

		if ((d->spool ? spool_or_send(d, p) : send_payload(d, p)) == SEND_FALLBACK)
			return SEND_FALLBACK;
	}
	if (d->spool)
		spool_synced(d);
	return SEND_OK;
}

/* Adds the CPU time since @cpu and the compression's since @compress to the stages. */
static void add_encode_cpu(struct delivery *d, uint64_t cpu, uint64_t compress)
{
	compress = d->payloads.compress_cpu_ns - compress;
	cpu = thread_cpu_ns() - cpu;
	delivery_add_cpu(d, SENDER_CPU_COMPRESS, compress);
	delivery_add_cpu(d, SENDER_CPU_ENCODE, cpu > compress ? cpu - compress : 0);
}

void delivery_send_sets(struct delivery *d, const struct series_set *const *sets, size_t nr_sets)
{
	uint64_t cpu, compress;
	int err;

	delivery_send_joined(d); /* what was joined is older: first */
again:
	payload_list_clear(&d->payloads);
	cpu = thread_cpu_ns();
	compress = d->payloads.compress_cpu_ns;
	/* after a fallback from 2.0 (snappy only) the configured compression still fits 1.0 */
	err = batch_encode_sets(sets, nr_sets, d->format, compression_effective(d->format, d->compression),
				&d->limits, &d->payloads);
	add_encode_cpu(d, cpu, compress);
	if (err) {
		size_t items = 0;

		for (size_t s = 0; s < nr_sets; s++)
			items += sets[s]->nr_items;
		mb_err("cannot encode %zu interval%s as %s: %s", nr_sets, nr_sets == 1 ? "" : "s",
		       wire_format_name(d->format), strerror(-err));
		delivery_count_drop(d, DROP_ENCODE, items);
		return;
	}
	if (send_payloads(d) == SEND_FALLBACK) {
		fall_back(d);
		goto again;
	}
}

int delivery_join(struct delivery *d, const struct series_set *set)
{
	uint64_t cpu = thread_cpu_ns(), compress = d->payloads.compress_cpu_ns;
	size_t gathered;
	int err;

	/* 2.0 joins nothing (a symbol table per request): each interval on its own, from the kept requests */
	if (d->format == WIRE_REMOTE_WRITE_V2) {
		delivery_send_sets(d, &set, 1);
		return 0;
	}
	if (!d->joining) {
		payload_list_clear(&d->payloads);
		d->joining = true;
		d->joined_alone = false;
	}
	gathered = d->payloads.join.samples;
	err = batch_join(set, d->format, d->compression, &d->limits, &d->payloads);
	add_encode_cpu(d, cpu, compress);
	if (err == -ESTALE && !d->joined_alone && !d->payloads.n && !gathered) {
		/* the first of these: on its own, its requests kept as the pattern for the others */
		d->joining = false;
		delivery_send_sets(d, &set, 1);
		payload_list_clear(&d->payloads);
		d->joining = true;
		d->joined_alone = true;
		return 0;
	}
	if (err && err != -ESTALE) {
		/* the request under way is lost with it */
		mb_err("cannot encode an interval as %s: %s", wire_format_name(d->format), strerror(-err));
		delivery_count_drop(d, DROP_ENCODE, gathered + set->nr_items);
	}
	return err == -ESTALE ? err : 0;
}

void delivery_send_joined(struct delivery *d)
{
	size_t gathered = d->payloads.join.samples;
	uint64_t cpu, compress;
	int err;

	if (!d->joining)
		return;
	cpu = thread_cpu_ns();
	compress = d->payloads.compress_cpu_ns;
	d->joining = false;
	err = batch_join_flush(d->format, d->compression, &d->payloads);
	add_encode_cpu(d, cpu, compress);
	if (err) {
		mb_err("cannot encode intervals as %s: %s", wire_format_name(d->format), strerror(-err));
		delivery_count_drop(d, DROP_ENCODE, gathered);
	}
	/* 2.0 joins nothing: no fallback can come from these requests */
	send_payloads(d);
}

void delivery_send_set(struct delivery *d, const struct series_set *set)
{
	delivery_send_sets(d, &set, 1);
}

/* A spooled record the receiver can take now: not 2.0 after the fallback, nothing unknown. */
static bool replayable(struct delivery *d, const struct spool_record *r)
{
	if (r->format <= WIRE_OTLP && r->compression <= COMPRESSION_ZSTD &&
	    (r->format != WIRE_REMOTE_WRITE_V2 || d->format == WIRE_REMOTE_WRITE_V2))
		return true;
	/* written as remote write 2.0, which the receiver turned out not to store */
	if (!d->spool_v2_logged)
		mb_err("spool %s: dropping spooled requests the receiver cannot take (%s after the "
		       "fallback to remote write 1.0)", d->spool_dir, wire_format_name((enum wire_format)r->format));
	d->spool_v2_logged = true;
	return false;
}

void delivery_replay(struct delivery *d, double max_s, void (*between)(void *), void *arg)
{
	double deadline = max_s ? d->ops.now(d->ops.ctx) + max_s : 0;
	bool was_waiting;

	if (!d->spool)
		return;
	was_waiting = spool_pending(d->spool) > 0;
	while (spool_pending(d->spool) && d->ops.now(d->ops.ctx) >= d->retry_at &&
	       (!deadline || d->ops.now(d->ops.ctx) < deadline)) {
		struct spool_loss loss = { 0 };
		struct spool_record r;
		struct payload p;
		double delay = 0;
		int err;

		err = spool_peek(d->spool, &r, &loss);
		spool_counts(d, &loss);
		if (err == -ENOENT)
			break;
		if (err) {
			mb_err("spool %s: cannot read: %s", d->spool_dir, strerror(-err));
			d->retry_at = d->ops.now(d->ops.ctx) + 1;
			break;
		}
		if (!replayable(d, &r)) {
			delivery_count_drop(d, DROP_REJECTED, r.nr_samples);
			spool_ack(d->spool);
			continue;
		}
		p = (struct payload){
			.format = (enum wire_format)r.format,
			.compression = (enum compression)r.compression,
			.body = (uint8_t *)r.body,
			.len = r.len,
			.raw_len = r.raw_len,
			.nr_samples = r.nr_samples,
		};
		switch (post_once(d, &p, d->spool_attempt, false, &delay)) {
		case ATTEMPT_FALLBACK:
			fall_back(d);
			continue; /* the record is 2.0: dropped by replayable() */
		case ATTEMPT_RETRY:
			d->spool_attempt++;
			d->retry_at = d->ops.now(d->ops.ctx) + delay;
			goto out;
		case ATTEMPT_OK:
			d->spool_attempt = 0;
			spool_ack(d->spool);
			break;
		case ATTEMPT_REJECTED:
			/*
			 * Only this record is lost. A collector that rejects one
			 * request may reject the next (a 404 while it restarts):
			 * the backlog waits a backoff instead of meeting the same
			 * answer record after record.
			 */
			spool_ack(d->spool);
			d->retry_at = d->ops.now(d->ops.ctx) + backoff_delay(d, d->spool_attempt++);
			if (between)
				between(arg);
			goto out;
		}
		if (between)
			between(arg);
	}
out:
	spool_counts(d, &(struct spool_loss){ 0 });
	if (was_waiting && !spool_pending(d->spool))
		mb_info("spool %s: drained, the collector takes requests again", d->spool_dir);
}

bool delivery_spool_on(const struct delivery *d)
{
	return d->spool != NULL;
}

uint64_t delivery_spool_pending(const struct delivery *d)
{
	return d->spool ? spool_pending(d->spool) : 0;
}

double delivery_retry_at(const struct delivery *d)
{
	return d->retry_at;
}

void delivery_leave_spool(struct delivery *d)
{
	if (!d->spool)
		return;
	spool_synced(d);
	if (spool_pending(d->spool))
		mb_info("spool %s: %llu requests stay on disk for the next start", d->spool_dir,
			(unsigned long long)spool_pending(d->spool));
}

int delivery_new(const struct delivery_opts *o, const struct delivery_ops *ops, struct delivery **out)
{
	struct delivery *d;
	int err;

	if (!o->nr_urls || o->nr_urls > SENDER_MAX_URLS)
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	pthread_mutex_init(&d->lock, NULL);
	d->ops = *ops;
	for (size_t i = 0; i < o->nr_urls; i++)
		d->urls[i] = o->urls[i];
	d->nr_urls = o->nr_urls;
	d->format = d->stats.format = o->format;
	d->compression = o->compression;
	d->limits = o->limits;
	d->spool_dir = o->spool_dir;
	if (o->spool_dir) {
		struct spool_opts so = {
			.dir = o->spool_dir,
			.max_bytes = o->spool_max_bytes ? o->spool_max_bytes : SENDER_DEFAULT_SPOOL_BYTES,
		};
		struct spool_loss loss;

		err = spool_open(&so, &d->spool, &loss);
		if (err == -ENOMEM)
			goto free_delivery;
		if (err) {
			/* spool_open said why; sampling and sending go on without it */
			mb_err("SpoolDir \"%s\" cannot be used (%s): the spool is OFF, requests the collector "
			       "cannot take are retried in memory and dropped when the queue is full",
			       o->spool_dir, strerror(-err));
			d->spool = NULL;
		} else {
			spool_counts(d, &loss);
			mb_info("spool %s: requests the collector cannot take wait here (SpoolMaxBytes %llu)",
				o->spool_dir, (unsigned long long)so.max_bytes);
		}
	}
	*out = d;
	return 0;

free_delivery:
	delivery_free(d);
	return err;
}

void delivery_free(struct delivery *d)
{
	if (!d)
		return;
	spool_close(d->spool);
	payload_list_free(&d->payloads);
	pthread_mutex_destroy(&d->lock);
	free(d);
}
