// SPDX-License-Identifier: GPL-2.0-only
#include "sending/sender.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wire/batch_encode.h"
#include "sending/http_sender.h"
#include "base/log.h"
#include "sending/send_queue.h"
#include "series/series_set.h"
#include "sending/spool.h"

#define BACKOFF_MIN_S 0.5
#define BACKOFF_MAX_S 30.0
#define RETRY_AFTER_MAX_S 300.0

enum send_result {
	SEND_OK,
	SEND_DROPPED,
	SEND_FALLBACK,
};

struct sender {
	struct sender_config cfg; /* deep copy */
	struct http_secrets secrets;
	struct http_endpoint *eps[SENDER_MAX_URLS];
	size_t nr_eps, cur;
	struct send_queue *queue;
	pthread_t thread;
	bool thread_started;

	pthread_mutex_t lock; /* stats, stopping */
	pthread_cond_t wake;
	bool stopping;
	struct sender_stats stats;

	/* thread only */
	enum wire_format format;
	struct stale_tracker *tracker;
	struct series_set set;
	struct payload_list payloads;
	long last_logged_status;
	unsigned int rand_state;
	struct spool *spool;      /* NULL without SpoolDir */
	double retry_at;          /* CLOCK_MONOTONIC: when the spool's oldest may be tried */
	unsigned int spool_attempt;
	bool spool_v2_logged;
};

static const char *const drop_names[DROP_NR] = {
	[DROP_QUEUE_FULL] = "queue_full",
	[DROP_REJECTED] = "rejected",
	[DROP_ENCODE] = "encode",
	[DROP_SHUTDOWN] = "shutdown",
	[DROP_SPOOL_FULL] = "spool_full",
	[DROP_SPOOL_ERROR] = "spool_error",
};

const char *drop_reason_name(enum drop_reason r)
{
	return (unsigned)r < DROP_NR ? drop_names[r] : "?";
}

static void count_drop(struct sender *s, enum drop_reason r, size_t samples)
{
	pthread_mutex_lock(&s->lock);
	s->stats.dropped_batches[r]++;
	s->stats.dropped_samples[r] += samples;
	pthread_mutex_unlock(&s->lock);
}

static bool stopping(struct sender *s)
{
	bool v;

	pthread_mutex_lock(&s->lock);
	v = s->stopping;
	pthread_mutex_unlock(&s->lock);
	return v;
}

/* Waits @secs or until stop; returns true when stopping. */
static bool wait_or_stop(struct sender *s, double secs)
{
	struct timespec until;
	bool v;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)secs;
	until.tv_nsec += (long)((secs - floor(secs)) * 1e9);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&s->lock);
	while (!s->stopping && pthread_cond_timedwait(&s->wake, &s->lock, &until) != ETIMEDOUT)
		;
	v = s->stopping;
	pthread_mutex_unlock(&s->lock);
	return v;
}

static double backoff(struct sender *s, unsigned int attempt)
{
	double d = BACKOFF_MIN_S * pow(2, attempt > 16 ? 16 : attempt);

	if (d > BACKOFF_MAX_S)
		d = BACKOFF_MAX_S;
	/* jitter: a random point in [d/2, d] */
	return d / 2 + (d / 2) * ((double)rand_r(&s->rand_state) / RAND_MAX);
}

enum attempt_result {
	ATTEMPT_OK,
	ATTEMPT_REJECTED, /* 4xx: counted as dropped */
	ATTEMPT_FALLBACK,
	ATTEMPT_RETRY,    /* *delay set */
};

