// SPDX-License-Identifier: GPL-2.0-only
/*
 * The delivery policy against a scripted collector: every answer, the clock,
 * the waits and the jitter come from this file, so nothing sleeps and every
 * attempt (URL, format, request), wait, spool write and drop is checked
 * exactly.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/macros.h"
#include "sampling/sample_table.h"
#include "sending/delivery.h"

#define MAX_EVENTS 32

/* One scripted answer of the collector. */
struct answer {
	int err;             /* a transport error (then status is ignored) */
	long status;
	double retry_after_s; /* 0: no header (the script has no Retry-After: 0) */
	bool written;        /* X-Prometheus-Remote-Write-*-Written came */
	double takes_s;      /* how far the request moves the clock */
	unsigned int burns_ms; /* CPU the request costs the calling thread */
};

/* One POST the policy made. */
struct call {
	size_t url;
	enum wire_format format;
	size_t nr_samples;
	uint32_t body_hash;
};

static struct world {
	const struct answer *script;
	size_t nr_script, next;
	struct call calls[MAX_EVENTS];
	size_t nr_calls;
	double waits[MAX_EVENTS];
	size_t nr_waits;
	double clock;
	double uniform;     /* what the jitter draws */
	bool stop;
	bool stop_in_wait;  /* the sender stops during the first wait */
	size_t betweens;
	const struct series_set *between_set; /* handed to delivery_send_set in the first between */

	char dir[64];
	struct delivery *d;
	struct series_set set; /* 5 series: 3 requests of 2, 2, 1 at MAX_SAMPLES */
	struct delivery_opts opts;
} w;

static const char *const urls[] = { "http://a/write", "http://b/write", "http://c/write" };

#define MAX_SAMPLES 2

static uint32_t fnv1a(const uint8_t *p, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* ---- the world the policy sees */
static int scripted_post(void *ctx, size_t url, const struct payload *p, struct http_response *r)
{
	const struct answer *a;

	assert_true(w.next < w.nr_script); /* an attempt the script did not expect */
	assert_true(w.nr_calls < MAX_EVENTS);
	a = &w.script[w.next++];
	w.calls[w.nr_calls++] = (struct call){ url, p->format, p->nr_samples, fnv1a(p->body, p->len) };
	memset(r, 0, sizeof(*r));
	r->retry_after_s = a->retry_after_s > 0 ? a->retry_after_s : -1;
	r->status = a->err ? 0 : a->status;
	r->rw_written = a->written;
	r->seconds = 0.25;
	if (a->err)
		snprintf(r->error, sizeof(r->error), "Connection refused");
	w.clock += a->takes_s;
	for (uint64_t t0 = thread_cpu_ns();
	     thread_cpu_ns() - t0 < a->burns_ms * 1000000ull;)
		;
	return a->err;
}

static double fake_now(void *ctx)
{
	return w.clock;
}

static bool fake_wait(void *ctx, double secs)
{
	assert_true(w.nr_waits < MAX_EVENTS);
	w.waits[w.nr_waits++] = secs;
	w.clock += secs;
	if (w.stop_in_wait)
		w.stop = true;
	return w.stop;
}

static bool fake_stopping(void *ctx)
{
	return w.stop;
}

static double fake_uniform(void *ctx)
{
	return w.uniform;
}

static void between(void *arg)
{
	if (w.betweens++ == 0 && w.between_set)
		delivery_send_set(w.d, w.between_set);
}

static const struct delivery_ops ops = {
	.post = scripted_post,
	.now = fake_now,
	.wait = fake_wait,
	.stopping = fake_stopping,
	.uniform = fake_uniform,
};

/* ---- fixtures */
static void quiet(int level, const char *msg)
{
}

/* @n cgroups with one stat each: @n series, values offset by @salt. */
static void build_set(struct series_set *set, size_t n, uint64_t salt)
{
	static const struct series_opts o = { .host = "h1" };
	const struct stat_def *cols[1] = { stat_lookup("anon") };
	struct stale_tracker *st = stale_tracker_new();
	struct sample_table t;
	struct snapshot *snap;
	char path[32];

	assert_non_null(st);
	sample_table_init(&t, cols, 1);
	t.timestamp_ns = 1700000000000000000ULL + salt * 1000000000ULL;
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/grp-%zu", i);
		sample_table_add(&t, i + 1, path, 1)->values[0] = 4096 * (i + salt);
	}
	assert_int_equal(snapshot_from_table(&t, NULL, NULL, &snap), 0);
	sample_table_free(&t);
	series_set_init(set);
	assert_int_equal(series_set_build(set, &o, snap, st), 0);
	assert_int_equal(set->nr_items, n);
	snapshot_free(snap);
	stale_tracker_free(st);
}

