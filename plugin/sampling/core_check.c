// SPDX-License-Identifier: GPL-2.0-only
#include "sampling/core_check.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "sampling/sample_table.h"
#include "sampling/sampler_backend.h"

#define CHECK_ROUNDS 3
/* memory.pressure's totals in the kernel's PSI aggregate may trail the file by one 2 s period */
#define PRESSURE_BEHIND_US 3000000ULL

struct column_check {
	size_t text_column; /* SIZE_MAX: the text backend has no such column */
	size_t compared;    /* values compared in the last round */
	bool disagrees;     /* in the last round it ran */
	bool settled;       /* agreed in some round */
	char detail[200];   /* the last disagreement seen, for the log */
};

/* Every memory cgroup has these files: a column of one must have been compared. */
static bool every_cgroup_has(const struct stat_def *def)
{
	return def->file == STAT_FILE_MEMORY_STAT || def->file == STAT_FILE_NUMA_STAT;
}

static const struct sample_row *row_of(const struct sample_table *t, uint64_t id)
{
	for (size_t r = 0; r < t->nr_rows; r++)
		if (t->rows[r].cgroup_id == id)
			return &t->rows[r];
	return NULL;
}

static bool agrees(const struct stat_def *def, uint64_t v, uint64_t before, uint64_t after)
{
	uint64_t lo = before < after ? before : after, hi = before < after ? after : before;

	if (before == SAMPLE_VALUE_MISSING || after == SAMPLE_VALUE_MISSING)
		return v == SAMPLE_VALUE_MISSING || before != after;
	if (v == SAMPLE_VALUE_MISSING)
		return false;
	if (def->file == STAT_FILE_PRESSURE)
		return v <= hi && v + PRESSURE_BEHIND_US >= lo;
	return lo <= v && v <= hi;
}

/* Compares one value of column @c for cgroup @b (@a after the walk, @v the walk's). */
static void compare_value(const struct sampler *s, size_t c, struct column_check *cc, const struct sample_row *b,
			  const struct sample_row *a, const struct sample_row *v)
{
	uint64_t bv = b->values[cc->text_column], av = a->values[cc->text_column];

	if (bv == SAMPLE_VALUE_MISSING && av == SAMPLE_VALUE_MISSING && v->values[c] == SAMPLE_VALUE_MISSING)
		return; /* no such file for this cgroup (the root) */
	/*
	 * At the hierarchy's root the walk reads memory.stat only (cgroup
	 * v1 has the other files there, computed otherwise): nothing shipped.
	 */
	if (v->values[c] == SAMPLE_VALUE_MISSING && b->depth == 0 && !every_cgroup_has(s->stats[c]))
		return;
	cc->compared++;
	if (agrees(s->stats[c], v->values[c], bv, av))
		return;
	if (!cc->disagrees)
		snprintf(cc->detail, sizeof(cc->detail), "%s of %s: read %llu, the file said %llu before and %llu after",
			 stat_column_name(s->stats[c]), b->path, (unsigned long long)v->values[c], (unsigned long long)bv,
			 (unsigned long long)av);
	cc->disagrees = true;
}

/* The column of @def in @s (by identity: a per-node column shares its name), or SIZE_MAX. */
static size_t column_of(const struct sampler *s, const struct stat_def *def)
{
	for (size_t c = 0; c < s->nr_stats; c++)
		if (s->stats[c] == def)
			return c;
	return SIZE_MAX;
}

static bool pending(const struct column_check *cc)
{
	return !cc->settled && cc->text_column != SIZE_MAX;
}

/* Compares the unsettled columns of one walk (@core) with the file readings around it. */
static void compare(const struct sampler *s, struct column_check *cols, const struct sample_table *core,
		    const struct sample_table *before, const struct sample_table *after)
{
	size_t c, r;

	for (c = 0; c < s->nr_stats; c++) {
		cols[c].compared = 0;
		cols[c].disagrees = false;
	}
	for (r = 0; r < before->nr_rows; r++) {
		const struct sample_row *b = &before->rows[r];
		const struct sample_row *a = row_of(after, b->cgroup_id), *v = row_of(core, b->cgroup_id);

		if (!a || !v) /* created or removed meanwhile */
			continue;
		for (c = 0; c < s->nr_stats; c++)
			if (pending(&cols[c]))
				compare_value(s, c, &cols[c], b, a, v);
	}
	for (c = 0; c < s->nr_stats; c++) {
		struct column_check *cc = &cols[c];

		if (!pending(cc))
			continue;
		/* every memcg has memory.stat: its columns must have been compared */
		if (cc->compared == 0 && every_cgroup_has(s->stats[c])) {
			snprintf(cc->detail, sizeof(cc->detail), "%s: no cgroup to compare it on",
				 stat_column_name(s->stats[c]));
			cc->disagrees = true;
		}
		cc->settled = !cc->disagrees;
	}
}

