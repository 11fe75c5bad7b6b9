// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of the two hot-path calls a LinnOS-like consumer makes per I/O: one
 * policy decision, and one feature vector (begin, capture the pending-I/O
 * history and the current pending count, commit). Each round times many
 * back-to-back calls with CLOCK_MONOTONIC; the median of the rounds is
 * reported against the target. The cores take no locks, so the glue's lock
 * (an uncontended spinlock: ~10-20 ns) comes on top of these numbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <lake/policy.h>
#include <lake/registry.h>

#define ROUNDS	31
#define CALLS	(1u << 16)

static volatile u64 sink;

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v)
{
	qsort(v, ROUNDS, sizeof(*v), cmp_double);
	return v[ROUNDS / 2];
}

static double bench_choose(void)
{
	struct lake_policy *p = lake_policy_create("linnos", 16, 5000);
	struct lake_load load = { .util_pct = 20, .nr_procs = 1 };
	double per_call[ROUNDS];
	u32 b, r, i;

	if (!p)
		exit(1);
	lake_policy_set_daemon(p, true, true);
	for (b = 1; b <= 16; b *= 2) {
		lake_policy_report_cpu(p, b, 1000 * b);
		lake_policy_report_gpu(p, b, 6000 + 100 * b);
	}
	for (r = 0; r < ROUNDS; r++) {
		u64 t0, acc = 0;

		load.ts_ns = now_ns();
		lake_policy_report_load(p, &load);
		t0 = now_ns();
		for (i = 0; i < CALLS; i++)
			acc += lake_policy_choose(p, i & 15, t0 + i);
		per_call[r] = (double)(now_ns() - t0) / CALLS;
		sink += acc;
	}
	lake_policy_destroy(p);
	return median(per_call);
}

static double bench_vector(void)
{
	static const struct lake_feature_desc schema[] = {
		{ "pending_io", 2, 4 },
		{ "latency_us", 2, 4 },
		{ "cur_pending", 2, 1 },
	};
	double per_call[ROUNDS];
	struct lake_reg *reg;
	u32 r, i;

	if (lake_reg_create("linnos", schema, 3, 1024, 4, &reg))
		exit(1);
	for (r = 0; r < ROUNDS; r++) {
		u64 t0 = now_ns();

		for (i = 0; i < CALLS; i++) {
			struct lake_reg_vec *vec = lake_reg_begin(reg, t0 + i);
			u16 v = (u16)i;

			lake_reg_capture(reg, vec, 0, &v, sizeof(v));
			lake_reg_capture(reg, vec, 2, &v, sizeof(v));
			lake_reg_commit(reg, vec, t0 + i);
		}
		per_call[r] = (double)(now_ns() - t0) / CALLS;
	}
	lake_reg_destroy(reg);
	return median(per_call);
}

static void row(const char *name, double ns, double target)
{
	printf("%-26s %9.1f %9.0f  %s\n", name, ns, target,
	       ns <= target ? "pass" : "FAIL");
}

int main(void)
{
	printf("%-26s %9s %9s  %s\n", "name", "median_ns", "target_ns",
	       "verdict");
	row("policy_choose", bench_choose(), 50);
	row("reg_begin_capture_commit", bench_vector(), 200);
	return 0;
}