static int setup(void **state)
{
	memset(&w, 0, sizeof(w));
	mb_log_set_sink(quiet);
	w.uniform = 1.0; /* no jitter: the full backoff */
	w.clock = 1000.0;
	build_set(&w.set, 5, 0);
	w.opts = (struct delivery_opts){
		.urls = urls,
		.nr_urls = 1,
		.format = WIRE_REMOTE_WRITE,
		.compression = COMPRESSION_DEFAULT,
		.limits = { .max_samples = MAX_SAMPLES },
	};
	return 0;
}

static int setup_spool(void **state)
{
	setup(state);
	strcpy(w.dir, "/tmp/memcg_bpf-delivery.XXXXXX");
	assert_non_null(mkdtemp(w.dir));
	w.opts.spool_dir = w.dir;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	delivery_free(w.d);
	series_set_free(&w.set);
	if (!w.dir[0])
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", w.dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void start(enum wire_format f, size_t nr_urls)
{
	w.opts.format = f;
	w.opts.nr_urls = nr_urls;
	assert_int_equal(delivery_new(&w.opts, &ops, &w.d), 0);
}

#define SCRIPT(...)                                                              \
	do {                                                                      \
		static const struct answer script_[] = { __VA_ARGS__ };           \
		w.script = script_;                                               \
		w.nr_script = ARRAY_SIZE(script_);               \
		w.next = 0;                                                       \
	} while (0)

static struct sender_stats stats(void)
{
	struct sender_stats st;

	delivery_get_stats(w.d, &st);
	return st;
}

static void expect_call(size_t i, size_t url, enum wire_format f, size_t samples)
{
	assert_true(i < w.nr_calls);
	assert_int_equal(w.calls[i].url, url);
	assert_int_equal(w.calls[i].format, f);
	assert_int_equal(w.calls[i].nr_samples, samples);
}

static void expect_waits(const double *want, size_t n)
{
	assert_int_equal(w.nr_waits, n);
	for (size_t i = 0; i < n; i++)
		assert_float_equal(w.waits[i], want[i], 1e-9);
}

/* The hashes of @set's requests as @f, in order. */
static size_t encoded_hashes(const struct series_set *set, enum wire_format f, uint32_t *out)
{
	struct payload_list pl = { 0 };
	size_t n;

	assert_int_equal(batch_encode(set, f, compression_effective(f, COMPRESSION_DEFAULT), &w.opts.limits, &pl), 0);
	n = pl.n;
	for (size_t i = 0; i < n; i++)
		out[i] = fnv1a(pl.p[i].body, pl.p[i].len);
	payload_list_free(&pl);
	return n;
}

static void expect_dropped(enum drop_reason r, uint64_t batches, uint64_t samples)
{
	struct sender_stats st = stats();

	assert_int_equal(st.dropped_batches[r], batches);
	assert_int_equal(st.dropped_samples[r], samples);
}

static void expect_no_drops(void)
{
	for (int r = 0; r < DROP_NR; r++)
		expect_dropped(r, 0, 0);
}

/* ---- without a spool */
static void test_2xx_sends_each_request_once(void **state)
{
	uint32_t want[8];
	struct sender_stats st;

	start(WIRE_REMOTE_WRITE, 2);
	SCRIPT({ .status = 200 }, { .status = 204 }, { .status = 200 });
	delivery_send_set(w.d, &w.set);
	assert_int_equal(w.nr_calls, 3);
	expect_call(0, 0, WIRE_REMOTE_WRITE, 2);
	expect_call(1, 0, WIRE_REMOTE_WRITE, 2);
	expect_call(2, 0, WIRE_REMOTE_WRITE, 1);
	assert_int_equal(encoded_hashes(&w.set, WIRE_REMOTE_WRITE, want), 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(w.calls[i].body_hash, want[i]);
	expect_waits(NULL, 0);
	st = stats();
	assert_int_equal(st.batches_sent, 3);
	assert_int_equal(st.samples_sent, 5);
	assert_int_equal(st.retries, 0);
	assert_float_equal(st.last_latency_s, 0.25, 1e-9);
	expect_no_drops();
}

/* the sender's CPU is charged to its stages: the POSTs' to "post", the rest to encode and compress */
static void test_cpu_is_charged_to_its_stage(void **state)
{
	struct sender_stats st;

	start(WIRE_REMOTE_WRITE, 1);
	SCRIPT({ .status = 200, .burns_ms = 3 }, { .status = 503, .burns_ms = 3 }, { .status = 200, .burns_ms = 3 },
	       { .status = 200, .burns_ms = 3 });
	delivery_send_set(w.d, &w.set);
	assert_int_equal(w.nr_calls, 4);
	st = stats();
	/* every try counts, retries included */
	assert_true(st.cpu_ns[SENDER_CPU_POST] >= 12000000ull);
	assert_true(st.cpu_ns[SENDER_CPU_ENCODE] + st.cpu_ns[SENDER_CPU_COMPRESS] > 0);
	assert_true(st.cpu_ns[SENDER_CPU_ENCODE] < st.cpu_ns[SENDER_CPU_POST]);
	assert_int_equal(st.cpu_ns[SENDER_CPU_SERIES], 0); /* the sender thread charges that one */
}

static void test_rw2_with_written_headers_is_sent(void **state)
{
	start(WIRE_REMOTE_WRITE_V2, 1);
	SCRIPT({ .status = 204, .written = true }, { .status = 204, .written = true },
	       { .status = 204, .written = true });
	delivery_send_set(w.d, &w.set);
	assert_int_equal(w.nr_calls, 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(w.calls[i].format, WIRE_REMOTE_WRITE_V2);
	assert_int_equal(stats().fallbacks, 0);
	assert_int_equal(stats().format, WIRE_REMOTE_WRITE_V2);
	assert_int_equal(stats().batches_sent, 3);
}

static void test_rw2_2xx_without_written_headers_falls_back(void **state)
{
	start(WIRE_REMOTE_WRITE_V2, 1);
	SCRIPT({ .status = 204 }, { .status = 200 }, { .status = 200 }, { .status = 200 });
	delivery_send_set(w.d, &w.set);
	/* the interval is encoded again as 1.0 and sent from its first request */
	assert_int_equal(w.nr_calls, 4);
	expect_call(0, 0, WIRE_REMOTE_WRITE_V2, 2);
	expect_call(1, 0, WIRE_REMOTE_WRITE, 2);
	expect_call(2, 0, WIRE_REMOTE_WRITE, 2);
	expect_call(3, 0, WIRE_REMOTE_WRITE, 1);
	expect_waits(NULL, 0);
	assert_int_equal(stats().fallbacks, 1);
	assert_int_equal(stats().format, WIRE_REMOTE_WRITE);
	assert_int_equal(stats().batches_sent, 3);
	assert_int_equal(stats().retries, 0);
	expect_no_drops();
}

static void test_rw2_415_falls_back_for_good(void **state)
{
	start(WIRE_REMOTE_WRITE_V2, 1);
	SCRIPT({ .status = 415 }, { .status = 200 }, { .status = 200 }, { .status = 200 }, { .status = 200 },
	       { .status = 200 }, { .status = 200 });
	delivery_send_set(w.d, &w.set);
	delivery_send_set(w.d, &w.set);
	assert_int_equal(w.nr_calls, 7);
	expect_call(0, 0, WIRE_REMOTE_WRITE_V2, 2);
	for (size_t i = 1; i < 7; i++)
		assert_int_equal(w.calls[i].format, WIRE_REMOTE_WRITE);
	expect_waits(NULL, 0);
	assert_int_equal(stats().fallbacks, 1);
	assert_int_equal(stats().batches_sent, 6);
	expect_no_drops();
}

static void test_415_on_rw1_is_rejected(void **state)
{
	start(WIRE_REMOTE_WRITE, 1);
	SCRIPT({ .status = 415 }, { .status = 200 }, { .status = 200 });
	delivery_send_set(w.d, &w.set);
	assert_int_equal(w.nr_calls, 3);
	assert_int_equal(stats().fallbacks, 0);
	expect_dropped(DROP_REJECTED, 1, 2);
}

static void test_429_waits_retry_after_on_the_same_url(void **state)
{
	static const double want[] = { 7.0 };

	w.opts.limits.max_samples = 0; /* one request */
	start(WIRE_REMOTE_WRITE, 2);
	SCRIPT({ .status = 429, .retry_after_s = 7 }, { .status = 200 });
	delivery_send_set(w.d, &w.set);
	assert_int_equal(w.nr_calls, 2);
	expect_call(0, 0, WIRE_REMOTE_WRITE, 5);
	expect_call(1, 0, WIRE_REMOTE_WRITE, 5);
	expect_waits(want, 1);
	assert_int_equal(stats().retries, 1);
	assert_int_equal(stats().batches_sent, 1);
	expect_no_drops();
}

static void test_429_without_retry_after_backs_off(void **state)
{
	static const double want[] = { 0.5, 1.0 };

	w.opts.limits.max_samples = 0;
	start(WIRE_REMOTE_WRITE, 2);
	SCRIPT({ .status = 429 }, { .status = 429 }, { .status = 200 });
	delivery_send_set(w.d, &w.set);
	assert_int_equal(w.nr_calls, 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(w.calls[i].url, 0);
	expect_waits(want, 2);
	assert_int_equal(stats().retries, 2);
}

static void test_retry_after_is_capped_at_300_s(void **state)
{
	static const double want[] = { 300.0 };

	w.opts.limits.max_samples = 0;
	start(WIRE_REMOTE_WRITE, 1);
	SCRIPT({ .status = 503, .retry_after_s = 3600 }, { .status = 200 });
	delivery_send_set(w.d, &w.set);
	assert_int_equal(w.nr_calls, 2);
	expect_waits(want, 1);
}

/* Retry-After: 0 (or a date in the past) waits 1 s, not a storm of tries. */
static void test_retry_after_is_at_least_1_s(void **state)
{
	static const double want[] = { 1.0 };

	w.opts.limits.max_samples = 0;
	start(WIRE_REMOTE_WRITE, 1);
	SCRIPT({ .status = 429, .retry_after_s = 0.001 }, { .status = 200 });
	delivery_send_set(w.d, &w.set);
	assert_int_equal(w.nr_calls, 2);
	expect_waits(want, 1);
}

static void test_5xx_backs_off_doubling_and_fails_over(void **state)
{
	static const double want[] = { 0.5, 1.0, 2.0, 4.0 };

	w.opts.limits.max_samples = 0;
	start(WIRE_REMOTE_WRITE, 3);
	SCRIPT({ .status = 500 }, { .status = 502 }, { .status = 503 }, { .status = 500 }, { .status = 200 });
	delivery_send_set(w.d, &w.set);
	/* round robin over the URLs, one step per failure */
	assert_int_equal(w.nr_calls, 5);
	expect_call(0, 0, WIRE_REMOTE_WRITE, 5);
	expect_call(1, 1, WIRE_REMOTE_WRITE, 5);
	expect_call(2, 2, WIRE_REMOTE_WRITE, 5);
	expect_call(3, 0, WIRE_REMOTE_WRITE, 5);
	expect_call(4, 1, WIRE_REMOTE_WRITE, 5);
	expect_waits(want, 4);
	assert_int_equal(stats().retries, 4);
	assert_int_equal(stats().batches_sent, 1);
	expect_no_drops();
}

static void test_the_url_that_answered_stays_in_use(void **state)
{
	start(WIRE_REMOTE_WRITE, 2);
	SCRIPT({ .status = 503 }, { .status = 200 }, { .status = 200 }, { .status = 200 });
	delivery_send_set(w.d, &w.set);
	assert_int_equal(w.nr_calls, 4);
	expect_call(0, 0, WIRE_REMOTE_WRITE, 2);
	expect_call(1, 1, WIRE_REMOTE_WRITE, 2);
	expect_call(2, 1, WIRE_REMOTE_WRITE, 2);
	expect_call(3, 1, WIRE_REMOTE_WRITE, 1);
}

static void test_backoff_is_capped_at_30_s(void **state)
{
	static const double want[] = { 0.5, 1, 2, 4, 8, 16, 30, 30, 30 };

	w.opts.limits.max_samples = 0;
	start(WIRE_REMOTE_WRITE, 1);
	SCRIPT({ .status = 503 }, { .status = 503 }, { .status = 503 }, { .status = 503 }, { .status = 503 },
	       { .status = 503 }, { .status = 503 }, { .status = 503 }, { .status = 503 }, { .status = 200 });
	delivery_send_set(w.d, &w.set);
	assert_int_equal(w.nr_calls, 10);
	expect_waits(want, 9);
}

static void test_backoff_jitter_stays_in_the_upper_half(void **state)
{
	static const double low[] = { 0.25, 0.5 };

	w.opts.limits.max_samples = 0;
	w.uniform = 0.0; /* the lowest draw: half the backoff */
	start(WIRE_REMOTE_WRITE, 1);
	SCRIPT({ .status = 503 }, { .status = 503 }, { .status = 200 });
	delivery_send_set(w.d, &w.set);
	expect_waits(low, 2);
}

static void test_transport_error_fails_over(void **state)
{
	static const double want[] = { 0.5 };

	w.opts.limits.max_samples = 0;
	start(WIRE_REMOTE_WRITE, 2);
	SCRIPT({ .err = -EIO }, { .status = 200 });
	delivery_send_set(w.d, &w.set);
	assert_int_equal(w.nr_calls, 2);
	expect_call(0, 0, WIRE_REMOTE_WRITE, 5);
	expect_call(1, 1, WIRE_REMOTE_WRITE, 5);
	expect_waits(want, 1);
	assert_int_equal(stats().retries, 1);
	expect_no_drops();
}

static void test_4xx_drops_the_request_and_goes_on(void **state)
{
	start(WIRE_REMOTE_WRITE, 2);
	SCRIPT({ .status = 400 }, { .status = 200 }, { .status = 200 });
	delivery_send_set(w.d, &w.set);
	assert_int_equal(w.nr_calls, 3);
	expect_call(0, 0, WIRE_REMOTE_WRITE, 2);
	expect_call(1, 0, WIRE_REMOTE_WRITE, 2); /* no failover on 4xx */
	expect_waits(NULL, 0);
	expect_dropped(DROP_REJECTED, 1, 2);
	assert_int_equal(stats().retries, 0);
	assert_int_equal(stats().batches_sent, 2);
	assert_int_equal(stats().samples_sent, 3);
}

static void test_stopping_gives_one_try_then_drops(void **state)
{
	w.stop = true;
	start(WIRE_REMOTE_WRITE, 2);
	SCRIPT({ .status = 503 }, { .err = -EIO }, { .status = 200 });
	delivery_send_set(w.d, &w.set);
	/* the last try neither waits, nor counts a retry, nor moves to the next URL */
	assert_int_equal(w.nr_calls, 3);
	expect_call(0, 0, WIRE_REMOTE_WRITE, 2);
	expect_call(1, 0, WIRE_REMOTE_WRITE, 2);
	expect_call(2, 0, WIRE_REMOTE_WRITE, 1);
	expect_waits(NULL, 0);
	assert_int_equal(stats().retries, 0);
	expect_dropped(DROP_SHUTDOWN, 2, 4);
	assert_int_equal(stats().batches_sent, 1);
}

static void test_stop_during_backoff_drops(void **state)
{
	static const double want[] = { 0.5 };

	w.opts.limits.max_samples = 0;
	w.stop_in_wait = true;
	start(WIRE_REMOTE_WRITE, 1);
	SCRIPT({ .status = 503 });
	delivery_send_set(w.d, &w.set);
	assert_int_equal(w.nr_calls, 1);
	expect_waits(want, 1);
	assert_int_equal(stats().retries, 1);
	expect_dropped(DROP_SHUTDOWN, 1, 5);
}

/* ---- with a spool */

/* The first request fails: it and the two after it go to disk. */
static void spool_the_set(size_t nr_urls)
{
	start(WIRE_REMOTE_WRITE, nr_urls);
	SCRIPT({ .status = 503 });
	delivery_send_set(w.d, &w.set);
	assert_int_equal(w.nr_calls, 1);
	assert_int_equal(delivery_spool_pending(w.d), 3);
}

static void test_spool_untouched_while_the_collector_takes_requests(void **state)
{
	start(WIRE_REMOTE_WRITE, 1);
	SCRIPT({ .status = 200 }, { .status = 200 }, { .status = 200 });
	delivery_send_set(w.d, &w.set);
	assert_int_equal(w.nr_calls, 3);
	assert_int_equal(delivery_spool_pending(w.d), 0);
	assert_int_equal(stats().spool_batches, 0);
	assert_int_equal(stats().spool_bytes, 0);
}

static void test_spool_takes_the_failed_request_and_all_after_it(void **state)
{
	struct sender_stats st;

	spool_the_set(2);
	/* no wait on the thread; the next try is due after the backoff */
	expect_call(0, 0, WIRE_REMOTE_WRITE, 2);
	expect_waits(NULL, 0);
	assert_float_equal(delivery_retry_at(w.d), 1000.5, 1e-9);
	st = stats();
	assert_int_equal(st.spool_batches, 3);
	assert_true(st.spool_bytes > 0);
	assert_int_equal(st.retries, 1);
	assert_int_equal(st.batches_sent, 0);
	expect_no_drops();
}

static void test_spool_takes_later_intervals_without_trying(void **state)
{
	spool_the_set(1);
	SCRIPT({ .status = 200 }); /* would be taken, but the spool comes first */
	delivery_send_set(w.d, &w.set);
	assert_int_equal(w.nr_calls, 1);
	assert_int_equal(delivery_spool_pending(w.d), 6);
	assert_int_equal(stats().spool_batches, 6);
}

static void test_replay_waits_for_the_backoff(void **state)
{
	spool_the_set(1);
	w.clock = 1000.49;
	delivery_replay(w.d, 0, between, NULL);
	assert_int_equal(w.nr_calls, 1);
	assert_int_equal(delivery_spool_pending(w.d), 3);
	assert_int_equal(w.betweens, 0);
}

static void test_replay_sends_oldest_first(void **state)
{
	uint32_t want[8];

	spool_the_set(2);
	w.clock = delivery_retry_at(w.d);
	SCRIPT({ .status = 200 }, { .status = 200 }, { .status = 200 });
	delivery_replay(w.d, 0, between, NULL);
	/* on the URL the failover chose, in the order they were encoded */
	assert_int_equal(w.nr_calls, 4);
	assert_int_equal(encoded_hashes(&w.set, WIRE_REMOTE_WRITE, want), 3);
	for (size_t i = 0; i < 3; i++) {
		expect_call(i + 1, 1, WIRE_REMOTE_WRITE, i < 2 ? 2 : 1);
		assert_int_equal(w.calls[i + 1].body_hash, want[i]);
	}
	assert_int_equal(w.calls[0].body_hash, want[0]);
	assert_int_equal(w.betweens, 3);
	assert_int_equal(delivery_spool_pending(w.d), 0);
	assert_int_equal(stats().spool_batches, 0);
	assert_int_equal(stats().batches_sent, 3);
	assert_int_equal(stats().samples_sent, 5);
	expect_waits(NULL, 0);
	expect_no_drops();
}

static void test_replay_failure_backs_off_further(void **state)
{
	spool_the_set(1);
	w.clock = delivery_retry_at(w.d);
	SCRIPT({ .status = 503 }, { .err = -EIO });
	delivery_replay(w.d, 0, between, NULL);
	assert_float_equal(delivery_retry_at(w.d), 1000.5 + 1.0, 1e-9);
	w.clock = delivery_retry_at(w.d);
	delivery_replay(w.d, 0, between, NULL);
	assert_float_equal(delivery_retry_at(w.d), 1001.5 + 2.0, 1e-9);
	assert_int_equal(w.nr_calls, 3);
	assert_int_equal(w.betweens, 0);
	assert_int_equal(delivery_spool_pending(w.d), 3);
	assert_int_equal(stats().retries, 3);
	expect_waits(NULL, 0);
}

static void test_replay_uses_retry_after(void **state)
{
	spool_the_set(1);
	w.clock = delivery_retry_at(w.d);
	SCRIPT({ .status = 429, .retry_after_s = 42 });
	delivery_replay(w.d, 0, between, NULL);
	assert_float_equal(delivery_retry_at(w.d), 1000.5 + 42, 1e-9);
}

static void test_replay_keeps_order_with_intervals_queued_meanwhile(void **state)
{
	struct series_set later;
	uint32_t first[8], second[8];

	build_set(&later, 3, 7);
	w.between_set = &later;
	spool_the_set(1);
	w.clock = delivery_retry_at(w.d);
	SCRIPT({ .status = 200 }, { .status = 200 }, { .status = 200 }, { .status = 200 }, { .status = 200 });
	delivery_replay(w.d, 0, between, NULL);
	/* the interval handed over after the first record went to disk behind the rest */
	assert_int_equal(encoded_hashes(&w.set, WIRE_REMOTE_WRITE, first), 3);
	assert_int_equal(encoded_hashes(&later, WIRE_REMOTE_WRITE, second), 2);
	assert_int_equal(w.nr_calls, 6);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(w.calls[1 + i].body_hash, first[i]);
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(w.calls[4 + i].body_hash, second[i]);
	assert_int_equal(delivery_spool_pending(w.d), 0);
	series_set_free(&later);
}

/* A rejected record is dropped alone; the backlog waits a backoff before the next. */
static void test_replay_drops_a_rejected_record(void **state)
{
	spool_the_set(1);
	w.clock = delivery_retry_at(w.d);
	SCRIPT({ .status = 400 }, { .status = 200 }, { .status = 200 });
	delivery_replay(w.d, 0, between, NULL);
	assert_int_equal(w.nr_calls, 2);
	assert_int_equal(delivery_spool_pending(w.d), 2);
	expect_dropped(DROP_REJECTED, 1, 2);
	assert_true(delivery_retry_at(w.d) > w.clock);
	delivery_replay(w.d, 0, between, NULL); /* too early: nothing */
	assert_int_equal(w.nr_calls, 2);
	w.clock = delivery_retry_at(w.d);
	delivery_replay(w.d, 0, between, NULL);
	assert_int_equal(w.nr_calls, 4);
	assert_int_equal(delivery_spool_pending(w.d), 0);
	expect_dropped(DROP_REJECTED, 1, 2);
	assert_int_equal(stats().batches_sent, 2);
	assert_int_equal(w.betweens, 3);
}

/* A 404 that lasts (a collector restarting) costs the records it answered, not the backlog. */
static void test_replay_lasting_404_costs_only_what_it_answered(void **state)
{
	spool_the_set(1);
	w.clock = delivery_retry_at(w.d);
	SCRIPT({ .status = 404 }, { .status = 404 }, { .status = 200 }, { .status = 200 });
	for (int round = 0; round < 4 && delivery_spool_pending(w.d); round++) {
		delivery_replay(w.d, 0, between, NULL);
		w.clock = delivery_retry_at(w.d);
	}
	assert_int_equal(w.nr_calls, 4);
	expect_dropped(DROP_REJECTED, 2, 4);
	assert_int_equal(stats().batches_sent, 1);
	assert_int_equal(delivery_spool_pending(w.d), 0);
}

/* A redirect is not followed: the request is dropped as rejected, the next one goes on. */
static void test_3xx_is_rejected(void **state)
{
	start(WIRE_REMOTE_WRITE, 1);
	SCRIPT({ .status = 308 }, { .status = 200 }, { .status = 200 });
	delivery_send_set(w.d, &w.set);
	assert_int_equal(w.nr_calls, 3);
	assert_int_equal(w.nr_waits, 0);
	expect_dropped(DROP_REJECTED, 1, 2);
}

/* SpoolDir that cannot be used turns the spool off; delivery goes on without it. */
static void test_unusable_spool_dir_turns_the_spool_off(void **state)
{
	w.opts.spool_dir = "/proc/memcg_bpf-no-such-dir/spool";
	start(WIRE_REMOTE_WRITE, 1);
	SCRIPT({ .status = 503 }, { .status = 200 }, { .status = 200 }, { .status = 200 });
	delivery_send_set(w.d, &w.set);
	assert_int_equal(delivery_spool_pending(w.d), 0);
	assert_int_equal(w.nr_calls, 4); /* retried in memory, as without a spool */
	assert_int_equal(stats().batches_sent, 3);
}

static void test_replay_drops_rw2_records_after_the_fallback(void **state)
{
	start(WIRE_REMOTE_WRITE_V2, 2);
	SCRIPT({ .status = 503 });
	delivery_send_set(w.d, &w.set);
	assert_int_equal(delivery_spool_pending(w.d), 3);
	w.clock = delivery_retry_at(w.d);
	SCRIPT({ .status = 415 });
	delivery_replay(w.d, 0, between, NULL);
	/* 2.0 records cannot be sent as 1.0: all three are dropped, none tried again */
	assert_int_equal(w.nr_calls, 2);
	expect_call(0, 0, WIRE_REMOTE_WRITE_V2, 2);
	expect_call(1, 1, WIRE_REMOTE_WRITE_V2, 2);
	assert_int_equal(delivery_spool_pending(w.d), 0);
	expect_dropped(DROP_REJECTED, 3, 5);
	assert_int_equal(stats().fallbacks, 1);
	assert_int_equal(stats().format, WIRE_REMOTE_WRITE);
}

static void test_replay_stops_at_its_time_limit(void **state)
{
	spool_the_set(1);
	w.clock = delivery_retry_at(w.d);
	SCRIPT({ .status = 200, .takes_s = 0.6 }, { .status = 200, .takes_s = 0.6 });
	delivery_replay(w.d, 1.0, between, NULL);
	assert_int_equal(w.nr_calls, 3);
	assert_int_equal(delivery_spool_pending(w.d), 1);
	assert_int_equal(stats().spool_batches, 1);
}

static void test_spool_keeps_requests_for_the_next_start(void **state)
{
	spool_the_set(1);
	delivery_leave_spool(w.d);
	delivery_free(w.d);
	w.d = NULL;
	w.clock = 2000;
	start(WIRE_REMOTE_WRITE, 1);
	assert_int_equal(delivery_spool_pending(w.d), 3);
	assert_int_equal(stats().spool_batches, 3);
	SCRIPT({ .status = 200 }, { .status = 200 }, { .status = 200 });
	delivery_replay(w.d, 0, NULL, NULL);
	assert_int_equal(w.nr_calls, 4);
	assert_int_equal(delivery_spool_pending(w.d), 0);
}

/* Round @salt of @n cgroups, built into @set against @st: the same set and tracker keep the shape. */
static void build_round(struct series_set *set, struct stale_tracker *st, size_t n, uint64_t salt)
{
	static const struct series_opts o = { .host = "h1" };
	const struct stat_def *cols[1] = { stat_lookup("anon") };
	struct sample_table t;
	struct snapshot *snap;
	char path[32];

	sample_table_init(&t, cols, 1);
	t.timestamp_ns = 1700000000000000000ULL + salt * 1000000000ULL;
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/grp-%zu", i);
		sample_table_add(&t, i + 1, path, 1)->values[0] = 4096 * (i + salt + 1);
	}
	assert_int_equal(snapshot_from_table(&t, NULL, NULL, &snap), 0);
	sample_table_free(&t);
	assert_int_equal(series_set_build(set, &o, snap, st), 0);
	snapshot_free(snap);
}

/*
 * Intervals that waited together, joined one at a time: the first goes on
 * its own (its requests become the kept ones), the others are patched
 * into requests of up to MaxSamplesPerSend; another shape is refused
 * (-ESTALE) and sent by delivery_send_sets() after what was joined.
 */
static void test_waiting_intervals_joined(void **state)
{
	struct stale_tracker *st = stale_tracker_new();
	struct series_set set, other;
	const struct series_set *one = &other;

	w.opts.limits.max_samples = 10; /* two intervals of 5 */
	start(WIRE_REMOTE_WRITE, 1);
	SCRIPT({ .status = 204 }, { .status = 204 }, { .status = 204 }, { .status = 204 });
	series_set_init(&set);
	for (uint64_t round = 0; round < 4; round++) {
		build_round(&set, st, 5, round);
		assert_int_equal(delivery_join(w.d, &set), 0);
	}
	assert_int_equal(w.nr_calls, 1); /* round 0, on its own */
	series_set_init(&other);
	build_round(&other, NULL, 3, 5); /* another shape */
	assert_int_equal(delivery_join(w.d, &other), -ESTALE);
	delivery_send_sets(w.d, &one, 1); /* what was joined first */
	assert_int_equal(w.nr_calls, 4);
	expect_call(0, 0, WIRE_REMOTE_WRITE, 5);
	expect_call(1, 0, WIRE_REMOTE_WRITE, 10);
	expect_call(2, 0, WIRE_REMOTE_WRITE, 5);
	expect_call(3, 0, WIRE_REMOTE_WRITE, 3);
	assert_int_equal(stats().samples_sent, 23);
	expect_no_drops();
	series_set_free(&set);
	series_set_free(&other);
	stale_tracker_free(st);
}

/* Remote write 2.0 joins nothing: each interval is sent as it comes. */
static void test_waiting_intervals_rw2_each_alone(void **state)
{
	struct stale_tracker *st = stale_tracker_new();
	struct series_set set;

	w.opts.limits.max_samples = 10;
	start(WIRE_REMOTE_WRITE_V2, 1);
	SCRIPT({ .status = 204, .written = true }, { .status = 204, .written = true },
	       { .status = 204, .written = true });
	series_set_init(&set);
	for (uint64_t round = 0; round < 3; round++) {
		build_round(&set, st, 5, round);
		assert_int_equal(delivery_join(w.d, &set), 0);
		assert_int_equal(w.nr_calls, round + 1);
		expect_call(round, 0, WIRE_REMOTE_WRITE_V2, 5);
	}
	delivery_send_joined(w.d);
	assert_int_equal(w.nr_calls, 3);
	series_set_free(&set);
	stale_tracker_free(st);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
#define S(fn) cmocka_unit_test_setup_teardown(fn, setup_spool, teardown)
	const struct CMUnitTest tests[] = {
		T(test_2xx_sends_each_request_once),
		T(test_waiting_intervals_joined),
		T(test_waiting_intervals_rw2_each_alone),
		T(test_cpu_is_charged_to_its_stage),
		T(test_rw2_with_written_headers_is_sent),
		T(test_rw2_2xx_without_written_headers_falls_back),
		T(test_rw2_415_falls_back_for_good),
		T(test_415_on_rw1_is_rejected),
		T(test_429_waits_retry_after_on_the_same_url),
		T(test_429_without_retry_after_backs_off),
		T(test_retry_after_is_capped_at_300_s),
		T(test_retry_after_is_at_least_1_s),
		T(test_3xx_is_rejected),
		T(test_unusable_spool_dir_turns_the_spool_off),
		T(test_5xx_backs_off_doubling_and_fails_over),
		T(test_the_url_that_answered_stays_in_use),
		T(test_backoff_is_capped_at_30_s),
		T(test_backoff_jitter_stays_in_the_upper_half),
		T(test_transport_error_fails_over),
		T(test_4xx_drops_the_request_and_goes_on),
		T(test_stopping_gives_one_try_then_drops),
		T(test_stop_during_backoff_drops),
		S(test_spool_untouched_while_the_collector_takes_requests),
		S(test_spool_takes_the_failed_request_and_all_after_it),
		S(test_spool_takes_later_intervals_without_trying),
		S(test_replay_waits_for_the_backoff),
		S(test_replay_sends_oldest_first),
		S(test_replay_failure_backs_off_further),
		S(test_replay_uses_retry_after),
		S(test_replay_keeps_order_with_intervals_queued_meanwhile),
		S(test_replay_drops_a_rejected_record),
		S(test_replay_lasting_404_costs_only_what_it_answered),
		S(test_replay_drops_rw2_records_after_the_fallback),
		S(test_replay_stops_at_its_time_limit),
		S(test_spool_keeps_requests_for_the_next_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
