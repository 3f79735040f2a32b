// SPDX-License-Identifier: GPL-2.0-only
/*
 * The HTTP side of the sender without a network: Retry-After parsing (delta
 * seconds, the three HTTP-date forms, garbage), secret files, and what
 * sender_start() checks and logs (unreadable or empty BearerTokenFile,
 * VerifyPeer false) before any request is made.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>

#include "base/macros.h"
#include "sending/http_sender.h"
#include "base/log.h"
#include "sending/sender.h"

#define SECRET "s3cr3t-t0ken-value"

static int errors_logged, warnings_logged;
static char last_msg[1024];
static char all_msgs[8192];

static void capture(int level, const char *msg)
{
	if (level <= LOG_ERR)
		errors_logged++;
	else if (level == LOG_WARNING)
		warnings_logged++;
	else
		return;
	snprintf(last_msg, sizeof(last_msg), "%s", msg);
	strncat(all_msgs, msg, sizeof(all_msgs) - strlen(all_msgs) - 2);
	strcat(all_msgs, "\n");
}

static char dir[64];

static int setup(void **state)
{
	errors_logged = warnings_logged = 0;
	last_msg[0] = all_msgs[0] = '\0';
	mb_log_set_sink(capture);
	return 0;
}

static int teardown(void **state)
{
	mb_log_set_sink(NULL);
	return 0;
}

static void write_file(const char *path, const char *content)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

/* ---- Retry-After */

/* Sun, 06 Nov 1994 08:49:37 GMT, the example date of RFC 9110 */
#define DATE_T 784111777.0

static void test_retry_after_seconds(void **state)
{
	assert_true(http_parse_retry_after("120", 0) == 120);
	assert_true(http_parse_retry_after("0", 0) == 0);
	assert_true(http_parse_retry_after(" 7 ", 0) == 7); /* curl hands over the leading space */
	assert_true(http_parse_retry_after("1\r\n", 0) == 1);
	/* does not depend on now */
	assert_true(http_parse_retry_after("30", DATE_T) == 30);
}

