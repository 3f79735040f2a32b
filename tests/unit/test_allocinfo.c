// SPDX-License-Identifier: GPL-2.0-only
/*
 * The allocation profile's text reader and ranking (allocinfo/): the real
 * capture of a 7.3.4 kernel (tests/data), format 1.0, modules, unknown
 * fields, and damaged files, each refused with the line named.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "allocinfo/allocinfo.h"
#include "allocinfo/allocinfo_watch.h"
#include "base/log.h"

#ifndef ALLOCINFO_CAPTURE
#error "ALLOCINFO_CAPTURE: the path of tests/data/allocinfo-7.3.4-defconfig.txt"
#endif

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Parses @text (copied into the table, as the reader leaves it). */
static int parse(struct allocinfo_table *t, const char *text, char *why, size_t why_len)
{
	size_t len = strlen(text);

	allocinfo_table_init(t);
	t->text = malloc(len + 1);
	assert_non_null(t->text);
	memcpy(t->text, text, len);
	t->text_len = len;
	t->text_cap = len + 1;
	return allocinfo_parse_text(t, why, why_len);
}

/*
 * The real capture: 4,198 sites, version 2.0; the top 25 plus "other" add
 * up to the totals summed here from the file with sscanf, apart from the
 * parser; the top is ranked by bytes.
 */
static void test_real_capture(void **state)
{
	struct allocinfo_table t;
	const struct alloc_row *top[25];
	struct alloc_other other;
	int64_t bytes = 0, top_bytes = 0;
	uint64_t calls = 0, top_calls = 0;
	size_t sites = 0, held = 0, names = 0;
	char why[256], line[512], *keys[5000];
	FILE *f;
	int n;

	(void)state;
	f = fopen(ALLOCINFO_CAPTURE, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		long long b;
		unsigned long long c;

		char tag[400], *acc;

		if (sscanf(line, "%lld %llu %399[^\n]", &b, &c, tag) == 3 && sites < 5000) {
			bytes += b;
			calls += c;
			/* the site's name: the tag without accurate:no and the trailing space */
			if ((acc = strstr(tag, " accurate:no")))
				*acc = '\0';
			while (strlen(tag) && tag[strlen(tag) - 1] == ' ')
				tag[strlen(tag) - 1] = '\0';
			sites++;
			if (b) /* only the sites that hold memory are ranked */
				keys[held++] = strdup(tag);
		}
	}
	fclose(f);
	assert_int_equal(sites, 4198);
	/* the kernel lists some names twice (two tags at one line): one site each (none of them holds memory in this capture) */
	assert_int_equal(held, 640);
	qsort(keys, held, sizeof(keys[0]), cmp_str);
	for (size_t i = 0; i < held; i++)
		names += !i || strcmp(keys[i], keys[i - 1]);
	for (size_t i = 0; i < held; i++)
		free(keys[i]);
	assert_true(names <= held);
	allocinfo_table_init(&t);
	assert_int_equal(allocinfo_read_text(ALLOCINFO_CAPTURE, &t, why, sizeof(why)), 0);
	assert_int_equal(t.version_major, 2);
	assert_int_equal(t.nr_rows, sites);
	n = allocinfo_top(&t, 25, top, &other);
	assert_int_equal(n, 25);
	for (int i = 0; i < n; i++) {
		top_bytes += top[i]->bytes;
		top_calls += top[i]->calls;
		if (i)
			assert_true(top[i - 1]->bytes >= top[i]->bytes);
	}
	assert_int_equal(other.sites, names - 25);
	assert_true(top_bytes + other.bytes == bytes);
	assert_true(top_calls + other.calls == calls);
	assert_string_equal(top[0]->site, "mm/slub.c:3347");
	assert_string_equal(top[0]->func, "alloc_slab_page");
	assert_string_equal(top[0]->module, "");
	assert_false(top[0]->accurate);
	assert_true(top[1]->accurate);
	allocinfo_table_free(&t);
}

