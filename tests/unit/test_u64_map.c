// SPDX-License-Identifier: GPL-2.0-only
/*
 * The u64 map: put, get, replace, remove (backward shift in colliding and
 * wrapping probe runs), growth, iteration, removal while walking, key 0,
 * and a long random run against a plain array.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/u64_map.h"

/* Distinct non-NULL values: the addresses of vals[i]. */
static char vals[4096];
#define V(i) ((void *)&vals[(i)])

static struct u64_map *new_map(size_t expected)
{
	struct u64_map *m;

	assert_int_equal(u64_map_new(expected, &m), 0);
	assert_non_null(m);
	return m;
}

/* The first @n keys from @from on whose probe starts at slot @home of @m. */
static void keys_at(const struct u64_map *m, size_t home, uint64_t from, uint64_t *out, size_t n)
{
	size_t mask = u64_map_capacity(m) - 1;

	for (uint64_t k = from; n; k++) {
		if ((u64_map_home(k) & mask) == home) {
			*out++ = k;
			n--;
		}
	}
}

static void test_put_get_replace(void **state)
{
	struct u64_map *m = new_map(0);

	assert_null(u64_map_get(m, 42));
	assert_int_equal(u64_map_put(m, 42, V(1)), 0);
	assert_int_equal(u64_map_put(m, 7, V(2)), 0);
	assert_ptr_equal(u64_map_get(m, 42), V(1));
	assert_ptr_equal(u64_map_get(m, 7), V(2));
	assert_int_equal(u64_map_count(m), 2);
	assert_int_equal(u64_map_put(m, 42, V(3)), 0);
	assert_ptr_equal(u64_map_get(m, 42), V(3));
	assert_int_equal(u64_map_count(m), 2);
	u64_map_free(m);
}

static void test_null_value_is_rejected(void **state)
{
	struct u64_map *m = new_map(0);

	assert_int_equal(u64_map_put(m, 1, NULL), -EINVAL);
	assert_int_equal(u64_map_count(m), 0);
	assert_null(u64_map_get(m, 1));
	u64_map_free(m);
}

static void test_key_zero_and_max(void **state)
{
	struct u64_map *m = new_map(0);

	assert_null(u64_map_get(m, 0));
	assert_int_equal(u64_map_put(m, 0, V(1)), 0);
	assert_int_equal(u64_map_put(m, UINT64_MAX, V(2)), 0);
	assert_ptr_equal(u64_map_get(m, 0), V(1));
	assert_ptr_equal(u64_map_get(m, UINT64_MAX), V(2));
	assert_ptr_equal(u64_map_remove(m, 0), V(1));
	assert_null(u64_map_get(m, 0));
	assert_ptr_equal(u64_map_get(m, UINT64_MAX), V(2));
	u64_map_free(m);
}

static void test_remove_absent(void **state)
{
	struct u64_map *m = new_map(0);

	assert_null(u64_map_remove(m, 5));
	assert_int_equal(u64_map_put(m, 5, V(1)), 0);
	assert_null(u64_map_remove(m, 6));
	assert_ptr_equal(u64_map_remove(m, 5), V(1));
	assert_null(u64_map_remove(m, 5));
	assert_int_equal(u64_map_count(m), 0);
	u64_map_free(m);
}

/*
 * Three keys share home h, a fourth has home h + 1 and so sits behind them.
 * Removing the first must pull the others back so each is still found.
 */
