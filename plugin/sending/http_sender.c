// SPDX-License-Identifier: GPL-2.0-only
#include "memcg_bpf_config.h"

#include "sending/http_sender.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "wire/compress.h"
#include "base/log.h"

#define USER_AGENT "memcg_bpf/" PACKAGE_VERSION
#define SECRET_MAX 4096
#define HTTP_UPLOAD_BUFFER (1L << 20) /* libcurl takes up to 2 MiB */

struct http_endpoint {
	CURL *curl;
	char *url;
	char *auth_header; /* "Authorization: Bearer ..."; secret */
	char errbuf[CURL_ERROR_SIZE];
	struct http_response *cur; /* the response being filled */
	bool (*give_up)(void *ctx);
	void *give_up_ctx;
};

_Static_assert(HTTP_ERROR_SIZE >= CURL_ERROR_SIZE, "HTTP_ERROR_SIZE too small");

int http_read_secret(const char *file, const char *key, char **out)
{
	char buf[SECRET_MAX];
	struct stat st;
	ssize_t n;
	int fd, err;

	/* O_NONBLOCK: a FIFO or a device must not hang collectd's init */
	fd = open(file, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		mb_err("%s \"%s\": %s", key, file, strerror(-err));
		return err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		mb_err("%s \"%s\": %s", key, file, strerror(-err));
		goto close_fd;
	}
	err = -EINVAL;
	if (!S_ISREG(st.st_mode)) {
		mb_err("%s \"%s\": not a regular file (a secret is read from a file of its own)", key, file);
		goto close_fd;
	}
	if (st.st_size >= (off_t)sizeof(buf)) {
		mb_err("%s \"%s\": %lld bytes; a secret file holds at most %zu", key, file,
		       (long long)st.st_size, sizeof(buf) - 1);
		goto close_fd;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		err = -errno;
		mb_err("%s \"%s\": %s", key, file, strerror(-err));
		goto close_fd;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (!buf[0]) {
		mb_err("%s \"%s\": the file is empty", key, file);
		goto wipe;
	}
	*out = strdup(buf);
	err = *out ? 0 : -ENOMEM;
wipe:
	memset(buf, 0, sizeof(buf));
close_fd:
	close(fd);
	return err;
}

static void free_secret(char *s)
{
	if (s) {
		memset(s, 0, strlen(s));
		free(s);
	}
}

void http_secrets_free(struct http_secrets *s)
{
	free_secret(s->bearer_token);
	free_secret(s->basic_password);
	s->bearer_token = s->basic_password = NULL;
}

double http_parse_retry_after(const char *v, double now)
{
	char *end;
	long secs;
	time_t t;

	while (isspace((unsigned char)*v))
		v++;
	if (isdigit((unsigned char)*v)) {
		secs = strtol(v, &end, 10);
		while (isspace((unsigned char)*end))
			end++;
		return *end ? -1 : (double)secs;
	}
	t = curl_getdate(v, NULL);
	if (t < 0)
		return -1;
	return (double)t > now ? (double)t - now : 0;
}

static size_t on_header(char *buf, size_t size, size_t n, void *arg)
{
	struct http_endpoint *ep = arg;
	struct http_response *r = ep->cur;
	size_t len = size * n;
	char line[256];
	char *colon;

	if (!r || len >= sizeof(line))
		return len;
	memcpy(line, buf, len);
	line[len] = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	colon = strchr(line, ':');
	if (!colon)
		return len;
	*colon = '\0';
	if (strcasecmp(line, "Retry-After") == 0)
		r->retry_after_s = http_parse_retry_after(colon + 1, (double)time(NULL));
	else if (strcasecmp(line, "Location") == 0)
		snprintf(r->location, sizeof(r->location), "%s", colon + 1 + strspn(colon + 1, " \t"));
	else if (strncasecmp(line, "X-Prometheus-Remote-Write-", 26) == 0 &&
		 strlen(line) > 34 && strcasecmp(line + strlen(line) - 8, "-Written") == 0)
		r->rw_written = true;
	return len;
}

static size_t on_body(char *buf, size_t size, size_t n, void *arg)
{
	struct http_endpoint *ep = arg;
	struct http_response *r = ep->cur;
	size_t len = size * n, room;

	if (r) {
		room = HTTP_BODY_KEEP - r->body_len;
		if (room > len)
			room = len;
		memcpy(r->body + r->body_len, buf, room);
		r->body_len += room;
		r->body[r->body_len] = '\0';
	}
	return len;
}

#define SETOPT(opt, val)                                                              \
	do {                                                                          \
		CURLcode rc_ = curl_easy_setopt(ep->curl, opt, val);                  \
		if (rc_ != CURLE_OK) {                                                \
			mb_err("URL \"%s\": curl option %s: %s", url, #opt,           \
			       curl_easy_strerror(rc_));                              \
			err = -EINVAL;                                                \
			goto free_endpoint;                                           \
		}                                                                     \
	} while (0)

int http_endpoint_new(const char *url, const struct sender_config *c, const struct http_secrets *sec,
		      struct http_endpoint **out)
{
	struct http_endpoint *ep;
	int err = -ENOMEM;

	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return err;
	ep->url = strdup(url);
	ep->curl = curl_easy_init();
	if (!ep->url || !ep->curl)
		goto free_endpoint;
	SETOPT(CURLOPT_URL, url);
	SETOPT(CURLOPT_NOSIGNAL, 1L);
	SETOPT(CURLOPT_ERRORBUFFER, ep->errbuf);
	SETOPT(CURLOPT_CONNECTTIMEOUT_MS, (long)(c->connect_timeout_s * 1000));
	SETOPT(CURLOPT_TIMEOUT_MS, (long)(c->timeout_s * 1000));
	SETOPT(CURLOPT_POST, 1L);
	SETOPT(CURLOPT_USERAGENT, USER_AGENT);
	SETOPT(CURLOPT_TCP_KEEPALIVE, 1L);
	/*
	 * A request body in one send where the socket takes it: with libcurl's
	 * default buffer a request took several sends and polls, and measured
	 * more CPU per POST on loopback (see doc/benchmarks.md); one upload
	 * buffer per endpoint. Older libcurl without the option: the default,
	 * no error.
	 */
	if (curl_easy_setopt(ep->curl, CURLOPT_UPLOAD_BUFFERSIZE, HTTP_UPLOAD_BUFFER) != CURLE_OK)
		mb_debug("URL \"%s\": libcurl keeps its default upload buffer", url);
	SETOPT(CURLOPT_HEADERFUNCTION, on_header);
	SETOPT(CURLOPT_HEADERDATA, ep);
	SETOPT(CURLOPT_WRITEFUNCTION, on_body);
	SETOPT(CURLOPT_WRITEDATA, ep);
	SETOPT(CURLOPT_SSL_VERIFYPEER, c->verify_peer ? 1L : 0L);
	SETOPT(CURLOPT_SSL_VERIFYHOST, c->verify_peer ? 2L : 0L);
	if (c->ca_cert)
		SETOPT(CURLOPT_CAINFO, c->ca_cert);
	if (c->client_cert)
		SETOPT(CURLOPT_SSLCERT, c->client_cert);
	if (c->client_key)
		SETOPT(CURLOPT_SSLKEY, c->client_key);
	if (c->basic_auth_user) {
		SETOPT(CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		SETOPT(CURLOPT_USERNAME, c->basic_auth_user);
		SETOPT(CURLOPT_PASSWORD, sec->basic_password ? sec->basic_password : "");
	}
	if (sec->bearer_token) {
		size_t n = strlen(sec->bearer_token) + sizeof("Authorization: Bearer ");

		ep->auth_header = malloc(n);
		if (!ep->auth_header)
			goto free_endpoint;
		snprintf(ep->auth_header, n, "Authorization: Bearer %s", sec->bearer_token);
	}
	*out = ep;
	return 0;

free_endpoint:
	http_endpoint_free(ep);
	return err;
}

static struct curl_slist *add_header(struct curl_slist *list, const char *h, bool *failed)
{
	struct curl_slist *n;

	if (*failed)
		return list;
	n = curl_slist_append(list, h);
	if (!n) {
		*failed = true;
		return list;
	}
	return n;
}

int http_post(struct http_endpoint *ep, const struct payload *p, struct http_response *r)
{
	struct curl_slist *h = NULL;
	const char *enc = compression_content_encoding(p->compression);
	char line[128];
	bool failed = false;
	CURLcode rc;
	int err = 0;

	memset(r, 0, sizeof(*r));
	r->retry_after_s = -1;
	if (p->format == WIRE_REMOTE_WRITE_V2)
		h = add_header(h, "Content-Type: application/x-protobuf;proto=io.prometheus.write.v2.Request", &failed);
	else
		h = add_header(h, "Content-Type: application/x-protobuf", &failed);
	if (enc) {
		snprintf(line, sizeof(line), "Content-Encoding: %s", enc);
		h = add_header(h, line, &failed);
	}
	if (p->format == WIRE_REMOTE_WRITE)
		h = add_header(h, "X-Prometheus-Remote-Write-Version: 0.1.0", &failed);
	else if (p->format == WIRE_REMOTE_WRITE_V2)
		h = add_header(h, "X-Prometheus-Remote-Write-Version: 2.0.0", &failed);
	h = add_header(h, "Expect:", &failed); /* no 100-continue round trip */
	if (ep->auth_header)
		h = add_header(h, ep->auth_header, &failed);
	if (failed) {
		err = -ENOMEM;
		goto free_headers;
	}
	ep->errbuf[0] = '\0';
	rc = curl_easy_setopt(ep->curl, CURLOPT_HTTPHEADER, h);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(ep->curl, CURLOPT_POSTFIELDS, (const char *)p->body);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(ep->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)p->len);
	if (rc == CURLE_OK) {
		ep->cur = r;
		rc = curl_easy_perform(ep->curl);
		ep->cur = NULL;
	}
	r->curl_code = rc;
	if (rc != CURLE_OK) {
		snprintf(r->error, sizeof(r->error), "%s", ep->errbuf[0] ? ep->errbuf : curl_easy_strerror(rc));
		err = -EIO;
	} else if (curl_easy_getinfo(ep->curl, CURLINFO_RESPONSE_CODE, &r->status) != CURLE_OK) {
		snprintf(r->error, sizeof(r->error), "no response code");
		err = -EIO;
	}
	if (curl_easy_getinfo(ep->curl, CURLINFO_TOTAL_TIME, &r->seconds) != CURLE_OK)
		r->seconds = 0;
	/* the list is about to be freed: the handle must not keep pointing at it */
	if (curl_easy_setopt(ep->curl, CURLOPT_HTTPHEADER, NULL) != CURLE_OK && !err)
		err = -EIO;
free_headers:
	curl_slist_free_all(h);
	return err;
}

int http_url_check(const char *url, char *why, size_t len)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL;
	CURLUcode rc;
	int err = -EINVAL;

	if (!u) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	rc = curl_url_set(u, CURLUPART_URL, url, 0);
	if (rc == CURLUE_OK)
		rc = curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
	if (rc == CURLUE_OK)
		rc = curl_url_get(u, CURLUPART_HOST, &host, 0);
	if (rc != CURLUE_OK)
		snprintf(why, len, "%s", curl_url_strerror(rc));
	else if (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0)
		snprintf(why, len, "the scheme is %s, not http or https", scheme);
	else if (!host[0])
		snprintf(why, len, "no host");
	else
		err = 0;
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return err;
}

static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	struct http_endpoint *ep = arg;

	return ep->give_up(ep->give_up_ctx) ? 1 : 0; /* non-zero: CURLE_ABORTED_BY_CALLBACK */
}

int http_endpoint_set_give_up(struct http_endpoint *ep, bool (*give_up)(void *ctx), void *ctx)
{
	CURLcode rc;

	ep->give_up = give_up;
	ep->give_up_ctx = ctx;
	rc = curl_easy_setopt(ep->curl, CURLOPT_XFERINFOFUNCTION, on_progress);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(ep->curl, CURLOPT_XFERINFODATA, ep);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(ep->curl, CURLOPT_NOPROGRESS, 0L);
	if (rc != CURLE_OK) {
		mb_err("URL \"%s\": curl progress callback: %s", ep->url, curl_easy_strerror(rc));
		return -EINVAL;
	}
	return 0;
}

void http_endpoint_free(struct http_endpoint *ep)
{
	if (!ep)
		return;
	if (ep->curl)
		curl_easy_cleanup(ep->curl);
	free_secret(ep->auth_header);
	free(ep->url);
	free(ep);
}
