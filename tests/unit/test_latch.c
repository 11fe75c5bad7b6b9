// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the async error latch (lakelib/latch_core.c): errors are
 * kept per (context, stream), the NULL stream being one of them; a stream's
 * take sees its own errors only, a context-wide take every stream of that
 * context; the first error on a stream is the one reported, and once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <lake/latch.h>

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
	assert_true(r == E1 || r == E2);
	/* Every stream of A was taken, none of B. */
	assert_int_equal(lake_latch_take(&L, CTX_A, S1, false), 0);
	assert_int_equal(lake_latch_take(&L, CTX_A, S2, false), 0);
	assert_int_equal(lake_latch_take(&L, CTX_A, 0, true), 0);
	assert_int_equal(lake_latch_take(&L, CTX_B, S1, false), E3);
}

/* A full table of streams: each keeps its own error. */
static void test_many_streams(void **state)
{
	u32 i;

	(void)state;
	for (i = 0; i < LAKE_LATCH_MAX; i++)
		lake_latch_error(&L, CTX_A + i % 2, i, 1000 + i);
	for (i = LAKE_LATCH_MAX; i-- > 0; )
		assert_int_equal(lake_latch_take(&L, CTX_A + i % 2, i, false), 1000 + i);
	for (i = 0; i < LAKE_LATCH_MAX; i++)
		assert_int_equal(lake_latch_take(&L, CTX_A + i % 2, i, false), 0);
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
#define T(fn) cmocka_unit_test_setup(fn, setup)
		T(test_null_stream),
		T(test_streams_are_apart),
		T(test_first_error_wins),
		T(test_whole_context),
		T(test_many_streams),
		T(test_clear),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
