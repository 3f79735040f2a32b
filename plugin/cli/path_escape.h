/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How the CLI prints a cgroup path, which is bytes (any but '/' and NUL;
 * the kernel refuses '\n'), so that every output parses and distinct
 * cgroups stay distinct (documented in memcg-bpf-sample(1) and the README):
 *
 * JSON (path_escape_json): a JSON string of pure ASCII. '"' and '\\' are
 * escaped, control bytes and DEL are \u00XX (\n, \t as such), well-formed
 * UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above
 * U+10FFFF) is written as \uXXXX (a surrogate pair above U+FFFF), and each
 * byte of anything else is \uDCXX, the lone low surrogate U+DC00 + byte
 * (PEP 383's "surrogateescape"). No real character is a lone surrogate, so
 * no two paths print alike: the byte 0xFF is \udcff, the character U+00FF
 * is \u00ff. The JSON "path" is byte-exact: in Python,
 * json.loads(line)["path"].encode("utf-8", "surrogateescape") gives the
 * path's bytes back. The table shows the label form instead.
 *
 * Table (path_escape_table): the form of the cgroup label
 * (series/label_escape.h), so the table shows what a dashboard shows.
 * Well-formed UTF-8 as is; control bytes, DEL and bytes of invalid UTF-8 as
 * \xHH, so a column never holds a tab, a newline or an escape sequence of
 * the terminal; a backslash doubled where it would read as an escape
 * ("\\xff" is the text, "\xff" the byte), so distinct paths stay distinct.
 */
#ifndef MEMCG_BPF_PATH_ESCAPE_H
#define MEMCG_BPF_PATH_ESCAPE_H

#include <stddef.h>

/*
 * Writes the escaped form of @in (@in_len bytes) into @out, NUL-terminated
 * when @out_len > 0 and truncated if short; returns the length of the whole
 * escaped form, as snprintf does. The JSON form includes the quotes.
 */
size_t path_escape_json(const char *in, size_t in_len, char *out, size_t out_len);
size_t path_escape_table(const char *in, size_t in_len, char *out, size_t out_len);

#endif
