// SPDX-License-Identifier: GPL-2.0-only
#include "memcg_bpf_config.h"

#include "sending/sender.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/name_table.h"
#include "sending/delivery.h"
#include "sending/http_sender.h"
#include "sending/send_queue.h"
#include "series/pod_names.h"
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

	pthread_mutex_t lock; /* intervals, stopping, stop_deadline, the spill list, queue drop logging */
	pthread_cond_t wake;
	bool stopping;
	uint64_t intervals;

	double stop_deadline;  /* monotonic; requests still running then are cut off */
	struct snapshot **spill; /* see spill_pop(); SENDER_MAX_SPILL at most */
	size_t nr_spill;
	struct snapshot *spare[SENDER_MAX_SPARE]; /* sender_take_spare() */
	size_t nr_spare;
	uint64_t queue_drops_unlogged; /* without a spool: drops since the last log line */
	double queue_drop_logged_at;
	/* thread only */
	struct stale_tracker *tracker;
	struct pod_names *names; /* NULL: no Kubernetes names wanted */
	struct series_set sets[SENDER_MAX_PACK];
	unsigned int rand_state;
};

static const char *const drop_names[DROP_NR] = {
	[DROP_QUEUE_FULL] = "queue_full",
	[DROP_REJECTED] = "rejected",
	[DROP_ENCODE] = "encode",
	[DROP_SHUTDOWN] = "shutdown",
	[DROP_SPOOL_FULL] = "spool_full",
	[DROP_SPOOL_ERROR] = "spool_error",
	[DROP_DUPLICATE_SERIES] = "duplicate_series",
};

DEFINE_NAME_OF(drop_reason, enum drop_reason, drop_names)

static const char *const cpu_names[SENDER_CPU_NR] = {
	[SENDER_CPU_SERIES] = "series",
	[SENDER_CPU_ENCODE] = "encode",
	[SENDER_CPU_COMPRESS] = "compress",
	[SENDER_CPU_POST] = "post",
};

DEFINE_NAME_OF(sender_cpu, enum sender_cpu, cpu_names)

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

static bool stop_asked(void *ctx)
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
	struct timespec until = clock_after(CLOCK_REALTIME, secs);
	bool v;

	pthread_mutex_lock(&s->lock);
	while (!s->stopping && pthread_cond_timedwait(&s->wake, &s->lock, &until) != ETIMEDOUT)
		;
	v = s->stopping;
	pthread_mutex_unlock(&s->lock);
	return v;
}

/* Asked by a running request: cut it off, the stop's deadline has passed. */
static bool give_up(void *ctx)
{
	struct sender *s = ctx;
	bool v;

	pthread_mutex_lock(&s->lock);
	v = s->stopping && now_mono(NULL) >= s->stop_deadline;
	pthread_mutex_unlock(&s->lock);
	return v;
}

static double uniform_random(void *ctx)
{
	struct sender *s = ctx;

	return (double)rand_r(&s->rand_state) / RAND_MAX;
}

/* ---- the thread */

/* @snap is done with: kept for sender_take_spare() while there is room. */
static void done_with(struct sender *s, struct snapshot *snap)
{
	pthread_mutex_lock(&s->lock);
	if (s->nr_spare < SENDER_MAX_SPARE) {
		s->spare[s->nr_spare++] = snap;
		snap = NULL;
	}
	pthread_mutex_unlock(&s->lock);
	snapshot_free(snap);
}

/*
 * The intervals the queue had to make room for while a SpoolDir is set:
 * older than everything still queued, newer than the request in flight, so
 * the thread takes them first and the order of every series is kept.
 */
/* Takes the oldest spilled interval; s->lock held, the list not empty. */
static struct snapshot *spill_shift_locked(struct sender *s)
{
	struct snapshot *snap = s->spill[0];

	memmove(&s->spill[0], &s->spill[1], --s->nr_spill * sizeof(*s->spill));
	return snap;
}

static struct snapshot *spill_pop(struct sender *s)
{
	struct snapshot *snap = NULL;

