/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What waits between the read callback and the sender thread: a bounded FIFO
 * of opaque items. push never blocks: when the queue is full the oldest item
 * makes room and is handed back to the caller, who counts the drop. pop
 * blocks until an item arrives or the queue is closed.
 *
 * The queue holds snapshots, before encoding. The disk spool (spool.h)
 * sits after the encoder: with SpoolDir the sender thread drains
 * this queue at once and writes the encoded requests it cannot send to disk,
 * so this queue stays short and only covers the time of one request.
 */
#ifndef MEMCG_BPF_SEND_QUEUE_H
#define MEMCG_BPF_SEND_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

struct send_queue;

/* Returns 0 or -ENOMEM/-EINVAL (capacity 0). */
int send_queue_new(size_t capacity, struct send_queue **out);
/*
 * Appends @item. When the queue was full, *@evicted is set to the oldest item
 * (removed), else to NULL. Returns -EPIPE once the queue is closed (the item
 * is not taken).
 */
int send_queue_push(struct send_queue *q, void *item, void **evicted);
/* The oldest item, waiting for one; NULL once closed and empty. */
void *send_queue_pop(struct send_queue *q);
struct timespec;
/*
 * The oldest item in *@item, waiting until @deadline (CLOCK_MONOTONIC; NULL:
 * no limit). 0, -ETIMEDOUT, or -EPIPE once closed and empty.
 */
int send_queue_pop_until(struct send_queue *q, const struct timespec *deadline, void **item);
/*
 * Waits until the queue holds @n items, @deadline (CLOCK_MONOTONIC) passes
 * or the queue is closed; returns how many it holds. Takes nothing.
 */
size_t send_queue_wait_for(struct send_queue *q, size_t n, const struct timespec *deadline);
/* The oldest item or NULL, without waiting. */
void *send_queue_try_pop(struct send_queue *q);
size_t send_queue_length(struct send_queue *q);
/* Wakes every waiter; pop still drains what is left, then returns NULL. */
void send_queue_close(struct send_queue *q);
/* Frees the queue; items still inside are passed to @free_item (may be NULL). */
void send_queue_free(struct send_queue *q, void (*free_item)(void *));

#endif
