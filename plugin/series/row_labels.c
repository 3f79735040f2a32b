// SPDX-License-Identifier: GPL-2.0-only
#include "series/row_labels.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macros.h"
#include "series/cgroup_ident.h"
#include "series/metric_names.h"
#include "series/string_arena.h"

static void label_list_add_len(struct label_list *ll, const char *name, const char *value, size_t value_len)
{
	if (value && value[0] && ll->n < ARRAY_SIZE(ll->l)) {
		ll->l[ll->n] = (struct label_pair){ name, value };
		ll->len[ll->n] = (struct label_len){ (uint32_t)strlen(name), (uint32_t)value_len };
		ll->n++;
	}
}

void label_list_add(struct label_list *ll, const char *name, const char *value)
{
	label_list_add_len(ll, name, value, value ? strlen(value) : 0);
}

/* insertion sort by name: a handful of labels */
static void label_list_sort(struct label_list *ll)
{
	for (size_t i = 1; i < ll->n; i++) {
		struct label_pair x = ll->l[i];
		struct label_len xl = ll->len[i];
		size_t j = i;

		for (; j > 0 && strcmp(ll->l[j - 1].name, x.name) > 0; j--) {
			ll->l[j] = ll->l[j - 1];
			ll->len[j] = ll->len[j - 1];
		}
		ll->l[j] = x;
		ll->len[j] = xl;
	}
}

/* Makes the parallel arrays *@l and *@len (room for *@cap) hold @want labels. */
static int labels_reserve(struct label_pair **l, struct label_len **len, size_t *cap, size_t want)
{
	size_t n = *cap ? *cap : 8192;
	void *p;

	if (want <= *cap)
		return 0;
	while (n < want)
		n *= 2;
	p = realloc(*l, n * sizeof(**l));
	if (!p)
		return -ENOMEM;
	*l = p;
	p = realloc(*len, n * sizeof(**len));
	if (!p)
		return -ENOMEM;
	*len = p;
	*cap = n;
	return 0;
}

/* Appends the @n labels @l, @len (sorted by name) as a run of @set's labels, at *@off. */
static int add_label_run(struct series_set *set, const struct label_pair *l, const struct label_len *len, size_t n,
			 uint32_t *off)
{
	if (set->nr_labels + n > UINT32_MAX)
		return -EOVERFLOW;
	if (labels_reserve(&set->labels, &set->label_lens, &set->cap_labels, set->nr_labels + n))
		return -ENOMEM;
	*off = (uint32_t)set->nr_labels;
	memcpy(set->labels + set->nr_labels, l, n * sizeof(l[0]));
	memcpy(set->label_lens + set->nr_labels, len, n * sizeof(len[0]));
	set->nr_labels += n;
	return 0;
}

/* Puts the labels of @rt in @set as the run its items share, and that run's key. */
static int add_cgroup_run(struct series_set *set, struct row_template *rt)
{
	if (set->nr_cgroup_runs == set->cap_cgroup_runs) {
		size_t cap = set->cap_cgroup_runs ? set->cap_cgroup_runs * 2 : 1024;
		void *p = realloc(set->cgroup_keys, cap * sizeof(*set->cgroup_keys));

		if (!p)
			return -ENOMEM;
		set->cgroup_keys = p;
		set->cap_cgroup_runs = cap;
	}
	if (set->nr_cgroup_runs >= SERIES_OWN_RUN)
		return -EOVERFLOW;
	/* "" is no metric's name: no series has this key */
	set->cgroup_keys[set->nr_cgroup_runs] = series_key_finish(rt->key, "", 0);
	rt->cgroup_run = (uint32_t)set->nr_cgroup_runs++;
	return add_label_run(set, rt->l, rt->len, rt->n, &rt->set_off);
}

