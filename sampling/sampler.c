// SPDX-License-Identifier: GPL-2.0-only
/* Backend choice and the calls every caller makes, whichever backend runs. */
#include "sampling/sampler.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/name_table.h"
#include "sampling/sampler_backend.h"

static const char *const backend_names[] = {
	[SAMPLER_AUTO] = "auto",
	[SAMPLER_BPF] = "bpf",
	[SAMPLER_TEXT] = "text",
};

DEFINE_NAME_TABLE(sampler_backend, enum sampler_backend, backend_names)

int sampler_drop_stat(struct sampler *s, size_t i, const char *why)
{
	if (s->strict_stats) {
		mb_err("stat '%s' is not available: %s", s->stats[i]->name, why);
		return -ENOENT;
	}
	mb_warn("stat '%s' is not sampled: %s", s->stats[i]->name, why);
	memmove(&s->stats[i], &s->stats[i + 1], (s->nr_stats - i - 1) * sizeof(s->stats[0]));
	s->nr_stats--;
	return 0;
}

/* Runs @ops->open (backend @backend) on a fresh copy of the requested stats. */
static int try_backend(struct sampler *s, enum sampler_backend backend, const struct sampler_backend_ops *ops,
		       const struct sampler_opts *opts, char *why, size_t why_len)
{
	int err;

	if (opts->nr_stats)
		memcpy(s->stats, opts->stats, opts->nr_stats * sizeof(s->stats[0]));
	s->nr_stats = opts->nr_stats;
	s->ops = ops;
	s->backend = backend;
	why[0] = '\0';
	err = ops->open(s, why, why_len);
	if (err) {
		ops->close(s);
		s->priv = NULL;
		s->ops = NULL;
	}
	return err;
}

static int open_backend(struct sampler *s, const struct sampler_opts *opts)
{
	char bpf_why[512], text_why[512];
	int err;

	if (opts->backend == SAMPLER_TEXT) {
		err = try_backend(s, SAMPLER_TEXT, &sampler_text_ops, opts, text_why, sizeof(text_why));
		if (!err)
			mb_notice("backend text: selected by configuration");
		return err;
	}
	err = try_backend(s, SAMPLER_BPF, &sampler_bpf_ops, opts, bpf_why, sizeof(bpf_why));
	if (!err) {
		mb_notice("backend bpf: %s", bpf_why[0] ? bpf_why : "kernel has the memcg kfuncs");
		return 0;
	}
	if (opts->backend == SAMPLER_BPF) {
		mb_err("backend bpf is not usable here: %s", bpf_why[0] ? bpf_why : strerror(-err));
		return err;
	}
	if (!bpf_why[0])
		snprintf(bpf_why, sizeof(bpf_why), "the bpf backend failed to load (%s)", strerror(-err));
	err = try_backend(s, SAMPLER_TEXT, &sampler_text_ops, opts, text_why, sizeof(text_why));
	if (!err)
		mb_notice("backend text: %s", bpf_why);
	return err;
}

int sampler_open(const struct sampler_opts *opts, struct sampler **out)
{
	struct sampler *s;
	int err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->stats = calloc(opts->nr_stats ? opts->nr_stats : 1, sizeof(s->stats[0]));
	if (!s->stats) {
		err = -ENOMEM;
		goto free_sampler;
	}
	s->max_depth = opts->max_depth;
	s->strict_stats = opts->strict_stats;
	err = cgroup_mount_resolve(opts->cgroup_root ? opts->cgroup_root : "/sys/fs/cgroup", &s->mount);
	if (err)
		goto free_sampler;
	err = open_backend(s, opts);
	if (err)
		goto free_sampler;
	/* no stats requested is a bare walk (the benchmark's baseline) */
	if (s->nr_stats == 0 && opts->nr_stats > 0) {
		mb_err("none of the selected stats is available on this kernel");
		err = -ENOENT;
		goto close_backend;
	}
	*out = s;
	return 0;

close_backend:
	s->ops->close(s);
free_sampler:
	free(s->stats);
	free(s);
	return err;
}

void sampler_table_init(const struct sampler *s, struct sample_table *t)
{
	sample_table_init(t, s->stats, s->nr_stats);
}

int sampler_sample(struct sampler *s, struct sample_table *t)
{
	sample_table_reset(t);
	return s->ops->sample(s, t);
}

enum sampler_backend sampler_backend_used(const struct sampler *s)
{
	return s->backend;
}

void sampler_close(struct sampler *s)
{
	if (!s)
		return;
	if (s->ops)
		s->ops->close(s);
	free(s->stats);
	free(s);
}
