// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the async error latch (common/latch_core.c): errors are
 * kept per (context, stream), the NULL stream being one of them; a stream's
 * take sees its own errors only, a context-wide take every stream of that
 * context; the first error on a stream is the one reported, and once; no
 * error is lost for want of memory (latch_test_malloc fails on demand).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <lake/latch.h>

static int fail_allocs;	/* the next N atomic allocations fail */

void *latch_test_malloc(size_t size)
{
	if (fail_allocs > 0) {
		fail_allocs--;
		return NULL;
	}
	return malloc(size);
}

#define CTX_A	0x1000
#define CTX_B	0x2000
#define S1	0x11
#define S2	0x22
#define E1	1	/* CUDA_ERROR_INVALID_VALUE */
#define E2	400	/* CUDA_ERROR_INVALID_HANDLE */
#define E3	700	/* CUDA_ERROR_ILLEGAL_ADDRESS */

static struct lake_latch L;

static int setup(void **state)
{
	(void)state;
	memset(&L, 0x5a, sizeof(L));
	lake_latch_init(&L);
	fail_allocs = 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	lake_latch_clear(&L);
	return 0;
}

static void test_null_stream(void **state)
{
	(void)state;
	lake_latch_error(&L, CTX_A, 0, E1);
	assert_int_equal(lake_latch_take(&L, CTX_A, S1, false), 0);
	assert_int_equal(lake_latch_take(&L, CTX_A, 0, false), E1);
	assert_int_equal(lake_latch_take(&L, CTX_A, 0, false), 0);
	lake_latch_error(&L, CTX_A, 0, E2);
	assert_int_equal(lake_latch_take(&L, CTX_A, 0, true), E2);
	assert_int_equal(lake_latch_take(&L, CTX_A, 0, false), 0);
}

static void test_streams_are_apart(void **state)
{
	(void)state;
	lake_latch_error(&L, CTX_A, S1, E1);
	lake_latch_error(&L, CTX_B, S2, E3);
	assert_int_equal(lake_latch_take(&L, CTX_A, S2, false), 0);
	assert_int_equal(lake_latch_take(&L, CTX_A, 0, false), 0);
	/* The same stream value in another context is another stream. */
	assert_int_equal(lake_latch_take(&L, CTX_B, S1, false), 0);
	assert_int_equal(lake_latch_take(&L, CTX_B, 0, true), E3);
	assert_int_equal(lake_latch_take(&L, CTX_A, S1, false), E1);
	assert_int_equal(lake_latch_take(&L, CTX_A, 0, true), 0);
	/* An error on a second stream does not hide behind the first. */
	lake_latch_error(&L, CTX_A, S1, E1);
	lake_latch_error(&L, CTX_A, S2, E2);
	assert_int_equal(lake_latch_take(&L, CTX_A, S2, false), E2);
	assert_int_equal(lake_latch_take(&L, CTX_A, S1, false), E1);
}

static void test_first_error_wins(void **state)
{
	(void)state;
	lake_latch_error(&L, CTX_A, S1, E2);
	lake_latch_error(&L, CTX_A, S1, E1);
	lake_latch_error(&L, CTX_A, S1, E3);
	assert_int_equal(lake_latch_take(&L, CTX_A, S1, false), E2);
	assert_int_equal(lake_latch_take(&L, CTX_A, S1, false), 0);
	lake_latch_error(&L, CTX_A, 0, E3);
	lake_latch_error(&L, CTX_A, 0, E2);
	assert_int_equal(lake_latch_take(&L, CTX_A, 0, false), E3);
}

static void test_whole_context(void **state)
{
	u32 r;

	(void)state;
	lake_latch_error(&L, CTX_A, S1, E1);
	lake_latch_error(&L, CTX_B, S1, E3);
	lake_latch_error(&L, CTX_A, 0, E2);
	lake_latch_error(&L, CTX_A, S2, E2);
	r = lake_latch_take(&L, CTX_A, 0, true);
	assert_int_equal(r, E1);	/* the oldest */
	/* Every stream of A was taken, none of B. */
	assert_int_equal(lake_latch_take(&L, CTX_A, S1, false), 0);
	assert_int_equal(lake_latch_take(&L, CTX_A, S2, false), 0);
	assert_int_equal(lake_latch_take(&L, CTX_A, 0, true), 0);
	assert_int_equal(lake_latch_take(&L, CTX_B, S1, false), E3);
}

/* Many more streams than the old fixed table held: each keeps its own error. */
static void test_many_streams(void **state)
{
	u32 i, n = 1000;

	(void)state;
	for (i = 0; i < n; i++)
		assert_true(lake_latch_error(&L, CTX_A + i % 2, i, 1000 + i));
	assert_int_equal(L.count, n);
	for (i = n; i-- > 0; )
		assert_int_equal(lake_latch_take(&L, CTX_A + i % 2, i, false), 1000 + i);
	assert_int_equal(L.count, 0);
	for (i = 0; i < n; i++)
		assert_int_equal(lake_latch_take(&L, CTX_A + i % 2, i, false), 0);
	/* The list still appends after being emptied from its tail. */
	lake_latch_error(&L, CTX_A, S1, E1);
	lake_latch_error(&L, CTX_A, S2, E2);
	assert_int_equal(lake_latch_take(&L, CTX_A, 0, true), E1);
}

/* No memory for an entry: the context's entry widens to all its streams. */
static void test_no_memory_widens(void **state)
{
	(void)state;
	lake_latch_error(&L, CTX_A, S1, E1);
	fail_allocs = 1;
	assert_true(lake_latch_error(&L, CTX_A, S2, E2));
	/* S2's error is reported (as the context's first), and so is S1's. */
	assert_int_equal(lake_latch_take(&L, CTX_A, S2, false), E1);
	assert_int_equal(lake_latch_take(&L, CTX_A, S1, false), 0);
	assert_int_equal(L.count, 0);
}

/* No memory and nothing of the context to widen: every take reports it. */
static void test_no_memory_lost(void **state)
{
	(void)state;
	fail_allocs = 1;
	assert_true(lake_latch_error(&L, CTX_A, S1, E3));
	assert_int_equal(lake_latch_take(&L, CTX_A, S1, false), E3);
	assert_int_equal(lake_latch_take(&L, CTX_B, 0, false), E3);
	lake_latch_clear(&L);
	assert_int_equal(lake_latch_take(&L, CTX_A, S1, false), 0);
}

static void test_clear(void **state)
{
	(void)state;
	lake_latch_error(&L, CTX_A, S1, E1);
	lake_latch_error(&L, CTX_A, 0, E1);
	lake_latch_clear(&L);
	assert_int_equal(lake_latch_take(&L, CTX_A, 0, true), 0);
	lake_latch_error(&L, CTX_A, S1, E2);
	assert_int_equal(lake_latch_take(&L, CTX_A, S1, false), E2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_null_stream),
		T(test_streams_are_apart),
		T(test_first_error_wins),
		T(test_whole_context),
		T(test_many_streams),
		T(test_no_memory_widens),
		T(test_no_memory_lost),
		T(test_clear),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
