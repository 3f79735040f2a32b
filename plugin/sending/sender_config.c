// SPDX-License-Identifier: GPL-2.0-only
#include "sending/sender_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void sender_config_init(struct sender_config *c)
{
	memset(c, 0, sizeof(*c));
	c->format = WIRE_REMOTE_WRITE;
	c->compression = COMPRESSION_DEFAULT;
	c->max_samples = SENDER_DEFAULT_MAX_SAMPLES;
	c->max_bytes = SENDER_DEFAULT_MAX_BYTES;
	c->queue_length = SENDER_DEFAULT_QUEUE_LENGTH;
	c->batch_deadline_s = SENDER_BATCH_DEADLINE_UNSET;
	c->timeout_s = SENDER_DEFAULT_TIMEOUT_S;
	c->connect_timeout_s = SENDER_DEFAULT_CONNECT_TIMEOUT_S;
	c->verify_peer = true;
	c->unit_label = true;
	c->pod_uid_label = true;
	c->container_id_label = true;
	c->pod_name_labels = true;
	c->container_name_label = true;
	c->image_label = true;
}

size_t sender_config_batch_intervals(const struct sender_config *c, size_t nr_values)
{
	size_t max_values = sender_config_max_samples(c);
	size_t n;

	if (!(c->batch_deadline_s > 0) || !(c->interval_s > 0) || c->format == WIRE_REMOTE_WRITE_V2)
		return 1;
	n = (size_t)(c->batch_deadline_s / c->interval_s + 1e-6) + 1;
	if (nr_values && n > max_values / nr_values)
		n = max_values / nr_values;
	if (n > c->queue_length / 2 + 1)
		n = c->queue_length / 2 + 1;
	return n ? n : 1;
}

void sender_config_free(struct sender_config *c)
{
	for (size_t i = 0; i < c->nr_urls; i++)
		free(c->urls[i]);
	c->nr_urls = 0;
	for (size_t i = 0; i < c->nr_labels; i++) {
		free((char *)c->labels[i].name);
		free((char *)c->labels[i].value);
	}
	c->nr_labels = 0;
	free(c->ca_cert);
	free(c->client_cert);
	free(c->client_key);
	free(c->bearer_token_file);
	free(c->basic_auth_user);
	free(c->basic_auth_password_file);
	free(c->host);
	free(c->service_instance_id);
	c->service_instance_id = NULL;
	free(c->spool_dir);
	c->spool_dir = NULL;
	free(c->pod_log_dir);
	free(c->container_log_dir);
	c->pod_log_dir = c->container_log_dir = NULL;
	free(c->containerd_state_dir);
	free(c->crio_state_dir);
	c->containerd_state_dir = c->crio_state_dir = NULL;
	c->ca_cert = c->client_cert = c->client_key = NULL;
	c->bearer_token_file = c->basic_auth_user = c->basic_auth_password_file = c->host = NULL;
}
