// SPDX-License-Identifier: GPL-2.0
/* Host tests of lakeshm's best-fit allocator (the same file the module builds). */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lakeshm/alloc.h"

#define KIB 1024ULL
#define MIB (1024 * KIB)

static struct lake_alloc A;

static int setup(void **state)
{
	(void)state;
	return lake_alloc_init(&A, 1 * MIB);
}

static int teardown(void **state)
{
	(void)state;
	lake_alloc_destroy(&A);
	return 0;
}

static u64 must_alloc(u64 size, u64 align)
{
	u64 off = ~0ULL;

	assert_int_equal(lake_alloc_alloc(&A, size, align, &off), 0);
	return off;
}

static struct lake_alloc_stats stats(void)
{
	struct lake_alloc_stats st;

	lake_alloc_get_stats(&A, &st);
	return st;
}

static void test_init_rejects_bad_sizes(void **state)
{
	struct lake_alloc b;

	(void)state;
	assert_int_equal(lake_alloc_init(&b, 0), -EINVAL);
	assert_int_equal(lake_alloc_init(&b, 100), -EINVAL);
}

static void test_fresh_region_is_one_free_block(void **state)
{
	struct lake_alloc_stats st = stats();

	(void)state;
	assert_int_equal(st.size, 1 * MIB);
	assert_int_equal(st.free, 1 * MIB);
	assert_int_equal(st.largest_free, 1 * MIB);
	assert_int_equal(st.free_blocks, 1);
	assert_int_equal(st.live_allocs, 0);
	assert_int_equal(lake_alloc_check(&A), 0);
}

static void test_sizes_round_to_64(void **state)
{
	u64 a, b;

	(void)state;
	a = must_alloc(1, 0);
	b = must_alloc(65, 0);
	assert_int_equal(a, 0);
	assert_int_equal(b, 64);
	assert_int_equal(stats().used, 64 + 128);
	assert_int_equal(lake_alloc_check(&A), 0);
}

/*
 * Lay out free holes of 256, 128, 512 and 192 bytes separated by used
 * guards, then check each request lands in the smallest hole that fits.
 */
static void test_best_fit_choice(void **state)
{
	static const u64 holes[] = { 256, 128, 512, 192 };
	u64 hole_off[4], guard[5], off;
	unsigned int i;

	(void)state;
	guard[0] = must_alloc(64, 0);
	for (i = 0; i < 4; i++) {
		hole_off[i] = must_alloc(holes[i], 0);
		guard[i + 1] = must_alloc(64, 0);
	}
	for (i = 0; i < 4; i++)
		assert_int_equal(lake_alloc_free(&A, hole_off[i]), 0);

	off = must_alloc(100, 0);	/* 128 fits: hole 1 */
	assert_int_equal(off, hole_off[1]);
	off = must_alloc(130, 0);	/* 192 is the best: hole 3 */
	assert_int_equal(off, hole_off[3]);
	off = must_alloc(200, 0);	/* 256: hole 0 */
	assert_int_equal(off, hole_off[0]);
	off = must_alloc(300, 0);	/* only 512 or the tail; 512 is smaller */
	assert_int_equal(off, hole_off[2]);
	/* The 192 left over from hole 2 (512 - 320) now beats the tail. */
	off = must_alloc(150, 0);
	assert_int_equal(off, hole_off[2] + 320);
	assert_int_equal(lake_alloc_check(&A), 0);
	(void)guard;
}

/* The same among holes above the classes, which live in the tree. */
static void test_best_fit_big(void **state)
{
	static const u64 holes[] = { 512 * KIB, 1 * MIB, 768 * KIB, 512 * KIB };
	struct lake_alloc s;
	u64 hole_off[4], off;
	unsigned int i;

	(void)state;
	assert_int_equal(lake_alloc_init(&s, 8 * MIB), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(lake_alloc_alloc(&s, holes[i], 0, &hole_off[i]), 0);
		assert_int_equal(lake_alloc_alloc(&s, 64, 0, &off), 0);
	}
	for (i = 0; i < 4; i++)
		assert_int_equal(lake_alloc_free(&s, hole_off[i]), 0);
	assert_int_equal(lake_alloc_alloc(&s, 600 * KIB, 0, &off), 0);
	assert_int_equal(off, hole_off[2]);
	/* Equal big holes: the lower offset wins. */
	assert_int_equal(lake_alloc_alloc(&s, 300 * KIB, 0, &off), 0);
	assert_int_equal(off, hole_off[0]);
	assert_int_equal(lake_alloc_alloc(&s, 900 * KIB, 0, &off), 0);
	assert_int_equal(off, hole_off[1]);
	assert_int_equal(lake_alloc_check(&s), 0);
	lake_alloc_destroy(&s);
}

