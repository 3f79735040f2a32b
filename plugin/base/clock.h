/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Nanoseconds on a clock: CLOCK_REALTIME for timestamps, CLOCK_MONOTONIC
 * for durations, CLOCK_THREAD_CPUTIME_ID for the CPU a stage costs the
 * calling thread (user and system: a BPF iterator's kernel time included).
 */
#ifndef MEMCG_BPF_CLOCK_H
#define MEMCG_BPF_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The calling thread's CPU time so far. */
static inline uint64_t thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* The moment @secs from now on @clock (now when @secs <= 0): a deadline for pthread_cond_timedwait(). */
static inline struct timespec clock_after(clockid_t clock, double secs)
{
	uint64_t ns = clock_ns(clock) + (secs > 0 ? (uint64_t)(secs * 1e9) : 0);

	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000ull), .tv_nsec = (long)(ns % 1000000000ull) };
}

#endif
