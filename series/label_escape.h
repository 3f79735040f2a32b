/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Label values must be valid UTF-8. A cgroup path is bytes. The rule
 * (documented in README):
 *   - every well-formed UTF-8 sequence (RFC 3629: no overlong forms, no
 *     surrogates, nothing above U+10FFFF) is copied as is;
 *   - every other byte becomes the four ASCII characters "\xHH" (lowercase
 *     hex), one byte at a time, and decoding resumes at the next byte.
 * Backslashes themselves are left alone (systemd unit names hold "\x2d"
 * literally), so the rule is deterministic but not reversible for a path
 * that already contains the text "\xHH" next to invalid bytes.
 */
#ifndef MEMCG_BPF_LABEL_ESCAPE_H
#define MEMCG_BPF_LABEL_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at @s (at most @len bytes), or 0. */
size_t utf8_sequence_len(const unsigned char *s, size_t len);

bool utf8_valid(const char *s, size_t len);

/*
 * Writes the escaped form of @in into @out (NUL-terminated when @out_len > 0,
 * truncated if short) and returns the length of the whole escaped form, as
 * snprintf does.
 */
size_t label_escape(const char *in, size_t in_len, char *out, size_t out_len);

#endif
