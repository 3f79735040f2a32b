// SPDX-License-Identifier: GPL-2.0-only
#include "cli/allocinfo_report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allocinfo/allocinfo.h"
#include "base/log.h"
#include "cli/path_escape.h"

/* @s as a JSON string (the kernel's names are ASCII; anything else escaped as paths are). */
static void print_json_string(const char *s)
{
	size_t len = strlen(s), need = path_escape_json(s, len, NULL, 0);
	char *buf = malloc(need + 1);

	if (!buf) {
		fputs("\"\"", stdout);
		return;
	}
	path_escape_json(s, len, buf, need + 1);
	fputs(buf, stdout);
	free(buf);
}

static void print_json_row(const struct alloc_row *r)
{
	fputs("{\"site\":", stdout);
	print_json_string(r->site);
	fputs(",\"module\":", stdout);
	print_json_string(r->module);
	fputs(",\"func\":", stdout);
	print_json_string(r->func);
	printf(",\"bytes\":%" PRId64 ",\"calls\":%" PRIu64 ",\"accurate\":%s}\n", r->bytes, r->calls,
	       r->accurate ? "true" : "false");
}

static void print_table(const struct alloc_row *const *top, size_t n, const struct alloc_other *other)
{
	printf("%14s %10s %-8s %-44s %-16s %s\n", "BYTES", "CALLS", "ACCURATE", "SITE", "MODULE", "FUNC");
	for (size_t i = 0; i < n; i++)
		printf("%14" PRId64 " %10" PRIu64 " %-8s %-44s %-16s %s\n", top[i]->bytes, top[i]->calls,
		       top[i]->accurate ? "yes" : "no", top[i]->site, top[i]->module[0] ? top[i]->module : "-",
		       top[i]->func);
	printf("# other: %zu call sites, %" PRId64 " bytes, %" PRIu64 " calls\n", other->sites, other->bytes,
	       other->calls);
}

int allocinfo_report(const struct allocinfo_report_opts *o)
{
	struct allocinfo_reader *reader;
	struct allocinfo_table t;
	const struct alloc_row **top;
	struct alloc_other other;
	enum allocinfo_backend backend;
	char why[512];
	int n, err;

	allocinfo_table_init(&t);
	/*
	 * One read: auto is the text. The binary interface pays in a reader
	 * that lasts (the plugin's), whose name completions carry over from
	 * read to read; a single ioctl read completes its cut names from a
	 * text read as well, and costs more than the text alone.
	 */
	backend = o->backend == ALLOCINFO_AUTO ? ALLOCINFO_TEXT : (enum allocinfo_backend)o->backend;
	err = allocinfo_reader_new(o->path, backend, &reader);
	if (!err)
		err = allocinfo_reader_read(reader, &t, why, sizeof(why));
	if (err) {
		mb_err("allocinfo: %s", err == -ENOMEM ? strerror(ENOMEM) : why);
		allocinfo_reader_free(reader);
		allocinfo_table_free(&t);
		return 1;
	}
	if (!o->json)
		printf("# %s, %s reader: %zu call sites read\n", o->path,
		       allocinfo_backend_name(allocinfo_reader_used(reader)), t.nr_rows);
	/* the reader stays: rows the ioctl could not tell apart point into its text */
	top = calloc(o->top ? o->top : 1, sizeof(*top));
	n = top ? allocinfo_top(&t, o->top, top, &other) : -ENOMEM;
	if (n < 0) {
		mb_err("allocinfo: %s", strerror(-n));
		free(top);
		allocinfo_reader_free(reader);
		allocinfo_table_free(&t);
		return 1;
	}
	if (o->json) {
		for (int i = 0; i < n; i++)
			print_json_row(top[i]);
		printf("{\"other\":true,\"sites\":%zu,\"bytes\":%" PRId64 ",\"calls\":%" PRIu64 ",\"accurate\":%s}\n",
		       other.sites, other.bytes, other.calls, other.accurate ? "true" : "false");
	} else {
		print_table(top, (size_t)n, &other);
	}
	free(top);
	allocinfo_reader_free(reader);
	allocinfo_table_free(&t);
	return 0;
}