/* Equal-sized holes: the most recently freed wins (its memory is warm). */
static void test_best_fit_tie_takes_latest_freed(void **state)
{
	u64 h1, h2, off;

	(void)state;
	h1 = must_alloc(256, 0);
	must_alloc(64, 0);
	h2 = must_alloc(256, 0);
	must_alloc(64, 0);
	assert_int_equal(lake_alloc_free(&A, h2), 0);
	assert_int_equal(lake_alloc_free(&A, h1), 0);
	off = must_alloc(256, 0);
	assert_int_equal(off, h1);
}

static void test_coalesce_both_sides(void **state)
{
	u64 a, b, c, d;

	(void)state;
	a = must_alloc(1024, 0);
	b = must_alloc(2048, 0);
	c = must_alloc(4096, 0);
	d = must_alloc(64, 0);	/* keeps c from merging with the tail */

	assert_int_equal(lake_alloc_free(&A, a), 0);
	assert_int_equal(lake_alloc_free(&A, c), 0);
	assert_int_equal(stats().free_blocks, 3);	/* a, c, tail */
	assert_int_equal(lake_alloc_free(&A, b), 0);	/* merges with a and c */
	assert_int_equal(stats().free_blocks, 2);
	assert_int_equal(stats().largest_free, 1 * MIB - 1024 - 2048 - 4096 - 64);
	assert_int_equal(lake_alloc_check(&A), 0);
	/* The merged block is reused whole. */
	assert_int_equal(must_alloc(1024 + 2048 + 4096, 0), a);
	assert_int_equal(lake_alloc_free(&A, d), 0);
	assert_int_equal(lake_alloc_check(&A), 0);
}

static void test_free_everything_leaves_one_block(void **state)
{
	u64 offs[64];
	unsigned int i;

	(void)state;
	for (i = 0; i < 64; i++)
		offs[i] = must_alloc(64 * (i + 1), 0);
	for (i = 0; i < 64; i += 2)
		assert_int_equal(lake_alloc_free(&A, offs[i]), 0);
	for (i = 1; i < 64; i += 2)
		assert_int_equal(lake_alloc_free(&A, offs[i]), 0);
	assert_int_equal(stats().free_blocks, 1);
	assert_int_equal(stats().largest_free, 1 * MIB);
	assert_int_equal(lake_alloc_check(&A), 0);
}

static void test_alignment(void **state)
{
	u64 off, pad;

	(void)state;
	must_alloc(64, 0);
	off = must_alloc(100, 4096);
	assert_int_equal(off % 4096, 0);
	assert_int_equal(off, 4096);
	/* The skipped padding is free and serves the next small request. */
	pad = must_alloc(128, 0);
	assert_int_equal(pad, 64);
	off = must_alloc(64, 65536);
	assert_int_equal(off % 65536, 0);
	assert_int_equal(lake_alloc_check(&A), 0);
}

/* Alignment must not stop best fit: the smallest hole that can host it wins. */
static void test_alignment_best_fit(void **state)
{
	u64 g, small, big, off;

	(void)state;
	g = must_alloc(64, 0);			/* [0, 64) */
	small = must_alloc(4096, 0);		/* [64, 4160): no aligned 4 KiB fits */
	must_alloc(64, 0);
	big = must_alloc(16384, 0);
	must_alloc(64, 0);
	assert_int_equal(lake_alloc_free(&A, small), 0);
	assert_int_equal(lake_alloc_free(&A, big), 0);
	off = must_alloc(4096, 4096);
	assert_int_equal(off % 4096, 0);
	assert_true(off >= big && off + 4096 <= big + 16384);
	assert_int_equal(lake_alloc_check(&A), 0);
	(void)g;
}

/* An exact aligned hole is the best fit: the scan starts at its own class. */
static void test_alignment_exact_hole(void **state)
{
	u64 hole;

	(void)state;
	assert_int_equal(must_alloc(4096, 4096), 0);
	hole = must_alloc(4096, 4096);
	assert_int_equal(hole, 4096);
	must_alloc(4096, 0);			/* [8192, 12288); free from 12288 */
	assert_int_equal(lake_alloc_free(&A, hole), 0);
	assert_int_equal(must_alloc(4096, 4096), 4096);
	assert_int_equal(lake_alloc_check(&A), 0);
}

