/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Label values must be valid UTF-8; a cgroup path is bytes. The escaped
 * form (documented in README and collectd-memcg_bpf(5)) is injective, so
 * two paths never share a label, and it leaves systemd's literal "\x2d" in
 * unit names alone:
 *   - an "escaped byte" is a C0 control byte (0x00-0x1f), DEL (0x7f), or a
 *     byte that is not part of a well-formed UTF-8 sequence (RFC 3629: no
 *     overlong forms, no surrogates, nothing above U+10FFFF; scanning
 *     resumes at the next byte). Each is written as the four ASCII
 *     characters "\xHH", two lowercase hex digits;
 *   - well-formed UTF-8 and printable ASCII are copied as is, except '\';
 *   - a '\' is written doubled ("\\") when it would otherwise read as the
 *     start of an escape: when the next output begins with '\' (the next
 *     byte is a '\' or an escaped byte), or when the next three bytes are
 *     'x' and two lowercase hex digits naming an escaped byte (00-1f, 7f,
 *     80-ff). Any other '\' is written once.
 * Decoding, left to right: "\\" is one '\'; "\x" and two lowercase hex
 * digits naming an escaped byte is that byte; any other '\' is itself.
 * So "\x2d", "\xFF" and a trailing '\' read as written, and the text
 * "x\xff" (four characters) is "x\\xff" while 'x' and the byte 0xff is
 * "x\xff".
 */
#ifndef MEMCG_BPF_LABEL_ESCAPE_H
#define MEMCG_BPF_LABEL_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Length of the well-formed UTF-8 sequence at @s (at most @len bytes), or 0. */
size_t utf8_sequence_len(const unsigned char *s, size_t len);

bool utf8_valid(const char *s, size_t len);

/*
 * Writes the escaped form of @in into @out (NUL-terminated when @out_len > 0,
 * truncated if short) and returns the length of the whole escaped form, as
 * snprintf does.
 */
size_t label_escape(const char *in, size_t in_len, char *out, size_t out_len);

/*
 * The reverse of label_escape: writes the bytes @in stands for into @out
 * (not NUL-terminated: "\x00" is a byte like any other) and returns their
 * number, at most @in_len. -ENOBUFS when they do not fit in @out_len bytes.
 * -EINVAL when @in is not a form label_escape writes: a raw control byte
 * or DEL, invalid UTF-8, a "\\" that the next output does not call for
 * (nor a trailing one), or a "\xHH" whose byte starts a well-formed UTF-8
 * sequence there (label_escape would have copied it). So a successful
 * decode of @in escapes back to exactly @in.
 */
ssize_t label_unescape(const char *in, size_t in_len, char *out, size_t out_len);

#endif