static void test_retry_after_dates(void **state)
{
	/* IMF-fixdate, the obsolete RFC 850 form and asctime(): all three are HTTP-dates */
	assert_true(http_parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", DATE_T - 120) == 120);
	assert_true(http_parse_retry_after("Sunday, 06-Nov-94 08:49:37 GMT", DATE_T - 60) == 60);
	assert_true(http_parse_retry_after("Sun Nov  6 08:49:37 1994", DATE_T - 5) == 5);
	assert_true(http_parse_retry_after(" Sun, 06 Nov 1994 08:49:37 GMT", DATE_T - 1) == 1);
	/* a date now or in the past: retry at once */
	assert_true(http_parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", DATE_T) == 0);
	assert_true(http_parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", DATE_T + 3600) == 0);
}

static void test_retry_after_garbage(void **state)
{
	static const char *const bad[] = { "", "   ", "soon", "12abc", "1.5", "-5", "+5", "0x10",
					   "120 seconds", "Sun, 99 Foo 1994 99:99:99 GMT" };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (!(http_parse_retry_after(bad[i], DATE_T) < 0))
			fail_msg("Retry-After \"%s\" accepted as %g", bad[i],
				 http_parse_retry_after(bad[i], DATE_T));
}

/* ---- secret files */

static void test_read_secret(void **state)
{
	char path[128], *s = NULL;

	snprintf(path, sizeof(path), "%s/token", dir);
	write_file(path, SECRET "\nsecond line ignored\n");
	assert_int_equal(http_read_secret(path, "BearerTokenFile", &s), 0);
	assert_string_equal(s, SECRET);
	free(s);
	write_file(path, SECRET "\r\n");
	assert_int_equal(http_read_secret(path, "BearerTokenFile", &s), 0);
	assert_string_equal(s, SECRET);
	free(s);
	assert_int_equal(errors_logged, 0);
}

static void test_read_secret_missing(void **state)
{
	char path[128], *s = NULL;

	snprintf(path, sizeof(path), "%s/nonexistent", dir);
	assert_int_equal(http_read_secret(path, "BearerTokenFile", &s), -ENOENT);
	assert_int_equal(errors_logged, 1);
	assert_non_null(strstr(last_msg, "BearerTokenFile \""));
	assert_non_null(strstr(last_msg, "nonexistent"));
	assert_non_null(strstr(last_msg, "No such file or directory"));
	assert_null(s);
}

static void test_read_secret_empty(void **state)
{
	char path[128], *s = NULL;

	snprintf(path, sizeof(path), "%s/empty", dir);
	write_file(path, "\n" SECRET);
	assert_int_equal(http_read_secret(path, "BasicAuthPasswordFile", &s), -EINVAL);
	assert_int_equal(errors_logged, 1);
	assert_non_null(strstr(last_msg, "BasicAuthPasswordFile \""));
	assert_non_null(strstr(last_msg, "the file is empty"));
	assert_null(strstr(all_msgs, SECRET));
}

/* A FIFO (or any non-regular file) is refused at once, never waited on. */
static void test_read_secret_fifo(void **state)
{
	char path[64] = "/tmp/memcg_bpf-fifo.XXXXXX";
	char *s = NULL;

	assert_non_null(mkdtemp(path));
	strcat(path, "/token");
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(http_read_secret(path, "BearerTokenFile", &s), -EINVAL);
	assert_null(s);
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
}

/* Longer than 4,095 bytes: an error, not a token cut short. */
static void test_read_secret_too_long(void **state)
{
	char path[] = "/tmp/memcg_bpf-secret.XXXXXX";
	int fd = mkstemp(path);
	char *s = NULL;
	char big[5000];

	assert_true(fd >= 0);
	memset(big, 'a', sizeof(big));
	assert_int_equal(write(fd, big, sizeof(big)), (ssize_t)sizeof(big));
	close(fd);
	assert_int_equal(http_read_secret(path, "BearerTokenFile", &s), -EINVAL);
	assert_null(s);
	unlink(path);
}

/* ---- sender_start: checks made before any request */

static void base_config(struct sender_config *c)
{
	sender_config_init(c);
	c->urls[0] = strdup("http://127.0.0.1:9/api/v1/write"); /* never contacted */
	c->nr_urls = 1;
	c->host = strdup("h");
	assert_non_null(c->urls[0]);
}

static void test_start_unreadable_token(void **state)
{
	struct sender_config c;
	struct sender *s = NULL;
	char path[128];

	snprintf(path, sizeof(path), "%s/unreadable", dir);
	write_file(path, SECRET "\n");
	assert_int_equal(chmod(path, 0), 0);
	base_config(&c);
	c.bearer_token_file = strdup(path);
	if (access(path, R_OK) == 0) {
		/* root reads any file: a directory is unreadable as a token for everyone */
		free(c.bearer_token_file);
		c.bearer_token_file = strdup(dir);
	}
	assert_true(sender_start(&c, &s) < 0);
	assert_null(s);
	assert_int_equal(errors_logged, 1);
	assert_non_null(strstr(last_msg, "BearerTokenFile \""));
	assert_null(strstr(all_msgs, SECRET));
	sender_config_free(&c);
}

static void test_start_missing_password_file(void **state)
{
	struct sender_config c;
	struct sender *s = NULL;

	base_config(&c);
	c.basic_auth_user = strdup("u");
	c.basic_auth_password_file = strdup("/nonexistent/pw");
	assert_int_equal(sender_start(&c, &s), -ENOENT);
	assert_null(s);
	assert_int_equal(errors_logged, 1);
	assert_non_null(strstr(last_msg, "BasicAuthPasswordFile \"/nonexistent/pw\": No such file"));
	sender_config_free(&c);
}

static void test_start_token_not_logged(void **state)
{
	struct sender_config c;
	struct sender *s = NULL;
	char path[128];

	snprintf(path, sizeof(path), "%s/token", dir);
	write_file(path, SECRET "\n");
	base_config(&c);
	c.bearer_token_file = strdup(path);
	assert_int_equal(sender_start(&c, &s), 0);
	assert_non_null(s);
	sender_stop(s);
	assert_int_equal(errors_logged + warnings_logged, 0);
	assert_null(strstr(all_msgs, SECRET));
	sender_config_free(&c);
}

static void test_start_verify_peer_false_warns(void **state)
{
	struct sender_config c;
	struct sender *s = NULL;

	base_config(&c);
	c.verify_peer = false;
	assert_int_equal(sender_start(&c, &s), 0);
	sender_stop(s);
	assert_int_equal(errors_logged, 0);
	assert_int_equal(warnings_logged, 1);
	assert_non_null(strstr(last_msg, "VerifyPeer false"));
	assert_non_null(strstr(last_msg, "NOT checked"));
	sender_config_free(&c);
}

static void test_start_verify_peer_true_quiet(void **state)
{
	struct sender_config c;
	struct sender *s = NULL;

	base_config(&c);
	assert_int_equal(sender_start(&c, &s), 0);
	sender_stop(s);
	sender_stop(NULL);
	assert_int_equal(errors_logged + warnings_logged, 0);
	sender_config_free(&c);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_retry_after_seconds),
		T(test_retry_after_dates),
		T(test_retry_after_garbage),
		T(test_read_secret),
		T(test_read_secret_fifo),
		T(test_read_secret_too_long),
		T(test_read_secret_missing),
		T(test_read_secret_empty),
		T(test_start_unreadable_token),
		T(test_start_missing_password_file),
		T(test_start_token_not_logged),
		T(test_start_verify_peer_false_warns),
		T(test_start_verify_peer_true_quiet),
	};
	char cmd[128];
	int rc;

	if (curl_global_init(CURL_GLOBAL_ALL) != CURLE_OK)
		return 1;
	snprintf(dir, sizeof(dir), "/tmp/test_http_sender.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		rc = rc ? rc : 1;
	curl_global_cleanup();
	return rc;
}