/* A hole whose padding does not fit is passed over for the next of its class. */
static void test_alignment_same_class(void **state)
{
	u64 a, b;

	(void)state;
	must_alloc(64, 0);
	a = must_alloc(4160, 0);		/* [64, 4224): 4096 at 4096 does not fit */
	must_alloc(64, 0);
	must_alloc(8192 - 4288, 0);
	b = must_alloc(4160, 0);		/* [8192, 12352): it fits */
	assert_int_equal(b, 8192);
	must_alloc(64, 0);
	assert_int_equal(lake_alloc_free(&A, b), 0);
	assert_int_equal(lake_alloc_free(&A, a), 0);	/* a heads the class */
	assert_int_equal(must_alloc(4096, 4096), 8192);
	assert_int_equal(lake_alloc_check(&A), 0);
}

static void test_bad_arguments(void **state)
{
	u64 off;

	(void)state;
	assert_int_equal(lake_alloc_alloc(&A, 0, 0, &off), -EINVAL);
	assert_int_equal(lake_alloc_alloc(&A, 64, 3000, &off), -EINVAL);
	assert_int_equal(lake_alloc_alloc(&A, 2 * MIB, 0, &off), -EINVAL);
	assert_int_equal(lake_alloc_alloc(&A, 64, 2 * MIB, &off), -EINVAL);
	assert_int_equal(stats().live_allocs, 0);
	assert_int_equal(stats().failed_allocs, 4);
}

static void test_exhaustion(void **state)
{
	unsigned int n = 0;
	u64 off;

	(void)state;
	while (lake_alloc_alloc(&A, 64 * KIB, 0, &off) == 0)
		n++;
	assert_int_equal(n, 16);
	assert_int_equal(stats().failed_allocs, 1);
	assert_int_equal(stats().free, 0);
	assert_int_equal(lake_alloc_alloc(&A, 64, 0, &off), -ENOMEM);
	assert_int_equal(lake_alloc_free(&A, 5 * 64 * KIB), 0);
	assert_int_equal(must_alloc(64 * KIB, 0), 5 * 64 * KIB);
	assert_int_equal(lake_alloc_check(&A), 0);
}

static void test_double_free_and_foreign_offsets(void **state)
{
	struct lake_alloc_stats before, after;
	u64 a, b;

	(void)state;
	a = must_alloc(256, 0);
	b = must_alloc(256, 0);
	assert_int_equal(lake_alloc_free(&A, a), 0);
	before = stats();
	assert_int_equal(lake_alloc_free(&A, a), -EINVAL);		/* double */
	assert_int_equal(lake_alloc_free(&A, b + 64), -EINVAL);	/* interior */
	assert_int_equal(lake_alloc_free(&A, 2 * MIB), -EINVAL);	/* outside */
	assert_int_equal(lake_alloc_free(&A, ~0ULL), -EINVAL);
	after = stats();
	assert_int_equal(after.bad_frees, before.bad_frees + 4);
	assert_int_equal(after.used, before.used);
	assert_int_equal(after.live_allocs, 1);
	assert_int_equal(lake_alloc_check(&A), 0);
	assert_int_equal(lake_alloc_free(&A, b), 0);
}

static void test_find(void **state)
{
	u64 a, boff = 0, bsize = 0;

	(void)state;
	must_alloc(64, 0);
	a = must_alloc(1000, 0);	/* rounded to 1024 */
	assert_int_equal(lake_alloc_find(&A, a, 1024, &boff, &bsize), 0);
	assert_int_equal(boff, a);
	assert_int_equal(bsize, 1024);
	assert_int_equal(lake_alloc_find(&A, a + 1000, 24, NULL, NULL), 0);
	assert_int_equal(lake_alloc_find(&A, a + 1000, 25, NULL, NULL), -EINVAL);
	assert_int_equal(lake_alloc_find(&A, a + 2048, 1, NULL, NULL), -EINVAL);	/* free */
	assert_int_equal(lake_alloc_find(&A, a, 0, NULL, NULL), -ERANGE);
	assert_int_equal(lake_alloc_find(&A, 1 * MIB, 1, NULL, NULL), -ERANGE);
	assert_int_equal(lake_alloc_find(&A, a, ~0ULL, NULL, NULL), -ERANGE);
	assert_int_equal(lake_alloc_find(&A, ~0ULL - 4, 8, NULL, NULL), -ERANGE);
	assert_int_equal(lake_alloc_free(&A, a), 0);
	assert_int_equal(lake_alloc_find(&A, a, 1, NULL, NULL), -EINVAL);
}

/*
 * 100,000 tiny blocks: the node array, the class-list entries and the hash
 * all grow many times over, and the hash has to move keys between buckets.
 */