	pthread_mutex_lock(&s->lock);
	if (s->nr_spill)
		snap = spill_shift_locked(s);
	pthread_mutex_unlock(&s->lock);
	return snap;
}

/* The next waiting interval, the spilled ones first; NULL when none waits. */
static struct snapshot *next_waiting(struct sender *s)
{
	struct snapshot *snap = spill_pop(s);

	return snap ? snap : send_queue_try_pop(s->queue);
}

/* The oldest spilled interval when it is older than @ts_ms, else NULL. */
static struct snapshot *spill_pop_older(struct sender *s, int64_t ts_ms)
{
	struct snapshot *snap = NULL;

	pthread_mutex_lock(&s->lock);
	if (s->nr_spill && s->spill[0]->ts_ms < ts_ms)
		snap = spill_shift_locked(s);
	pthread_mutex_unlock(&s->lock);
	return snap;
}

/*
 * The next interval of a batch, oldest first. The spill list is in time
 * order and @*first sits somewhere in it: intervals spilled before @*first
 * left the queue are older, those spilled after are newer; the queue holds
 * only newer ones.
 */
static struct snapshot *next_in_order(struct sender *s, struct snapshot **first)
{
	struct snapshot *snap;

	if (!*first)
		return next_waiting(s);
	snap = spill_pop_older(s, (*first)->ts_ms);
	if (!snap) {
		snap = *first;
		*first = NULL;
	}
	return snap;
}

/*
 * Sends @first and the intervals waiting behind it together: their series
 * are packed into as few requests as the limits allow (batch_encode_sets),
 * so that a collector slower than the interval gets fewer, larger requests
 * and the sender keeps up. Takes the snapshots; oldest first, over as many
 * batches as the limits need, so that every series stays in time order.
 */
static void process_batch(struct sender *s, struct snapshot *first)
{
	struct series_opts o = {
		.host = s->cfg.host,
		.instance_id = s->cfg.service_instance_id,
		.labels = s->cfg.labels,
		.nr_labels = s->cfg.nr_labels,
		.unit_label = s->cfg.unit_label,
		.pod_uid_label = s->cfg.pod_uid_label,
		.container_id_label = s->cfg.container_id_label,
		.pod_name_labels = s->cfg.pod_name_labels,
		.container_name_label = s->cfg.container_name_label,
		.names = s->names,
		.image_label = s->cfg.image_label,
		.containerd_state_dir = s->cfg.containerd_state_dir,
		.crio_state_dir = s->cfg.crio_state_dir,
	};
	size_t max_values = sender_config_max_samples(&s->cfg);
	struct snapshot *snaps[SENDER_MAX_PACK];
	const struct series_set *sets[SENDER_MAX_PACK];

	while (first) {
		size_t n = 0, built = 0, values = 0;
		bool joining;

		while (n < SENDER_MAX_PACK && values < max_values && (snaps[n] = next_in_order(s, &first)))
			values += snaps[n++]->nr_values;
		/*
		 * Several: each built into the same set while they keep its shape,
		 * and joined from the kept requests (the steady state); the rest
		 * packed as they are.
		 */
		joining = n > 1;
		for (size_t i = 0; i < n; i++) {
			uint64_t cpu = thread_cpu_ns();
			int err = series_set_build(&s->sets[built], &o, snaps[i], s->tracker);

			delivery_add_cpu(s->delivery, SENDER_CPU_SERIES, thread_cpu_ns() - cpu);
			if (!err && s->sets[built].nr_duplicates)
				delivery_count_drop(s->delivery, DROP_DUPLICATE_SERIES, s->sets[built].nr_duplicates);
			if (err) {
				mb_err("cannot build the series of an interval: %s", strerror(-err));
				delivery_count_drop(s->delivery, DROP_ENCODE, snaps[i]->nr_values);
			} else if (!(joining && delivery_join(s->delivery, &s->sets[built]) == 0)) {
				joining = false; /* from here on packed as they are */
				sets[built] = &s->sets[built];
				built++;
			}
			done_with(s, snaps[i]);
		}
		delivery_send_joined(s->delivery);
		if (built)
			delivery_send_sets(s->delivery, sets, built);
		pthread_mutex_lock(&s->lock);
		s->intervals += n;
		pthread_mutex_unlock(&s->lock);
	}
}

