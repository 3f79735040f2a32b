// SPDX-License-Identifier: GPL-2.0-only
/* Series from snapshots: sorted labels, values, stale markers, self metrics. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sampling/sample_table.h"
#include "series/series_set.h"
#include "series/snapshot.h"
#include "item_labels.h"

static const struct stat_def *cols[2];
static const struct label_pair statics[] = { { "zone", "z1" }, { "Dc", "east" } };
static const struct series_opts opts = { .host = "h1", .labels = statics, .nr_labels = 2 };

static struct snapshot *snap_of(const char *const *paths, size_t n, uint64_t ts_ms, uint64_t base)
{
	struct sample_table t;
	struct snapshot *s;

	cols[0] = stat_lookup("anon");
	cols[1] = stat_lookup("pgfault");
	sample_table_init(&t, cols, 2);
	t.timestamp_ns = ts_ms * 1000000u + 999;
	for (size_t i = 0; i < n; i++) {
		struct sample_row *r = sample_table_add(&t, i + 1, paths[i], 1);

		r->values[0] = base + i;
		r->values[1] = strcmp(paths[i], "/nofault") ? base + 100 + i : SAMPLE_VALUE_MISSING;
	}
	assert_int_equal(snapshot_from_table(&t, NULL, NULL, &s), 0);
	sample_table_free(&t);
	return s;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_items_and_sorted_labels(void **state)
{
	const char *paths[] = { "/b", "/a\xff", "/nofault" };
	struct snapshot *s = snap_of(paths, 3, 1700000000123, 10);
	struct series_set set;

	series_set_init(&set);
	assert_int_equal(series_set_build(&set, &opts, s, NULL), 0);
	assert_int_equal(set.nr_items, 5); /* /nofault has no pgfault */
	assert_int_equal(set.ts_ms, 1700000000123);
	for (size_t i = 0; i < set.nr_items; i++) {
		const struct series_item *it = &set.items[i];

		assert_int_equal(it->nr_labels, 5); /* Dc, __name__, cgroup, host, zone */
		for (uint32_t k = 1; k < it->nr_labels; k++)
			assert_true(strcmp(item_label_at(&set, it, k - 1).name, item_label_at(&set, it, k).name) < 0);
		assert_string_equal(item_label_at(&set, it, 0).name, "Dc");
		assert_string_equal(item_label(&set, it, "host"), "h1");
	}
	/* stat-major: every cgroup's anon, then every cgroup's pgfault */
	assert_string_equal(set.items[0].name, "memcg_anon_bytes");
	assert_string_equal(item_label(&set, &set.items[0], "cgroup"), "/b");
	assert_true(set.items[0].value == 10.0);
	assert_string_equal(set.items[1].name, "memcg_anon_bytes");
	assert_string_equal(item_label(&set, &set.items[1], "cgroup"), "/a\\xff");
	assert_string_equal(item_label(&set, &set.items[2], "cgroup"), "/nofault");
	assert_string_equal(set.items[3].name, "memcg_pgfault_total");
	assert_true(set.items[3].counter);
	assert_string_equal(item_label(&set, &set.items[3], "cgroup"), "/b");
	assert_true(set.items[3].value == 110.0);
	assert_string_equal(item_label(&set, &set.items[4], "cgroup"), "/a\\xff");
	series_set_free(&set);
	snapshot_free(s);
}

static void test_stale_markers_for_vanished_series(void **state)
{
	const char *before[] = { "/a", "/b", "/c" }, *after[] = { "/c", "/nofault", "/a" };
	struct snapshot *s1 = snap_of(before, 3, 1000, 1), *s2 = snap_of(after, 3, 2000, 1);
	struct stale_tracker *st = stale_tracker_new();
	struct series_set set;
	size_t stale = 0;

	series_set_init(&set);
	assert_int_equal(series_set_build(&set, &opts, s1, st), 0);
	assert_int_equal(set.nr_stale, 0);
	assert_int_equal(series_set_build(&set, &opts, s2, st), 0);
	/* /b vanished (2 series); /nofault is new and lacks pgfault, nothing to mark */
	assert_int_equal(set.nr_stale, 2);
	for (size_t i = 0; i < set.nr_items; i++) {
		const struct series_item *it = &set.items[i];

		if (!it->stale)
			continue;
		stale++;
		assert_string_equal(item_label(&set, it, "cgroup"), "/b");
		assert_true(is_stale_nan(it->value));
		assert_true(isnan(it->value));
	}
	assert_int_equal(stale, 2);
	/* the next interval has nothing more to mark */
	assert_int_equal(series_set_build(&set, &opts, s2, st), 0);
	assert_int_equal(set.nr_stale, 0);
	series_set_free(&set);
	stale_tracker_free(st);
	snapshot_free(s1);
	snapshot_free(s2);
}