static void test_growth(void **state)
{
	enum { N = 100000 };
	static u64 offs[N];
	struct lake_alloc_stats st;
	struct lake_alloc s;
	unsigned int i;
	u64 bsize;

	(void)state;
	assert_int_equal(lake_alloc_init(&s, 16 * MIB), 0);
	for (i = 0; i < N; i++) {
		assert_int_equal(lake_alloc_alloc(&s, 64, 0, &offs[i]), 0);
		assert_int_equal(offs[i], i * 64ULL);
	}
	assert_int_equal(lake_alloc_check(&s), 0);
	for (i = 0; i < N; i += 2)
		assert_int_equal(lake_alloc_free(&s, offs[i]), 0);
	assert_int_equal(lake_alloc_check(&s), 0);
	for (i = 1; i < N; i += 2) {
		assert_int_equal(lake_alloc_find(&s, offs[i] + 63, 1, NULL, &bsize), 0);
		assert_int_equal(bsize, 64);
		assert_int_equal(lake_alloc_find(&s, offs[i] - 1, 1, NULL, NULL), -EINVAL);
	}
	for (i = 1; i < N; i += 2)
		assert_int_equal(lake_alloc_free(&s, offs[i]), 0);
	assert_int_equal(lake_alloc_check(&s), 0);
	lake_alloc_get_stats(&s, &st);
	assert_int_equal(st.free_blocks, 1);
	assert_int_equal(st.largest_free, 16 * MIB);
	lake_alloc_destroy(&s);
}

/* Offsets past 4 GiB, and the size limit. */
static void test_large_region(void **state)
{
	struct lake_alloc s;
	u64 big, small, boff;

	(void)state;
	assert_int_equal(lake_alloc_init(&s, LAKE_ALLOC_MAX_SIZE + 64), -EINVAL);
	assert_int_equal(lake_alloc_init(&s, 8 * 1024 * MIB), 0);
	assert_int_equal(lake_alloc_alloc(&s, 5 * 1024 * MIB, 0, &big), 0);
	assert_int_equal(lake_alloc_alloc(&s, 100, 1 * MIB, &small), 0);
	assert_int_equal(small, 5 * 1024 * MIB);
	assert_int_equal(lake_alloc_find(&s, small + 99, 1, &boff, NULL), 0);
	assert_int_equal(boff, small);
	assert_int_equal(lake_alloc_find(&s, 5 * 1024 * MIB - 1, 2, NULL, NULL), -EINVAL);
	assert_int_equal(lake_alloc_free(&s, big), 0);
	assert_int_equal(lake_alloc_check(&s), 0);
	assert_int_equal(lake_alloc_free(&s, small), 0);
	assert_int_equal(lake_alloc_check(&s), 0);
	lake_alloc_destroy(&s);
}

