// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's allocation profile as series: per call site of the top and
 * the "other" row, memcg_bpf_kernel_alloc_bytes and _calls (gauges: what
 * is held now) with the labels site, module and func (escaped as every
 * label value is), besides host and the static labels. Only in intervals
 * whose snapshot read the profile; then a site shipped at the last read
 * and missing now (it left the top, or its module was unloaded) gets a
 * stale marker, so that it ends at the receiver instead of fading out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "series/row_labels.h"
#include "series/stale_tracker.h"
#include "series/string_arena.h"

#define ALLOC_BYTES "memcg_bpf_kernel_alloc_bytes"
#define ALLOC_CALLS "memcg_bpf_kernel_alloc_calls"

void alloc_sent_clear(struct stale_tracker *st)
{
	for (size_t i = 0; i < st->nr_alloc; i++) {
		free(st->alloc[i].site);
		free(st->alloc[i].module);
		free(st->alloc[i].func);
	}
	free(st->alloc);
	st->alloc = NULL;
	st->nr_alloc = 0;
}

/* One item of a site: its labels escaped into the set's arena. */
static int add_site_item(struct series_set *set, const struct series_opts *o, const char *name, const char *site,
			 const char *module, const char *func, double value, bool stale)
{
	struct series_item proto = { .name = name, .unit = strcmp(name, ALLOC_BYTES) ? "{call}" : "By",
				     .stale = stale, .value = stale ? stale_nan() : value };
	const char *esc[3];
	const char *raw[3] = { site, module, func };
	struct label_list ll;
	size_t len;

	for (int i = 0; i < 3; i++) {
		esc[i] = raw[i][0] ? series_arena_escape(set, raw[i], &len) : "";
		if (!esc[i])
			return -ENOMEM;
	}
	label_list_common(&ll, o, name);
	label_list_add(&ll, "site", esc[0]);
	label_list_add(&ll, "module", esc[1]);
	label_list_add(&ll, "func", esc[2]);
	return add_item_with_labels(set, &proto, &ll);
}

static bool sent_now(const struct snapshot *snap, const struct alloc_sent *a)
{
	for (size_t i = 0; i < snap->nr_alloc; i++) {
		const struct snapshot_alloc_row *r = &snap->alloc[i];

		if (!strcmp(r->site, a->site) && !strcmp(r->module, a->module) && !strcmp(r->func, a->func))
			return true;
	}
	return false;
}

/* What was sent now, for the next read's stale markers. */
static int remember(struct stale_tracker *st, const struct snapshot *snap)
{
	struct alloc_sent *sent = calloc(snap->nr_alloc ? snap->nr_alloc : 1, sizeof(*sent));

	if (!sent)
		return -ENOMEM;
	alloc_sent_clear(st);
	st->alloc = sent;
	for (size_t i = 0; i < snap->nr_alloc; i++) {
		struct alloc_sent *a = &sent[st->nr_alloc++];

		a->site = strdup(snap->alloc[i].site);
		a->module = strdup(snap->alloc[i].module);
		a->func = strdup(snap->alloc[i].func);
		if (!a->site || !a->module || !a->func)
			return -ENOMEM;
	}
	return 0;
}

int add_alloc_items(struct series_set *set, const struct series_opts *o, const struct snapshot *snap,
		    struct stale_tracker *st)
{
	int err = 0;

	if (!snap->alloc_fresh)
		return 0;
	for (size_t i = 0; i < snap->nr_alloc && !err; i++) {
		const struct snapshot_alloc_row *r = &snap->alloc[i];

		err = add_site_item(set, o, ALLOC_BYTES, r->site, r->module, r->func, (double)r->bytes, false);
		if (!err)
			err = add_site_item(set, o, ALLOC_CALLS, r->site, r->module, r->func, (double)r->calls, false);
	}
	for (size_t i = 0; st && i < st->nr_alloc && !err; i++) {
		const struct alloc_sent *a = &st->alloc[i];

		if (sent_now(snap, a))
			continue;
		err = add_site_item(set, o, ALLOC_BYTES, a->site, a->module, a->func, 0, true);
		if (!err)
			err = add_site_item(set, o, ALLOC_CALLS, a->site, a->module, a->func, 0, true);
	}
	if (!err && st)
		err = remember(st, snap);
	return err;
}
