// SPDX-License-Identifier: GPL-2.0-only
#include "sender_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const format_names[] = {
	[WIRE_REMOTE_WRITE] = "remote_write",
	[WIRE_REMOTE_WRITE_V2] = "remote_write_v2",
	[WIRE_OTLP] = "otlp",
};

static const char *const compression_names[] = {
	[COMPRESSION_DEFAULT] = "default", [COMPRESSION_NONE] = "none", [COMPRESSION_SNAPPY] = "snappy",
	[COMPRESSION_GZIP] = "gzip",       [COMPRESSION_ZSTD] = "zstd",
};

const char *wire_format_name(enum wire_format f)
{
	return (unsigned)f < sizeof(format_names) / sizeof(format_names[0]) ? format_names[f] : "?";
}

int wire_format_parse(const char *s, enum wire_format *out)
{
	for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (strcasecmp(s, format_names[i]) == 0) {
			*out = (enum wire_format)i;
			return 0;
		}
	return -EINVAL;
}

const char *compression_name(enum compression c)
{
	return (unsigned)c < sizeof(compression_names) / sizeof(compression_names[0]) ? compression_names[c] : "?";
}

int compression_parse(const char *s, enum compression *out)
{
	for (size_t i = 0; i < sizeof(compression_names) / sizeof(compression_names[0]); i++)
		if (strcasecmp(s, compression_names[i]) == 0) {
			*out = (enum compression)i;
			return 0;
		}
	return -EINVAL;
}

enum compression compression_effective(enum wire_format f, enum compression c)
{
	if (c != COMPRESSION_DEFAULT)
		return c;
	return f == WIRE_OTLP ? COMPRESSION_GZIP : COMPRESSION_SNAPPY;
}

int compression_check(enum wire_format f, enum compression c, char *why, size_t len)
{
	c = compression_effective(f, c);
	switch (f) {
	case WIRE_REMOTE_WRITE:
		if (c == COMPRESSION_SNAPPY || c == COMPRESSION_ZSTD)
			return 0;
		snprintf(why, len, "remote_write takes snappy (the standard) or zstd (VictoriaMetrics only)");
		return -EINVAL;
	case WIRE_REMOTE_WRITE_V2:
		if (c == COMPRESSION_SNAPPY)
			return 0;
		snprintf(why, len, "remote_write_v2 takes snappy only");
		return -EINVAL;
	case WIRE_OTLP:
		if (c == COMPRESSION_GZIP || c == COMPRESSION_ZSTD || c == COMPRESSION_NONE)
			return 0;
		snprintf(why, len, "otlp takes gzip, zstd or none");
		return -EINVAL;
	}
	return -EINVAL;
}

void sender_config_init(struct sender_config *c)
{
	memset(c, 0, sizeof(*c));
	c->format = WIRE_REMOTE_WRITE;
	c->compression = COMPRESSION_DEFAULT;
	c->max_samples = SENDER_DEFAULT_MAX_SAMPLES;
	c->max_bytes = SENDER_DEFAULT_MAX_BYTES;
	c->queue_length = SENDER_DEFAULT_QUEUE_LENGTH;
	c->timeout_s = SENDER_DEFAULT_TIMEOUT_S;
	c->connect_timeout_s = SENDER_DEFAULT_CONNECT_TIMEOUT_S;
	c->verify_peer = true;
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
	free(c->spool_dir);
	c->spool_dir = NULL;
	c->ca_cert = c->client_cert = c->client_key = NULL;
	c->bearer_token_file = c->basic_auth_user = c->basic_auth_password_file = c->host = NULL;
}
