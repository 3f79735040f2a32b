// SPDX-License-Identifier: GPL-2.0-only
/*
 * Drives the sender without collectd for the wire checks: three intervals of
 * a made-up tree (so that cgroups can vanish, which the host's read-only tree
 * cannot do), shipped to URL, then the sender's counters on stdout.
 *   interval 0: /a, /b, /bad\xff, /system.slice/x.service
 *   interval 1: /a, /bad\xff                (stale markers for /b, x.service)
 *   interval 2: /a
 * usage: ship-fake URL FORMAT COMPRESSION [MAX_SAMPLES_PER_SEND [URL2]]
 * SHIP_FAKE_HOST in the environment replaces the host ("wirehost").
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sending/sender_self_values.h"
#include "sampling/sample_table.h"
#include "sending/sender.h"
#include "series/self_metrics.h"
#include "series/snapshot.h"
#include "sampling/stat_catalog.h"

static const char *const tree[3][5] = {
	{ "/a", "/b", "/bad\xff", "/system.slice/x.service", NULL },
	{ "/a", "/bad\xff", NULL },
	{ "/a", NULL },
};

int main(int argc, char **argv)
{
	const struct stat_def *cols[2] = { stat_lookup("anon"), stat_lookup("pgfault") };
	struct sender_config c;
	struct sender *s = NULL;
	struct sender_stats st;
	struct timespec now;
	int err = 1;

	if (argc < 4) {
		fprintf(stderr, "usage: %s URL FORMAT COMPRESSION [MAX_SAMPLES [URL2]]\n", argv[0]);
		return 2;
	}
	sender_config_init(&c);
	c.urls[0] = argv[1];
	c.nr_urls = 1;
	if (argc > 5) {
		c.urls[1] = argv[5];
		c.nr_urls = 2;
	}
	if (wire_format_parse(argv[2], &c.format) || compression_parse(argv[3], &c.compression))
		return 2;
	if (argc > 4)
		c.max_samples = (size_t)atol(argv[4]);
	c.host = getenv("SHIP_FAKE_HOST") ? getenv("SHIP_FAKE_HOST") : "wirehost";
	c.labels[0] = (struct label_pair){ "zone", "z1" };
	c.labels[1] = (struct label_pair){ "Dc", "east" };
	c.nr_labels = 2;
	c.unit_label = true;
	c.timeout_s = 5;
	c.connect_timeout_s = 2;
	if (curl_global_init(CURL_GLOBAL_ALL) != CURLE_OK)
		return 1;
	if (sender_start(&c, &s))
		goto cleanup;
	clock_gettime(CLOCK_REALTIME, &now);
	for (int i = 0; i < 3; i++) {
		struct self_values self = { 0 };
		struct sample_table t;
		struct snapshot *snap;

		sample_table_init(&t, cols, 2);
		t.timestamp_ns = (uint64_t)(now.tv_sec - 3 + i) * 1000000000ULL + 123456789ULL;
		for (int r = 0; tree[i][r]; r++) {
			struct sample_row *row = sample_table_add(&t, (uint64_t)r + 1, tree[i][r], 1);

			row->values[0] = 4096ULL * (r + 1) + i;
			row->values[1] = 1000ULL * (r + 1) + i;
		}
		if (snapshot_from_table(&t, NULL, NULL, &snap)) {
			sample_table_free(&t);
			goto stop;
		}
		sample_table_free(&t);
		sender_get_stats(s, &st);
		self_values_from_sender(&self, &st);
		self_metrics_to_snapshot(&self, snap);
		sender_submit(s, snap);
		/*
		 * One interval at a time, as a collector that keeps up sees
		 * them: intervals that wait together would be packed into one
		 * request, and the checks count requests per interval.
		 */
		for (int waited = 0; waited < 300; waited++) {
			sender_get_stats(s, &st);
			if (st.intervals == (uint64_t)i + 1)
				break;
			usleep(100000);
		}
	}
	/* let retries run their course before stopping (stop gives one last try only) */
	for (int waited = 0; waited < 300; waited++) {
		sender_get_stats(s, &st);
		if (st.intervals == 3)
			break;
		usleep(100000);
	}
	err = 0;
stop:
	sender_get_stats(s, &st);
	printf("intervals=%llu\nbatches_sent=%llu\nsamples_sent=%llu\nretries=%llu\nfallbacks=%llu\n"
	       "dropped_rejected=%llu\ndropped_queue_full=%llu\nbytes_sent=%llu\nformat=%s\n",
	       (unsigned long long)st.intervals, (unsigned long long)st.batches_sent,
	       (unsigned long long)st.samples_sent, (unsigned long long)st.retries,
	       (unsigned long long)st.fallbacks, (unsigned long long)st.dropped_batches[DROP_REJECTED],
	       (unsigned long long)st.dropped_batches[DROP_QUEUE_FULL], (unsigned long long)st.bytes_sent,
	       wire_format_name(st.format));
	sender_stop(s);
cleanup:
	curl_global_cleanup();
	return err;
}