/*
 * BatchSendDeadline: @first (just taken from the queue) waits for the
 * intervals that should share its requests (sender_config_batch_intervals),
 * so the collector takes fewer, larger requests and each request's fixed
 * cost (HTTP, TCP, waking the receiver) is paid once for them. The wait
 * ends when they are queued, at the deadline (with half an interval to
 * spare for a late read), or at a stop.
 */
static void wait_for_batch(struct sender *s, const struct snapshot *first)
{
	size_t want = sender_config_batch_intervals(&s->cfg, first->nr_values);
	struct timespec until;

	if (want > SENDER_MAX_PACK)
		want = SENDER_MAX_PACK;
	/* while the spool holds a backlog the collector is not taking: no waiting */
	if (want <= 1 || delivery_spool_pending(s->delivery))
		return;
	until = clock_after(CLOCK_MONOTONIC, fmin(s->cfg.batch_deadline_s,
						  (double)(want - 1) * s->cfg.interval_s + s->cfg.interval_s / 2));
	send_queue_wait_for(s->queue, want - 1, &until);
}

/* Between spooled records: what waits goes to the spool (or out). */
static void drain_queue(void *arg)
{
	struct sender *s = arg;
	struct snapshot *snap;

	while ((snap = next_waiting(s)))
		process_batch(s, snap);
}

static void *sender_main_spool(struct sender *s)
{
	double left;

	for (;;) {
		struct timespec until;
		void *snap;
		int rc;

		delivery_replay(s->delivery, 0, drain_queue, s);
		if ((snap = spill_pop(s))) {
			process_batch(s, snap);
			continue;
		}
		if (delivery_spool_pending(s->delivery)) {
			double t = delivery_retry_at(s->delivery);

			until.tv_sec = (time_t)t;
			until.tv_nsec = (long)((t - floor(t)) * 1e9);
		}
		rc = send_queue_pop_until(s->queue, delivery_spool_pending(s->delivery) ? &until : NULL, &snap);
		if (rc == -EPIPE)
			break;
		if (!rc) {
			wait_for_batch(s, snap);
			process_batch(s, snap);
		}
	}
	/* stop: what waits is sent or spooled; then replay what the deadline allows */
	drain_queue(s);
	left = s->stop_deadline - now_mono(NULL);
	if (left > 0.05)
		delivery_replay(s->delivery, left, drain_queue, s);
	delivery_leave_spool(s->delivery);
	return NULL;
}