/* What an attempt other than ATTEMPT_RETRY settles for its request. */
static enum send_result settled(enum attempt_result a)
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
static enum attempt_result attempt(struct sender *s, const struct payload *p, unsigned int nth, bool last,
				   double *delay)
{
	struct http_endpoint *ep = s->eps[s->cur];
	struct http_response r;
	int err = http_post(ep, p, &r);

	if (!err && r.status >= 200 && r.status < 300) {
		if (p->format == WIRE_REMOTE_WRITE_V2 && !r.rw_written) {
			mb_warn("%s: answered %ld to remote write 2.0 without X-Prometheus-Remote-Write-*-Written "
				"headers (nothing stored); falling back to remote write 1.0",
				http_endpoint_url(ep), r.status);
			return ATTEMPT_FALLBACK;
		}
		pthread_mutex_lock(&s->lock);
		s->stats.batches_sent++;
		s->stats.samples_sent += p->nr_samples;
		s->stats.bytes_sent += p->len;
		s->stats.raw_bytes_sent += p->raw_len;
		s->stats.last_latency_s = r.seconds;
		pthread_mutex_unlock(&s->lock);
		s->last_logged_status = 0;
		return ATTEMPT_OK;
	}
	if (!err && r.status == 415 && p->format == WIRE_REMOTE_WRITE_V2) {
		mb_warn("%s: answered 415 to remote write 2.0; falling back to remote write 1.0",
			http_endpoint_url(ep));
		return ATTEMPT_FALLBACK;
	}
	if (!err && r.status != 429 && r.status < 500) {
		if (r.status != s->last_logged_status)
			mb_err("%s: HTTP %ld, dropping a request of %zu samples: %.*s", http_endpoint_url(ep),
			       r.status, p->nr_samples, (int)r.body_len, r.body);
		s->last_logged_status = r.status;
		count_drop(s, DROP_REJECTED, p->nr_samples);
		return ATTEMPT_REJECTED;
	}
	if (last)
		return ATTEMPT_RETRY;
	*delay = backoff(s, nth);
	if (!err && r.retry_after_s >= 0)
		*delay = r.retry_after_s > RETRY_AFTER_MAX_S ? RETRY_AFTER_MAX_S : r.retry_after_s;
	if (nth == 0) {
		if (err)
			mb_warn("%s: %s; retrying in %.1f s", http_endpoint_url(ep), r.error, *delay);
		else
			mb_warn("%s: HTTP %ld; retrying in %.1f s", http_endpoint_url(ep), r.status, *delay);
	}
	if (err || r.status >= 500)
		s->cur = (s->cur + 1) % s->nr_eps; /* failover */
	pthread_mutex_lock(&s->lock);
	s->stats.retries++;
	pthread_mutex_unlock(&s->lock);
	return ATTEMPT_RETRY;
}

/* Without a spool: tries until sent, rejected or stopped. */
static enum send_result send_payload(struct sender *s, const struct payload *p)
{
	bool last_try = stopping(s);
	unsigned int nth = 0;

	for (;;) {
		double delay = 0;

		enum attempt_result a = attempt(s, p, nth, last_try || stopping(s), &delay);

		if (a != ATTEMPT_RETRY)
			return settled(a);
		if (last_try || stopping(s) || wait_or_stop(s, delay)) {
			count_drop(s, DROP_SHUTDOWN, p->nr_samples);
			return SEND_DROPPED;
		}
		nth++;
	}
}

static enum compression compression_for(const struct sender *s, enum wire_format f)
{
	/* after a fallback from 2.0 (snappy only) the configured compression still fits 1.0 */
	return compression_effective(f, s->cfg.compression);
}

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fall_back(struct sender *s)
{
	s->format = WIRE_REMOTE_WRITE;
	pthread_mutex_lock(&s->lock);
	s->stats.fallbacks++;
	s->stats.format = s->format;
	pthread_mutex_unlock(&s->lock);
}

/* ---- the disk spool */
static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void spool_counts(struct sender *s, const struct spool_loss *l)
{
	pthread_mutex_lock(&s->lock);
	s->stats.dropped_batches[DROP_SPOOL_FULL] += l->full_batches;
	s->stats.dropped_samples[DROP_SPOOL_FULL] += l->full_samples;
	s->stats.dropped_batches[DROP_SPOOL_ERROR] += l->corrupt_batches;
	s->stats.spool_batches = spool_pending(s->spool);
	s->stats.spool_bytes = spool_bytes(s->spool);
	pthread_mutex_unlock(&s->lock);
}

static void spool_synced(struct sender *s)
{
	int err = spool_sync(s->spool);

	if (err)
		mb_warn("spool %s: fdatasync: %s", s->cfg.spool_dir, strerror(-err));
}