/* 1.0: no accurate field; a module's site; a field the reader does not know; no last newline. */
static void test_version_1_and_fields(void **state)
{
	struct allocinfo_table t;
	char why[256];

	(void)state;
	assert_int_equal(parse(&t, "allocinfo - version: 1.0\n"
				   "#     <size>  <calls> <tag info>\n"
				   "        4096        1 mm/a.c:12 func:fa\n"
				   "       -8192        2 drivers/x/y.c:345 [xmod] func:x_probe newfield:7\n"
				   "           0        0 lib/z.c:9 func:zz", why, sizeof(why)), 0);
	assert_int_equal(t.version_major, 1);
	assert_int_equal(t.nr_rows, 3);
	assert_string_equal(t.rows[0].site, "mm/a.c:12");
	assert_string_equal(t.rows[0].module, "");
	assert_true(t.rows[0].accurate);
	assert_true(t.rows[1].bytes == -8192);
	assert_string_equal(t.rows[1].module, "xmod");
	assert_string_equal(t.rows[1].func, "x_probe");
	assert_string_equal(t.rows[2].func, "zz");
	allocinfo_table_free(&t);
	/* 2.1: a minor version is read as its major */
	assert_int_equal(parse(&t, "allocinfo - version: 2.1\n 1 1 a.c:1 func:f accurate:no\n", why, sizeof(why)), 0);
	assert_false(t.rows[0].accurate);
	allocinfo_table_free(&t);
}

/* Damaged input: -EPROTO, the line named, no rows. */
static void test_damaged(void **state)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
		{ "", "line 1: the file is empty" },
		{ "hello\n", "line 1: no \"allocinfo - version: X.Y\" header" },
		{ "allocinfo - version: 3.0\n", "line 1: an allocinfo format this version does not read" },
		{ "allocinfo - version: 2\n", "line 1: the version is not X.Y" },
		{ "allocinfo - version: 2.0\n#\n 1 1 a.c:1 func:f\n x 1 a.c:2 func:g\n", "line 4: the size is not a number" },
		{ "allocinfo - version: 2.0\n 99999999999999999999 1 a.c:1 func:f\n",
		  "line 2: the size is past the range of a signed 64-bit number" },
		{ "allocinfo - version: 2.0\n 9223372036854775808 1 a.c:1 func:f\n",
		  "line 2: the size is past the range of a signed 64-bit number" },
		{ "allocinfo - version: 2.0\n 1 99999999999999999999 a.c:1 func:f\n",
		  "line 2: the call count is past the range of an unsigned 64-bit number" },
		{ "allocinfo - version: 2.0\n 1 -1 a.c:1 func:f\n", "line 2: the call count is not a number" },
		/* a number with something stuck to it is not a number, whatever follows */
		{ "allocinfo - version: 2.0\n 12x34 1 a.c:1 func:f\n", "line 2: the size is not a number" },
		{ "allocinfo - version: 2.0\n 12 1x a.c:1 func:f\n", "line 2: the call count is not a number" },
		{ "allocinfo - version: 2.0\n - 1 a.c:1 func:f\n", "line 2: the size is not a number" },
		{ "allocinfo - version: 2.0\n    \n", "line 2: no size" },
		{ "allocinfo - version: 2.0\n 1 1 \n", "line 2: no tag after the call count" },
		{ "allocinfo - version: 2.x\n", "line 1: the version is not X.Y" },
		{ "allocinfo - version: .0\n", "line 1: the version is not X.Y" },
		{ "allocinfo - version: 2.0\n 1 1\n", "line 2: no tag after the call count" },
		{ "allocinfo - version: 2.0\n 1 1 a.c func:f\n", "line 2: the tag does not start with file:line" },
		{ "allocinfo - version: 2.0\n 1 1 a.c:1 [m]\n", "line 2: no func: field" },
		{ "allocinfo - version: 2.0\n 1\n", "line 2: no call count after the size" },
	};
	struct allocinfo_table t;
	char why[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		why[0] = '\0';
		assert_int_equal(parse(&t, cases[i].text, why, sizeof(why)), -EPROTO);
		if (!strstr(why, cases[i].why))
			fail_msg("case %zu: \"%s\", want \"%s\"", i, why, cases[i].why);
		assert_int_equal(t.nr_rows, 0);
		allocinfo_table_free(&t);
	}
}

