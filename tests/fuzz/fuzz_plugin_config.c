// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the <Plugin memcg_bpf> block parser. Each input line is
 * "Key value value ...": a value is a number when strtod takes all of it,
 * true/false a boolean, anything else a string, as collectd's own parser
 * would hand them over. The whole block then goes through finish and free.
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "config/plugin_config.h"

#define MAX_VALUES 8

static void quiet(int level, const char *msg)
{
}

static void typed(char *word, struct cfg_value *v)
{
	char *end;

	memset(v, 0, sizeof(*v));
	if (strcmp(word, "true") == 0 || strcmp(word, "false") == 0) {
		v->type = CFG_BOOLEAN;
		v->boolean = word[0] == 't';
		return;
	}
	v->number = strtod(word, &end);
	if (*word && !*end) {
		v->type = CFG_NUMBER;
		return;
	}
	v->type = CFG_STRING;
	v->string = word;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plugin_config cfg;
	char *text, *line, *save_line = NULL;

	mb_log_set_sink(quiet);
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (plugin_config_init(&cfg)) {
		free(text);
		return 0;
	}
	for (line = strtok_r(text, "\n", &save_line); line; line = strtok_r(NULL, "\n", &save_line)) {
		struct cfg_value values[MAX_VALUES];
		char *key, *word, *save_word = NULL;
		size_t n = 0;

		key = strtok_r(line, " \t", &save_word);
		if (!key)
			continue;
		while (n < MAX_VALUES && (word = strtok_r(NULL, " \t", &save_word)))
			typed(word, &values[n++]);
		plugin_config_set(&cfg, key, values, n);
	}
	plugin_config_finish(&cfg);
	plugin_config_free(&cfg);
	free(text);
	return 0;
}
