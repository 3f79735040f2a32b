// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_sink: the write plugin of the collectd benchmark (bench/run.sh). It
 * does as little as a collectd write plugin can do with a value: it counts
 * it. So the CPU that collectd spends outside the plugin's sampling is the
 * plugin's own dispatch loop, collectd's dispatch path (value cache, write
 * queue) and this counter, with no formatting or I/O of a real writer.
 *
 *   LoadPlugin bench_sink
 *   <Plugin bench_sink>
 *     File "/path/marks"
 *     Heap false
 *   </Plugin>
 *
 * At each value memcg_bpf/self/gauge-backend-text (one per dispatch of the
 * self values, every SelfInterval: by default every 10 reads at Interval 1;
 * after duration-sample and total_time_in_ms-sample_cpu, before the
 * sender's figures) it appends one line to File:
 *
 *   MARK TIME_S SAMPLE_S VALUES CPU_S WRITE_CPU_S SAMPLE_CPU_S \
 *        SERIES_MS ENCODE_MS COMPRESS_MS POST_MS QUEUE MARK_CPU_S HEAP_KB
 *
 * MARK counts the lines from 1; TIME_S is the value's time (when the sample
 * was taken, seconds since the epoch); SAMPLE_S is the value (the sample's
 * duration as the plugin measured it, in seconds); VALUES is the number of
 * values written since the previous line; CPU_S is the user + system CPU
 * time of the whole collectd process (getrusage RUSAGE_SELF: every thread)
 * at that moment, WRITE_CPU_S the same for the write thread alone
 * (RUSAGE_THREAD). SAMPLE_CPU_S is the sampling's CPU since start, in
 * seconds (total_time_in_ms-sample_cpu: every walk's, to the millisecond).
 * SERIES_MS .. POST_MS are the sender thread's CPU per stage since start
 * (total_time_in_ms-sender_cpu-STAGE) and QUEUE the sender's queue length
 * (count-sender_queue_length), as of the previous mark (the sender's
 * figures come after the mark; 0 without a sender). MARK_CPU_S
 * is the CPU this plugin spent writing the lines before this one (reading
 * the clocks, formatting, the write): the measurement's own cost, which
 * the benchmark takes out of CPU_S and WRITE_CPU_S. HEAP_KB is what the
 * whole process holds from malloc at that moment, in KiB (mallinfo2():
 * the chunks in use in every arena, and the ones mmap'ed), with Heap true;
 * 0 without it (mallinfo2() walks each arena's free lists under its lock,
 * which the CPU benchmarks need not pay). Unlike VmRSS, which keeps the
 * heap's high-water mark, it falls when memory is freed: a leak reads as
 * a trend, a cache filling up as a level (the churn soak judges it). With
 * WriteThreads 1 values arrive in dispatch order, so a line is written
 * after every value of its sample.
 *
 * Built by bench/run.sh against collectd-dev's headers; not installed.
 */
#define _GNU_SOURCE
#include "collectd.h"

#include "plugin.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "base/clock.h"

static char *sink_file;
static bool sink_heap;
static FILE *sink;
static unsigned long long counted, marks;
static double sample_s, sample_cpu_total_s, queue;
static const char *const stages[] = { "series", "encode", "compress", "post" };
static double stage_ms[4];
static uint64_t mark_cpu_ns; /* writing the lines so far */
static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;

static double cpu_seconds(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru))
		return -1;
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

/* The process's malloc'ed bytes in use, in KiB; 0 unless Heap is true. */
static double heap_kib(void)
{
	struct mallinfo2 mi;

	if (!sink_heap)
		return 0;
	mi = mallinfo2();
	return (double)(mi.uordblks + mi.hblkhd) / 1024;
}

static int sink_config(const char *key, const char *value)
{
	if (strcasecmp(key, "Heap") == 0) {
		if (strcasecmp(value, "true") && strcasecmp(value, "false")) {
			ERROR("bench_sink plugin: Heap is true or false, not %s", value);
			return -1;
		}
		sink_heap = strcasecmp(value, "true") == 0;
		return 0;
	}
	if (strcasecmp(key, "File") != 0) {
		ERROR("bench_sink plugin: unknown option %s (File or Heap)", key);
		return -1;
	}
	free(sink_file);
	sink_file = strdup(value);
	return sink_file ? 0 : -1;
}

/* One of the plugin's self values: keeps what the mark needs, writes the mark. */
static void self_value(const value_list_t *vl)
{
	const char *ti = vl->type_instance;

	if (!strcmp(vl->type, "duration") && !strcmp(ti, "sample"))
		sample_s = vl->values[0].gauge;
	else if (!strcmp(vl->type, "total_time_in_ms") && !strcmp(ti, "sample_cpu"))
		sample_cpu_total_s = (double)vl->values[0].derive / 1000;
	else if (!strcmp(vl->type, "count") && !strcmp(ti, "sender_queue_length"))
		queue = vl->values[0].gauge;
	else if (!strcmp(vl->type, "total_time_in_ms") && !strncmp(ti, "sender_cpu-", 11)) {
		for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++)
			if (!strcmp(ti + 11, stages[i]))
				stage_ms[i] = (double)vl->values[0].derive;
	} else if (!strcmp(vl->type, "gauge") && !strcmp(ti, "backend-text")) {
		uint64_t start = thread_cpu_ns();

		fprintf(sink, "%llu %.3f %.9f %llu %.6f %.6f %.9f %.0f %.0f %.0f %.0f %.0f %.9f %.0f\n", ++marks,
			CDTIME_T_TO_DOUBLE(vl->time), sample_s, counted, cpu_seconds(RUSAGE_SELF),
			cpu_seconds(RUSAGE_THREAD), sample_cpu_total_s, stage_ms[0], stage_ms[1], stage_ms[2],
			stage_ms[3], queue, mark_cpu_ns / 1e9, heap_kib());
		mark_cpu_ns += thread_cpu_ns() - start;
		counted = 0;
		sample_s = 0;
	}
}

static int sink_write(const data_set_t *ds, const value_list_t *vl, user_data_t *ud)
{
	(void)ds;
	(void)ud;
	pthread_mutex_lock(&sink_lock);
	counted++;
	if (!strcmp(vl->plugin_instance, "self") && !strcmp(vl->plugin, "memcg_bpf"))
		self_value(vl);
	pthread_mutex_unlock(&sink_lock);
	return 0;
}

static int sink_init(void)
{
	if (!sink_file) {
		ERROR("bench_sink plugin: no File configured");
		return -1;
	}
	sink = fopen(sink_file, "w");
	if (!sink) {
		ERROR("bench_sink plugin: %s: %s", sink_file, strerror(errno));
		return -1;
	}
	setvbuf(sink, NULL, _IOLBF, 0);
	return plugin_register_write("bench_sink", sink_write, NULL);
}

static int sink_shutdown(void)
{
	if (sink)
		fclose(sink);
	sink = NULL;
	free(sink_file);
	sink_file = NULL;
	return 0;
}

void module_register(void)
{
	static const char *keys[] = { "File", "Heap" };

	plugin_register_config("bench_sink", sink_config, keys, 2);
	plugin_register_init("bench_sink", sink_init);
	plugin_register_shutdown("bench_sink", sink_shutdown);
}
