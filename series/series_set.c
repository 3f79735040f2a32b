// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* qsort_r */
#include "series/series_set.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/macros.h"
#include "series/cgroup_labels.h"
#include "series/label_escape.h"
#include "series/metric_names.h"
#include "sampling/sample_table.h"

#define ARENA_CHUNK (64 * 1024)
#define TRACK_MAX_STATS 128
#define TRACK_WORDS (TRACK_MAX_STATS / 64)

struct arena_chunk {
	struct arena_chunk *next;
	size_t size, used;
	char data[];
};

/* A cgroup's identity labels, unescaped; NULL where it has none. */
struct ident {
	char *unit, *pod_uid, *container_id, *ns, *pod, *container;
	bool pending; /* a Kubernetes name is wanted and still missing */
};

struct tracked {
	char *path;
	uint64_t bits[TRACK_WORDS];
	int64_t first_ms; /* the sample time the cgroup was first seen (since it last vanished) */
	struct ident *id; /* the identity labels its series were sent with */
};

struct stale_tracker {
	const struct stat_def *stats[TRACK_MAX_STATS];
	size_t nr_stats;
	struct tracked *entries; /* sorted by path */
	size_t nr;
	size_t *row_entry; /* nr: the entry of each row of the last snapshot, in its row order */
	uint64_t gen;      /* changes with every update */
	int64_t born_ms; /* the sample time of the first snapshot: start of the self counters */
};

double stale_nan(void)
{
	uint64_t bits = STALE_NAN_BITS;
	double v;

	memcpy(&v, &bits, sizeof(v));
	return v;
}

bool is_stale_nan(double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	return bits == STALE_NAN_BITS;
}

static void *arena_alloc(struct series_set *set, size_t n)
{
	struct arena_chunk *c = set->arena;

	n = (n + 7) & ~(size_t)7;
	if (!c || c->size - c->used < n) {
		size_t size = n > ARENA_CHUNK ? n : ARENA_CHUNK;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->size = size;
		c->used = 0;
		c->next = set->arena;
		set->arena = c;
	}
	c->used += n;
	return c->data + c->used - n;
}

static char *arena_strdup(struct series_set *set, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena_alloc(set, n);

	if (p)
		memcpy(p, s, n);
	return p;
}

/* Escaped copy of @s; its length in @out_len. */
static char *arena_escape(struct series_set *set, const char *s, size_t *out_len)
{
	size_t len = strlen(s), need = label_escape(s, len, NULL, 0) + 1;
	char *p = arena_alloc(set, need);

	if (p)
		*out_len = label_escape(s, len, p, need);
	return p;
}

static void arena_free(struct series_set *set)
{
	while (set->arena) {
		struct arena_chunk *next = set->arena->next;

		free(set->arena);
		set->arena = next;
	}
}

/* Keeps the first chunk, frees the others. */
static void arena_reset(struct series_set *set)
{
	struct arena_chunk *keep = NULL;

	while (set->arena) {
		struct arena_chunk *next = set->arena->next;

		if (!next && set->arena->size == ARENA_CHUNK) {
			keep = set->arena;
			keep->used = 0;
		} else {
			free(set->arena);
		}
		set->arena = next;
	}
	set->arena = keep;
}

void series_set_init(struct series_set *set)
{
	memset(set, 0, sizeof(*set));
}

void series_set_free(struct series_set *set)
{
	free(set->items);
	free(set->labels);
	free(set->label_lens);
	free(set->nonzero);
	arena_free(set);
	memset(set, 0, sizeof(*set));
}


struct stale_tracker *stale_tracker_new(void)
{
	return calloc(1, sizeof(struct stale_tracker));
}

static void ident_free(struct ident *id)
{
	if (!id)
		return;
	free(id->unit);
	free(id->pod_uid);
	free(id->container_id);
	free(id->ns);
	free(id->pod);
	free(id->container);
	free(id);
}

static void tracker_clear(struct stale_tracker *st)
{
	for (size_t i = 0; i < st->nr; i++) {
		free(st->entries[i].path);
		ident_free(st->entries[i].id);
	}
	free(st->entries);
	free(st->row_entry);
	st->entries = NULL;
	st->row_entry = NULL;
	st->nr = 0;
	st->gen++;
}

void stale_tracker_free(struct stale_tracker *st)
{
	if (!st)
		return;
	tracker_clear(st);
	free(st);
}

