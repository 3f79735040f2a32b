// SPDX-License-Identifier: GPL-2.0-only
/*
 * The image of a container from its runtime's OCI config: the JSON scan on
 * its own (escapes, keys that only look like the annotation, values it must
 * not take), then a fake containerd and CRI-O state directory.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "series/image_names.h"

#define KEY "io.kubernetes.cri.image-name"
#define ID1 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID2 "1111111111111111111111111111111111111111111111111111111111111111"
#define ID3 "2222222222222222222222222222222222222222222222222222222222222222"

static const char *scan(const char *json)
{
	static char buf[IMAGE_NAME_MAX + 1];

	image_name_from_json(json, strlen(json), KEY, buf);
	return buf;
}

static void test_json(void **state)
{
	char big[IMAGE_NAME_MAX + 64];

	(void)state;
	assert_string_equal(scan("{\"annotations\":{\"" KEY "\":\"docker.io/library/nginx:1.25\"}}"),
			    "docker.io/library/nginx:1.25");
	/* spaces around ':' (an indented file), escapes Go's encoder writes */
	assert_string_equal(scan("{\n  \"" KEY "\" : \"reg.example\\/a\\u0026b:1\"\n}"), "reg.example/a&b:1");
	assert_string_equal(scan("{\"" KEY "\":\"caf\\u00e9:\\ud83d\\ude00\"}"), "caf\xc3\xa9:\xf0\x9f\x98\x80");
	/* the key as a value, or inside a string a tenant chose (its quotes escaped): not it */
	assert_string_equal(scan("{\"x\":\"" KEY "\",\"y\":1}"), "");
	assert_string_equal(scan("{\"env\":[\"A=\\\"" KEY "\\\":\\\"evil:1\\\"\"]}"), "");
	assert_string_equal(scan("{\"env\":[\"A=\\\"" KEY "\\\":\\\"evil:1\\\"\"],\"" KEY "\":\"good:2\"}"), "good:2");
	/* a longer key that ends like it: not it */
	assert_string_equal(scan("{\"x." KEY "\":\"other:1\"}"), "");
	/* values it does not take: not a string, empty, a control character, a lone surrogate, cut short */
	assert_string_equal(scan("{\"" KEY "\":42}"), "");
	assert_string_equal(scan("{\"" KEY "\":\"\"}"), "");
	assert_string_equal(scan("{\"" KEY "\":\"a\\nb\"}"), "");
	assert_string_equal(scan("{\"" KEY "\":\"a\\u0001b\"}"), "");
	assert_string_equal(scan("{\"" KEY "\":\"a\\ud800b\"}"), "");
	assert_string_equal(scan("{\"" KEY "\":\"abc"), "");
	assert_string_equal(scan("{\"" KEY "\":\"abc\\"), "");
	assert_string_equal(scan("{\"" KEY "\":\"abc\\u12"), "");
	/* longer than IMAGE_NAME_MAX: not taken */
	snprintf(big, sizeof(big), "{\"" KEY "\":\"%0*d\"}", IMAGE_NAME_MAX + 1, 0);
	assert_string_equal(scan(big), "");
	snprintf(big, sizeof(big), "{\"" KEY "\":\"%0*d\"}", IMAGE_NAME_MAX, 0);
	assert_int_equal(strlen(scan(big)), IMAGE_NAME_MAX);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_state_dirs(void **state)
{
	char top[] = "/tmp/test_image_names.XXXXXX", ctrd[256], crio[256], path[512], buf[IMAGE_NAME_MAX + 1];
	char cmd[1024];

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(ctrd, sizeof(ctrd), "%s/containerd", top);
	snprintf(crio, sizeof(crio), "%s/crio", top);
	snprintf(path, sizeof(path), "%s/k8s.io/" ID1, ctrd);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' '%s/" ID2 "/userdata' '%s/moby/" ID3 "'", path, crio, ctrd);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/k8s.io/" ID1 "/config.json", ctrd);
	write_file(path, "{\"ociVersion\":\"1.1.0\",\"annotations\":{\"io.kubernetes.cri.container-type\":\"container\","
			 "\"" KEY "\":\"docker.io/library/nginx:1.25\"}}");
	snprintf(path, sizeof(path), "%s/" ID2 "/userdata/config.json", crio);
	write_file(path, "{\"annotations\":{\"io.kubernetes.cri-o.ImageName\":\"quay.io/prometheus/node-exporter:v1.8.2\"}}");
	/* Docker's own containers (namespace moby) carry no CRI annotation */
	snprintf(path, sizeof(path), "%s/moby/" ID3 "/config.json", ctrd);
	write_file(path, "{\"annotations\":{}}");

	image_name_lookup(ctrd, crio, ID1, buf);
	assert_string_equal(buf, "docker.io/library/nginx:1.25");
	image_name_lookup(ctrd, crio, ID2, buf);
	assert_string_equal(buf, "quay.io/prometheus/node-exporter:v1.8.2");
	image_name_lookup(ctrd, crio, ID3, buf);
	assert_string_equal(buf, "");
	/* the other runtime's key in a runtime's file: not taken */
	snprintf(path, sizeof(path), "%s/k8s.io/" ID1 "/config.json", ctrd);
	write_file(path, "{\"annotations\":{\"io.kubernetes.cri-o.ImageName\":\"x:1\"}}");
	image_name_lookup(ctrd, crio, ID1, buf);
	assert_string_equal(buf, "");
	/* a symlink is not followed */
	unlink(path);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	image_name_lookup(ctrd, crio, ID1, buf);
	assert_string_equal(buf, "");
	/* no such directories */
	image_name_lookup("/nonexistent", "/nonexistent", ID1, buf);
	assert_string_equal(buf, "");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_state_dirs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
