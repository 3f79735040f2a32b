// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the memory.stat / memory.events / single-number / PSI parsers
 * on arbitrary bytes. An input is two files, split at its first NUL byte:
 * the first teaches a parser a layout (as the previous sample of a cgroup
 * does in the text backend), then the second is parsed twice by that
 * parser (the first time against the old layout, the second time against
 * its own) and once by a fresh parser. All three must agree, so the cached
 * fast pass and the slow pass give the same values for any input. Each
 * input stands alone: a crash file reproduces by itself.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/macros.h"
#include "base/log.h"
#include "sampling/memory_stat_parse.h"
#include "sampling/sample_table.h"

static const char *const names[] = {
	"anon", "file", "kernel", "shmem", "slab", "pgfault", "oom_kill", "anon", "total_rss", "x",
	"workingset_refault_anon",
};
#define NR_NAMES (ARRAY_SIZE(names))

static void quiet(int level, const char *msg)
{
}

static void parse(struct memory_stat_parser *p, const char *buf, size_t len, uint64_t *values)
{
	for (size_t i = 0; i < NR_NAMES; i++)
		values[i] = SAMPLE_VALUE_MISSING;
	memory_stat_parse(p, buf, len, values);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memory_stat_parser *taught = NULL, *fresh = NULL;
	uint64_t trained[NR_NAMES], again[NR_NAMES], clean[NR_NAMES], v;
	const char *buf = (const char *)data, *second = buf;
	size_t slots[NR_NAMES], first_len = 0;
	const char *nul = memchr(buf, '\0', size);

	mb_log_set_sink(quiet);
	for (size_t i = 0; i < NR_NAMES; i++)
		slots[i] = i;
	if (nul) {
		first_len = (size_t)(nul - buf);
		second = nul + 1;
	}
	if (memory_stat_parser_new(names, slots, NR_NAMES, &taught) ||
	    memory_stat_parser_new(names, slots, NR_NAMES, &fresh))
		abort();
	parse(taught, buf, first_len, trained);
	parse(taught, second, size - (size_t)(second - buf), trained);
	parse(taught, second, size - (size_t)(second - buf), again);
	parse(fresh, second, size - (size_t)(second - buf), clean);
	if (memcmp(trained, clean, sizeof(clean)) || memcmp(again, clean, sizeof(clean)))
		abort();
	memory_stat_parser_free(taught);
	memory_stat_parser_free(fresh);

	memory_stat_find(buf, size, "oom_kill", &v);
	memory_stat_parse_u64(buf, size, &v);
	memory_stat_parse_pressure(buf, size, "some", &v);
	memory_stat_parse_pressure(buf, size, "full", &v);
	return 0;
}