static void test_stale_marker_for_a_stat_gone_missing(void **state)
{
	const char *p1[] = { "/x" }, *p2[] = { "/nofault" };
	struct snapshot *s1 = snap_of(p1, 1, 1000, 1), *s2 = snap_of(p2, 1, 2000, 1), *s3 = snap_of(p2, 1, 3000, 1);
	struct stale_tracker *st = stale_tracker_new();
	struct series_set set;

	/* same path in both: rename the row of s1 so that it matches */
	s1->paths[0] = "/nofault";
	series_set_init(&set);
	assert_int_equal(series_set_build(&set, &opts, s1, st), 0);
	assert_int_equal(series_set_build(&set, &opts, s2, st), 0);
	assert_int_equal(set.nr_stale, 1);
	assert_int_equal(series_set_build(&set, &opts, s3, st), 0);
	assert_int_equal(set.nr_stale, 0);
	series_set_free(&set);
	stale_tracker_free(st);
	snapshot_free(s1);
	snapshot_free(s2);
	snapshot_free(s3);
}

static void test_self_metrics(void **state)
{
	const char *paths[] = { "/a" };
	struct snapshot *s = snap_of(paths, 1, 1000, 1);
	struct series_set set;
	const struct series_item *it;

	snapshot_add_self(s, "memcg_bpf_sender_dropped_batches_total", "reason", "queue_full", 3, true, "{batch}");
	series_set_init(&set);
	assert_int_equal(series_set_build(&set, &opts, s, NULL), 0);
	assert_int_equal(set.nr_items, 3);
	it = &set.items[2];
	assert_null(it->stat);
	assert_string_equal(item_label(&set, it, "reason"), "queue_full");
	assert_null(item_label(&set, it, "cgroup"));
	assert_string_equal(item_label(&set, it, "__name__"), "memcg_bpf_sender_dropped_batches_total");
	assert_int_equal(set.nr_values, 2);
	series_set_free(&set);
	snapshot_free(s);
}

static void test_derived_labels(void **state)
{
	const char *paths[] = { "/system.slice/ssh.service" };
	struct snapshot *s = snap_of(paths, 1, 1000, 1);
	struct series_opts o = opts;
	struct series_set set;

	o.unit_label = true;
	o.container_id_label = true;
	series_set_init(&set);
	assert_int_equal(series_set_build(&set, &o, s, NULL), 0);
	assert_string_equal(item_label(&set, &set.items[0], "unit"), "ssh.service");
	assert_null(item_label(&set, &set.items[0], "container_id")); /* empty: not sent */
	series_set_free(&set);
	snapshot_free(s);
}

/* A path twice in one snapshot: each row has its own identity (no entry shared, nothing freed twice). */
static void test_a_path_twice_keeps_its_labels(void **state)
{
	const char *paths[] = { "/system.slice/docker-" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
				".scope",
				"/system.slice/docker-" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
				".scope" };
	struct snapshot *s = snap_of(paths, 2, 1000, 1);
	struct stale_tracker *st = stale_tracker_new();
	struct series_opts o = opts;
	struct series_set set;

	o.unit_label = o.container_id_label = true;
	series_set_init(&set);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(series_set_build(&set, &o, s, st), 0);
		assert_int_equal(set.nr_stale, 0);
		/* one series per label set: the second row's two are dropped and counted */
		assert_int_equal(set.nr_items, 2);
		assert_int_equal(set.nr_duplicates, 2);
		assert_int_equal(set.nr_values, 2);
		assert_string_equal(item_label(&set, &set.items[1], "container_id"),
				    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	}
	series_set_free(&set);
	stale_tracker_free(st);
	snapshot_free(s);
}

