/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One interval handed from the read callback to the sender: the selected
 * rows of the sample table, taken with the table's storage (the sampler gets
 * other storage to sample into at once) or copied, plus the plugin's own
 * metrics at that moment. Owned by whoever holds it; snapshot_free()
 * accepts NULL.
 */
#ifndef MEMCG_BPF_SNAPSHOT_H
#define MEMCG_BPF_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "allocinfo/allocinfo_watch.h"
#include "sampling/sample_table.h"
#include "sampling/stat_catalog.h"

#define SNAPSHOT_MAX_SELF 48

struct self_metric {
	const char *name;   /* static string, e.g. "memcg_bpf_sender_retries_total" */
	const char *label;       /* static: the name of its label ("reason", "stage"), or NULL */
	const char *label_value; /* static */
	const char *label2;      /* static: a second label (an info series: "reason"), or NULL */
	const char *label2_value; /* static */
	double value;
	bool counter;
	const char *unit;        /* static: OTLP's UCUM unit ("By", "s", "{batch}"), or NULL */
};

/* A call site of the kernel's allocation profile, or the "other" row (site "other"). */
struct snapshot_alloc_row {
	const char *site, *module, *func; /* into the snapshot's alloc_names; module, func "" for none */
	int64_t bytes;
	uint64_t calls;
};

struct snapshot {
	int64_t ts_ms;
	size_t nr_stats;
	const struct stat_def **stats; /* copy of the column array (catalog entries are static) */
	size_t nr_rows;
	const char **paths;         /* nr_rows, into rows' storage */
	const uint64_t **values;    /* nr_rows rows of nr_stats values, SAMPLE_VALUE_MISSING where
				     * the kernel gave none; into rows' storage */
	struct sample_table rows;   /* where the rows live (all the sample's, the kept ones indexed above) */
	struct self_metric self[SNAPSHOT_MAX_SELF];
	size_t nr_self;
	size_t nr_values;    /* values present (not missing) */
	/*
	 * The allocation profile, when it was read for this interval
	 * (alloc_fresh): its top call sites and the "other" row; series of
	 * sites shipped at the last read and not at this one go stale.
	 */
	bool alloc_fresh;
	struct snapshot_alloc_row *alloc;
	size_t nr_alloc, cap_alloc;
	char *alloc_names;
	size_t cap_alloc_names;
	size_t cap_stats, cap_paths, cap_values; /* what those arrays hold room for */
};

typedef bool (*snapshot_row_filter)(const struct sample_row *row, void *arg);

/* Copies the rows of @t that @keep accepts (all when NULL). -ENOMEM on failure. */
int snapshot_from_table(const struct sample_table *t, snapshot_row_filter keep, void *arg,
			struct snapshot **out);
/*
 * The same without a copy: @s (a new one from snapshot_new(), or one done
 * with) takes @t's rows by swapping storage with it; @t is left empty, with
 * @s's old storage to sample into next. On -ENOMEM @s holds no rows and is
 * still for snapshot_free().
 */
int snapshot_take_rows(struct snapshot *s, struct sample_table *t, snapshot_row_filter keep, void *arg);
struct snapshot *snapshot_new(void);
/* Appends a self metric; silently ignored beyond SNAPSHOT_MAX_SELF. */
void snapshot_add_self(struct snapshot *s, const char *name, const char *label, const char *label_value,
		       double value, bool counter, const char *unit);
/* Appends an info series: gauge 1 with two labels (static strings), as snapshot_add_self(). */
void snapshot_add_info(struct snapshot *s, const char *name, const char *label, const char *label_value,
		       const char *label2, const char *label2_value);
/* The allocation profile's read for this interval, copied (@r: no rows when it went away). -ENOMEM. */
int snapshot_set_alloc(struct snapshot *s, const struct allocinfo_ranked *r);
void snapshot_free(struct snapshot *s);

#endif
