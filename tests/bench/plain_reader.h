/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The benchmark's yardstick for the text backend: the simplest fast C reader
 * one would write by hand. It opens memory.stat, memory.current and
 * memory.events of a fixed list of cgroups once, keeps the fds, and parses
 * with a hand-written loop. It knows nothing of new or removed cgroups.
 */
#ifndef MEMCG_BENCH_PLAIN_READER_H
#define MEMCG_BENCH_PLAIN_READER_H

#include <stddef.h>
#include <stdint.h>

struct plain_reader;

/* @dirs: cgroup directories; @names: memory.stat/memory.events field names, "usage" = memory.current. */
int plain_reader_open(char **dirs, size_t nr_dirs, const char *const *names, size_t nr_names,
		      struct plain_reader **out);
/* Reads every cgroup once into @values (nr_dirs x nr_names). */
int plain_reader_read(struct plain_reader *r, uint64_t *values);
void plain_reader_close(struct plain_reader *r);

#endif
