// SPDX-License-Identifier: GPL-2.0
/*
 * Allocator benchmark (host build of lakeshm/alloc.c, the module's code).
 *
 * Cost: with N live blocks of random sizes (64 B - 64 KiB), one step frees a
 * random live block and allocates a new random one: one alloc+free pair.
 * After an untimed warm-up of 2N pairs (at least one round), which brings
 * the free blocks to their steady number, each round times 20,000 pairs;
 * the figure is the median of 31 rounds, on one CPU. The region is abstract
 * (offsets only), so it can be large enough for 100,000 live blocks without
 * memory behind it.
 * Fragmentation: after 2,000,000 random operations at ~70% occupancy (a
 * sequence of its own), largest free block / total free (1.0 = none).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "lakeshm/alloc.h"

#define ROUNDS	31
#define PAIRS	20000

#define SEED	0x243f6a8885a308d3ULL

static u64 seed = SEED;

static u64 rnd(void)
{
	seed ^= seed >> 12;
	seed ^= seed << 25;
	seed ^= seed >> 27;
	return seed * 0x2545F4914F6CDD1DULL;
}

static u64 rnd_size(void)
{
	return 64 + rnd() % (64 * 1024 - 63);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void pairs(struct lake_alloc *a, u64 *offs, unsigned int live, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		unsigned int k = rnd() % live;

		lake_alloc_free(a, offs[k]);
		if (lake_alloc_alloc(a, rnd_size(), 0, &offs[k]))
			exit(1);
	}
}

static double pair_cost(unsigned int live)
{
	u64 region = (u64)live * 64 * 1024 + (16ULL << 20);
	u64 *offs = malloc(live * sizeof(*offs));
	double t[ROUNDS];
	struct lake_alloc a;
	unsigned int i, r;

	if (!offs || lake_alloc_init(&a, region))
		exit(1);
	for (i = 0; i < live; i++)
		if (lake_alloc_alloc(&a, rnd_size(), 0, &offs[i]))
			exit(1);
	pairs(&a, offs, live, live * 2 > PAIRS ? live * 2 : PAIRS);
	for (r = 0; r < ROUNDS; r++) {
		double t0 = now_ns();

		pairs(&a, offs, live, PAIRS);
		t[r] = (now_ns() - t0) / PAIRS;
	}
	if (lake_alloc_check(&a))
		exit(1);
	lake_alloc_destroy(&a);
	free(offs);
	qsort(t, ROUNDS, sizeof(t[0]), cmp_double);
	return t[ROUNDS / 2];
}

static double fragmentation(void)
{
	enum { SLOTS = 4096 };
	u64 region = 256ULL << 20, offs[SLOTS] = { 0 }, lens[SLOTS] = { 0 }, used = 0;
	struct lake_alloc_stats st;
	struct lake_alloc a;
	unsigned int i;

	/* Its own sequence: the figure must not depend on the timing runs. */
	seed = SEED;
	if (lake_alloc_init(&a, region))
		exit(1);
	for (i = 0; i < 2000000; i++) {
		unsigned int k = rnd() % SLOTS;

		if (lens[k]) {
			lake_alloc_free(&a, offs[k]);
			used -= lens[k];
			lens[k] = 0;
		} else if (used < region / 10 * 7) {
			u64 size = rnd_size();

			if (!lake_alloc_alloc(&a, size, rnd() % 16 ? 0 : 4096, &offs[k])) {
				lens[k] = LAKE_ALIGN_UP(size, 64);
				used += lens[k];
			}
		}
	}
	lake_alloc_get_stats(&a, &st);
	lake_alloc_destroy(&a);
	return (double)st.largest_free / st.free;
}

/* Stay on the CPU we started on: a migration mid-round would time a cold cache. */
static void pin(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

int main(void)
{
	double c100, c10k, c100k, ratio, frag;

	pin();
	c100 = pair_cost(100);
	c10k = pair_cost(10000);
	c100k = pair_cost(100000);
	ratio = c100k / c100;
	frag = fragmentation();

	printf("allocator (host, median of %d rounds x %d pairs)\n", ROUNDS, PAIRS);
	printf("  %-34s %10s %10s  %s\n", "metric", "value", "target", "verdict");
	printf("  %-34s %10.1f %10s\n", "ns per alloc+free, 100 live", c100, "");
	printf("  %-34s %10.1f %10s  %s\n", "ns per alloc+free, 10,000 live", c10k, "<= 150",
	       c10k <= 150 ? "met" : "MISSED");
	printf("  %-34s %10.1f %10s\n", "ns per alloc+free, 100,000 live", c100k, "");
	printf("  %-34s %10.2f %10s  %s\n", "ratio 100,000 / 100 live", ratio, "<= 2",
	       ratio <= 2 ? "met" : "MISSED");
	printf("  %-34s %10.3f %10s\n", "largest free / total free", frag, "");
	return 0;
}