/* xorshift64*: deterministic, so a failure reproduces from the seed. */
static u64 rnd(u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

#define STRESS_REGION	(4 * MIB)
#define STRESS_OPS	1000000
#define STRESS_SLOTS	512
#define GRANULES	(STRESS_REGION / 64)

/* lake_alloc_find() at @g agrees with the shadow map (slot + 1 per granule). */
static void check_find(struct lake_alloc *s, const u16 *shadow, const u64 *off,
		       const u64 *len, u64 g, unsigned long step)
{
	u64 boff = 0, bsize = 0;
	int ret = lake_alloc_find(s, g * 64 + 7, 1, &boff, &bsize);
	unsigned int slot = shadow[g];

	if (!slot ? ret != -EINVAL :
	    ret || boff != off[slot - 1] || bsize != len[slot - 1])
		fail_msg("step %lu: find(%#llx) = %d, %#llx+%llu", step,
			 (unsigned long long)g * 64 + 7, ret, (unsigned long long)boff,
			 (unsigned long long)bsize);
}

/*
 * An -ENOMEM must be true: no free run of the shadow map can hold @size at
 * @align. The map, not the allocator's own statistics, is the judge.
 */
static void check_enomem(const u16 *shadow, u64 size, u64 align, unsigned long step)
{
	u64 need = LAKE_ALIGN_UP(size, 64) / 64, unit = align ? align / 64 : 1, g = 0, end, at;

	while (g < GRANULES) {
		if (shadow[g]) {
			g++;
			continue;
		}
		for (end = g; end < GRANULES && !shadow[end]; end++)
			;
		at = LAKE_ALIGN_UP(g, unit);
		if (at + need <= end)
			fail_msg("step %lu: -ENOMEM for %llu bytes at alignment %llu, but %#llx+%llu is free",
				 step, (unsigned long long)size, (unsigned long long)align,
				 (unsigned long long)g * 64, (unsigned long long)(end - g) * 64);
		g = end;
	}
}

/*
 * A million random allocs and frees against a shadow map of the region:
 * after every step, the new block must not overlap any live one, the
 * allocator's accounting must equal the model's, find() must name the
 * allocation (or none) the map shows at a random byte, and a refusal must
 * have no free run that fits. A full structural
 * check runs every 4096 steps and at the end.
 */
static void test_stress(void **state)
{
	static u16 shadow[GRANULES];
	static u64 off[STRESS_SLOTS], len[STRESS_SLOTS];
	struct lake_alloc s;
	struct lake_alloc_stats st;
	u64 seed = 0x9e3779b97f4a7c15ULL, used = 0, live = 0, g;
	unsigned long i, enomem = 0;

	(void)state;
	memset(shadow, 0, sizeof(shadow));
	memset(len, 0, sizeof(len));
	assert_int_equal(lake_alloc_init(&s, STRESS_REGION), 0);
	for (i = 0; i < STRESS_OPS; i++) {
		unsigned int slot = rnd(&seed) % STRESS_SLOTS;

		if (len[slot]) {
			assert_int_equal(lake_alloc_free(&s, off[slot]), 0);
			for (g = off[slot] / 64; g < (off[slot] + len[slot]) / 64; g++)
				shadow[g] = 0;
			used -= len[slot];
			live--;
			len[slot] = 0;
		} else {
			/* Now and then a large one, which fragmentation can refuse. */
			u64 size = 64 + rnd(&seed) % (rnd(&seed) % 32 ? 16 * KIB : 1 * MIB);
			u64 align = rnd(&seed) % 8 == 0 ? 4096 : 0;
			int ret = lake_alloc_alloc(&s, size, align, &off[slot]);

			if (ret == -ENOMEM) {
				enomem++;
				check_enomem(shadow, size, align, i);
				continue;
			}
			assert_int_equal(ret, 0);
			if (align)
				assert_int_equal(off[slot] % align, 0);
			len[slot] = LAKE_ALIGN_UP(size, 64);
			assert_true(off[slot] + len[slot] <= STRESS_REGION);
			for (g = off[slot] / 64; g < (off[slot] + len[slot]) / 64; g++) {
				if (shadow[g])
					fail_msg("step %lu: overlap at %#llx", i,
						 (unsigned long long)g * 64);
				shadow[g] = slot + 1;
			}
			used += len[slot];
			live++;
		}
		lake_alloc_get_stats(&s, &st);
		if (st.used != used || st.live_allocs != live || st.free != STRESS_REGION - used)
			fail_msg("step %lu: accounting %llu/%llu vs model %llu/%llu", i,
				 (unsigned long long)st.used, (unsigned long long)st.live_allocs,
				 (unsigned long long)used, (unsigned long long)live);
		check_find(&s, shadow, off, len, rnd(&seed) % GRANULES, i);
		if (i % 4096 == 0)
			assert_int_equal(lake_alloc_check(&s), 0);
	}
	assert_int_equal(lake_alloc_check(&s), 0);
	printf("# stress: %lu refusals checked\n", enomem);
	for (i = 0; i < STRESS_SLOTS; i++)
		if (len[i])
			assert_int_equal(lake_alloc_free(&s, off[i]), 0);
	lake_alloc_get_stats(&s, &st);
	assert_int_equal(st.free_blocks, 1);
	assert_int_equal(st.largest_free, STRESS_REGION);
	assert_int_equal(st.used, 0);
	assert_int_equal(lake_alloc_check(&s), 0);
	lake_alloc_destroy(&s);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_rejects_bad_sizes),
		T(test_fresh_region_is_one_free_block),
		T(test_sizes_round_to_64),
		T(test_best_fit_choice),
		T(test_best_fit_tie_takes_latest_freed),
		cmocka_unit_test(test_best_fit_big),
		T(test_coalesce_both_sides),
		T(test_free_everything_leaves_one_block),
		T(test_alignment),
		T(test_alignment_best_fit),
		T(test_alignment_exact_hole),
		T(test_alignment_same_class),
		T(test_bad_arguments),
		T(test_exhaustion),
		T(test_double_free_and_foreign_offsets),
		T(test_find),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_large_region),
		cmocka_unit_test(test_stress),
	};

	return cmocka_run_group_tests_name("shm_alloc", tests, NULL, NULL);
}