/* Appends @it, its labels set already. */
static int add_item(struct series_set *set, const struct series_item *it)
{
	if (set->nr_items == set->cap_items) {
		size_t cap = set->cap_items ? set->cap_items * 2 : 1024;
		void *p = realloc(set->items, cap * sizeof(*set->items));

		if (!p)
			return -ENOMEM;
		set->items = p;
		set->cap_items = cap;
	}
	set->items[set->nr_items++] = *it;
	if (it->stale)
		set->nr_stale++;
	else if (it->stat)
		set->nr_values++;
	return 0;
}

/* Appends an item for @proto (its key set here) with the labels @ll, __name__ among them, as its own run. */
int add_item_with_labels(struct series_set *set, const struct series_item *proto, struct label_list *ll)
{
	struct series_item it = *proto;
	size_t name_at = 0;
	int err;

	label_list_sort(ll);
	while (name_at < ll->n && strcmp(ll->l[name_at].name, "__name__") != 0)
		name_at++;
	it.key = series_key_finish(series_key_labels(ll->l, ll->len, ll->n, name_at), proto->name,
				   strlen(proto->name));
	it.nr_labels = (uint16_t)ll->n;
	it.name_at = SERIES_NAME_IN_RUN;
	it.cgroup_run = SERIES_OWN_RUN;
	it.name_len = (uint16_t)strlen(proto->name);
	err = add_label_run(set, ll->l, ll->len, ll->n, &it.label_off);
	return err ? err : add_item(set, &it);
}

/* An escaped copy of @s (NULL: none) in @set's arena, unless @on is false. */
static int arena_label(struct series_set *set, bool on, const char *s, const char **out, size_t *out_len)
{
	*out = NULL;
	*out_len = 0;
	if (!on || !s || !s[0])
		return 0;
	*out = series_arena_escape(set, s, out_len);
	return *out ? 0 : -ENOMEM;
}

int escape_row_labels(struct series_set *set, const struct series_opts *o, const char *path,
		      const struct ident *id, struct row_labels *rl)
{
	static const struct ident none;

	memset(rl, 0, sizeof(*rl));
	if (!id)
		id = &none;
	rl->cgroup = series_arena_escape(set, path, &rl->cgroup_len);
	if (!rl->cgroup || arena_label(set, o->unit_label, id->unit, &rl->unit, &rl->unit_len) ||
	    arena_label(set, o->pod_uid_label, id->pod_uid, &rl->pod_uid, &rl->pod_uid_len) ||
	    arena_label(set, o->container_id_label, id->container_id, &rl->container_id, &rl->container_id_len) ||
	    arena_label(set, o->pod_name_labels, id->ns, &rl->ns, &rl->ns_len) ||
	    arena_label(set, o->pod_name_labels, id->pod, &rl->pod, &rl->pod_len) ||
	    arena_label(set, o->container_name_label, id->container, &rl->container, &rl->container_len) ||
	    arena_label(set, o->image_label, id->image, &rl->image, &rl->image_len))
		return -ENOMEM;
	return 0;
}

void label_list_common(struct label_list *ll, const struct series_opts *o, const char *name)
{
	ll->n = 0;
	label_list_add(ll, "__name__", name);
	label_list_add(ll, "host", o->host);
	for (size_t i = 0; i < o->nr_labels; i++)
		label_list_add(ll, o->labels[i].name, o->labels[i].value);
}

/* @rt points into @ll, which holds the labels. */
void fill_row_template(struct row_template *rt, struct label_list *ll, const struct series_opts *o,
		       const struct row_labels *rl)
{
	label_list_common(ll, o, "?"); /* __name__ is set per stat */
	label_list_add_len(ll, "cgroup", rl->cgroup, rl->cgroup_len);
	label_list_add_len(ll, "unit", rl->unit, rl->unit_len);
	label_list_add_len(ll, "pod_uid", rl->pod_uid, rl->pod_uid_len);
	label_list_add_len(ll, "container_id", rl->container_id, rl->container_id_len);
	label_list_add_len(ll, "namespace", rl->ns, rl->ns_len);
	label_list_add_len(ll, "pod", rl->pod, rl->pod_len);
	label_list_add_len(ll, "container", rl->container, rl->container_len);
	label_list_add_len(ll, "image", rl->image, rl->image_len);
	label_list_sort(ll);
	rt->l = ll->l;
	rt->len = ll->len;
	rt->n = ll->n;
	rt->name_at = 0;
	while (strcmp(ll->l[rt->name_at].name, "__name__") != 0)
		rt->name_at++;
	rt->key = series_key_labels(ll->l, ll->len, ll->n, rt->name_at);
	rt->set_off = ROW_RUN_NONE;
}