/* Labels of one series under construction, with their lengths. */
struct label_list {
	struct label_pair l[SERIES_MAX_STATIC_LABELS + 12];
	struct label_len len[SERIES_MAX_STATIC_LABELS + 12];
	size_t n;
};

static void ll_add_len(struct label_list *ll, const char *name, const char *value, size_t value_len)
{
	if (value && value[0] && ll->n < ARRAY_SIZE(ll->l)) {
		ll->l[ll->n] = (struct label_pair){ name, value };
		ll->len[ll->n] = (struct label_len){ (uint32_t)strlen(name), (uint32_t)value_len };
		ll->n++;
	}
}

static void ll_add(struct label_list *ll, const char *name, const char *value)
{
	ll_add_len(ll, name, value, value ? strlen(value) : 0);
}

/* insertion sort by name: a handful of labels */
static void ll_sort(struct label_list *ll)
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

/* Appends an item with the @n labels @l, @len, already sorted by name. */
static int add_item_sorted(struct series_set *set, const struct series_item *proto, const struct label_pair *l,
			   const struct label_len *len, size_t n)
{
	struct series_item *it;

	if (set->nr_items == set->cap_items) {
		size_t cap = set->cap_items ? set->cap_items * 2 : 1024;
		void *p = realloc(set->items, cap * sizeof(*set->items));

		if (!p)
			return -ENOMEM;
		set->items = p;
		set->cap_items = cap;
	}
	if (labels_reserve(&set->labels, &set->label_lens, &set->cap_labels, set->nr_labels + n))
		return -ENOMEM;
	it = &set->items[set->nr_items++];
	*it = *proto;
	it->label_off = (uint32_t)set->nr_labels;
	it->nr_labels = (uint32_t)n;
	memcpy(set->labels + set->nr_labels, l, n * sizeof(l[0]));
	memcpy(set->label_lens + set->nr_labels, len, n * sizeof(len[0]));
	set->nr_labels += n;
	if (it->stale)
		set->nr_stale++;
	else if (it->stat)
		set->nr_values++;
	return 0;
}

/* Appends an item for @proto (its key set here) with the labels @ll, __name__ among them. */
static int add_item(struct series_set *set, const struct series_item *proto, struct label_list *ll)
{
	struct series_item it = *proto;
	size_t name_at = 0;

	ll_sort(ll);
	while (name_at < ll->n && strcmp(ll->l[name_at].name, "__name__") != 0)
		name_at++;
	it.key = series_key_finish(series_key_labels(ll->l, ll->len, ll->n, name_at), proto->name,
				   strlen(proto->name));
	return add_item_sorted(set, &it, ll->l, ll->len, ll->n);
}

