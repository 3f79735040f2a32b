/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One HTTP endpoint: a libcurl easy handle kept for the life of the sender
 * (keep-alive), set up once with the TLS, auth and timeout options, and a
 * POST of one encoded request with the headers its format prescribes:
 *   remote write 1.0: Content-Encoding: snappy (or zstd),
 *                     Content-Type: application/x-protobuf,
 *                     X-Prometheus-Remote-Write-Version: 0.1.0
 *   remote write 2.0: Content-Encoding: snappy,
 *                     Content-Type: application/x-protobuf;proto=io.prometheus.write.v2.Request,
 *                     X-Prometheus-Remote-Write-Version: 2.0.0
 *   OTLP:             Content-Type: application/x-protobuf,
 *                     Content-Encoding: gzip|zstd (none: no header)
 * and always User-Agent: memcg_bpf/VERSION. curl_global_init() must have run.
 * Secrets (token, password) are kept in memory only and never logged.
 */
#ifndef MEMCG_BPF_HTTP_SENDER_H
#define MEMCG_BPF_HTTP_SENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "wire/batch_encode.h"
#include "sending/sender_config.h"

#define HTTP_BODY_KEEP 512
#define HTTP_ERROR_SIZE 256 /* CURL_ERROR_SIZE */

struct http_response {
	long status;                 /* 0 when no HTTP answer came */
	int curl_code;               /* CURLE_OK or the transport error */
	char error[HTTP_ERROR_SIZE]; /* curl's message for curl_code */
	double retry_after_s;        /* < 0: no Retry-After header */
	bool rw_written;             /* an X-Prometheus-Remote-Write-*-Written header came */
	char location[128];          /* a redirect's Location header, cut short; "" without one */
	char body[HTTP_BODY_KEEP + 1];
	size_t body_len;
	double seconds;              /* total time of the request */
};

struct http_secrets {
	char *bearer_token;
	char *basic_password;
};

struct http_endpoint;

/* Reads a secret file (first line, newline trimmed). Logs the file name only. */
int http_read_secret(const char *file, const char *key, char **out);
void http_secrets_free(struct http_secrets *s);

int http_endpoint_new(const char *url, const struct sender_config *c, const struct http_secrets *sec,
		      struct http_endpoint **out);
/* 0 when an HTTP answer came (any status), -EIO on a transport error (see r->error). */
int http_post(struct http_endpoint *ep, const struct payload *p, struct http_response *r);
/*
 * Parses @url with curl's URL API as the sender will use it: 0, or -EINVAL
 * with curl's reason in @why (a space, no host, an unclosed IPv6 bracket,
 * a port out of range, a scheme other than http or https).
 */
int http_url_check(const char *url, char *why, size_t len);
/*
 * @give_up(@ctx) is asked while a request runs (about once a second, and
 * as it starts): true cuts it off (a transport error, "aborted"). The
 * sender's bounded stop.
 */
int http_endpoint_set_give_up(struct http_endpoint *ep, bool (*give_up)(void *ctx), void *ctx);
void http_endpoint_free(struct http_endpoint *ep);

/* Parses a Retry-After value (delta seconds or an HTTP date); < 0 when invalid. */
double http_parse_retry_after(const char *value, double now);

#endif
