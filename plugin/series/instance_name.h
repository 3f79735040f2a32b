/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The collectd plugin_instance of a cgroup, made from its path relative to
 * the walk root ("/" for the root, "/a/b" below it).
 *
 * The rule (documented in README, "collectd plugin"):
 *   - "/" is "root".
 *   - Otherwise the leading '/' is dropped and each byte is written as:
 *       A-Z a-z 0-9 '.' '-' '@'   themselves
 *       '/'                        '_'
 *       any other byte             '+' and two lowercase hex digits
 *                                  ('_' is "+5f", '+' is "+2b", ' ' is "+20")
 *     This is a prefix-free code over bytes, so distinct paths give distinct
 *     names, and the names hold only [A-Za-z0-9.@_+-].
 *   - A path whose name would be a reserved name ("root", "self") has its
 *     first byte written as an escape ("/root" is "+72oot").
 *   - A name longer than INSTANCE_NAME_MAX bytes is cut to its first
 *     INSTANCE_NAME_PREFIX bytes (never inside an escape) and followed by
 *     "+h" and the first 24 hex digits (96 bits) of the SHA-256 of the whole
 *     path. "+h" never occurs in a name that was not cut ('h' is not a hex
 *     digit), so cut names and whole names cannot meet; two cut names meet
 *     only if SHA-256 collides in 96 bits.
 */
#ifndef MEMCG_BPF_INSTANCE_NAME_H
#define MEMCG_BPF_INSTANCE_NAME_H

#include <stddef.h>

#define INSTANCE_NAME_MAX 127 /* collectd's DATA_MAX_NAME_LEN (128) less the NUL */
#define INSTANCE_NAME_HASH_HEX 24
#define INSTANCE_NAME_PREFIX (INSTANCE_NAME_MAX - 2 - INSTANCE_NAME_HASH_HEX)

#define INSTANCE_NAME_ROOT "root"
#define INSTANCE_NAME_SELF "self" /* the plugin's observations of itself */

/* Writes the name of @path into @buf (INSTANCE_NAME_MAX + 1 bytes); returns its length. */
size_t instance_name(const char *path, char buf[INSTANCE_NAME_MAX + 1]);

#endif