/* A per-node column's item: the row's labels, __name__ and "node" (sorted and keyed here). */
static int add_node_item(struct series_set *set, const struct row_template *rt, const struct series_item *proto,
			 const char *node)
{
	struct label_list ll;

	if (rt->n >= ARRAY_SIZE(ll.l))
		return -E2BIG; /* cannot be: the template has room for one more */
	memcpy(ll.l, rt->l, rt->n * sizeof(rt->l[0]));
	memcpy(ll.len, rt->len, rt->n * sizeof(rt->len[0]));
	ll.n = rt->n;
	ll.l[rt->name_at].value = proto->name;
	ll.len[rt->name_at].value = (uint32_t)strlen(proto->name);
	label_list_add(&ll, "node", node);
	return add_item_with_labels(set, proto, &ll);
}

int add_stat_item(struct series_set *set, struct row_template *rt, const struct stat_def *def,
		  const struct metric_name_len *name, uint64_t raw, bool stale, int64_t start_ms)
{
	struct series_item proto = {
		.name = name->name,
		.stat = def,
		.counter = def->type == STAT_COUNTER,
		.unit = metric_unit(def),
		.stale = stale,
		.value = stale ? stale_nan() : sample_value(def, raw),
		.raw = raw,
		.start_ms = start_ms,
		.key = series_key_finish(rt->key, name->name, name->len),
	};
	int err;

	if (def->node)
		return add_node_item(set, rt, &proto, def->node);
	/* the row's first item puts its labels in the set; the others share them */
	if (rt->set_off == ROW_RUN_NONE) {
		err = add_cgroup_run(set, rt);
		if (err)
			return err;
	}
	proto.label_off = rt->set_off;
	proto.cgroup_run = rt->cgroup_run;
	proto.nr_labels = (uint16_t)rt->n;
	proto.name_at = (uint16_t)rt->name_at;
	proto.name_len = (uint16_t)name->len;
	return add_item(set, &proto);
}

void label_pool_free(struct label_pool *p)
{
	free(p->l);
	free(p->len);
}

static int label_pool_add(struct label_pool *p, const struct label_list *ll)
{
	if (labels_reserve(&p->l, &p->len, &p->cap, p->n + ll->n))
		return -ENOMEM;
	memcpy(p->l + p->n, ll->l, ll->n * sizeof(*ll->l));
	memcpy(p->len + p->n, ll->len, ll->n * sizeof(*ll->len));
	p->n += ll->n;
	return 0;
}

/*
 * Every row's template at once (build_from_snapshot() goes stat by stat),
 * their labels in @pool: a few per row, not a label list's room for the
 * most.
 */
int build_row_templates(struct series_set *set, const struct series_opts *o, const struct snapshot *snap,
			const struct row_idents *ri, struct row_template *tpl, struct label_pool *pool)
{
	size_t at = 0;

	for (size_t r = 0; r < snap->nr_rows; r++) {
		struct row_labels rl;
		struct label_list ll;
		int err;

		err = escape_row_labels(set, o, snap->paths[r], ri->id[r], &rl);
		if (err)
			return err;
		fill_row_template(&tpl[r], &ll, o, &rl);
		err = label_pool_add(pool, &ll);
		if (err)
			return err;
	}
	/* the pool has stopped moving: the templates point into it */
	for (size_t r = 0; r < snap->nr_rows; r++) {
		tpl[r].l = pool->l + at;
		tpl[r].len = pool->len + at;
		at += tpl[r].n;
	}
	return 0;
}
