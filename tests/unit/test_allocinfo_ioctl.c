// SPDX-License-Identifier: GPL-2.0-only
/*
 * The binary reader of /proc/allocinfo (allocinfo_ioctl.c) against a fake
 * kernel with the semantics of Linux 7.3's mm/alloc_tag.c: CONTENT_ID,
 * GET_AT (pos among the rows that pass the filter, the filter kept),
 * GET_NEXT until ENOENT, MIN_SIZE on the unsigned sum, names cut to their
 * last 63 bytes; and the same sites as text, for the whole names.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "allocinfo/allocinfo.h"
#include "allocinfo/allocinfo_ioctl.h"

struct fake_tag {
	const char *mod, *func, *file;
	unsigned int line;
	int64_t bytes;
	uint64_t calls;
	bool accurate;
	bool in_text; /* false: the text read does not list it (came after) */
};

#define LONG_FILE "drivers/gpu/drm/some/very/long/vendor/path/display/dc/core/dc_resource_pool_construct.c"
#define LONG_FUNC "dcn_resource_construct_with_a_function_name_longer_than_sixty_three_bytes"

static const struct fake_tag base_tags[] = {
	{ "", "alloc_slab_page", "mm/slub.c", 3347, 9330688, 1342, false, true },
	{ "", "zero_site", "mm/zero.c", 1, 0, 0, true, true },
	{ "xmod", "x_probe", "drivers/x/y.c", 45, 12288, 3, true, true },
	{ "", LONG_FUNC, LONG_FILE, 1234, 65536, 16, true, true },
	{ "", "racing", "mm/race.c", 7, -4096, 1, true, true },
	{ "", "small", "mm/small.c", 9, 4096, 1, true, true },
	{ "late", LONG_FUNC, LONG_FILE, 99, 8192, 2, true, false },
};
#define NR_TAGS (sizeof(base_tags) / sizeof(base_tags[0]))

/*
 * Two sites of one module whose files share their last 63 bytes (and their
 * line and function): the ioctl's cut names cannot tell them apart.
 */
#define TWIN_TAIL "/a/directory/path/long/enough/that/the/last/sixty/three/bytes/are/the/same.c"
static const struct fake_tag twin_tags[] = {
	{ "twin", "twin_alloc", "drivers/one" TWIN_TAIL, 12, 204800, 50, true, true },
	{ "twin", "twin_alloc", "drivers/other" TWIN_TAIL, 12, 102400, 25, true, true },
	{ "", "small", "mm/small.c", 9, 4096, 1, true, true },
};

/* the tags the fake kernel has */
static const struct fake_tag *tags = base_tags;

struct fake_kernel {
	uint64_t id;
	int bump_after_get_at;  /* the id moves once, during the next walk */
	bool no_ioctl;
	size_t nr;              /* tags present */
	size_t cursor;          /* next tag GET_NEXT looks at */
	bool positioned;
	struct allocinfo_abi_filter filter;
};

static void cut_copy(char *dst, const char *s)
{
	size_t len = strlen(s);

	snprintf(dst, ALLOCINFO_ABI_STR, "%s", len >= ALLOCINFO_ABI_STR ? s + len - (ALLOCINFO_ABI_STR - 1) : s);
}

static bool passes(const struct fake_kernel *k, const struct fake_tag *t)
{
	return !(k->filter.mask & ALLOCINFO_ABI_FILTER_MIN_SIZE) || (uint64_t)t->bytes >= k->filter.min_size;
}

static void fill(struct allocinfo_abi_tag_data *d, const struct fake_tag *t)
{
	memset(d, 0, sizeof(*d));
	cut_copy(d->tag.modname, t->mod);
	cut_copy(d->tag.function, t->func);
	cut_copy(d->tag.filename, t->file);
	d->tag.lineno = t->line;
	d->counter.bytes = (uint64_t)t->bytes;
	d->counter.calls = t->calls;
	d->counter.accurate = t->accurate;
}