/* Sets *@dst to a copy of @src unless *@dst is set already or @src is empty. */
static int set_once(char **dst, const char *src)
{
	if (*dst || !src || !src[0])
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_ident(const struct ident *a, const struct ident *b)
{
	if (!a || !b)
		return a == b;
	return same_str(a->unit, b->unit) && same_str(a->pod_uid, b->pod_uid) &&
	       same_str(a->container_id, b->container_id) && same_str(a->ns, b->ns) && same_str(a->pod, b->pod) &&
	       same_str(a->container, b->container);
}

/* Looks up the Kubernetes names @id lacks and sets those found; @id->pending says what is still missing. */
static int ident_add_names(const struct series_opts *o, struct ident *id)
{
	bool want_pod = o->names && o->pod_name_labels && id->pod_uid;
	bool want_ctr = o->names && o->container_name_label && id->pod_uid && id->container_id;
	struct pod_name pn;

	id->pending = false;
	if (!(want_pod && !id->pod) && !(want_ctr && !id->container))
		return 0;
	pod_names_lookup(o->names, id->pod_uid, want_ctr ? id->container_id : NULL, &pn);
	if (want_pod && !id->pod && pn.ns && pn.pod && (set_once(&id->ns, pn.ns) || set_once(&id->pod, pn.pod)))
		return -ENOMEM;
	if (want_ctr && set_once(&id->container, pn.container))
		return -ENOMEM;
	id->pending = (want_pod && !id->pod) || (want_ctr && !id->container);
	return 0;
}

/* The identity of the cgroup at @path: the path's own labels, and the Kubernetes names known now. */
static int ident_resolve(const struct series_opts *o, const char *path, struct ident **out)
{
	bool names = o->names && (o->pod_name_labels || o->container_name_label);
	char unit[4096], uid[POD_UID_MAX + 1] = "", cid[CONTAINER_ID_LEN + 1] = "";
	struct ident *id = calloc(1, sizeof(*id));

	if (!id)
		return -ENOMEM;
	if (o->unit_label)
		cgroup_unit_label(path, unit, sizeof(unit));
	else
		unit[0] = '\0';
	if (o->pod_uid_label || names)
		cgroup_pod_uid_label(path, uid);
	if (o->container_id_label || names)
		cgroup_container_id_label(path, cid);
	if (set_once(&id->unit, unit) || set_once(&id->pod_uid, uid) || set_once(&id->container_id, cid) ||
	    ident_add_names(o, id)) {
		ident_free(id);
		return -ENOMEM;
	}
	*out = id;
	return 0;
}

/*
 * A pending @old looked up again: *@out a copy with the names found now,
 * or NULL when there is nothing new (the common case: no allocation). The
 * names @old has are kept: a name, once sent, stays while the cgroup does.
 */
static int ident_update(const struct series_opts *o, const struct ident *old, struct ident **out)
{
	bool want_pod = o->pod_name_labels && !old->pod;
	bool want_ctr = o->container_name_label && old->container_id && !old->container;
	struct pod_name pn;
	struct ident *id;

	*out = NULL;
	pod_names_lookup(o->names, old->pod_uid, want_ctr ? old->container_id : NULL, &pn);
	want_pod = want_pod && pn.ns && pn.pod;
	want_ctr = want_ctr && pn.container;
	if (!want_pod && !want_ctr)
		return 0;
	id = calloc(1, sizeof(*id));
	if (!id)
		return -ENOMEM;
	if (set_once(&id->unit, old->unit) || set_once(&id->pod_uid, old->pod_uid) ||
	    set_once(&id->container_id, old->container_id) || set_once(&id->ns, want_pod ? pn.ns : old->ns) ||
	    set_once(&id->pod, want_pod ? pn.pod : old->pod) ||
	    set_once(&id->container, want_ctr ? pn.container : old->container)) {
		ident_free(id);
		return -ENOMEM;
	}
	id->pending = (o->pod_name_labels && !id->pod) ||
		      (o->container_name_label && id->container_id && !id->container);
	*out = id;
	return 0;
}

/* The labels every series of a cgroup carries, except __name__: escaped, in the set's arena. */
struct row_labels {
	const char *cgroup, *unit, *pod_uid, *container_id, *ns, *pod, *container;
	size_t cgroup_len, unit_len, pod_uid_len, container_id_len, ns_len, pod_len, container_len;
};

/* An escaped copy of @s (NULL: none) in @set's arena, unless @on is false. */
static int arena_label(struct series_set *set, bool on, const char *s, const char **out, size_t *out_len)
{
	*out = NULL;
	*out_len = 0;
	if (!on || !s || !s[0])
		return 0;
	*out = arena_escape(set, s, out_len);
	return *out ? 0 : -ENOMEM;
}

static int row_labels(struct series_set *set, const struct series_opts *o, const char *path,
		      const struct ident *id, struct row_labels *rl)
{
	static const struct ident none;

	memset(rl, 0, sizeof(*rl));
	if (!id)
		id = &none;
	rl->cgroup = arena_escape(set, path, &rl->cgroup_len);
	if (!rl->cgroup || arena_label(set, o->unit_label, id->unit, &rl->unit, &rl->unit_len) ||
	    arena_label(set, o->pod_uid_label, id->pod_uid, &rl->pod_uid, &rl->pod_uid_len) ||
	    arena_label(set, o->container_id_label, id->container_id, &rl->container_id, &rl->container_id_len) ||
	    arena_label(set, o->pod_name_labels, id->ns, &rl->ns, &rl->ns_len) ||
	    arena_label(set, o->pod_name_labels, id->pod, &rl->pod, &rl->pod_len) ||
	    arena_label(set, o->container_name_label, id->container, &rl->container, &rl->container_len))
		return -ENOMEM;
	return 0;
}

static void common_labels(struct label_list *ll, const struct series_opts *o, const char *name)
{
	ll->n = 0;
	ll_add(ll, "__name__", name);
	ll_add(ll, "host", o->host);
	for (size_t i = 0; i < o->nr_labels; i++)
		ll_add(ll, o->labels[i].name, o->labels[i].value);
}

/*
 * The sorted labels of every series of one cgroup, with __name__ at
 * @name_at: sorted once per cgroup, then each stat only sets __name__.
 */
struct row_template {
	const struct label_pair *l;
	const struct label_len *len;
	size_t n, name_at;
	struct siphash key; /* of the labels but __name__ (series_key_labels()) */
};

/* @rt points into @ll, which holds the labels. */
static void row_template(struct row_template *rt, struct label_list *ll, const struct series_opts *o,
			 const struct row_labels *rl)
{
	common_labels(ll, o, "?"); /* __name__ is set per stat */
	ll_add_len(ll, "cgroup", rl->cgroup, rl->cgroup_len);
	ll_add_len(ll, "unit", rl->unit, rl->unit_len);
	ll_add_len(ll, "pod_uid", rl->pod_uid, rl->pod_uid_len);
	ll_add_len(ll, "container_id", rl->container_id, rl->container_id_len);
	ll_add_len(ll, "namespace", rl->ns, rl->ns_len);
	ll_add_len(ll, "pod", rl->pod, rl->pod_len);
	ll_add_len(ll, "container", rl->container, rl->container_len);
	ll_sort(ll);
	rt->l = ll->l;
	rt->len = ll->len;
	rt->n = ll->n;
	rt->name_at = 0;
	while (strcmp(ll->l[rt->name_at].name, "__name__") != 0)
		rt->name_at++;
	rt->key = series_key_labels(ll->l, ll->len, ll->n, rt->name_at);
}

struct metric_name_len {
	const char *name;
	uint32_t len;
};

static int add_stat_item(struct series_set *set, const struct row_template *rt, const struct stat_def *def,
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
	size_t at = set->nr_labels + rt->name_at;
	int err;

	err = add_item_sorted(set, &proto, rt->l, rt->len, rt->n);
	if (err)
		return err;
	set->labels[at].value = name->name;
	set->label_lens[at].value = name->len;
	return 0;
}

static int cmp_path_idx(const void *a, const void *b, void *arg)
{
	const char *const *paths = arg;

	return strcmp(paths[*(const size_t *)a], paths[*(const size_t *)b]);
}

static bool same_columns(const struct stale_tracker *st, const struct snapshot *snap)
{
	return st->nr_stats == snap->nr_stats &&
	       memcmp(st->stats, snap->stats, snap->nr_stats * sizeof(snap->stats[0])) == 0;
}

static void row_bits(const struct snapshot *snap, size_t r, uint64_t bits[TRACK_WORDS])
{
	memset(bits, 0, TRACK_WORDS * sizeof(uint64_t));
	for (size_t c = 0; c < snap->nr_stats && c < TRACK_MAX_STATS; c++)
		if (snap->values[r][c] != SAMPLE_VALUE_MISSING)
			bits[c / 64] |= 1ULL << (c % 64);
}

/*
 * @order: the rows sorted by path; fills @row_first with the time each row's
 * cgroup was first seen: kept from the tracker while the cgroup stays, the
 * snapshot's time for a new (or returning) one; and @row_entry with the
 * index of the row's tracker entry (SIZE_MAX: none). Clears the tracker
 * when the columns changed.
 */
static void first_seen(struct stale_tracker *st, const struct snapshot *snap, const size_t *order,
		       int64_t *row_first, size_t *row_entry)
{
	size_t i = 0, taken = SIZE_MAX;

	if (!same_columns(st, snap))
		tracker_clear(st); /* new columns: nothing to compare with */
	if (!st->born_ms)
		st->born_ms = snap->ts_ms;
	for (size_t j = 0; j < snap->nr_rows; j++) {
		bool found;
		int c = 1;

		while (i < st->nr && (c = strcmp(st->entries[i].path, snap->paths[order[j]])) < 0)
			i++;
		found = i < st->nr && c == 0 && i != taken; /* a path twice: the entry is the first row's */
		row_first[order[j]] = found ? st->entries[i].first_ms : snap->ts_ms;
		row_entry[order[j]] = found ? i : SIZE_MAX;
		if (found)
			taken = i;
	}
}

/* The identity of each row: its tracker entry's (borrowed) while complete, else derived (owned). */
struct row_idents {
	struct ident **id;
	bool *owned;
	size_t *entry;
};

/*
 * Stale markers for what was sent last time and is gone now, with the
 * labels it was sent with: a vanished cgroup's series, a vanished stat's,
 * and every series of a cgroup whose identity labels changed (a name was
 * found). Then remembers now; the tracker takes the rows' identities.
 */
static int track(struct series_set *set, const struct series_opts *o, const struct snapshot *snap,
		 const struct metric_name_len *names, const size_t *order, const int64_t *row_first,
		 struct row_idents *ri, struct stale_tracker *st)
{
	size_t i = 0, j = 0, *row_entry = NULL;
	struct tracked *next = NULL;
	int err = -ENOMEM;

	next = calloc(snap->nr_rows ? snap->nr_rows : 1, sizeof(*next));
	row_entry = malloc((snap->nr_rows ? snap->nr_rows : 1) * sizeof(*row_entry));
	if (!next || !row_entry)
		goto free_tmp;
	while (i < st->nr) {
		uint64_t now[TRACK_WORDS] = { 0 };
		int c = 1;

		while (j < snap->nr_rows && (c = strcmp(snap->paths[order[j]], st->entries[i].path)) < 0)
			j++;
		if (j < snap->nr_rows && c == 0 && same_ident(st->entries[i].id, ri->id[order[j]]))
			row_bits(snap, order[j], now);
		for (size_t k = 0; k < st->nr_stats; k++) {
			struct row_labels rl;
			struct row_template rt;
			struct label_list ll;

			if (!(st->entries[i].bits[k / 64] & ~now[k / 64] & (1ULL << (k % 64))))
				continue;
			err = row_labels(set, o, st->entries[i].path, st->entries[i].id, &rl);
			if (!err) {
				row_template(&rt, &ll, o, &rl);
				err = add_stat_item(set, &rt, snap->stats[k], &names[k], SAMPLE_VALUE_MISSING, true,
						    st->entries[i].first_ms);
			}
			if (err)
				goto free_tmp;
		}
		i++;
	}

	for (size_t r = 0; r < snap->nr_rows; r++) {
		next[r].path = strdup(snap->paths[order[r]]);
		if (!next[r].path) {
			for (size_t k = 0; k < r; k++)
				free(next[k].path);
			err = -ENOMEM;
			goto free_tmp;
		}
		row_bits(snap, order[r], next[r].bits);
		next[r].first_ms = row_first[order[r]];
		row_entry[order[r]] = r;
	}
	/* nothing fails from here: the identities change hands */
	for (size_t r = 0; r < snap->nr_rows; r++) {
		size_t row = order[r];

		next[r].id = ri->id[row];
		if (ri->owned[row])
			ri->owned[row] = false;
		else if (ri->entry[row] != SIZE_MAX)
			st->entries[ri->entry[row]].id = NULL; /* borrowed: the entry gives it up */
	}
	tracker_clear(st);
	st->entries = next;
	st->row_entry = row_entry;
	st->nr = snap->nr_rows;
	next = NULL;
	row_entry = NULL;
	st->nr_stats = snap->nr_stats < TRACK_MAX_STATS ? snap->nr_stats : TRACK_MAX_STATS;
	memcpy(st->stats, snap->stats, st->nr_stats * sizeof(st->stats[0]));
	err = 0;

free_tmp:
	free(row_entry);
	free(next);
	return err;
}

static void row_idents_free(struct row_idents *ri, size_t rows)
{
	if (ri->id && ri->owned)
		for (size_t r = 0; r < rows; r++)
			if (ri->owned[r])
				ident_free(ri->id[r]);
	free(ri->id);
	free(ri->owned);
	free(ri->entry);
}

/* Each row's identity: its tracker entry's, updated while a name is missing; derived for a new cgroup. */
static int row_idents(const struct series_opts *o, const struct snapshot *snap, const struct stale_tracker *st,
		      struct row_idents *ri)
{
	for (size_t r = 0; r < snap->nr_rows; r++) {
		const struct ident *old = st && ri->entry[r] != SIZE_MAX ? st->entries[ri->entry[r]].id : NULL;
		int err;

		if (old) {
			err = old->pending ? ident_update(o, old, &ri->id[r]) : 0;
			if (err)
				return err;
			if (!ri->id[r]) {
				ri->id[r] = (struct ident *)old; /* borrowed */
				continue;
			}
		} else {
			err = ident_resolve(o, snap->paths[r], &ri->id[r]);
			if (err)
				return err;
		}
		ri->owned[r] = true;
	}
	return 0;
}

/* Appends the plugin's own metrics of @snap. */
static int add_self_items(struct series_set *set, const struct series_opts *o, const struct snapshot *snap,
			  const struct stale_tracker *st)
{
	for (size_t i = 0; i < snap->nr_self; i++) {
		const struct self_metric *m = &snap->self[i];
		struct series_item proto = { .name = m->name, .counter = m->counter, .unit = m->unit,
					     .value = m->value, .start_ms = st ? st->born_ms : 0 };
		struct label_list ll;
		int err;

		common_labels(&ll, o, m->name);
		ll_add(&ll, m->label, m->label_value);
		err = add_item(set, &proto, &ll);
		if (err)
			return err;
	}
	return 0;
}

static uint64_t new_shape(void)
{
	static uint64_t last;

	return __atomic_add_fetch(&last, 1, __ATOMIC_RELAXED);
}

/*
 * @snap has the shape of the snapshot @st was last updated with, and @set
 * was built from that one: the same columns, the same paths in the same
 * row order, the same stats present in each row, and no identity waiting
 * for a Kubernetes name. Then its series are @set's, with new values.
 */
static bool steady(const struct series_set *set, const struct stale_tracker *st, const struct snapshot *snap)
{
	if (!set->shape || set->tracker_gen != st->gen || set->nr_stale || set->nr_duplicates || !st->row_entry ||
	    st->nr != snap->nr_rows || !same_columns(st, snap))
		return false;
	for (size_t r = 0; r < snap->nr_rows; r++) {
		const struct tracked *e = &st->entries[st->row_entry[r]];
		uint64_t bits[TRACK_WORDS];

		if ((e->id && e->id->pending) || strcmp(e->path, snap->paths[r]) != 0)
			return false;
		row_bits(snap, r, bits);
		if (memcmp(bits, e->bits, sizeof(bits)) != 0)
			return false;
	}
	return true;
}

static bool same_keys(const struct series_key *keys, const struct series_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!series_key_equal(&keys[i], &items[i].key))
			return false;
	return true;
}

