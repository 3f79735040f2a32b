// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the memory.stat / memory.events / single-number parsers
 * on arbitrary bytes. Each input is parsed twice with the same parser, as
 * the text backend does sample after sample (the second pass goes through
 * the cached line layout), and the two results must agree.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "memory_stat_parse.h"
#include "sample_table.h"

static const char *const names[] = {
	"anon", "file", "kernel", "shmem", "slab", "pgfault", "oom_kill", "anon", "total_rss", "x",
};
#define NR_NAMES (sizeof(names) / sizeof(names[0]))

static void quiet(int level, const char *msg)
{
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct memory_stat_parser *parser;
	uint64_t first[NR_NAMES], second[NR_NAMES], v;
	size_t slots[NR_NAMES];

	if (!parser) {
		mb_log_set_sink(quiet);
		for (size_t i = 0; i < NR_NAMES; i++)
			slots[i] = i;
		if (memory_stat_parser_new(names, slots, NR_NAMES, &parser))
			abort();
	}
	for (size_t i = 0; i < NR_NAMES; i++)
		first[i] = second[i] = SAMPLE_VALUE_MISSING;
	memory_stat_parse(parser, (const char *)data, size, first);
	memory_stat_parse(parser, (const char *)data, size, second);
	if (memcmp(first, second, sizeof(first)))
		abort();
	memory_stat_find((const char *)data, size, "oom_kill", &v);
	memory_stat_parse_u64((const char *)data, size, &v);
	return 0;
}
