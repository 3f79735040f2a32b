// SPDX-License-Identifier: GPL-2.0-only
#include "series/instance_name.h"

#include <stdbool.h>
#include <string.h>

#include "base/macros.h"
#include "base/sha256.h"

static const char hex[] = "0123456789abcdef";

static bool is_plain(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '-' || c == '@';
}

/* Appends the code of @c if it fits in @room bytes; returns its length or 0. */
static size_t encode_byte(unsigned char c, bool force_escape, char *out, size_t room)
{
	if (c == '/' && !force_escape) {
		if (room < 1)
			return 0;
		out[0] = '_';
		return 1;
	}
	if (is_plain(c) && !force_escape) {
		if (room < 1)
			return 0;
		out[0] = (char)c;
		return 1;
	}
	if (room < 3)
		return 0;
	out[0] = '+';
	out[1] = hex[c >> 4];
	out[2] = hex[c & 0xf];
	return 3;
}

static bool is_reserved(const char *name, size_t len)
{
	static const char *const reserved[] = { INSTANCE_NAME_ROOT, INSTANCE_NAME_SELF };

	for (size_t i = 0; i < ARRAY_SIZE(reserved); i++)
		if (strlen(reserved[i]) == len && memcmp(name, reserved[i], len) == 0)
			return true;
	return false;
}

size_t instance_name(const char *path, char buf[INSTANCE_NAME_MAX + 1])
{
	/* a whole name longer than the limit is detected by filling one byte past it */
	char tmp[INSTANCE_NAME_MAX + 4];
	const unsigned char *p = (const unsigned char *)path;
	size_t len = 0, full_len = strlen(path), n;
	uint8_t digest[SHA256_DIGEST_LEN];
	bool escape_first = false;

	if (*p == '/')
		p++;
	if (!*p) {
		memcpy(buf, INSTANCE_NAME_ROOT, sizeof(INSTANCE_NAME_ROOT));
		return sizeof(INSTANCE_NAME_ROOT) - 1;
	}
again:
	len = 0;
	for (const unsigned char *q = p; *q; q++) {
		n = encode_byte(*q, escape_first && q == p, tmp + len, sizeof(tmp) - len);
		if (!n) {
			len = sizeof(tmp); /* too long */
			break;
		}
		len += n;
	}
	if (len <= INSTANCE_NAME_MAX && !escape_first && is_reserved(tmp, len)) {
		escape_first = true;
		goto again;
	}
	if (len <= INSTANCE_NAME_MAX) {
		memcpy(buf, tmp, len);
		buf[len] = '\0';
		return len;
	}

	/* too long: a readable prefix, cut between codes, then the hash */
	len = 0;
	for (const unsigned char *q = p; *q; q++) {
		n = encode_byte(*q, false, buf + len, INSTANCE_NAME_PREFIX - len);
		if (!n)
			break;
		len += n;
	}
	sha256(path, full_len, digest);
	buf[len++] = '+';
	buf[len++] = 'h';
	for (int i = 0; i < INSTANCE_NAME_HASH_HEX / 2; i++) {
		buf[len++] = hex[digest[i] >> 4];
		buf[len++] = hex[digest[i] & 0xf];
	}
	buf[len] = '\0';
	return len;
}
