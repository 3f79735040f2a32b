/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one name<->value helper: a table of names indexed by an enum's
 * values, e.g.
 *   static const char *const format_names[] = { [WIRE_OTLP] = "otlp", ... };
 * Names are matched case-insensitively, as collectd matches its keys:
 * Backend "BPF" is Backend "bpf". A NULL entry is a value without a name.
 */
#ifndef MEMCG_BPF_NAME_TABLE_H
#define MEMCG_BPF_NAME_TABLE_H

#include <stddef.h>

#include "base/macros.h"

/* The name of @value in @names (@n entries); "?" when it has none. */
const char *name_of(const char *const *names, size_t n, int value);
/* The index of @s in @names (@n entries), or -EINVAL when it is not there. */
int name_parse(const char *const *names, size_t n, const char *s);

/* The same, for a table whose size the compiler knows. */
#define NAME_OF(names, value) name_of((names), ARRAY_SIZE(names), (value))
#define NAME_PARSE(names, s) name_parse((names), ARRAY_SIZE(names), (s))

/*
 * Defines the pair for an enum, as systemd's string-table macros do:
 *   const char *PREFIX_name(TYPE value);              "?" for no name
 *   int PREFIX_parse(const char *s, TYPE *out);       0, or -EINVAL
 * e.g. DEFINE_NAME_TABLE(wire_format, enum wire_format, format_names).
 */
#define DEFINE_NAME_OF(prefix, type, names)                                                   \
	const char *prefix##_name(type value)                                                 \
	{                                                                                     \
		return NAME_OF(names, value);                                                 \
	}
#define DEFINE_NAME_PARSE(prefix, type, names)                                                \
	int prefix##_parse(const char *s, type *out)                                          \
	{                                                                                     \
		int i = NAME_PARSE(names, s);                                                 \
                                                                                              \
		if (i < 0)                                                                    \
			return i;                                                             \
		*out = (type)i;                                                               \
		return 0;                                                                     \
	}
#define DEFINE_NAME_TABLE(prefix, type, names)                                                \
	DEFINE_NAME_OF(prefix, type, names)                                                   \
	DEFINE_NAME_PARSE(prefix, type, names)

#endif
