// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the scan for a container runtime's image annotation
 * (series/image_names.h) on arbitrary bytes, as a config.json a tenant's
 * container could shape. What it takes must be a non-empty name of at most
 * IMAGE_NAME_MAX bytes, NUL-ended, without control characters (the label
 * escaping handles the rest); it never reads outside the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "series/image_names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[IMAGE_NAME_MAX + 1];
	char *json = malloc(size ? size : 1); /* no NUL after it: the scan must keep to @size */
	size_t n;

	if (!json)
		return 0;
	memcpy(json, data, size);
	image_name_from_json(json, size, "io.kubernetes.cri.image-name", buf);
	n = strnlen(buf, sizeof(buf));
	if (n == sizeof(buf))
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			abort();
	free(json);
	return 0;
}
