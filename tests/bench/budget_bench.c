// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cgroup budget's own work per interval (issue 48): cgroup_budget_apply()
 * on the table of bench_budget's host, 50,000 cgroups (1,000 services under
 * /system.slice, a tenant's 49,000 under /user.slice/tenant) in the walk's
 * pre-order, with the default budgets (MaxChildren 1000, MaxCgroups
 * 10000), steady state (the same table every interval, as most rows are).
 *   budget-bench [INTERVALS]   (default 50)
 * Prints the mean and the best time of one apply (the first, which grows
 * the arrays, left out) and the number of cgroups kept.
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "sampling/cgroup_budget.h"
#include "sampling/sample_table.h"
#include "sampling/stat_catalog.h"

#define SERVICES 1000
#define TENANT 49000

static void add_row(struct sample_table *t, uint64_t *id, const char *path, int depth, uint64_t *seed)
{
	struct sample_row *row = sample_table_add(t, (*id)++, path, depth);

	if (!row) {
		fprintf(stderr, "budget-bench: out of memory\n");
		exit(1);
	}
	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
	row->values[0] = (*seed >> 33) % 100000 * 4096; /* up to 400 MB, many ties */
}

int main(int argc, char **argv)
{
	const struct stat_def *cols[1] = { stat_lookup(CGROUP_BUDGET_RANK_STAT) };
	struct cgroup_budget_limits limits = { CGROUP_BUDGET_MAX_CHILDREN, CGROUP_BUDGET_MAX_CGROUPS };
	int intervals = argc > 1 ? atoi(argv[1]) : 50;
	uint64_t id = 1, seed = 1, best = UINT64_MAX, sum = 0;
	struct cgroup_budget *b;
	struct sample_table t;
	size_t kept = 0;
	char path[64];

	if (intervals < 2) {
		fprintf(stderr, "usage: budget-bench [INTERVALS >= 2]\n");
		return 2;
	}
	sample_table_init(&t, cols, 1);
	add_row(&t, &id, "/", 0, &seed);
	add_row(&t, &id, "/system.slice", 1, &seed);
	for (int i = 0; i < SERVICES; i++) {
		snprintf(path, sizeof(path), "/system.slice/svc%d.service", i);
		add_row(&t, &id, path, 2, &seed);
	}
	add_row(&t, &id, "/user.slice", 1, &seed);
	add_row(&t, &id, "/user.slice/tenant", 2, &seed);
	for (int i = 0; i < TENANT; i++) {
		snprintf(path, sizeof(path), "/user.slice/tenant/c%d", i);
		add_row(&t, &id, path, 3, &seed);
	}
	if (cgroup_budget_new(&limits, &b)) {
		fprintf(stderr, "budget-bench: out of memory\n");
		return 1;
	}
	for (int i = 0; i < intervals; i++) {
		bool *keep = cgroup_budget_rows(b, t.nr_rows);
		uint64_t start, ns;

		if (!keep)
			return 1;
		for (size_t r = 0; r < t.nr_rows; r++)
			keep[r] = true;
		start = clock_ns(CLOCK_MONOTONIC);
		if (cgroup_budget_apply(b, &t, 0, keep))
			return 1;
		ns = clock_ns(CLOCK_MONOTONIC) - start;
		if (i) {
			sum += ns;
			best = ns < best ? ns : best;
		}
		kept = 0;
		for (size_t r = 0; r < t.nr_rows; r++)
			kept += keep[r];
	}
	printf("budget-bench: %zu cgroups, %zu kept: apply %.2f ms mean, %.2f ms best over %d intervals\n",
	       t.nr_rows, kept, sum / 1e6 / (intervals - 1), best / 1e6, intervals - 1);
	cgroup_budget_free(b);
	sample_table_free(&t);
	return 0;
}