static int fake_request(void *ctx, unsigned long req, void *arg)
{
	struct fake_kernel *k = ctx;

	if (k->no_ioctl)
		return -ENOTTY;
	if (req == ALLOCINFO_ABI_IOC_CONTENT_ID) {
		((struct allocinfo_abi_content_id *)arg)->id = k->id;
		return 0;
	}
	if (req == ALLOCINFO_ABI_IOC_GET_AT) {
		struct allocinfo_abi_get_at *at = arg;
		uint64_t skip = at->pos;

		k->filter = at->filter;
		if (k->bump_after_get_at && !--k->bump_after_get_at)
			k->id++;
		for (size_t i = 0; i < k->nr; i++) {
			if (!passes(k, &tags[i]) || skip--)
				continue;
			fill(&at->data, &tags[i]);
			k->cursor = i + 1;
			k->positioned = true;
			return 0;
		}
		return -ENOENT;
	}
	if (req == ALLOCINFO_ABI_IOC_GET_NEXT) {
		if (!k->positioned)
			k->cursor = 0;
		for (; k->cursor < k->nr; k->cursor++)
			if (passes(k, &tags[k->cursor])) {
				fill(arg, &tags[k->cursor++]);
				return 0;
			}
		k->positioned = false;
		return -ENOENT;
	}
	return -ENOTTY;
}

/* The same sites as the 2.0 text prints them (those in_text). */
static int fake_read_text(void *ctx, struct allocinfo_table *t, char *why, size_t why_len)
{
	const struct fake_kernel *k = ctx;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fputs("allocinfo - version: 2.0\n#     <size>  <calls> <tag info>\n", f);
	for (size_t i = 0; i < k->nr; i++) {
		const struct fake_tag *g = &tags[i];

		if (!g->in_text)
			continue;
		fprintf(f, "%12lld %8llu %s:%u%s%s%s func:%s%s \n", (long long)g->bytes, (unsigned long long)g->calls,
			g->file, g->line, g->mod[0] ? " [" : "", g->mod, g->mod[0] ? "]" : "", g->func,
			g->accurate ? "" : " accurate:no");
	}
	fclose(f);
	free(t->text);
	t->text = buf;
	t->text_len = len;
	t->text_cap = len + 1; /* open_memstream keeps a NUL after the text */
	return allocinfo_parse_text(t, why, why_len);
}

static struct fake_kernel kernel;
static const struct allocinfo_ioctl_io io = { fake_request, fake_read_text, &kernel };

static const struct alloc_row *find(const struct allocinfo_table *t, const char *func, const char *module)
{
	for (size_t i = 0; i < t->nr_rows; i++)
		if (!strcmp(t->rows[i].func, func) && !strcmp(t->rows[i].module, module))
			return &t->rows[i];
	return NULL;
}

/* Every site with bytes, whole names, the top equal to the text's; the zero site stays in the kernel. */
static void test_walk_equals_text(void **state)
{
	struct allocinfo_names names = { 0 };
	struct allocinfo_table t, text;
	const struct alloc_row *a[4], *b[4];
	struct alloc_other oa, ob;
	char why[256];

	(void)state;
	kernel = (struct fake_kernel){ .id = 1, .nr = NR_TAGS - 1 };
	allocinfo_table_init(&t);
	allocinfo_table_init(&text);
	assert_int_equal(allocinfo_read_ioctl(&io, &names, &t, why, sizeof(why)), 0);
	assert_int_equal(t.nr_rows, 5); /* not zero_site: MIN_SIZE 1; racing's -4096 passes as a huge u64 */
	assert_null(find(&t, "zero_site", ""));
	assert_true(find(&t, "racing", "")->bytes == -4096);
	assert_string_equal(find(&t, "x_probe", "xmod")->site, "drivers/x/y.c:45");
	assert_string_equal(find(&t, LONG_FUNC, "")->site, LONG_FILE ":1234");
	assert_false(find(&t, "alloc_slab_page", "")->accurate);
	assert_int_equal(fake_read_text(&kernel, &text, why, sizeof(why)), 0);
	assert_int_equal(allocinfo_top(&t, 4, a, &oa), 4);
	assert_int_equal(allocinfo_top(&text, 4, b, &ob), 4);
	for (int i = 0; i < 4; i++) {
		assert_string_equal(a[i]->site, b[i]->site);
		assert_string_equal(a[i]->func, b[i]->func);
		assert_true(a[i]->bytes == b[i]->bytes);
		assert_int_equal(a[i]->calls, b[i]->calls);
	}
	assert_true(oa.bytes == ob.bytes); /* the zero site adds nothing */
	allocinfo_table_free(&t);
	allocinfo_table_free(&text);
	allocinfo_names_free(&names);
}

