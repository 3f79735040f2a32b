// SPDX-License-Identifier: GPL-2.0-only
#include "sampling/btf_enums.h"

#include <errno.h>
#include <string.h>

#include <bpf/btf.h>

int btf_enum_value(const struct btf *btf, const char *enum_name, const char *name, int64_t *value)
{
	const struct btf_type *t;
	__s32 id;
	__u16 i;

	id = btf__find_by_name_kind(btf, enum_name, BTF_KIND_ENUM);
	if (id < 0)
		id = btf__find_by_name_kind(btf, enum_name, BTF_KIND_ENUM64);
	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, id);
	if (btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t);

		for (i = 0; i < btf_vlen(t); i++, e++)
			if (strcmp(btf__name_by_offset(btf, e->name_off), name) == 0) {
				*value = e->val;
				return 0;
			}
	} else {
		const struct btf_enum64 *e = btf_enum64(t);

		for (i = 0; i < btf_vlen(t); i++, e++)
			if (strcmp(btf__name_by_offset(btf, e->name_off), name) == 0) {
				*value = (int64_t)btf_enum64_value(e);
				return 0;
			}
	}
	return -ENOENT;
}

bool btf_has_func(const struct btf *btf, const char *name)
{
	return btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) >= 0;
}