/* Bit @i of @set's nonzero bits, from items[@i] (the bits have room for it). */
static inline void put_nonzero(struct series_set *set, size_t i)
{
	uint64_t bit = 1ULL << (i % 64);

	if (set->items[i].value != 0)
		set->nonzero[i / 64] |= bit;
	else
		set->nonzero[i / 64] &= ~bit;
}

/* The steady state: new values into the items in place, the self metrics again. */
static int patch(struct series_set *set, const struct series_opts *o, const struct snapshot *snap,
		 const struct stale_tracker *st)
{
	size_t nr_stats = snap->nr_stats < TRACK_MAX_STATS ? snap->nr_stats : TRACK_MAX_STATS;
	size_t nr_self = set->nr_items - set->nr_row_items, i = 0;
	bool bits = set->nr_nonzero_known >= set->nr_row_items;
	struct series_key old[SNAPSHOT_MAX_SELF];
	int err;

	/*
	 * The rows' items in build()'s order, stat-major. Most values are what
	 * they were: only a changed one is converted (a double conversion is not
	 * cheap everywhere) and its nonzero bit written.
	 */
	for (size_t c = 0; c < nr_stats; c++)
		for (size_t r = 0; r < snap->nr_rows; r++) {
			struct series_item *it = &set->items[i];
			uint64_t v = snap->values[r][c];

			if (v == SAMPLE_VALUE_MISSING)
				continue;
			if (it->raw != v) {
				it->raw = v;
				it->value = sample_value(snap->stats[c], v);
				if (bits)
					put_nonzero(set, i);
			}
			i++;
		}
	set->nr_nonzero_known = bits ? i : 0;
	set->ts_ms = snap->ts_ms;
	if (nr_self > SNAPSHOT_MAX_SELF)
		return -EFAULT; /* cannot be: steady() wants no stale items */
	for (size_t k = 0; k < nr_self; k++)
		old[k] = set->items[set->nr_row_items + k].key;
	set->nr_items = set->nr_row_items;
	set->nr_labels = set->nr_row_labels;
	err = add_self_items(set, o, snap, st);
	if (err)
		return err;
	/* the self metrics' labels rarely change (a new stage or reason): then the shape does */
	if (set->nr_items - set->nr_row_items != nr_self || !same_keys(old, set->items + set->nr_row_items, nr_self))
		set->shape = new_shape();
	return 0;
}