/* Equal bytes rank by calls, then by name; fewer rows than asked; other of none. */
static void test_top_ties(void **state)
{
	struct allocinfo_table t;
	const struct alloc_row *top[5];
	struct alloc_other other;
	char why[256];

	(void)state;
	assert_int_equal(parse(&t, "allocinfo - version: 2.0\n"
				   " 10 1 b.c:1 func:f\n"
				   " 10 2 c.c:1 func:f\n"
				   " 10 1 a.c:1 func:f\n"
				   " 20 1 z.c:1 func:f\n", why, sizeof(why)), 0);
	assert_int_equal(allocinfo_top(&t, 5, top, &other), 4);
	assert_string_equal(top[0]->site, "z.c:1");
	assert_string_equal(top[1]->site, "c.c:1");
	assert_string_equal(top[2]->site, "a.c:1");
	assert_string_equal(top[3]->site, "b.c:1");
	assert_int_equal(other.sites, 0);
	assert_true(other.bytes == 0);
	assert_int_equal(allocinfo_top(&t, 1, top, &other), 1);
	assert_int_equal(other.sites, 3);
	assert_true(other.bytes == 30);
	assert_int_equal(other.calls, 4);
	allocinfo_table_free(&t);
	/* two rows under one name (two tags at one line): one site, summed */
	assert_int_equal(parse(&t, "allocinfo - version: 2.0\n"
				   " 15 1 a.c:1 [m] func:f\n"
				   " 20 1 z.c:1 func:f\n"
				   " 10 2 a.c:1 [m] func:f accurate:no\n", why, sizeof(why)), 0);
	assert_int_equal(allocinfo_top(&t, 5, top, &other), 2);
	assert_string_equal(top[0]->site, "a.c:1");
	assert_true(top[0]->bytes == 25);
	assert_int_equal(top[0]->calls, 3);
	assert_false(top[0]->accurate);
	allocinfo_table_free(&t);
	/*
	 * sites that hold nothing are not ranked, nor counted in other (the
	 * binary reader never sees the zeros); below 0 is the per-CPU counts
	 * racing, not memory: nothing either
	 */
	assert_int_equal(parse(&t, "allocinfo - version: 2.0\n"
				   " 0 0 a.c:1 func:f\n"
				   " 5 1 b.c:1 func:f\n"
				   " 0 3 c.c:1 func:f\n"
				   " -4 1 d.c:1 func:f\n"
				   " 9 1 e.c:1 func:f\n", why, sizeof(why)), 0);
	assert_int_equal(allocinfo_top(&t, 5, top, &other), 2);
	assert_int_equal(allocinfo_top(&t, 1, top, &other), 1);
	assert_string_equal(top[0]->site, "e.c:1");
	assert_int_equal(other.sites, 1);
	assert_true(other.bytes == 5);
	assert_int_equal(other.calls, 1);
	allocinfo_table_free(&t);
	/* sums that would pass the 64-bit range stop at its end (other, and one site listed twice) */
	assert_int_equal(parse(&t, "allocinfo - version: 2.0\n"
				   " 9223372036854775807 18446744073709551615 a.c:1 func:f\n"
				   " 9223372036854775807 18446744073709551615 b.c:1 func:f\n"
				   " 9223372036854775807 18446744073709551615 c.c:1 func:f\n"
				   " 9223372036854775807 18446744073709551615 c.c:1 func:f\n", why, sizeof(why)), 0);
	assert_int_equal(allocinfo_top(&t, 1, top, &other), 1);
	assert_true(top[0]->bytes == INT64_MAX);
	assert_true(top[0]->calls == UINT64_MAX);
	assert_int_equal(other.sites, 2);
	assert_true(other.bytes == INT64_MAX);
	assert_true(other.calls == UINT64_MAX);
	allocinfo_table_free(&t);
}

/* The reference ranking: bytes, calls (larger first), then the site (the test's names differ there). */
static int cmp_ref(const void *a, const void *b)
{
	const struct alloc_row *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return strcmp(x->site, y->site);
}

/*
 * The selection of the top against a whole sort, on 300 sites with many
 * ties (bytes and calls from a fixed LCG), for tops of 1 to more than all.
 */