static void to_spool(struct sender *s, const struct payload *p)
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
	int err = spool_append(s->spool, &r, &loss);

	if (err) {
		mb_err("spool %s: cannot write a request of %zu samples (%s); dropped", s->cfg.spool_dir,
		       p->nr_samples, strerror(-err));
		count_drop(s, DROP_SPOOL_ERROR, p->nr_samples);
	} else {
		pthread_mutex_lock(&s->lock);
		s->stats.spooled++;
		pthread_mutex_unlock(&s->lock);
	}
	spool_counts(s, &loss);
}

/*
 * Sends @p at once when nothing waits on disk and the collector takes it;
 * else @p goes to the spool behind what is there.
 */
static enum send_result spool_or_send(struct sender *s, const struct payload *p)
{
	double delay = 0;

	if (!spool_pending(s->spool)) {
		enum attempt_result a = attempt(s, p, 0, false, &delay);

		if (a != ATTEMPT_RETRY)
			return settled(a);
		mb_warn("collector unavailable: spooling requests to %s until it takes them again",
			s->cfg.spool_dir);
		s->retry_at = now_mono() + delay;
		s->spool_attempt = 1;
	}
	to_spool(s, p);
	return SEND_OK;
}

static void process(struct sender *s, const struct snapshot *snap);

static void process_one(struct sender *s, struct snapshot *snap)
{
	double t0 = thread_cpu();

	process(s, snap);
	snapshot_free(snap);
	pthread_mutex_lock(&s->lock);
	s->stats.cpu_s += thread_cpu() - t0;
	s->stats.intervals++;
	pthread_mutex_unlock(&s->lock);
}

/*
 * Sends the spool's records oldest first while the collector takes them and
 * @deadline (monotonic; 0: none) is not past. Between records, what the read
 * callback queued goes to the spool (or out, once the spool is empty).
 */
static void replay(struct sender *s, double deadline)
{
	bool was_waiting = spool_pending(s->spool) > 0;

	while (spool_pending(s->spool) && now_mono() >= s->retry_at && (!deadline || now_mono() < deadline)) {
		struct spool_loss loss = { 0 };
		struct spool_record r;
		struct payload p;
		double delay = 0;
		void *snap;
		int err;

		err = spool_peek(s->spool, &r, &loss);
		spool_counts(s, &loss);
		if (err == -ENOENT)
			break;
		if (err) {
			mb_err("spool %s: cannot read: %s", s->cfg.spool_dir, strerror(-err));
			s->retry_at = now_mono() + 1;
			break;
		}
		p = (struct payload){
			.format = (enum wire_format)r.format,
			.compression = (enum compression)r.compression,
			.body = (uint8_t *)r.body,
			.len = r.len,
			.raw_len = r.raw_len,
			.nr_samples = r.nr_samples,
		};
		if (r.format > WIRE_OTLP || r.compression > COMPRESSION_ZSTD ||
		    (p.format == WIRE_REMOTE_WRITE_V2 && s->format != WIRE_REMOTE_WRITE_V2)) {
			/* written as remote write 2.0, which the receiver turned out not to store */
			if (!s->spool_v2_logged)
				mb_err("spool %s: dropping spooled requests the receiver cannot take (%s after the "
				       "fallback to remote write 1.0)", s->cfg.spool_dir, wire_format_name(p.format));
			s->spool_v2_logged = true;
			count_drop(s, DROP_REJECTED, p.nr_samples);
			spool_ack(s->spool);
			continue;
		}
		switch (attempt(s, &p, s->spool_attempt, false, &delay)) {
		case ATTEMPT_FALLBACK:
			fall_back(s);
			continue; /* the record is 2.0: dropped by the check above */
		case ATTEMPT_RETRY:
			s->spool_attempt++;
			s->retry_at = now_mono() + delay;
			goto out;
		case ATTEMPT_OK:
			pthread_mutex_lock(&s->lock);
			s->stats.replayed++;
			pthread_mutex_unlock(&s->lock);
			s->spool_attempt = 0;
			/* fall through */
		case ATTEMPT_REJECTED:
			spool_ack(s->spool);
			break;
		}
		spool_counts(s, &loss);
		while ((snap = send_queue_try_pop(s->queue)))
			process_one(s, snap);
	}
out:
	spool_counts(s, &(struct spool_loss){ 0 });
	if (was_waiting && !spool_pending(s->spool))
		mb_info("spool %s: drained, the collector takes requests again", s->cfg.spool_dir);
}

