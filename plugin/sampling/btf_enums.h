/* SPDX-License-Identifier: GPL-2.0-only */
/* Look-ups in the running kernel's BTF: enum constants and functions by name. */
#ifndef MEMCG_BPF_BTF_ENUMS_H
#define MEMCG_BPF_BTF_ENUMS_H

#include <stdbool.h>
#include <stdint.h>

struct btf;

/*
 * Finds constant @name in enum @enum_name. Returns 0 and sets @value, or
 * -ENOENT when the enum or the constant is not in @btf.
 */
int btf_enum_value(const struct btf *btf, const char *enum_name, const char *name, int64_t *value);

/* True when @btf has a function (BTF_KIND_FUNC) called @name: kfuncs show up this way. */
bool btf_has_func(const struct btf *btf, const char *name);

#endif