static void *sender_main(void *arg)
{
	struct sender *s = arg;
	struct snapshot *snap;

	/* top -H and perf tell the sender's CPU from collectd's readers and writers */
	pthread_setname_np(pthread_self(), "memcg_bpf send");
	if (delivery_spool_on(s->delivery))
		return sender_main_spool(s);
	while ((snap = send_queue_pop(s->queue))) {
		wait_for_batch(s, snap);
		process_batch(s, snap);
	}
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
	d->spool_dir = d->service_instance_id = NULL;
	d->pod_log_dir = d->container_log_dir = NULL;
	d->containerd_state_dir = d->crio_state_dir = NULL;
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
	if (!err)
		err = copy_string(&d->pod_log_dir, c->pod_log_dir);
	if (!err)
		err = copy_string(&d->container_log_dir, c->container_log_dir);
	if (!err)
		err = copy_string(&d->containerd_state_dir, c->containerd_state_dir);
	if (!err)
		err = copy_string(&d->crio_state_dir, c->crio_state_dir);
	if (!err)
		err = copy_string(&d->service_instance_id, c->service_instance_id);
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
		.stopping = stop_asked,
		.uniform = uniform_random,
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
	pod_names_free(s->names);
	for (size_t i = 0; i < SENDER_MAX_PACK; i++)
		series_set_free(&s->sets[i]);
	for (size_t i = 0; i < s->nr_spill; i++)
		snapshot_free(s->spill[i]);
	for (size_t i = 0; i < s->nr_spare; i++)
		snapshot_free(s->spare[i]);
	free(s->spill);
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
	for (size_t i = 0; i < SENDER_MAX_PACK; i++)
		series_set_init(&s->sets[i]);
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
		if (!err)
			err = http_endpoint_set_give_up(s->eps[i], give_up, s);
		if (err)
			goto free_sender;
	}
	err = -ENOMEM;
	s->tracker = stale_tracker_new();
	if (!s->tracker)
		goto free_sender;
	if ((c->pod_name_labels || c->container_name_label) &&
	    !(s->names = pod_names_new(c->pod_log_dir, c->container_log_dir, NULL)))
		goto free_sender;
	err = start_delivery(s);
	if (err)
		goto free_sender;
	if (delivery_spool_on(s->delivery)) {
		s->spill = calloc(SENDER_MAX_SPILL, sizeof(*s->spill));
		if (!s->spill) {
			err = -ENOMEM;
			goto free_sender;
		}
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

/* Without a spool: a queue-full drop, counted, and logged at most once a minute. */
static void drop_queued(struct sender *s, struct snapshot *snap)
{
	double now = now_mono(NULL);
	uint64_t n;

	delivery_count_drop(s->delivery, DROP_QUEUE_FULL, snap->nr_values);
	snapshot_free(snap);
	pthread_mutex_lock(&s->lock);
	n = ++s->queue_drops_unlogged;
	if (n > 1 && now - s->queue_drop_logged_at < 60) {
		pthread_mutex_unlock(&s->lock);
		return;
	}
	s->queue_drops_unlogged = 0;
	s->queue_drop_logged_at = now;
	pthread_mutex_unlock(&s->lock);
	mb_warn("the collector is not keeping up and there is no SpoolDir: dropped %llu interval%s "
		"(QueueLength %zu full; counted as reason queue_full)",
		(unsigned long long)n, n == 1 ? "" : "s",
		s->cfg.queue_length ? s->cfg.queue_length : (size_t)SENDER_DEFAULT_QUEUE_LENGTH);
}

/*
 * With a spool, an interval the queue makes room for is not dropped: it
 * waits in the spill list for the thread, which sends or spools it before
 * anything still queued. Only past SENDER_MAX_SPILL (a collector hung far
 * longer than its Timeout) is the oldest dropped.
 */
static void spill(struct sender *s, struct snapshot *snap)
{
	struct snapshot *dropped = NULL;

	pthread_mutex_lock(&s->lock);
	if (s->nr_spill == SENDER_MAX_SPILL)
		dropped = spill_shift_locked(s);
	s->spill[s->nr_spill++] = snap;
	pthread_mutex_unlock(&s->lock);
	if (dropped)
		drop_queued(s, dropped);
}

void sender_submit(struct sender *s, struct snapshot *snap)
{
	void *evicted = NULL;

	if (send_queue_push(s->queue, snap, &evicted)) {
		delivery_count_drop(s->delivery, DROP_SHUTDOWN, snap->nr_values);
		snapshot_free(snap);
		return;
	}
	if (!evicted)
		return;
	if (s->spill)
		spill(s, evicted);
	else
		drop_queued(s, evicted);
}

struct snapshot *sender_take_spare(struct sender *s)
{
	struct snapshot *snap = NULL;

	pthread_mutex_lock(&s->lock);
	if (s->nr_spare)
		snap = s->spare[--s->nr_spare];
	pthread_mutex_unlock(&s->lock);
	return snap;
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
	s->stop_deadline = now_mono(NULL) + SENDER_SHUTDOWN_S;
	pthread_cond_broadcast(&s->wake);
	pthread_mutex_unlock(&s->lock);
	send_queue_close(s->queue);
	if (s->thread_started)
		pthread_join(s->thread, NULL);
	sender_free(s);
}