static void process(struct sender *s, const struct snapshot *snap)
{
	struct series_opts o = {
		.host = s->cfg.host,
		.labels = s->cfg.labels,
		.nr_labels = s->cfg.nr_labels,
		.unit_label = s->cfg.unit_label,
		.container_id_label = s->cfg.container_id_label,
	};
	struct batch_limits lim = { .max_samples = s->cfg.max_samples, .max_bytes = s->cfg.max_bytes };
	int err;

	err = series_set_build(&s->set, &o, snap, s->tracker);
	if (err) {
		mb_err("cannot build the series of an interval: %s", strerror(-err));
		count_drop(s, DROP_ENCODE, snap->nr_values);
		return;
	}
again:
	payload_list_clear(&s->payloads);
	err = batch_encode(&s->set, s->format, compression_for(s, s->format), &lim, &s->payloads);
	if (err) {
		mb_err("cannot encode an interval as %s: %s", wire_format_name(s->format), strerror(-err));
		count_drop(s, DROP_ENCODE, s->set.nr_items);
		return;
	}
	for (size_t i = 0; i < s->payloads.n; i++) {
		const struct payload *p = &s->payloads.p[i];

		if (s->spool) {
			if (spool_or_send(s, p) == SEND_FALLBACK) {
				fall_back(s);
				goto again;
			}
			continue;
		}
		if (send_payload(s, p) == SEND_FALLBACK) {
			fall_back(s);
			goto again;
		}
	}
	if (s->spool)
		spool_synced(s);
}


static void *sender_main_spool(struct sender *s)
{
	for (;;) {
		struct timespec until;
		void *snap;
		int rc;

		replay(s, 0);
		if (spool_pending(s->spool)) {
			double t = s->retry_at;

			until.tv_sec = (time_t)t;
			until.tv_nsec = (long)((t - floor(t)) * 1e9);
		}
		rc = send_queue_pop_until(s->queue, spool_pending(s->spool) ? &until : NULL, &snap);
		if (rc == -EPIPE)
			break;
		if (!rc)
			process_one(s, snap);
	}
	/* stop: the queue is empty (sent or spooled); replay what time allows */
	replay(s, now_mono() + SENDER_SHUTDOWN_S);
	spool_synced(s);
	if (spool_pending(s->spool))
		mb_info("spool %s: %llu requests stay on disk for the next start", s->cfg.spool_dir,
			(unsigned long long)spool_pending(s->spool));
	return NULL;
}

static void *sender_main(void *arg)
{
	struct sender *s = arg;
	struct snapshot *snap;

	if (s->spool)
		return sender_main_spool(s);
	while ((snap = send_queue_pop(s->queue)))
		process_one(s, snap);
	return NULL;
}

