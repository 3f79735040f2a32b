/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One value of the <Plugin memcg_bpf> block checked against its range or
 * form, for the key setters of config/plugin_config.c. Each returns 0 and
 * stores the value, or logs an error naming the key and the value and
 * returns -EINVAL (-ENOMEM when a copy cannot be made).
 */
#ifndef MEMCG_BPF_CONFIG_VALUES_H
#define MEMCG_BPF_CONFIG_VALUES_H

#include <stdbool.h>
#include <stddef.h>

/* An integer from min to max. */
int cfg_range(const char *key, long value, long min, long max, size_t *out);
/* A time from 0.1 to 3600 seconds. */
int cfg_seconds(const char *key, double value, double *out);
/* A non-empty string, copied into *dst (the old one freed). */
int cfg_path(char **dst, const char *key, const char *value);
/* An absolute path, copied as cfg_path does. */
int cfg_dir(char **dst, const char *key, const char *value);
/* true/yes/on or false/no/off, any case; -EINVAL (nothing logged) otherwise. */
int cfg_bool_string(const char *s, bool *out);

#endif
