/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the sender is told by the <Plugin memcg_bpf> block (URL, Format, ...).
 * Plain data, filled by plugin_config.c, used by sender.c; no libcurl or
 * protobuf-c here, so the config parser builds without them.
 */
#ifndef MEMCG_BPF_SENDER_CONFIG_H
#define MEMCG_BPF_SENDER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "series/label_pair.h"
#include "wire/batch_encode.h"
#include "wire/wire_format.h"

#define SENDER_DEFAULT_MAX_SAMPLES BATCH_DEFAULT_MAX_SAMPLES
#define SENDER_DEFAULT_MAX_BYTES BATCH_DEFAULT_MAX_BYTES
#define SENDER_DEFAULT_TIMEOUT_S 10.0
#define SENDER_DEFAULT_CONNECT_TIMEOUT_S 5.0
#define SENDER_DEFAULT_QUEUE_LENGTH 16
#define SENDER_DEFAULT_BATCH_DEADLINE_S 5.0 /* as Prometheus' batch_send_deadline; 0 with a SpoolDir */
#define SENDER_BATCH_DEADLINE_UNSET (-1.0)  /* not configured: the default, by SpoolDir */
#define SENDER_MAX_BATCH_DEADLINE_S 3600.0
/* upper bounds of MaxSamplesPerSend, MaxBytesPerSend, QueueLength */
#define SENDER_MAX_SAMPLES_LIMIT 1000000
#define SENDER_MAX_BYTES_LIMIT (64L << 20)
#define SENDER_QUEUE_LENGTH_LIMIT 10000
#define SENDER_DEFAULT_SPOOL_BYTES (256ull << 20)
#define SENDER_MIN_SPOOL_BYTES (1ull << 20)
#define SENDER_MAX_SPOOL_BYTES (1ull << 40)
#define SENDER_MAX_URLS 8
#define SENDER_MAX_LABELS SERIES_MAX_STATIC_LABELS

struct sender_config {
	char *urls[SENDER_MAX_URLS]; /* failover order */
	size_t nr_urls;              /* 0: the sender is off */
	enum wire_format format;
	enum compression compression;
	struct label_pair labels[SENDER_MAX_LABELS]; /* static Label pairs, owned */
	size_t nr_labels;
	/* identity labels, all on by default (series/cgroup_labels.h, series/pod_names.h) */
	bool unit_label;
	bool pod_uid_label;
	bool container_id_label;
	bool pod_name_labels;      /* namespace, pod */
	bool container_name_label; /* container */
	bool image_label;          /* image (series/image_names.h) */
	char *pod_log_dir;         /* NULL: POD_NAMES_POD_LOG_DIR */
	char *container_log_dir;   /* NULL: POD_NAMES_CONTAINER_LOG_DIR */
	char *containerd_state_dir; /* NULL: IMAGE_NAMES_CONTAINERD_DIR */
	char *crio_state_dir;      /* NULL: IMAGE_NAMES_CRIO_DIR */
	size_t max_samples; /* per request */
	size_t max_bytes;   /* per request, protobuf before compression */
	size_t queue_length; /* intervals waiting for the sender */
	double batch_deadline_s; /* BatchSendDeadline: how long an interval may wait for the next; 0: never */
	double interval_s;       /* the read interval (the glue's); 0: unknown, no interval waits */
	double timeout_s;
	double connect_timeout_s;
	char *ca_cert;
	char *client_cert;
	char *client_key;
	char *bearer_token_file;
	char *basic_auth_user;
	char *basic_auth_password_file;
	bool verify_peer;
	char *host; /* the "host" label; the glue sets collectd's Hostname */
	char *service_instance_id; /* OTLP's service.instance.id; NULL: the host */
	char *spool_dir;          /* NULL: no disk spool, the queue is all */
	unsigned long long spool_max_bytes; /* 0: SENDER_DEFAULT_SPOOL_BYTES */
};

void sender_config_init(struct sender_config *c);
/* MaxSamplesPerSend, the default when 0 */
static inline size_t sender_config_max_samples(const struct sender_config *c)
{
	return c->max_samples ? c->max_samples : SENDER_DEFAULT_MAX_SAMPLES;
}
/*
 * BatchSendDeadline: how many intervals of @nr_values samples each should
 * share a request: as many as come within the deadline (the oldest waits
 * (n - 1) intervals), whose samples fit MaxSamplesPerSend, and at most half
 * the queue. 1 when intervals come slower than the deadline, when the
 * interval is unknown, and for remote write 2.0, whose requests join no
 * intervals.
 */
size_t sender_config_batch_intervals(const struct sender_config *c, size_t nr_values);
void sender_config_free(struct sender_config *c);

#endif
