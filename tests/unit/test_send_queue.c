// SPDX-License-Identifier: GPL-2.0-only
/*
 * The queue between the read callback and the sender thread: order, the
 * oldest making room when full, closing, and send_queue_wait_for (how an
 * interval waits for the ones that share its request): it returns once the
 * queue holds enough, at the deadline, or when closed, and takes nothing;
 * a push from another thread ends the wait early.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/clock.h"
#include "sending/send_queue.h"

static char items[8];

static void test_order_and_eviction(void **state)
{
	struct send_queue *q;
	void *evicted;

	(void)state;
	assert_int_equal(send_queue_new(0, &q), -EINVAL);
	assert_int_equal(send_queue_new(2, &q), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(send_queue_push(q, &items[i], &evicted), 0);
	assert_ptr_equal(evicted, &items[0]); /* the third made room */
	assert_int_equal(send_queue_length(q), 2);
	assert_ptr_equal(send_queue_try_pop(q), &items[1]);
	assert_ptr_equal(send_queue_pop(q), &items[2]);
	assert_null(send_queue_try_pop(q));
	send_queue_close(q);
	assert_int_equal(send_queue_push(q, &items[3], &evicted), -EPIPE);
	assert_null(send_queue_pop(q));
	send_queue_free(q, NULL);
}

static void test_wait_for_enough_or_deadline(void **state)
{
	struct send_queue *q;
	struct timespec until;
	void *evicted;
	uint64_t t0;

	(void)state;
	assert_int_equal(send_queue_new(4, &q), 0);
	assert_int_equal(send_queue_push(q, &items[0], &evicted), 0);
	/* enough already: at once, and nothing taken */
	until = clock_after(CLOCK_MONOTONIC, 10);
	assert_int_equal(send_queue_wait_for(q, 1, &until), 1);
	assert_int_equal(send_queue_length(q), 1);
	/* not enough: until the deadline */
	t0 = clock_ns(CLOCK_MONOTONIC);
	until = clock_after(CLOCK_MONOTONIC, 0.05);
	assert_int_equal(send_queue_wait_for(q, 3, &until), 1);
	assert_true(clock_ns(CLOCK_MONOTONIC) - t0 >= 50000000u);
	/* a deadline passed already */
	until = clock_after(CLOCK_MONOTONIC, -1);
	assert_int_equal(send_queue_wait_for(q, 3, &until), 1);
	/* closed: at once */
	send_queue_close(q);
	t0 = clock_ns(CLOCK_MONOTONIC);
	until = clock_after(CLOCK_MONOTONIC, 10);
	assert_int_equal(send_queue_wait_for(q, 3, &until), 1);
	assert_true(clock_ns(CLOCK_MONOTONIC) - t0 < 5000000000u);
	send_queue_free(q, NULL);
}

static void *push_later(void *arg)
{
	struct send_queue *q = arg;
	void *evicted;

	usleep(20000);
	send_queue_push(q, &items[1], &evicted);
	return NULL;
}

static void test_wait_ends_at_push(void **state)
{
	struct send_queue *q;
	struct timespec until;
	pthread_t t;
	void *evicted;
	uint64_t t0;

	(void)state;
	assert_int_equal(send_queue_new(4, &q), 0);
	assert_int_equal(send_queue_push(q, &items[0], &evicted), 0);
	assert_int_equal(pthread_create(&t, NULL, push_later, q), 0);
	t0 = clock_ns(CLOCK_MONOTONIC);
	until = clock_after(CLOCK_MONOTONIC, 30);
	assert_int_equal(send_queue_wait_for(q, 2, &until), 2);
	assert_true(clock_ns(CLOCK_MONOTONIC) - t0 < 20000000000u);
	pthread_join(t, NULL);
	assert_ptr_equal(send_queue_pop(q), &items[0]);
	assert_ptr_equal(send_queue_pop(q), &items[1]);
	send_queue_free(q, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_eviction),
		cmocka_unit_test(test_wait_for_enough_or_deadline),
		cmocka_unit_test(test_wait_ends_at_push),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