/* The text backend over the walk root and one level below it, on the same columns. */
static int open_text(const struct sampler *s, struct sampler *text)
{
	char why[256];
	int err;

	memset(text, 0, sizeof(*text));
	text->ops = &sampler_text_ops;
	text->backend = SAMPLER_TEXT;
	text->mount = s->mount;
	text->max_depth = s->max_depth == 0 ? 0 : 1;
	text->stats = calloc(s->nr_stats + 1, sizeof(text->stats[0]));
	if (!text->stats)
		return -ENOMEM;
	memcpy(text->stats, s->stats, s->nr_stats * sizeof(s->stats[0]));
	text->nr_stats = s->nr_stats;
	text->nr_shown = 0; /* all hidden: what text lacks is dropped without a word */
	err = text->ops->open(text, why, sizeof(why));
	if (err) {
		mb_err("%s check: cannot read the files to compare with: %s", sampler_backend_name(s->backend),
		       why[0] ? why : strerror(-err));
		text->ops->close(text);
		free(text->stats);
	}
	return err;
}

static int run_rounds(struct sampler *s, struct sampler *text, struct column_check *cols)
{
	struct sample_table core = { 0 }, before = { 0 }, after = { 0 };
	int err = 0, round;

	sample_table_init_hidden(&core, s->stats, s->nr_shown, s->nr_stats);
	sample_table_init_hidden(&before, text->stats, 0, text->nr_stats);
	sample_table_init_hidden(&after, text->stats, 0, text->nr_stats);
	for (round = 0; round < CHECK_ROUNDS; round++) {
		bool all = true;

		sample_table_reset(&before);
		sample_table_reset(&core);
		sample_table_reset(&after);
		err = text->ops->sample(text, &before);
		if (!err)
			err = s->ops->sample(s, &core);
		if (!err)
			err = text->ops->sample(text, &after);
		if (err)
			break;
		compare(s, cols, &core, &before, &after);
		for (size_t c = 0; c < s->nr_stats; c++)
			all &= !pending(&cols[c]);
		if (all)
			break;
	}
	sample_table_free(&core);
	sample_table_free(&before);
	sample_table_free(&after);
	return err;
}

static bool failed(const struct sampler *s, const struct column_check *cc, size_t c)
{
	if (cc->text_column == SIZE_MAX)
		return every_cgroup_has(s->stats[c]);
	return !cc->settled;
}

int core_check(struct sampler *s, const struct stat_def **bad, size_t *nr_bad, char *names, size_t names_len)
{
	struct column_check *cols;
	struct sampler text;
	size_t c, len = 0;
	int err;

	*nr_bad = 0;
	names[0] = '\0';
	err = open_text(s, &text);
	if (err)
		return err;
	cols = calloc(s->nr_stats + 1, sizeof(*cols));
	if (!cols) {
		err = -ENOMEM;
		goto close_text;
	}
	for (c = 0; c < s->nr_stats; c++) {
		const struct stat_def *def = s->stats[c];

		/* derived columns are computed from checked ones */
		cols[c].text_column = def->file == STAT_FILE_DERIVED || def->file == STAT_FILE_OOM_TRACKER
					      ? SIZE_MAX : column_of(&text, def);
		if (cols[c].text_column == SIZE_MAX && every_cgroup_has(def))
			snprintf(cols[c].detail, sizeof(cols[c].detail), "%s: not in this kernel's %s, "
				 "nothing to check it by", stat_column_name(def), stat_file_name(def->file, 2));
	}
	err = run_rounds(s, &text, cols);
	if (err)
		goto free_cols;
	for (c = 0; c < s->nr_stats; c++) {
		if (!failed(s, &cols[c], c))
			continue;
		mb_notice("%s check: %s", sampler_backend_name(s->backend), cols[c].detail);
		len += snprintf(names + len, len < names_len ? names_len - len : 0, "%s%s", *nr_bad ? ", " : "",
				stat_column_name(s->stats[c]));
		if (len >= names_len)
			len = names_len - 1;
		bad[(*nr_bad)++] = s->stats[c];
	}
	err = *nr_bad ? -EPROTO : 0;
free_cols:
	free(cols);
close_text:
	text.ops->close(&text);
	free(text.stats);
	return err;
}
