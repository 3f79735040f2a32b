// SPDX-License-Identifier: GPL-2.0-only
#include "series/series_key.h"

#include <string.h>

/* @len, then the bytes in whole words, the last zero-padded (series_key.h). */
static void key_string(struct siphash *s, const char *str, size_t len)
{
	uint64_t w;

	siphash_word(s, len);
	for (; len >= 8; str += 8, len -= 8) {
		memcpy(&w, str, 8);
		siphash_word(s, w);
	}
	if (len) {
		w = 0;
		memcpy(&w, str, len);
		siphash_word(s, w);
	}
}

struct siphash series_key_labels(const struct label_pair *l, const struct label_len *len, size_t n, size_t skip)
{
	struct siphash s;

	siphash_begin(&s, siphash_process_key());
	for (size_t i = 0; i < n; i++) {
		if (i == skip)
			continue;
		key_string(&s, l[i].name, len[i].name);
		key_string(&s, l[i].value, len[i].value);
	}
	return s;
}

struct series_key series_key_finish(struct siphash labels, const char *name, size_t len)
{
	struct series_key k;

	siphash_word(&labels, ~0ULL); /* no string's length: __name__'s value follows */
	key_string(&labels, name, len);
	siphash_end128(labels, &k.lo, &k.hi);
	return k;
}
