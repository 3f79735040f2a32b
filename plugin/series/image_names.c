// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* memmem */
#include "series/image_names.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/utf8.h"

#define CONTAINERD_KEY "io.kubernetes.cri.image-name"
#define CRIO_KEY "io.kubernetes.cri-o.ImageName"

/* The 4 hex digits at @p (@end: the end of the input); -1 when they are not. */
static long hex4(const char *p, const char *end)
{
	long v = 0;

	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int d = hex_digit(p[i]);

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* Appends code point @cp as UTF-8 to @buf at *@n; false when it does not fit or is not a character. */
static bool put_utf8(char *buf, size_t *n, long cp)
{
	unsigned char u[4];
	size_t k;

	if (cp < 0x20 || cp == 0x7f || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return false;
	k = utf8_encode((uint32_t)cp, u);
	if (*n + k > IMAGE_NAME_MAX)
		return false;
	memcpy(buf + *n, u, k);
	*n += k;
	return true;
}

/* The JSON string starting at @p (after its opening quote) into @buf; false when it is not one we take. */
static bool decode_string(const char *p, const char *end, char *buf)
{
	size_t n = 0;

	while (p < end && *p != '"') {
		unsigned char c = (unsigned char)*p;
		long cp;

		if (c < 0x20 || c == 0x7f)
			return false;
		if (c != '\\') {
			if (n == IMAGE_NAME_MAX)
				return false;
			buf[n++] = (char)c;
			p++;
			continue;
		}
		if (end - p < 2)
			return false;
		switch (p[1]) {
		case '"':
		case '\\':
		case '/':
			if (n == IMAGE_NAME_MAX)
				return false;
			buf[n++] = p[1];
			p += 2;
			continue;
		case 'u':
			cp = hex4(p + 2, end);
			p += 6;
			if (cp >= 0xd800 && cp <= 0xdbff) { /* a surrogate pair */
				long lo = end - p >= 2 && p[0] == '\\' && p[1] == 'u' ? hex4(p + 2, end) : -1;

				if (lo < 0xdc00 || lo > 0xdfff)
					return false;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			}
			if (!put_utf8(buf, &n, cp))
				return false;
			continue;
		default: /* \b \f \n \r \t: control characters, never in an image name */
			return false;
		}
	}
	if (p >= end || n == 0)
		return false;
	buf[n] = '\0';
	return true;
}

void image_name_from_json(const char *json, size_t len, const char *key, char buf[IMAGE_NAME_MAX + 1])
{
	const char *end = json + len, *p = json;
	size_t klen = strlen(key);

	buf[0] = '\0';
	while ((p = memmem(p, (size_t)(end - p), key, klen))) {
		const char *q = p + klen;

		/* "KEY" then ':' (a quote inside a string is escaped: "\"KEY\"" is not it) */
		if (p > json && p[-1] == '"' && (p - 1 == json || p[-2] != '\\') && q < end && *q == '"') {
			for (q++; q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'); q++)
				;
			if (q < end && *q == ':') {
				for (q++; q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'); q++)
					;
				if (q < end && *q == '"' && decode_string(q + 1, end, buf))
					return;
				buf[0] = '\0';
				return; /* the key, with a value we do not take */
			}
		}
		p += klen;
	}
}

/* The annotation @key of the OCI config at @path into @buf; "" when none. */
static void image_from_file(const char *path, const char *key, char buf[IMAGE_NAME_MAX + 1])
{
	struct stat st;
	char *json = NULL;
	ssize_t got = 0;
	int fd;

	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > IMAGE_NAMES_MAX_FILE ||
	    !(json = malloc((size_t)st.st_size + 1)))
		goto close_fd;
	while (got < st.st_size) {
		ssize_t n = read(fd, json + got, (size_t)(st.st_size - got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	image_name_from_json(json, (size_t)got, key, buf);
	free(json);
close_fd:
	close(fd);
}

void image_name_lookup(const char *containerd_dir, const char *crio_dir, const char *container_id,
		       char buf[IMAGE_NAME_MAX + 1])
{
	char path[4096];

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/k8s.io/%s/config.json", containerd_dir ? containerd_dir : IMAGE_NAMES_CONTAINERD_DIR,
		 container_id);
	image_from_file(path, CONTAINERD_KEY, buf);
	if (buf[0])
		return;
	snprintf(path, sizeof(path), "%s/%s/userdata/config.json", crio_dir ? crio_dir : IMAGE_NAMES_CRIO_DIR,
		 container_id);
	image_from_file(path, CRIO_KEY, buf);
}