/* The id moves during a walk (a module came): walked again; a cut name the text lacks is marked. */
static void test_retry_and_marked_names(void **state)
{
	struct allocinfo_names names = { 0 };
	struct allocinfo_table t;
	const struct alloc_row *late = NULL;
	char why[256];

	(void)state;
	kernel = (struct fake_kernel){ .id = 7, .nr = NR_TAGS, .bump_after_get_at = 1 };
	allocinfo_table_init(&t);
	assert_int_equal(allocinfo_read_ioctl(&io, &names, &t, why, sizeof(why)), 0);
	assert_int_equal(names.content_id, 8); /* the text read again for the new id */
	for (size_t i = 0; i < t.nr_rows; i++)
		if (!strcmp(t.rows[i].module, "late"))
			late = &t.rows[i];
	assert_non_null(late);
	assert_int_equal(strncmp(late->func, "...", 3), 0); /* cut, and said so */
	assert_int_equal(strncmp(late->site, "...", 3), 0);
	assert_int_equal(strlen(late->func), 3 + 63);
	allocinfo_table_free(&t);
	allocinfo_names_free(&names);
}

/*
 * Sites the cut names cannot tell apart are taken from the text, both of
 * them, each with its own bytes and calls: not one row holding both.
 */
static void test_twins_from_text(void **state)
{
	struct allocinfo_names names = { 0 };
	struct allocinfo_table t, text;
	const struct alloc_row *a[3], *b[3];
	struct alloc_other oa, ob;
	size_t twins = 0;
	char why[256];

	(void)state;
	assert_true(strlen("drivers/one" TWIN_TAIL) > 63 && strlen(TWIN_TAIL) >= 63);
	tags = twin_tags;
	kernel = (struct fake_kernel){ .id = 3, .nr = 3 };
	allocinfo_table_init(&t);
	allocinfo_table_init(&text);
	assert_int_equal(allocinfo_read_ioctl(&io, &names, &t, why, sizeof(why)), 0);
	assert_int_equal(t.nr_rows, 3);
	for (size_t i = 0; i < t.nr_rows; i++) {
		const struct alloc_row *r = &t.rows[i];

		if (strcmp(r->module, "twin"))
			continue;
		twins++;
		if (!strcmp(r->site, "drivers/one" TWIN_TAIL ":12"))
			assert_true(r->bytes == 204800 && r->calls == 50);
		else if (!strcmp(r->site, "drivers/other" TWIN_TAIL ":12"))
			assert_true(r->bytes == 102400 && r->calls == 25);
		else
			fail_msg("a twin row with site %s", r->site);
	}
	assert_int_equal(twins, 2);
	assert_int_equal(fake_read_text(&kernel, &text, why, sizeof(why)), 0);
	assert_int_equal(allocinfo_top(&t, 1, a, &oa), 1);
	assert_int_equal(allocinfo_top(&text, 1, b, &ob), 1);
	assert_string_equal(a[0]->site, b[0]->site);
	assert_true(oa.bytes == ob.bytes && oa.calls == ob.calls && oa.sites == ob.sites);
	allocinfo_table_free(&t);
	allocinfo_table_free(&text);
	allocinfo_names_free(&names);
	tags = base_tags;
}

/* Before Linux 7.3: ENOTTY is "no binary interface". */
static void test_no_ioctl(void **state)
{
	struct allocinfo_names names = { 0 };
	struct allocinfo_table t;
	char why[256];

	(void)state;
	kernel = (struct fake_kernel){ .id = 1, .nr = NR_TAGS, .no_ioctl = true };
	allocinfo_table_init(&t);
	assert_int_equal(allocinfo_read_ioctl(&io, &names, &t, why, sizeof(why)), -EOPNOTSUPP);
	assert_non_null(strstr(why, "7.3"));
	allocinfo_table_free(&t);
	allocinfo_names_free(&names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_equals_text),
		cmocka_unit_test(test_retry_and_marked_names),
		cmocka_unit_test(test_twins_from_text),
		cmocka_unit_test(test_no_ioctl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