#define TENANT "/user.slice/user-1000.slice/user@1000.service/app.slice/"

/*
 * Two names a tenant can pick under its own slice that the unkeyed series
 * hash of old mapped to one key: now two series, two keys, two label sets.
 */
static void test_colliding_names_of_old_get_two_keys(void **state)
{
	const char *paths[] = { TENANT ".<\"C5OpC]];Y],(7", TENANT "aF8w@(lW\"\"D&\"SWH" };
	const struct series_opts plain = { .host = "h1" }; /* the plugin's labels: cgroup first */
	struct snapshot *s = snap_of(paths, 2, 1000, 1);
	struct series_set set;

	series_set_init(&set);
	assert_int_equal(series_set_build(&set, &plain, s, NULL), 0);
	assert_int_equal(set.nr_duplicates, 0);
	assert_int_equal(set.nr_items, 4);
	assert_false(series_key_equal(&set.items[0].key, &set.items[1].key));
	assert_false(series_key_equal(&set.items[2].key, &set.items[3].key));
	assert_string_equal(item_label(&set, &set.items[0], "cgroup"), paths[0]);
	assert_string_equal(item_label(&set, &set.items[1], "cgroup"), paths[1]);
	series_set_free(&set);
	snapshot_free(s);
}

/* A tiny fixed-seed generator: the same names on every run. */
static uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int cmp_key(const void *a, const void *b)
{
	const struct series_key *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/*
 * Property: for random sets of names (bytes 1-255 but '/', backslashes and
 * 'x' and hex digits often, so that escapes meet), distinct paths give
 * distinct cgroup labels and distinct keys.
 */
static void test_random_names_distinct_labels_and_keys(void **state)
{
	static const char often[] = "\\\\xxff0a7f";
	enum { NAMES = 3000 };
	char **paths = calloc(NAMES, sizeof(*paths));
	const char **labels = calloc(NAMES, sizeof(*labels));
	struct series_key *keys = calloc(NAMES, sizeof(*keys));
	uint64_t seed = 0x5eed5eed12345678ULL;
	struct snapshot *s;
	struct series_set set;
	size_t n = 0;

	for (size_t i = 0; i < NAMES; i++) {
		size_t len = 1 + next_random(&seed) % 6;
		char name[16];

		for (size_t k = 0; k < len; k++) {
			uint64_t r = next_random(&seed);
			unsigned char c = r & 1 ? (unsigned char)often[(r >> 1) % (sizeof(often) - 1)] : (unsigned char)(1 + (r >> 8) % 255);

			name[k] = (char)(c == '/' ? '\\' : c);
		}
		name[len] = '\0';
		paths[i] = malloc(len + 2);
		paths[i][0] = '/';
		memcpy(paths[i] + 1, name, len + 1);
	}
	/* distinct paths only */
	qsort(paths, NAMES, sizeof(*paths), cmp_str);
	for (size_t i = 0; i < NAMES; i++)
		if (!n || strcmp(paths[n - 1], paths[i]) != 0)
			paths[n++] = paths[i];
		else
			free(paths[i]);
	s = snap_of((const char *const *)paths, n, 1000, 1);
	series_set_init(&set);
	assert_int_equal(series_set_build(&set, &opts, s, NULL), 0);
	assert_int_equal(set.nr_duplicates, 0);
	for (size_t i = 0; i < n; i++) { /* the first n items: every path's anon */
		labels[i] = item_label(&set, &set.items[i], "cgroup");
		keys[i] = set.items[i].key;
	}
	qsort(labels, n, sizeof(*labels), cmp_str);
	qsort(keys, n, sizeof(*keys), cmp_key);
	for (size_t i = 0; i + 1 < n; i++) {
		if (strcmp(labels[i], labels[i + 1]) == 0)
			fail_msg("two paths, one label: %s", labels[i]);
		assert_false(series_key_equal(&keys[i], &keys[i + 1]));
	}
	assert_true(n > NAMES / 2);
	series_set_free(&set);
	snapshot_free(s);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(labels);
	free(keys);
}

static int64_t start_of(const struct series_set *set, const char *cgroup, bool stale)
{
	for (size_t i = 0; i < set->nr_items; i++) {
		const struct series_item *it = &set->items[i];

		for (uint32_t k = 0; k < it->nr_labels; k++)
			if (strcmp(item_label_at(set, it, k).name, "cgroup") == 0 &&
			    strcmp(item_label_at(set, it, k).value, cgroup) == 0 && it->stale == stale)
				return it->start_ms;
	}
	fail_msg("no series for %s", cgroup);
	return -1;
}

/* start_ms: when the cgroup was first seen; a cgroup that comes back starts again. */
static void test_start_time_is_first_seen(void **state)
{
	static const char *const r0[] = { "/a", "/b" }, *const r1[] = { "/a", "/c" }, *const r2[] = { "/a", "/b" };
	struct stale_tracker *st = stale_tracker_new();
	struct series_set set;
	struct snapshot *s;

	series_set_init(&set);
	s = snap_of(r0, 2, 1000, 1);
	snapshot_add_self(s, "memcg_bpf_sender_retries_total", NULL, NULL, 1, true, "{retry}");
	assert_int_equal(series_set_build(&set, &opts, s, st), 0);
	snapshot_free(s);
	assert_int_equal(start_of(&set, "/a", false), 1000);
	assert_int_equal(start_of(&set, "/b", false), 1000);
	assert_int_equal(set.items[set.nr_items - 1].start_ms, 1000); /* self */

	s = snap_of(r1, 2, 2000, 1);
	snapshot_add_self(s, "memcg_bpf_sender_retries_total", NULL, NULL, 1, true, "{retry}");
	assert_int_equal(series_set_build(&set, &opts, s, st), 0);
	snapshot_free(s);
	assert_int_equal(start_of(&set, "/a", false), 1000); /* stays */
	assert_int_equal(start_of(&set, "/c", false), 2000); /* new */
	assert_int_equal(start_of(&set, "/b", true), 1000);  /* its stale marker */
	assert_int_equal(set.items[set.nr_items - 1].start_ms, 1000);

	s = snap_of(r2, 2, 3000, 1);
	assert_int_equal(series_set_build(&set, &opts, s, st), 0);
	snapshot_free(s);
	assert_int_equal(start_of(&set, "/a", false), 1000);
	assert_int_equal(start_of(&set, "/b", false), 3000); /* came back: a new series */

	/* without a tracker there is no history */
	s = snap_of(r2, 2, 4000, 1);
	assert_int_equal(series_set_build(&set, &opts, s, NULL), 0);
	snapshot_free(s);
	assert_int_equal(start_of(&set, "/a", false), 0);
	series_set_free(&set);
	stale_tracker_free(st);
}

/* Two sets, item by item: the same series with the same values. */
static void assert_same_sets(const struct series_set *a, const struct series_set *b)
{
	assert_int_equal(a->nr_items, b->nr_items);
	assert_int_equal(a->ts_ms, b->ts_ms);
	for (size_t i = 0; i < a->nr_items; i++) {
		const struct series_item *x = &a->items[i], *y = &b->items[i];

		assert_string_equal(x->name, y->name);
		assert_true(x->key.lo == y->key.lo && x->key.hi == y->key.hi);
		assert_memory_equal(&x->value, &y->value, sizeof(x->value));
		assert_int_equal(x->stale, y->stale);
		assert_int_equal(x->start_ms, y->start_ms);
		assert_int_equal(x->nr_labels, y->nr_labels);
		for (uint32_t k = 0; k < x->nr_labels; k++) {
			assert_string_equal(item_label_at(a, x, k).name, item_label_at(b, y, k).name);
			assert_string_equal(item_label_at(a, x, k).value, item_label_at(b, y, k).value);
		}
	}
}

/*
 * The steady state patches values in place and keeps the shape; what it
 * builds equals a full build. A vanished cgroup changes the shape, and so
 * does the interval after (its stale markers are gone again).
 */
static void test_steady_state_patches_values(void **state)
{
	const char *paths[] = { "/a", "/nofault", "/c" };
	struct snapshot *s[5] = {
		/* values that move, then stay (3000), then move again */
		snap_of(paths, 3, 1000, 10), snap_of(paths, 3, 2000, 20), snap_of(paths, 3, 3000, 20),
		snap_of(paths, 2, 4000, 40), snap_of(paths, 2, 5000, 50),
	};
	struct stale_tracker *ta = stale_tracker_new(), *tb = stale_tracker_new();
	struct series_set a, b[5];
	uint64_t shape;

	series_set_init(&a);
	assert_int_equal(series_set_build(&a, &opts, s[0], ta), 0);
	shape = a.shape;
	assert_true(shape != 0);
	for (size_t i = 0; i < 5; i++) {
		series_set_init(&b[i]); /* a new set each time: a full build */
		assert_int_equal(series_set_build(&b[i], &opts, s[i], tb), 0);
		if (i == 0)
			continue;
		assert_int_equal(series_set_build(&a, &opts, s[i], ta), 0);
		assert_same_sets(&a, &b[i]);
		if (i < 3)
			assert_true(a.shape == shape);
		else
			assert_true(a.shape != shape);
		shape = a.shape;
	}
	assert_int_equal(a.nr_stale, 0); /* the markers of /c were sent at 4000 */
	for (size_t i = 0; i < 5; i++) {
		series_set_free(&b[i]);
		snapshot_free(s[i]);
	}
	series_set_free(&a);
	stale_tracker_free(ta);
	stale_tracker_free(tb);
}

/*
 * A snapshot that takes a table's rows holds what a copy would, whatever it
 * held before; the table is left empty with room to sample into.
 */
static void test_snapshot_takes_rows(void **state)
{
	const char *big[] = { "/a", "/nofault", "/c/with/a/longer/path" }, *small[] = { "/z" };
	struct snapshot *s = snapshot_new();

	assert_non_null(s);
	for (size_t k = 0; k < 3; k++) {
		const char *const *paths = k == 1 ? small : big;
		size_t n = k == 1 ? 1 : 3;
		struct snapshot *copy;
		struct sample_table t;

		sample_table_init(&t, cols, 2);
		t.timestamp_ns = (1000 + k) * 1000000u;
		for (size_t i = 0; i < n; i++) {
			struct sample_row *r = sample_table_add(&t, i + 1, paths[i], 1);

			r->values[0] = 10 * k + i;
			r->values[1] = i == 1 ? SAMPLE_VALUE_MISSING : 100 * k + i;
		}
		assert_int_equal(snapshot_from_table(&t, NULL, NULL, &copy), 0);
		snapshot_add_self(s, "memcg_bpf_sender_retries_total", NULL, NULL, 1, true, "{retry}");
		assert_int_equal(snapshot_take_rows(s, &t, NULL, NULL), 0);
		assert_int_equal(t.nr_rows, 0);
		assert_int_equal(s->ts_ms, copy->ts_ms);
		assert_int_equal(s->nr_stats, 2);
		assert_int_equal(s->nr_rows, n);
		assert_int_equal(s->nr_values, copy->nr_values);
		assert_int_equal(s->nr_self, 0);
		for (size_t i = 0; i < n; i++) {
			assert_string_equal(s->paths[i], paths[i]);
			assert_string_equal(copy->paths[i], paths[i]);
			assert_memory_equal(s->values[i], copy->values[i], 2 * sizeof(uint64_t));
		}
		assert_memory_equal(s->stats, copy->stats, 2 * sizeof(s->stats[0]));
		snapshot_free(copy);
		sample_table_free(&t);
	}
	snapshot_free(s);
}

/* A second set built in between changes the tracker: the first cannot patch. */
static void test_steady_state_needs_the_tracker_it_was_built_with(void **state)
{
	const char *paths[] = { "/a", "/b" };
	struct snapshot *s1 = snap_of(paths, 2, 1000, 10), *s2 = snap_of(paths, 1, 2000, 20),
			*s3 = snap_of(paths, 1, 3000, 30);
	struct stale_tracker *t = stale_tracker_new();
	struct series_set a, b;
	uint64_t shape;

	series_set_init(&a);
	series_set_init(&b);
	assert_int_equal(series_set_build(&a, &opts, s1, t), 0);
	shape = a.shape;
	assert_int_equal(series_set_build(&b, &opts, s2, t), 0); /* /b gone: stale markers in b */
	assert_int_equal(b.nr_stale, 2);
	assert_int_equal(series_set_build(&a, &opts, s3, t), 0);
	assert_true(a.shape != shape);
	assert_int_equal(a.nr_stale, 0);
	assert_int_equal(a.nr_items - a.nr_row_items, s3->nr_self);
	assert_int_equal(a.nr_row_items, 2);
	series_set_free(&a);
	series_set_free(&b);
	snapshot_free(s1);
	snapshot_free(s2);
	snapshot_free(s3);
	stale_tracker_free(t);
}

/* A per-node column: memcg_numa_<stat>, its node in the label "node"; one series per node, stale ones too. */
static void test_node_columns_carry_a_node_label(void **state)
{
	const struct stat_def *nodes[3] = { stat_lookup("anon"), stat_on_node(numa_stat_lookup("anon"), 0),
					    stat_on_node(numa_stat_lookup("anon"), 1) };
	struct stale_tracker *st = stale_tracker_new();
	struct sample_table t;
	struct snapshot *s;
	struct series_set set;
	struct sample_row *r;

	(void)state;
	sample_table_init(&t, nodes, 3);
	t.timestamp_ns = 1000000000;
	r = sample_table_add(&t, 7, "/a", 1);
	r->values[0] = 30;
	r->values[1] = 10;
	r->values[2] = 20;
	assert_int_equal(snapshot_from_table(&t, NULL, NULL, &s), 0);
	series_set_init(&set);
	assert_int_equal(series_set_build(&set, &opts, s, st), 0);
	assert_int_equal(set.nr_items, 3);
	assert_string_equal(set.items[0].name, "memcg_anon_bytes");
	assert_null(item_label(&set, &set.items[0], "node"));
	for (int i = 1; i < 3; i++) {
		const struct series_item *it = &set.items[i];

		assert_string_equal(it->name, "memcg_numa_anon_bytes");
		assert_string_equal(item_label(&set, it, "node"), i == 1 ? "0" : "1");
		assert_string_equal(item_label(&set, it, "__name__"), "memcg_numa_anon_bytes");
		assert_string_equal(item_label(&set, it, "cgroup"), "/a");
		assert_true(it->value == (i == 1 ? 10.0 : 20.0));
		assert_int_equal(it->nr_labels, 6); /* Dc, __name__, cgroup, host, node, zone */
		for (uint32_t k = 1; k < it->nr_labels; k++)
			assert_true(strcmp(item_label_at(&set, it, k - 1).name, item_label_at(&set, it, k).name) < 0);
	}
	assert_false(series_key_equal(&set.items[1].key, &set.items[2].key));
	snapshot_free(s);
	/* node 1's value goes missing: its series gets a stale marker with its node label */
	r = &t.rows[0];
	r->values[2] = SAMPLE_VALUE_MISSING;
	t.timestamp_ns = 2000000000;
	assert_int_equal(snapshot_from_table(&t, NULL, NULL, &s), 0);
	assert_int_equal(series_set_build(&set, &opts, s, st), 0);
	assert_int_equal(set.nr_stale, 1);
	for (size_t i = 0; i < set.nr_items; i++)
		if (set.items[i].stale)
			assert_string_equal(item_label(&set, &set.items[i], "node"), "1");
	series_set_free(&set);
	stale_tracker_free(st);
	snapshot_free(s);
	sample_table_free(&t);
}

/* The allocation profile: items per site with site/module/func, only when read; a site gone gets stale markers. */
static void test_alloc_items_and_stale_sites(void **state)
{
	const char *paths[] = { "/a" };
	struct alloc_row rows[3] = {
		{ .bytes = 4096, .calls = 2, .site = "mm/a.c:1", .module = "", .func = "fa", .accurate = true },
		{ .bytes = 8192, .calls = 1, .site = "drv/x.c:9", .module = "xmod", .func = "fx", .accurate = true },
		{ .bytes = 1, .calls = 1, .site = "mm/b.c:2", .module = "", .func = "fb", .accurate = true },
	};
	const struct alloc_row *top[2] = { &rows[1], &rows[0] };
	struct allocinfo_ranked read = { .top = top, .nr_top = 2, .other = { .sites = 1, .bytes = 1, .calls = 1 } };
	struct stale_tracker *st = stale_tracker_new();
	struct snapshot *s = snap_of(paths, 1, 1000, 1);
	struct series_set set;
	size_t alloc = 0, stale = 0;

	(void)state;
	series_set_init(&set);
	assert_int_equal(snapshot_set_alloc(s, &read), 0);
	assert_int_equal(series_set_build(&set, &opts, s, st), 0);
	for (size_t i = 0; i < set.nr_items; i++) {
		const struct series_item *it = &set.items[i];

		if (strncmp(it->name, "memcg_bpf_kernel_alloc_", 23))
			continue;
		alloc++;
		if (!strcmp(item_label(&set, it, "site"), "drv/x.c:9")) {
			assert_string_equal(item_label(&set, it, "module"), "xmod");
			assert_string_equal(item_label(&set, it, "func"), "fx");
			assert_true(it->value == (strcmp(it->name, "memcg_bpf_kernel_alloc_bytes") ? 1.0 : 8192.0));
		}
		if (!strcmp(item_label(&set, it, "site"), "other")) {
			assert_null(item_label(&set, it, "module"));
			assert_null(item_label(&set, it, "func"));
		}
	}
	assert_int_equal(alloc, 6); /* 2 sites and other, bytes and calls */
	snapshot_free(s);
	/* an interval without a read: no profile items, nothing stale */
	s = snap_of(paths, 1, 2000, 1);
	assert_int_equal(series_set_build(&set, &opts, s, st), 0);
	for (size_t i = 0; i < set.nr_items; i++)
		assert_true(strncmp(set.items[i].name, "memcg_bpf_kernel_alloc_", 23) != 0);
	assert_int_equal(set.nr_stale, 0);
	snapshot_free(s);
	/* the next read lacks xmod's site: its two series go stale, with their labels */
	top[0] = &rows[0];
	top[1] = &rows[2];
	s = snap_of(paths, 1, 3000, 1);
	assert_int_equal(snapshot_set_alloc(s, &read), 0);
	assert_int_equal(series_set_build(&set, &opts, s, st), 0);
	for (size_t i = 0; i < set.nr_items; i++) {
		if (!set.items[i].stale)
			continue;
		stale++;
		assert_string_equal(item_label(&set, &set.items[i], "site"), "drv/x.c:9");
		assert_string_equal(item_label(&set, &set.items[i], "module"), "xmod");
	}
	assert_int_equal(stale, 2);
	series_set_free(&set);
	stale_tracker_free(st);
	snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_items_and_sorted_labels),
		cmocka_unit_test(test_stale_markers_for_vanished_series),
		cmocka_unit_test(test_stale_marker_for_a_stat_gone_missing),
		cmocka_unit_test(test_self_metrics),
		cmocka_unit_test(test_derived_labels),
		cmocka_unit_test(test_a_path_twice_keeps_its_labels),
		cmocka_unit_test(test_colliding_names_of_old_get_two_keys),
		cmocka_unit_test(test_random_names_distinct_labels_and_keys),
		cmocka_unit_test(test_start_time_is_first_seen),
		cmocka_unit_test(test_steady_state_patches_values),
		cmocka_unit_test(test_steady_state_needs_the_tracker_it_was_built_with),
		cmocka_unit_test(test_snapshot_takes_rows),
		cmocka_unit_test(test_node_columns_carry_a_node_label),
		cmocka_unit_test(test_alloc_items_and_stale_sites),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
