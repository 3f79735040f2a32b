// SPDX-License-Identifier: GPL-2.0-only
#include "sending/sender.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/name_table.h"
#include "sending/delivery.h"
#include "sending/http_sender.h"
#include "sending/send_queue.h"
#include "series/series_set.h"

struct sender {
	struct sender_config cfg; /* deep copy */
	struct http_secrets secrets;
	struct http_endpoint *eps[SENDER_MAX_URLS];
	size_t nr_eps;
	struct send_queue *queue;
	struct delivery *delivery;
	pthread_t thread;
	bool thread_started;

	pthread_mutex_t lock; /* intervals, stopping */
	pthread_cond_t wake;
	bool stopping;
	uint64_t intervals;

	/* thread only */
	struct stale_tracker *tracker;
	struct series_set set;
	unsigned int rand_state;
};

static const char *const drop_names[DROP_NR] = {
	[DROP_QUEUE_FULL] = "queue_full",
	[DROP_REJECTED] = "rejected",
	[DROP_ENCODE] = "encode",
	[DROP_SHUTDOWN] = "shutdown",
	[DROP_SPOOL_FULL] = "spool_full",
	[DROP_SPOOL_ERROR] = "spool_error",
};

DEFINE_NAME_OF(drop_reason, enum drop_reason, drop_names)

/* ---- what the delivery policy asks of the world: the endpoints, the clock, the stop */
static int post_to(void *ctx, size_t url, const struct payload *p, struct http_response *r)
{
	struct sender *s = ctx;

	return http_post(s->eps[url], p, r);
}

static double now_mono(void *ctx)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool stopping(void *ctx)
{
	struct sender *s = ctx;
	bool v;

	pthread_mutex_lock(&s->lock);
	v = s->stopping;
	pthread_mutex_unlock(&s->lock);
	return v;
}

/* Waits @secs or until stop; returns true when stopping. */
static bool wait_or_stop(void *ctx, double secs)
{
	struct sender *s = ctx;
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

static double uniform(void *ctx)
{
	struct sender *s = ctx;

	return (double)rand_r(&s->rand_state) / RAND_MAX;
}

/* ---- the thread */
static void process(struct sender *s, const struct snapshot *snap)
{
	struct series_opts o = {
		.host = s->cfg.host,
		.labels = s->cfg.labels,
		.nr_labels = s->cfg.nr_labels,
		.unit_label = s->cfg.unit_label,
		.container_id_label = s->cfg.container_id_label,
	};
	int err;

	err = series_set_build(&s->set, &o, snap, s->tracker);
	if (err) {
		mb_err("cannot build the series of an interval: %s", strerror(-err));
		delivery_count_drop(s->delivery, DROP_ENCODE, snap->nr_values);
		return;
	}
	delivery_send_set(s->delivery, &s->set);
}

static void process_one(struct sender *s, struct snapshot *snap)
{
	process(s, snap);
	snapshot_free(snap);
	pthread_mutex_lock(&s->lock);
	s->intervals++;
	pthread_mutex_unlock(&s->lock);
}

/* Between spooled records: what the read callback queued goes to the spool (or out). */
static void drain_queue(void *arg)
{
	struct sender *s = arg;
	void *snap;

	while ((snap = send_queue_try_pop(s->queue)))
		process_one(s, snap);
}

static void *sender_main_spool(struct sender *s)
{
	for (;;) {
		struct timespec until;
		void *snap;
		int rc;

		delivery_replay(s->delivery, 0, drain_queue, s);
		if (delivery_spool_pending(s->delivery)) {
			double t = delivery_retry_at(s->delivery);

			until.tv_sec = (time_t)t;
			until.tv_nsec = (long)((t - floor(t)) * 1e9);
		}
		rc = send_queue_pop_until(s->queue, delivery_spool_pending(s->delivery) ? &until : NULL, &snap);
		if (rc == -EPIPE)
			break;
		if (!rc)
			process_one(s, snap);
	}
	/* stop: the queue is empty (sent or spooled); replay what time allows */
	delivery_replay(s->delivery, SENDER_SHUTDOWN_S, drain_queue, s);
	delivery_leave_spool(s->delivery);
	return NULL;
}

static void *sender_main(void *arg)
{
	struct sender *s = arg;
	struct snapshot *snap;

	if (s->cfg.spool_dir)
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

/* The policy, wired to the endpoints, the real clock and this thread's stop. */
static int start_delivery(struct sender *s)
{
	const struct sender_config *c = &s->cfg;
	struct delivery_opts o = {
		.urls = (const char *const *)c->urls,
		.nr_urls = c->nr_urls,
		.format = c->format,
		.compression = c->compression,
		.limits = { .max_samples = c->max_samples, .max_bytes = c->max_bytes },
		.spool_dir = c->spool_dir,
		.spool_max_bytes = c->spool_max_bytes,
	};
	struct delivery_ops ops = {
		.post = post_to,
		.now = now_mono,
		.wait = wait_or_stop,
		.stopping = stopping,
		.uniform = uniform,
		.ctx = s,
	};

	return delivery_new(&o, &ops, &s->delivery);
}

static void sender_free(struct sender *s)
{
	for (size_t i = 0; i < s->nr_eps; i++)
		http_endpoint_free(s->eps[i]);
	send_queue_free(s->queue, (void (*)(void *))snapshot_free);
	delivery_free(s->delivery);
	http_secrets_free(&s->secrets);
	stale_tracker_free(s->tracker);
	series_set_free(&s->set);
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
	err = start_delivery(s);
	if (err)
		goto free_sender;
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
		delivery_count_drop(s->delivery, DROP_SHUTDOWN, snap->nr_values);
		snapshot_free(snap);
		return;
	}
	if (evicted) {
		delivery_count_drop(s->delivery, DROP_QUEUE_FULL, ((struct snapshot *)evicted)->nr_values);
		snapshot_free(evicted);
	}
}

void sender_get_stats(struct sender *s, struct sender_stats *out)
{
	delivery_get_stats(s->delivery, out);
	pthread_mutex_lock(&s->lock);
	out->intervals = s->intervals;
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