/*
 * The nonzero bits of the items from nr_nonzero_known on (one spare word:
 * a reader may take 64 bits at any offset). Without memory they stay
 * unknown, which costs only speed.
 */
static void mark_nonzero(struct series_set *set)
{
	size_t words = set->nr_items / 64 + 2;

	if (words > set->nonzero_words) {
		void *p = realloc(set->nonzero, words * sizeof(*set->nonzero));

		if (!p) {
			set->nr_nonzero_known = 0;
			return;
		}
		set->nonzero = p;
		set->nonzero_words = words;
	}
	for (size_t i = set->nr_nonzero_known; i < set->nr_items; i++)
		put_nonzero(set, i);
	set->nonzero[set->nr_items / 64 + 1] = 0;
	set->nr_nonzero_known = set->nr_items;
}

/* The labels of every row's template, one after the other. */
struct label_pool {
	struct label_pair *l;
	struct label_len *len;
	size_t n, cap;
};

static void label_pool_free(struct label_pool *p)
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
 * Every row's template at once (build() goes stat by stat), their labels in
 * @pool: a few per row, not a label list's room for the most.
 */
static int row_templates(struct series_set *set, const struct series_opts *o, const struct snapshot *snap,
			 const struct row_idents *ri, struct row_template *tpl, struct label_pool *pool)
{
	size_t at = 0;

	for (size_t r = 0; r < snap->nr_rows; r++) {
		struct row_labels rl;
		struct label_list ll;
		int err;

		err = row_labels(set, o, snap->paths[r], ri->id[r], &rl);
		if (err)
			return err;
		row_template(&tpl[r], &ll, o, &rl);
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

/* The value of @it's label @name, or "" */
static const char *item_label(const struct series_set *set, const struct series_item *it, const char *name)
{
	for (uint32_t k = 0; k < it->nr_labels; k++)
		if (strcmp(set->labels[it->label_off + k].name, name) == 0)
			return set->labels[it->label_off + k].value;
	return "";
}

/* One warning per ten minutes at most, naming the first series that was there twice. */
static void warn_duplicates(const struct series_set *set, const struct series_item *first, size_t dropped)
{
	static int64_t next_warn_ms;

	if (set->ts_ms < next_warn_ms)
		return;
	next_warn_ms = set->ts_ms + 600000;
	mb_warn("%zu series of an interval came twice with the same labels (first: %s{cgroup=\"%s\"}): the "
		"later ones were dropped and counted (memcg_bpf_sender_dropped_samples_total, reason "
		"duplicate_series); this warning repeats at most every 10 minutes",
		dropped, first->name, item_label(set, first, "cgroup"));
}

/*
 * Drops every item whose key an earlier item has: two rows with the same
 * labels (series_key.h: the same key means the same label set) would put
 * two samples of one series into a request, which receivers reject whole.
 * O(n): an open-addressing table of item indices, at most half full, probed
 * from the key's low bits (keyed, so spread). Sets nr_duplicates; 0 or
 * -ENOMEM with @set unchanged.
 */
static int drop_duplicates(struct series_set *set)
{
	size_t nslots = 64, kept = 0, kept_rows = 0, mask;
	struct series_item first_dup = { 0 };
	uint32_t *slots;

	while (nslots < 2 * set->nr_items)
		nslots <<= 1;
	slots = calloc(nslots, sizeof(*slots)); /* item index + 1; 0: empty */
	if (!slots)
		return -ENOMEM;
	mask = nslots - 1;
	for (size_t i = 0; i < set->nr_items; i++) {
		const struct series_item *it = &set->items[i];
		size_t h = it->key.lo & mask;
		bool dup = false;

		for (; slots[h]; h = (h + 1) & mask)
			if (series_key_equal(&set->items[slots[h] - 1].key, &it->key)) {
				dup = true;
				break;
			}
		if (dup) {
			if (kept == i) /* nothing dropped before: the first */
				first_dup = *it;
			if (it->stale)
				set->nr_stale--;
			else if (it->stat)
				set->nr_values--;
			continue;
		}
		set->items[kept] = *it;
		slots[h] = (uint32_t)kept + 1;
		kept++;
		if (i < set->nr_row_items)
			kept_rows++;
	}
	free(slots);
	set->nr_row_items = kept_rows;
	set->nr_duplicates = set->nr_items - kept;
	set->nr_items = kept;
	if (set->nr_duplicates)
		warn_duplicates(set, &first_dup, set->nr_duplicates);
	return 0;
}

static int build(struct series_set *set, const struct series_opts *o, const struct snapshot *snap,
		 struct stale_tracker *st)
{
	struct metric_name_len names[TRACK_MAX_STATS];
	size_t nr_stats = snap->nr_stats < TRACK_MAX_STATS ? snap->nr_stats : TRACK_MAX_STATS;
	size_t rows = snap->nr_rows ? snap->nr_rows : 1, *order = NULL;
	struct row_idents ri = { 0 };
	struct row_template *tpl = NULL;
	struct label_pool pool = { 0 };
	int64_t *row_first = NULL;
	int err;

	set->nr_items = set->nr_labels = set->nr_stale = set->nr_values = set->nr_duplicates = 0;
	arena_reset(set);
	set->ts_ms = snap->ts_ms;
	set->host = o->host;
	set->instance_id = o->instance_id;
	for (size_t c = 0; c < nr_stats; c++) {
		char buf[METRIC_NAME_MAX];

		if (metric_name(snap->stats[c], buf, sizeof(buf)) < 0)
			return -ENAMETOOLONG;
		names[c].name = arena_strdup(set, buf);
		names[c].len = (uint32_t)strlen(buf);
		if (!names[c].name)
			return -ENOMEM;
	}
	err = -ENOMEM;
	order = malloc(rows * sizeof(*order));
	row_first = calloc(rows, sizeof(*row_first));
	ri.id = calloc(rows, sizeof(*ri.id));
	ri.owned = calloc(rows, sizeof(*ri.owned));
	ri.entry = malloc(rows * sizeof(*ri.entry));
	tpl = malloc(rows * sizeof(*tpl));
	if (!order || !row_first || !ri.id || !ri.owned || !ri.entry || !tpl)
		goto free_tmp;
	for (size_t r = 0; r < rows; r++)
		ri.entry[r] = SIZE_MAX;
	if (st) {
		for (size_t r = 0; r < snap->nr_rows; r++)
			order[r] = r;
		qsort_r(order, snap->nr_rows, sizeof(*order), cmp_path_idx, (void *)snap->paths);
		first_seen(st, snap, order, row_first, ri.entry);
	}
	err = row_idents(o, snap, st, &ri);
	if (err)
		goto free_tmp;
	err = row_templates(set, o, snap, &ri, tpl, &pool);
	if (err)
		goto free_tmp;
	/* stat-major (series_set.h) */
	for (size_t c = 0; c < nr_stats; c++)
		for (size_t r = 0; r < snap->nr_rows; r++) {
			uint64_t v = snap->values[r][c];

			if (v == SAMPLE_VALUE_MISSING)
				continue;
			err = add_stat_item(set, &tpl[r], snap->stats[c], &names[c], v, false, row_first[r]);
			if (err)
				goto free_tmp;
		}
	set->nr_row_items = set->nr_items;
	set->nr_row_labels = set->nr_labels;
	if (st) {
		err = track(set, o, snap, names, order, row_first, &ri, st);
		if (err)
			goto free_tmp;
	}
	err = add_self_items(set, o, snap, st);
	if (!err)
		err = drop_duplicates(set);
free_tmp:
	row_idents_free(&ri, rows);
	label_pool_free(&pool);
	free(tpl);
	free(row_first);
	free(order);
	return err;
}

int series_set_build(struct series_set *set, const struct series_opts *o, const struct snapshot *snap,
		     struct stale_tracker *st)
{
	int err;

	if (st && steady(set, st, snap)) {
		err = patch(set, o, snap, st); /* knows the rows' nonzero bits */
	} else {
		set->nr_nonzero_known = 0;
		err = build(set, o, snap, st);
		set->shape = new_shape();
		set->tracker_gen = st ? st->gen : 0;
	}
	if (err)
		set->shape = 0;
	else
		mark_nonzero(set);
	return err;
}