static void test_top_against_sort(void **state)
{
	static const size_t tops[] = { 1, 2, 3, 7, 50, 149, 299, 300, 301, 1000 };
	struct alloc_row want[300];
	const struct alloc_row *top[1000];
	struct allocinfo_table t;
	struct alloc_other other;
	char text[300 * 48] = "allocinfo - version: 2.0\n", why[256];
	uint32_t x = 7;
	int64_t total = 0;

	(void)state;
	for (int i = 0; i < 300; i++) {
		x = x * 1103515245u + 12345u;
		snprintf(text + strlen(text), sizeof(text) - strlen(text), " %u %u s%03d.c:1 func:f\n",
			 (x >> 8) % 17 * 4096 + 4096, (x >> 20) % 5, i);
	}
	assert_int_equal(parse(&t, text, why, sizeof(why)), 0);
	assert_int_equal(t.nr_rows, 300);
	memcpy(want, t.rows, sizeof(want));
	qsort(want, 300, sizeof(want[0]), cmp_ref);
	for (int i = 0; i < 300; i++)
		total += want[i].bytes;
	for (size_t j = 0; j < sizeof(tops) / sizeof(tops[0]); j++) {
		size_t n = tops[j], k = n < 300 ? n : 300;
		int64_t sum = 0;

		assert_int_equal(allocinfo_top(&t, n, top, &other), (int)k);
		for (size_t i = 0; i < k; i++) {
			assert_string_equal(top[i]->site, want[i].site);
			sum += top[i]->bytes;
		}
		assert_int_equal(other.sites, 300 - k);
		assert_true(sum + other.bytes == total);
	}
	allocinfo_table_free(&t);
}

/* Files: none, and unreadable, say what to do. */
static void test_read_errors(void **state)
{
	struct allocinfo_table t;
	char why[256];

	(void)state;
	allocinfo_table_init(&t);
	assert_int_equal(allocinfo_read_text("/nonexistent/allocinfo", &t, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "CONFIG_MEM_ALLOC_PROFILING"));
	assert_int_equal(allocinfo_read_text("/", &t, why, sizeof(why)), -EISDIR);
	allocinfo_table_free(&t);
}

static int notices;
static char last_notice[512];

static void capture(int level, const char *msg)
{
	if (level == LOG_NOTICE) {
		notices++;
		snprintf(last_notice, sizeof(last_notice), "%s", msg);
	}
}

/*
 * The plugin's watch: nothing due before its interval; no file is one
 * NOTICE and no read; the file appearing (profiling switched on) reads it,
 * saying so; the file going away gives one read of no rows, so that the
 * series end.
 */
static void test_watch(void **state)
{
	char path[] = "/tmp/memcg_bpf_allocinfo_XXXXXX";
	struct allocinfo_watch *w;
	struct allocinfo_ranked r;
	uint64_t sec = 1000000000ull;
	FILE *f;
	int fd;

	(void)state;
	mb_log_set_sink(capture);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(allocinfo_watch_new(path, 2, 10 * sec, &w), 0);
	assert_int_equal(allocinfo_watch_poll(w, 100 * sec, &r), 0);
	assert_int_equal(notices, 1);
	assert_non_null(strstr(last_notice, "CONFIG_MEM_ALLOC_PROFILING"));
	assert_int_equal(allocinfo_watch_poll(w, 105 * sec, &r), 0); /* not due */
	assert_int_equal(allocinfo_watch_poll(w, 110 * sec, &r), 0); /* still none: said once */
	assert_int_equal(notices, 1);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("allocinfo - version: 2.0\n 30 1 a.c:1 func:a\n 20 1 b.c:1 func:b\n 10 1 c.c:1 func:c\n", f);
	fclose(f);
	assert_int_equal(allocinfo_watch_poll(w, 120 * sec, &r), 1);
	assert_int_equal(notices, 2);
	assert_non_null(strstr(last_notice, "AllocInfo: reading"));
	assert_int_equal(r.nr_top, 2);
	assert_string_equal(r.top[0]->site, "a.c:1");
	assert_int_equal(r.other.sites, 1);
	unlink(path);
	assert_int_equal(allocinfo_watch_poll(w, 130 * sec, &r), 1); /* gone: no rows, the series end */
	assert_int_equal(r.nr_top, 0);
	assert_int_equal(allocinfo_watch_poll(w, 140 * sec, &r), 0);
	allocinfo_watch_free(w);
	mb_log_set_sink(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_capture),
		cmocka_unit_test(test_version_1_and_fields),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_top_ties),
		cmocka_unit_test(test_top_against_sort),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_watch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