static void test_remove_in_collision_run(void **state)
{
	struct u64_map *m = new_map(0);
	uint64_t same[3], next;

	keys_at(m, 3, 1, same, 3);
	keys_at(m, 4, 1, &next, 1);
	for (int i = 0; i < 3; i++)
		assert_int_equal(u64_map_put(m, same[i], V(i)), 0);
	assert_int_equal(u64_map_put(m, next, V(3)), 0);

	assert_ptr_equal(u64_map_remove(m, same[0]), V(0));
	assert_null(u64_map_get(m, same[0]));
	assert_ptr_equal(u64_map_get(m, same[1]), V(1));
	assert_ptr_equal(u64_map_get(m, same[2]), V(2));
	assert_ptr_equal(u64_map_get(m, next), V(3));

	assert_ptr_equal(u64_map_remove(m, same[2]), V(2));
	assert_ptr_equal(u64_map_get(m, same[1]), V(1));
	assert_ptr_equal(u64_map_get(m, next), V(3));
	assert_int_equal(u64_map_count(m), 2);
	u64_map_free(m);
}

/*
 * A run that wraps from the last slot to slot 0, next to an entry whose home
 * is slot 0 itself: removal must move the wrapped key back to the last slot
 * and leave the one at its own home alone.
 */
static void test_remove_in_wrapping_run(void **state)
{
	struct u64_map *m = new_map(0);
	size_t last = u64_map_capacity(m) - 1;
	uint64_t end[3], zero;

	keys_at(m, last, 1, end, 3);
	keys_at(m, 0, 1, &zero, 1);
	assert_int_equal(u64_map_put(m, zero, V(9)), 0); /* slot 0 */
	for (int i = 0; i < 3; i++)
		assert_int_equal(u64_map_put(m, end[i], V(i)), 0); /* last, 1, 2 */

	assert_ptr_equal(u64_map_remove(m, end[0]), V(0));
	assert_ptr_equal(u64_map_get(m, end[1]), V(1));
	assert_ptr_equal(u64_map_get(m, end[2]), V(2));
	assert_ptr_equal(u64_map_get(m, zero), V(9));
	assert_ptr_equal(u64_map_remove(m, zero), V(9));
	assert_ptr_equal(u64_map_get(m, end[1]), V(1));
	assert_ptr_equal(u64_map_get(m, end[2]), V(2));
	u64_map_free(m);
}

static void test_grows_and_keeps_everything(void **state)
{
	struct u64_map *m = new_map(0);
	size_t first = u64_map_capacity(m);

	for (uint64_t k = 0; k < 3000; k++)
		assert_int_equal(u64_map_put(m, k * 4096, V(k)), 0);
	assert_int_equal(u64_map_count(m), 3000);
	assert_true(u64_map_capacity(m) > first);
	assert_true(u64_map_capacity(m) >= 2 * 3000);
	for (uint64_t k = 0; k < 3000; k++)
		assert_ptr_equal(u64_map_get(m, k * 4096), V(k));
	assert_null(u64_map_get(m, 4096 * 3000));
	u64_map_free(m);
}

static void test_expected_size_avoids_growth(void **state)
{
	struct u64_map *m = new_map(100);
	size_t capacity = u64_map_capacity(m);

	for (uint64_t k = 1; k <= 100; k++)
		assert_int_equal(u64_map_put(m, k, V(k)), 0);
	assert_int_equal(u64_map_capacity(m), capacity);
	u64_map_free(m);
}

static void test_iteration_visits_each_once(void **state)
{
	struct u64_map *m = new_map(0);
	int seen[200] = { 0 };
	size_t pos = 0, n = 0;
	uint64_t key;
	void *value;

	for (uint64_t k = 0; k < 200; k++)
		assert_int_equal(u64_map_put(m, k, V(k)), 0);
	while (u64_map_next(m, &pos, &key, &value)) {
		assert_true(key < 200);
		assert_ptr_equal(value, V(key));
		seen[key]++;
		n++;
	}
	assert_int_equal(n, 200);
	for (int k = 0; k < 200; k++)
		assert_int_equal(seen[k], 1);
	assert_false(u64_map_next(m, &pos, &key, &value)); /* stays at the end */
	u64_map_free(m);
}

static void test_iteration_of_empty_map(void **state)
{
	struct u64_map *m = new_map(0);
	size_t pos = 0;
	uint64_t key;
	void *value;

	assert_false(u64_map_next(m, &pos, &key, &value));
	u64_map_free(m);
}

