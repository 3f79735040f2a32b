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

#endif
