/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Parsers for cgroupfs text: "name value\n" files (memory.stat,
 * memory.events, v1 memory.oom_control), single-number files
 * (memory.current, v1 memory.usage_in_bytes) and PSI files (memory.pressure).
 *
 * A parser is made once for a list of wanted field names and reused for
 * every cgroup: it remembers at which line each wanted field was found and
 * checks that layout first (one memcmp per wanted line), falling back to a
 * hash lookup of every line when the layout changed. Buffers need no NUL.
 */
#ifndef MEMCG_BPF_MEMORY_STAT_PARSE_H
#define MEMCG_BPF_MEMORY_STAT_PARSE_H

#include <stddef.h>
#include <stdint.h>

struct memory_stat_parser;

/*
 * Makes a parser that stores field @names[i] into values[@slots[i]].
 * Names are copied; a name may repeat (each of its slots is set).
 * Returns 0, -EINVAL (an empty name or one holding ' ' or '\n') or -ENOMEM.
 */
int memory_stat_parser_new(const char *const *names, const size_t *slots, size_t nr,
			   struct memory_stat_parser **out);

/*
 * Parses @len bytes of "name value" lines. Each wanted field found is
 * written to values[slot]; the slots of fields not found are left as they
 * were (callers pre-fill SAMPLE_VALUE_MISSING). Unwanted lines, lines
 * without a value and a last line without '\n' are fine. A wanted field
 * whose value is not a decimal that fits in 64 bits is left unset and
 * counted (memory_stat_parser_bad_values). When a name occurs twice the
 * first line wins. Returns the number of slots set.
 */
size_t memory_stat_parse(struct memory_stat_parser *p, const char *buf, size_t len, uint64_t *values);

/* Wanted fields with an unparsable or overflowing value, over the parser's life. */
uint64_t memory_stat_parser_bad_values(const struct memory_stat_parser *p);

/* NULL-safe. */
void memory_stat_parser_free(struct memory_stat_parser *p);

/*
 * Looks up one field without a parser (slow path, for probing).
 * Returns 0, -ENOENT (no such line), -ERANGE (value overflows 64 bits) or
 * -EINVAL (value is not a decimal number).
 */
int memory_stat_find(const char *buf, size_t len, const char *name, uint64_t *value);

/*
 * Parses a single-number file: decimal digits and an optional trailing
 * newline. Returns 0, -EINVAL or -ERANGE.
 */
int memory_stat_parse_u64(const char *buf, size_t len, uint64_t *value);

/*
 * Reads the total stall time of line @kind ("some" or "full") of a PSI
 * file (memory.pressure: "some avg10=0.00 avg60=0.00 avg300=0.00 total=N"),
 * in microseconds as the kernel prints it. Returns 0, -ENOENT (no such
 * line), -EINVAL (no total= number) or -ERANGE.
 */
int memory_stat_parse_pressure(const char *buf, size_t len, const char *kind, uint64_t *total_us);

#endif