static int copy_string(char **dst, const char *src)
{
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

static int copy_config(struct sender_config *d, const struct sender_config *c)
{
	int err = 0;

	*d = *c;
	d->nr_urls = d->nr_labels = 0;
	d->ca_cert = d->client_cert = d->client_key = NULL;
	d->bearer_token_file = d->basic_auth_user = d->basic_auth_password_file = d->host = NULL;
	d->spool_dir = NULL;
	for (size_t i = 0; !err && i < c->nr_urls; i++, d->nr_urls++)
		err = copy_string(&d->urls[i], c->urls[i]);
	for (size_t i = 0; !err && i < c->nr_labels; i++, d->nr_labels++) {
		d->labels[i].value = NULL;
		err = copy_string((char **)&d->labels[i].name, c->labels[i].name);
		if (!err)
			err = copy_string((char **)&d->labels[i].value, c->labels[i].value);
	}
	if (!err)
		err = copy_string(&d->ca_cert, c->ca_cert);
	if (!err)
		err = copy_string(&d->client_cert, c->client_cert);
	if (!err)
		err = copy_string(&d->client_key, c->client_key);
	if (!err)
		err = copy_string(&d->bearer_token_file, c->bearer_token_file);
	if (!err)
		err = copy_string(&d->basic_auth_user, c->basic_auth_user);
	if (!err)
		err = copy_string(&d->basic_auth_password_file, c->basic_auth_password_file);
	if (!err)
		err = copy_string(&d->host, c->host ? c->host : "localhost");
	if (!err)
		err = copy_string(&d->spool_dir, c->spool_dir);
	return err;
}

static void sender_free(struct sender *s)
{
	for (size_t i = 0; i < s->nr_eps; i++)
		http_endpoint_free(s->eps[i]);
	send_queue_free(s->queue, (void (*)(void *))snapshot_free);
	spool_close(s->spool);
	http_secrets_free(&s->secrets);
	stale_tracker_free(s->tracker);
	series_set_free(&s->set);
	payload_list_free(&s->payloads);
	sender_config_free(&s->cfg);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

int sender_start(const struct sender_config *c, struct sender **out)
{
	struct sender *s;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	series_set_init(&s->set);
	s->rand_state = (unsigned int)time(NULL) ^ (unsigned int)(uintptr_t)s;
	err = copy_config(&s->cfg, c);
	if (err)
		goto free_sender;
	s->format = s->stats.format = c->format;
	if (c->bearer_token_file) {
		err = http_read_secret(c->bearer_token_file, "BearerTokenFile", &s->secrets.bearer_token);
		if (err)
			goto free_sender;
	}
	if (c->basic_auth_password_file) {
		err = http_read_secret(c->basic_auth_password_file, "BasicAuthPasswordFile",
				       &s->secrets.basic_password);
		if (err)
			goto free_sender;
	}
	if (!c->verify_peer)
		mb_warn("VerifyPeer false: TLS certificates of the receivers are NOT checked");
	for (size_t i = 0; i < c->nr_urls; i++, s->nr_eps++) {
		err = http_endpoint_new(c->urls[i], &s->cfg, &s->secrets, &s->eps[i]);
		if (err)
			goto free_sender;
	}
	err = -ENOMEM;
	s->tracker = stale_tracker_new();
	if (!s->tracker)
		goto free_sender;
	if (c->spool_dir) {
		struct spool_opts so = {
			.dir = c->spool_dir,
			.max_bytes = c->spool_max_bytes ? c->spool_max_bytes : SENDER_DEFAULT_SPOOL_BYTES,
		};
		struct spool_loss loss;

		err = spool_open(&so, &s->spool, &loss);
		if (err)
			goto free_sender;
		spool_counts(s, &loss);
		mb_info("spool %s: requests the collector cannot take wait here (SpoolMaxBytes %llu)",
			c->spool_dir, (unsigned long long)so.max_bytes);
	}
	err = send_queue_new(c->queue_length ? c->queue_length : SENDER_DEFAULT_QUEUE_LENGTH, &s->queue);
	if (err)
		goto free_sender;
	err = -pthread_create(&s->thread, NULL, sender_main, s);
	if (err) {
		mb_err("cannot start the sender thread: %s", strerror(-err));
		goto free_sender;
	}
	s->thread_started = true;
	*out = s;
	return 0;

free_sender:
	sender_free(s);
	return err;
}

void sender_submit(struct sender *s, struct snapshot *snap)
{
	void *evicted = NULL;

	if (send_queue_push(s->queue, snap, &evicted)) {
		count_drop(s, DROP_SHUTDOWN, snap->nr_values);
		snapshot_free(snap);
		return;
	}
	if (evicted) {
		count_drop(s, DROP_QUEUE_FULL, ((struct snapshot *)evicted)->nr_values);
		snapshot_free(evicted);
	}
}

void sender_get_stats(struct sender *s, struct sender_stats *out)
{
	pthread_mutex_lock(&s->lock);
	*out = s->stats;
	pthread_mutex_unlock(&s->lock);
	out->queued = send_queue_length(s->queue);
}

void sender_stop(struct sender *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	pthread_cond_broadcast(&s->wake);
	pthread_mutex_unlock(&s->lock);
	send_queue_close(s->queue);
	if (s->thread_started)
		pthread_join(s->thread, NULL);
	sender_free(s);
}
