// SPDX-License-Identifier: GPL-2.0-only
#include "sending/send_queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct send_queue {
	pthread_mutex_t lock;
	pthread_cond_t nonempty;
	void **ring;
	size_t cap, head, len;
	bool closed;
};

int send_queue_new(size_t capacity, struct send_queue **out)
{
	struct send_queue *q;

	if (!capacity)
		return -EINVAL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->ring = calloc(capacity, sizeof(*q->ring));
	if (!q->ring) {
		free(q);
		return -ENOMEM;
	}
	q->cap = capacity;
	pthread_mutex_init(&q->lock, NULL);
	{
		pthread_condattr_t attr;

		pthread_condattr_init(&attr);
		pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		pthread_cond_init(&q->nonempty, &attr);
		pthread_condattr_destroy(&attr);
	}
	*out = q;
	return 0;
}

static void *take_locked(struct send_queue *q)
{
	void *item = q->ring[q->head];

	q->ring[q->head] = NULL;
	q->head = (q->head + 1) % q->cap;
	q->len--;
	return item;
}

int send_queue_push(struct send_queue *q, void *item, void **evicted)
{
	*evicted = NULL;
	pthread_mutex_lock(&q->lock);
	if (q->closed) {
		pthread_mutex_unlock(&q->lock);
		return -EPIPE;
	}
	if (q->len == q->cap)
		*evicted = take_locked(q);
	q->ring[(q->head + q->len) % q->cap] = item;
	q->len++;
	pthread_cond_signal(&q->nonempty);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

void *send_queue_pop(struct send_queue *q)
{
	void *item = NULL;

	pthread_mutex_lock(&q->lock);
	while (!q->len && !q->closed)
		pthread_cond_wait(&q->nonempty, &q->lock);
	if (q->len)
		item = take_locked(q);
	pthread_mutex_unlock(&q->lock);
	return item;
}

int send_queue_pop_until(struct send_queue *q, const struct timespec *deadline, void **item)
{
	bool closed;
	int err = 0;

	*item = NULL;
	pthread_mutex_lock(&q->lock);
	while (!q->len && !q->closed && err != ETIMEDOUT)
		err = deadline ? pthread_cond_timedwait(&q->nonempty, &q->lock, deadline)
			       : pthread_cond_wait(&q->nonempty, &q->lock);
	if (q->len)
		*item = take_locked(q);
	closed = q->closed;
	pthread_mutex_unlock(&q->lock);
	if (*item)
		return 0;
	return closed ? -EPIPE : -ETIMEDOUT;
}

size_t send_queue_wait_for(struct send_queue *q, size_t n, const struct timespec *deadline)
{
	int err = 0;
	size_t len;

	pthread_mutex_lock(&q->lock);
	while (q->len < n && !q->closed && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&q->nonempty, &q->lock, deadline);
	len = q->len;
	pthread_mutex_unlock(&q->lock);
	return len;
}

void *send_queue_try_pop(struct send_queue *q)
{
	void *item = NULL;

	pthread_mutex_lock(&q->lock);
	if (q->len)
		item = take_locked(q);
	pthread_mutex_unlock(&q->lock);
	return item;
}

size_t send_queue_length(struct send_queue *q)
{
	size_t n;

	pthread_mutex_lock(&q->lock);
	n = q->len;
	pthread_mutex_unlock(&q->lock);
	return n;
}

void send_queue_close(struct send_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_broadcast(&q->nonempty);
	pthread_mutex_unlock(&q->lock);
}

void send_queue_free(struct send_queue *q, void (*free_item)(void *))
{
	if (!q)
		return;
	while (q->len) {
		void *item = take_locked(q);

		if (free_item)
			free_item(item);
	}
	pthread_cond_destroy(&q->nonempty);
	pthread_mutex_destroy(&q->lock);
	free(q->ring);
	free(q);
}