struct drop_log {
	int calls[64];
	uint64_t modulus; /* drop keys divisible by it */
};

static bool drop_multiples(uint64_t key, void *value, void *arg)
{
	struct drop_log *log = arg;

	log->calls[key]++;
	return key % log->modulus == 0;
}

/* Every entry is offered once, even as removals shift runs, wrapping ones too. */
static void test_remove_if(void **state)
{
	struct u64_map *m = new_map(0);
	struct drop_log log = { .modulus = 3 };

	for (uint64_t k = 0; k < 64; k++)
		assert_int_equal(u64_map_put(m, k, V(k)), 0);
	assert_int_equal(u64_map_remove_if(m, drop_multiples, &log), 22);
	assert_int_equal(u64_map_count(m), 42);
	for (uint64_t k = 0; k < 64; k++) {
		assert_int_equal(log.calls[k], 1);
		if (k % 3)
			assert_ptr_equal(u64_map_get(m, k), V(k));
		else
			assert_null(u64_map_get(m, k));
	}
	u64_map_free(m);
}

static bool drop_all(uint64_t key, void *value, void *arg)
{
	return true;
}

static void test_remove_if_all_in_collision_runs(void **state)
{
	struct u64_map *m = new_map(0);
	size_t last = u64_map_capacity(m) - 1;
	uint64_t keys[7];

	keys_at(m, last, 1, keys, 4); /* last, 0, 1, 2 */
	keys_at(m, 1, 1, keys + 4, 3); /* 3, 4, 5 */
	for (int i = 0; i < 7; i++)
		assert_int_equal(u64_map_put(m, keys[i], V(i)), 0);
	assert_int_equal(u64_map_remove_if(m, drop_all, NULL), 7);
	assert_int_equal(u64_map_count(m), 0);
	for (int i = 0; i < 7; i++)
		assert_null(u64_map_get(m, keys[i]));
	u64_map_free(m);
}

/* A long random mix of put and remove on few keys, checked against an array. */
static void test_random_against_array(void **state)
{
	enum { KEYS = 512 };
	struct u64_map *m = new_map(0);
	void *want[KEYS] = { NULL };
	size_t count = 0;

	srand(1);
	for (int round = 0; round < 200000; round++) {
		int k = rand() % KEYS;
		uint64_t key = (uint64_t)k << 12; /* spaced like inode numbers */

		if (rand() % 3) {
			void *v = V(rand() % 4096);

			assert_int_equal(u64_map_put(m, key, v), 0);
			count += !want[k];
			want[k] = v;
		} else {
			assert_ptr_equal(u64_map_remove(m, key), want[k]);
			count -= !!want[k];
			want[k] = NULL;
		}
		assert_int_equal(u64_map_count(m), count);
		if (round % 1000 == 0)
			for (int i = 0; i < KEYS; i++)
				assert_ptr_equal(u64_map_get(m, (uint64_t)i << 12), want[i]);
	}
	u64_map_free(m);
}

static void test_free_null(void **state)
{
	u64_map_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_get_replace),
		cmocka_unit_test(test_null_value_is_rejected),
		cmocka_unit_test(test_key_zero_and_max),
		cmocka_unit_test(test_remove_absent),
		cmocka_unit_test(test_remove_in_collision_run),
		cmocka_unit_test(test_remove_in_wrapping_run),
		cmocka_unit_test(test_grows_and_keeps_everything),
		cmocka_unit_test(test_expected_size_avoids_growth),
		cmocka_unit_test(test_iteration_visits_each_once),
		cmocka_unit_test(test_iteration_of_empty_map),
		cmocka_unit_test(test_remove_if),
		cmocka_unit_test(test_remove_if_all_in_collision_runs),
		cmocka_unit_test(test_random_against_array),
		cmocka_unit_test(test_free_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
