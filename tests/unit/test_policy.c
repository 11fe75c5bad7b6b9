// SPDX-License-Identifier: GPL-2.0
/* Host tests of the CPU fallback policy core (common/policy_core.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <lake/policy.h>

#define MAX_BATCH	16
#define BACKOFF_MIN	1000
#define BACKOFF_MAX	6000	/* not a power-of-two multiple: the cap must clamp */
#define PROBE_TIMEOUT	500
#define LOAD_AGE	100

static struct lake_policy *new_policy(void)
{
	struct lake_policy_config cfg;
	struct lake_policy *p = lake_policy_create("linnos", MAX_BATCH, 5000);

	assert_non_null(p);
	lake_policy_default_config(&cfg);
	cfg.backoff_min_ns = BACKOFF_MIN;
	cfg.backoff_max_ns = BACKOFF_MAX;
	cfg.probe_timeout_ns = PROBE_TIMEOUT;
	cfg.load_max_age_ns = LOAD_AGE;
	assert_int_equal(lake_policy_set_config(p, &cfg), 0);
	return p;
}

static void load(struct lake_policy *p, u32 util, u32 procs, u32 queue,
		 u64 ts)
{
	struct lake_load l = {
		.util_pct = util, .nr_procs = procs, .queue = queue, .ts_ns = ts,
	};

	lake_policy_report_load(p, &l);
}

/*
 * A healthy, idle system whose crossover is 8 (override) and whose load
 * reports do not go stale, so a test can follow the trip state alone.
 */
static struct lake_policy *healthy(u64 now)
{
	struct lake_policy *p = new_policy();
	struct lake_policy_snapshot s;

	lake_policy_snapshot(p, &s);
	s.config.load_max_age_ns = 1ull << 40;
	assert_int_equal(lake_policy_set_config(p, &s.config), 0);
	lake_policy_set_daemon(p, true, true);
	load(p, 10, 1, 0, now);
	assert_int_equal(lake_policy_set_crossover(p, 8), 0);
	return p;
}

static void expect(struct lake_policy *p, u32 batch, u64 now,
		   enum lake_target target, enum lake_policy_reason reason)
{
	enum lake_target t = lake_policy_choose(p, batch, now);
	enum lake_policy_reason r = lake_policy_last_reason(p);

	if (r != reason || t != target)
		fail_msg("batch %u at %llu: %d (%s), expected %d (%s)", batch,
			 (unsigned long long)now, t, lake_policy_reason_str(r),
			 target, lake_policy_reason_str(reason));
}

struct decision_case {
	const char *what;
	enum lake_policy_mode mode;
	bool down;		/* laked not registered */
	bool no_device;
	bool no_load;		/* never got a load report */
	s64 load_age;		/* now - the load's timestamp */
	u32 util, procs, queue;
	u32 queue_max;
	bool uncalibrated;	/* else the crossover is overridden to 8 */
	bool trip;		/* one GPU error at now - 1 */
	u32 batch;
	enum lake_target target;
	enum lake_policy_reason reason;
};

#define NOW 1000
#define CPU LAKE_TARGET_CPU
#define GPU LAKE_TARGET_GPU
#define R(x) LAKE_REASON_##x

static const struct decision_case cases[] = {
	{ "all clear", .batch = 8, .target = GPU, .reason = R(GPU_WINS) },
	{ "above max batch", .batch = 100, .target = GPU, .reason = R(GPU_WINS) },
	{ "forced cpu beats everything", .mode = LAKE_POLICY_CPU, .down = true,
	  .no_load = true, .batch = 16, .target = CPU, .reason = R(FORCED_CPU) },
	{ "laked down", .down = true, .batch = 16, .target = CPU,
	  .reason = R(NO_DAEMON) },
	{ "no device", .no_device = true, .batch = 16, .target = CPU,
	  .reason = R(NO_DEVICE) },
	{ "forced gpu, laked down", .mode = LAKE_POLICY_GPU, .down = true,
	  .batch = 16, .target = CPU, .reason = R(NO_DAEMON) },
	{ "forced gpu, no device", .mode = LAKE_POLICY_GPU, .no_device = true,
	  .batch = 16, .target = CPU, .reason = R(NO_DEVICE) },
	{ "forced gpu ignores load and crossover",
	  .mode = LAKE_POLICY_GPU, .no_load = true, .util = 100, .procs = 5,
	  .uncalibrated = true, .batch = 1, .target = GPU,
	  .reason = R(FORCED_GPU) },
	{ "forced gpu, tripped", .mode = LAKE_POLICY_GPU, .no_load = true,
	  .trip = true, .batch = 16, .target = CPU, .reason = R(TRIPPED) },
	{ "never a load report", .no_load = true, .batch = 16, .target = CPU,
	  .reason = R(STALE_LOAD) },
	{ "load just old enough", .load_age = LOAD_AGE, .batch = 16,
	  .target = GPU, .reason = R(GPU_WINS) },
	{ "stale load", .load_age = LOAD_AGE + 1, .batch = 16, .target = CPU,
	  .reason = R(STALE_LOAD) },
	{ "stale load beats contention", .load_age = NOW, .util = 99,
	  .procs = 3, .batch = 16, .target = CPU, .reason = R(STALE_LOAD) },
	{ "load stamped after now is fresh", .load_age = -50, .batch = 16,
	  .target = GPU, .reason = R(GPU_WINS) },
	{ "tripped", .trip = true, .batch = 16, .target = CPU,
	  .reason = R(TRIPPED) },
	{ "tripped beats below crossover", .trip = true, .batch = 1,
	  .target = CPU, .reason = R(TRIPPED) },
	{ "uncalibrated", .uncalibrated = true, .batch = 16, .target = CPU,
	  .reason = R(UNCALIBRATED) },
	{ "below crossover", .batch = 7, .target = CPU,
	  .reason = R(BELOW_CROSSOVER) },
	{ "zero batch", .batch = 0, .target = CPU, .reason = R(BELOW_CROSSOVER) },
	{ "below crossover beats contention", .util = 90, .procs = 2,
	  .batch = 4, .target = CPU, .reason = R(BELOW_CROSSOVER) },
	{ "lake rule: 71% and 2 processes", .util = 71, .procs = 2, .batch = 8,
	  .target = CPU, .reason = R(CONTENDED) },
	{ "70% is not over 70%", .util = 70, .procs = 2, .batch = 8,
	  .target = GPU, .reason = R(GPU_WINS) },
	{ "busy but only laked", .util = 100, .procs = 1, .batch = 8,
	  .target = GPU, .reason = R(GPU_WINS) },
	{ "queue rule off by default", .queue = 1000, .batch = 8, .target = GPU,
	  .reason = R(GPU_WINS) },
	{ "queue over its maximum", .queue = 5, .queue_max = 4, .batch = 8,
	  .target = CPU, .reason = R(CONTENDED) },
	{ "queue at its maximum", .queue = 4, .queue_max = 4, .batch = 8,
	  .target = GPU, .reason = R(GPU_WINS) },
};

static void test_decision_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct decision_case *c = &cases[i];
		struct lake_policy *p = new_policy();
		struct lake_policy_config cfg;
		struct lake_policy_snapshot s;
		enum lake_target t;

		lake_policy_snapshot(p, &s);
		cfg = s.config;
		cfg.queue_max = c->queue_max;
		assert_int_equal(lake_policy_set_config(p, &cfg), 0);
		assert_int_equal(lake_policy_set_mode(p, c->mode), 0);
		lake_policy_set_daemon(p, !c->down, !c->no_device);
		if (!c->no_load)
			load(p, c->util, c->procs, c->queue, NOW - c->load_age);
		if (!c->uncalibrated)
			assert_int_equal(lake_policy_set_crossover(p, 8), 0);
		if (c->trip)
			lake_policy_report_gpu_error(p, NOW - 1);

		t = lake_policy_choose(p, c->batch, NOW);
		lake_policy_snapshot(p, &s);
		if (s.last_reason != c->reason || t != c->target)
			fail_msg("%s: %s (%s), expected %s (%s)", c->what,
				 t == GPU ? "gpu" : "cpu",
				 lake_policy_reason_str(s.last_reason),
				 c->target == GPU ? "gpu" : "cpu",
				 lake_policy_reason_str(c->reason));
		assert_int_equal(s.counters.reason[c->reason], 1);
		assert_int_equal(s.counters.gpu, t == GPU);
		assert_int_equal(s.counters.cpu, t == CPU);
		lake_policy_destroy(p);
	}
}

static void test_trip_backoff_grows_and_caps(void **state)
{
	struct lake_policy *p = healthy(0);
	struct lake_policy_snapshot s;
	u64 now = 10, expect_backoff = BACKOFF_MIN;
	int round;

	(void)state;
	expect(p, 8, now, GPU, LAKE_REASON_GPU_WINS);
	lake_policy_report_gpu_error(p, now);
	lake_policy_snapshot(p, &s);
	assert_true(s.tripped);
	assert_int_equal(s.backoff_ns, BACKOFF_MIN);
	assert_int_equal(s.retry_at_ns, now + BACKOFF_MIN);

	for (round = 0; round < 6; round++) {
		u64 retry = now + expect_backoff;

		load(p, 10, 1, 0, retry);
		expect(p, 8, retry - 1, CPU, LAKE_REASON_TRIPPED);
		/* A small batch is not worth a probe. */
		expect(p, 2, retry, CPU, LAKE_REASON_BELOW_CROSSOVER);
		expect(p, 8, retry, GPU, LAKE_REASON_PROBE);
		expect(p, 8, retry + 1, CPU, LAKE_REASON_PROBE_WAIT);
		expect(p, 16, retry + 2, CPU, LAKE_REASON_PROBE_WAIT);

		now = retry + 3;
		lake_policy_report_gpu_error(p, now);
		expect_backoff = expect_backoff * 2 > BACKOFF_MAX ?
				 BACKOFF_MAX : expect_backoff * 2;
		lake_policy_snapshot(p, &s);
		assert_true(s.tripped);
		assert_false(s.probe_pending);
		assert_int_equal(s.backoff_ns, expect_backoff);
		assert_int_equal(s.retry_at_ns, now + expect_backoff);
	}
	assert_int_equal(expect_backoff, BACKOFF_MAX);
	assert_int_equal(s.counters.trips, 1);
	assert_int_equal(s.counters.probes, 6);
	assert_int_equal(s.counters.probe_failures, 6);
	assert_int_equal(s.counters.gpu_errors, 7);
	assert_int_equal(s.counters.reason[LAKE_REASON_TRIPPED], 6);
	lake_policy_destroy(p);
}

static void test_probe_success_resets(void **state)
{
	struct lake_policy *p = healthy(0);
	struct lake_policy_snapshot s;

	(void)state;
	lake_policy_report_gpu_error(p, 0);
	expect(p, 8, BACKOFF_MIN, GPU, LAKE_REASON_PROBE);
	lake_policy_report_gpu_error(p, BACKOFF_MIN + 1);	/* backoff 2x */
	expect(p, 8, 3 * BACKOFF_MIN + 1, GPU, LAKE_REASON_PROBE);
	assert_int_equal(lake_policy_report_gpu(p, 8, 500), 0);

	lake_policy_snapshot(p, &s);
	assert_false(s.tripped);
	assert_false(s.probe_pending);
	assert_int_equal(s.backoff_ns, 0);
	expect(p, 8, 3 * BACKOFF_MIN + 2, GPU, LAKE_REASON_GPU_WINS);

	/* The next trip starts from the minimum again. */
	lake_policy_report_gpu_error(p, 5000);
	lake_policy_snapshot(p, &s);
	assert_int_equal(s.backoff_ns, BACKOFF_MIN);
	assert_int_equal(s.counters.trips, 2);
	lake_policy_destroy(p);
}

static void test_probe_timeout_counts_as_failure(void **state)
{
	struct lake_policy *p = healthy(0);
	struct lake_policy_snapshot s;
	u64 t = BACKOFF_MIN;

	(void)state;
	lake_policy_report_gpu_error(p, 0);
	expect(p, 8, t, GPU, LAKE_REASON_PROBE);
	expect(p, 8, t + PROBE_TIMEOUT - 1, CPU, LAKE_REASON_PROBE_WAIT);
	expect(p, 8, t + PROBE_TIMEOUT, CPU, LAKE_REASON_TRIPPED);
	lake_policy_snapshot(p, &s);
	assert_int_equal(s.counters.probe_failures, 1);
	assert_int_equal(s.backoff_ns, 2 * BACKOFF_MIN);
	assert_int_equal(s.retry_at_ns, t + PROBE_TIMEOUT + 2 * BACKOFF_MIN);
	assert_false(s.probe_pending);
	lake_policy_destroy(p);
}

/* Results of batches sent before the trip neither heal nor extend it. */
static void test_stragglers_during_backoff(void **state)
{
	struct lake_policy *p = healthy(0);
	struct lake_policy_snapshot s;

	(void)state;
	lake_policy_report_gpu_error(p, 0);
	assert_int_equal(lake_policy_report_gpu(p, 8, 100), 0);
	lake_policy_report_gpu_error(p, 10);
	lake_policy_snapshot(p, &s);
	assert_true(s.tripped);
	assert_int_equal(s.backoff_ns, BACKOFF_MIN);
	assert_int_equal(s.retry_at_ns, BACKOFF_MIN);
	assert_int_equal(s.counters.trips, 1);
	assert_int_equal(s.counters.gpu_errors, 2);
	expect(p, 8, BACKOFF_MIN - 1, CPU, LAKE_REASON_TRIPPED);
	lake_policy_destroy(p);
}

static void test_probe_waits_for_contention(void **state)
{
	struct lake_policy *p = healthy(0);

	(void)state;
	lake_policy_report_gpu_error(p, 0);
	load(p, 95, 3, 0, BACKOFF_MIN);
	expect(p, 8, BACKOFF_MIN, CPU, LAKE_REASON_CONTENDED);
	load(p, 5, 3, 0, BACKOFF_MIN + 1);
	expect(p, 8, BACKOFF_MIN + 1, GPU, LAKE_REASON_PROBE);
	lake_policy_destroy(p);
}

/*
 * Forced to the GPU, a failing GPU side still trips the policy to the CPU;
 * it comes back by the probe and back-off of auto mode, whatever the batch
 * size, load or contention.
 */
static void test_forced_gpu_trips(void **state)
{
	struct lake_policy *p = healthy(0);
	struct lake_policy_snapshot s;

	(void)state;
	assert_int_equal(lake_policy_set_mode(p, LAKE_POLICY_GPU), 0);
	load(p, 100, 5, 0, 0);
	expect(p, 1, 1, GPU, LAKE_REASON_FORCED_GPU);
	lake_policy_report_gpu_error(p, 2);
	expect(p, 1, 3, CPU, LAKE_REASON_TRIPPED);
	expect(p, 16, BACKOFF_MIN + 1, CPU, LAKE_REASON_TRIPPED);
	expect(p, 1, BACKOFF_MIN + 2, GPU, LAKE_REASON_PROBE);
	expect(p, 16, BACKOFF_MIN + 3, CPU, LAKE_REASON_PROBE_WAIT);
	/* The probe fails: twice the back-off. */
	lake_policy_report_gpu_error(p, BACKOFF_MIN + 4);
	expect(p, 1, 3 * BACKOFF_MIN + 3, CPU, LAKE_REASON_TRIPPED);
	expect(p, 1, 3 * BACKOFF_MIN + 4, GPU, LAKE_REASON_PROBE);
	/* No report in time is a failure too. */
	expect(p, 1, 3 * BACKOFF_MIN + 4 + PROBE_TIMEOUT, CPU, LAKE_REASON_TRIPPED);
	expect(p, 1, 7 * BACKOFF_MIN + 4 + PROBE_TIMEOUT, GPU, LAKE_REASON_PROBE);
	assert_int_equal(lake_policy_report_gpu(p, 1, 500), 0);
	lake_policy_snapshot(p, &s);
	assert_false(s.tripped);
	assert_int_equal(s.counters.trips, 1);
	assert_int_equal(s.counters.probes, 3);
	assert_int_equal(s.counters.probe_failures, 2);
	expect(p, 1, 7 * BACKOFF_MIN + 5 + PROBE_TIMEOUT, GPU, LAKE_REASON_FORCED_GPU);
	/* laked gone beats the trip. */
	lake_policy_report_gpu_error(p, 8 * BACKOFF_MIN);
	lake_policy_set_daemon(p, false, false);
	expect(p, 1, 8 * BACKOFF_MIN + 1, CPU, LAKE_REASON_NO_DAEMON);
	lake_policy_destroy(p);
}

static void test_forced_modes(void **state)
{
	struct lake_policy *p = healthy(0);
	enum lake_policy_mode m;

	(void)state;
	assert_int_equal(lake_policy_set_mode(p, LAKE_POLICY_CPU), 0);
	expect(p, 16, 1, CPU, LAKE_REASON_FORCED_CPU);
	assert_int_equal(lake_policy_set_mode(p, LAKE_POLICY_GPU), 0);
	expect(p, 1, 2, GPU, LAKE_REASON_FORCED_GPU);
	assert_int_equal(lake_policy_set_mode(p, LAKE_POLICY_AUTO), 0);
	expect(p, 1, 3, CPU, LAKE_REASON_BELOW_CROSSOVER);
	assert_int_equal(lake_policy_set_mode(p, LAKE_POLICY_NR_MODES),
			 -EINVAL);

	assert_int_equal(lake_policy_mode_parse("gpu\n", &m), 0);
	assert_int_equal(m, LAKE_POLICY_GPU);
	assert_int_equal(lake_policy_mode_parse("cpu", &m), 0);
	assert_int_equal(m, LAKE_POLICY_CPU);
	assert_int_equal(lake_policy_mode_parse("auto", &m), 0);
	assert_int_equal(m, LAKE_POLICY_AUTO);
	assert_int_equal(lake_policy_mode_parse("gp", &m), -EINVAL);
	assert_int_equal(lake_policy_mode_parse("gpux", &m), -EINVAL);
	assert_int_equal(lake_policy_mode_parse("", &m), -EINVAL);
	assert_int_equal(lake_policy_mode_parse("auto\n\n", &m), -EINVAL);
	assert_string_equal(lake_policy_mode_str(LAKE_POLICY_GPU), "gpu");
	lake_policy_destroy(p);
}

/* Report both paths at batch 1, 2, 4, ..., MAX_BATCH. */
static void calibrate(struct lake_policy *p, u64 cpu_fixed, u64 cpu_item,
		      u64 gpu_fixed, u64 gpu_item)
{
	u32 b;

	for (b = 1; b <= MAX_BATCH; b *= 2) {
		assert_int_equal(lake_policy_report_cpu(p, b, cpu_fixed +
							cpu_item * b), 0);
		assert_int_equal(lake_policy_report_gpu(p, b, gpu_fixed +
							gpu_item * b), 0);
	}
}

static u32 crossover(struct lake_policy *p)
{
	struct lake_policy_snapshot s;

	lake_policy_snapshot(p, &s);
	return s.crossover;
}

static void test_calibration(void **state)
{
	struct lake_policy *p = new_policy();
	struct lake_policy_snapshot s;

	(void)state;
	lake_policy_set_daemon(p, true, true);
	load(p, 0, 1, 0, 0);
	expect(p, 16, 0, CPU, LAKE_REASON_UNCALIBRATED);

	/* A GPU that never wins: a large fixed cost, same cost per item. */
	calibrate(p, 0, 1000, 50000, 1000);
	assert_int_equal(crossover(p), LAKE_POLICY_NEVER);
	expect(p, 16, 0, CPU, LAKE_REASON_BELOW_CROSSOVER);

	/* One that wins from batch 1. */
	lake_policy_reset_calibration(p);
	assert_int_equal(crossover(p), LAKE_POLICY_NEVER);
	expect(p, 16, 0, CPU, LAKE_REASON_UNCALIBRATED);
	calibrate(p, 0, 1000, 0, 100);
	assert_int_equal(crossover(p), 1);
	expect(p, 1, 0, GPU, LAKE_REASON_GPU_WINS);

	/* LinnOS-like: 1 us per item on the CPU, 6 us + 0.1 us on the GPU. */
	lake_policy_reset_calibration(p);
	calibrate(p, 0, 1000, 6000, 100);
	assert_int_equal(crossover(p), 8);
	expect(p, 7, 0, CPU, LAKE_REASON_BELOW_CROSSOVER);
	expect(p, 8, 0, GPU, LAKE_REASON_GPU_WINS);

	lake_policy_snapshot(p, &s);
	assert_int_equal(s.nr_buckets, 5);
	assert_int_equal(s.bucket[3].cpu_ns, 8000);
	assert_int_equal(s.bucket[3].gpu_ns, 6800);
	assert_int_equal(s.bucket[3].cpu_batch, 8);
	assert_int_equal(s.counters.cpu_reports, 15);
	assert_int_equal(s.counters.gpu_reports, 15);
	lake_policy_destroy(p);
}

/* A lower GPU win does not count when the CPU wins a larger bucket. */
static void test_crossover_must_hold_above(void **state)
{
	struct lake_policy *p = new_policy();
	static const u64 cpu[] = { 100, 200, 400, 800, 1600 };
	static const u64 gpu[] = { 200, 100, 500, 700, 1000 };
	u32 k;

	(void)state;
	for (k = 0; k < 5; k++) {
		assert_int_equal(lake_policy_report_cpu(p, 1u << k, cpu[k]), 0);
		assert_int_equal(lake_policy_report_gpu(p, 1u << k, gpu[k]), 0);
	}
	assert_int_equal(crossover(p), 8);

	/* Now the largest bucket goes to the CPU: no crossover at all. */
	for (k = 0; k < 40; k++)
		assert_int_equal(lake_policy_report_gpu(p, 16, 100000), 0);
	assert_int_equal(crossover(p), LAKE_POLICY_NEVER);
	lake_policy_destroy(p);
}

/* Buckets with one path only are skipped, and sizes inside one differ. */
static void test_crossover_per_item(void **state)
{
	struct lake_policy *p = new_policy();

	(void)state;
	assert_int_equal(lake_policy_report_cpu(p, 2, 100), 0);
	/* 8 items in 8 us on the CPU; 15 items in 12 us on the GPU. */
	assert_int_equal(lake_policy_report_cpu(p, 8, 8000), 0);
	assert_int_equal(lake_policy_report_gpu(p, 15, 12000), 0);
	assert_int_equal(crossover(p), 8);
	assert_int_equal(lake_policy_report_gpu(p, 16, 100), 0);
	assert_int_equal(crossover(p), 8);

	assert_int_equal(lake_policy_report_cpu(p, 0, 10), -EINVAL);
	assert_int_equal(lake_policy_report_gpu(p, MAX_BATCH + 1, 10), -EINVAL);
	lake_policy_destroy(p);
}

static void test_crossover_drifts(void **state)
{
	struct lake_policy *p = new_policy();
	struct lake_policy_snapshot s;
	int n;

	(void)state;
	calibrate(p, 0, 1000, 6000, 100);
	assert_int_equal(crossover(p), 8);

	/*
	 * The GPU slows down at batch 8..15 (say, a co-runner): 9 us against
	 * the CPU's 8 us. With weight 1/8 the average climbs from 6.8 us and
	 * passes 8 us on the 6th report, not on the first.
	 */
	for (n = 0; n < 100 && crossover(p) == 8; n++)
		assert_int_equal(lake_policy_report_gpu(p, 8, 9000), 0);
	assert_int_equal(crossover(p), 16);
	assert_int_equal(n, 6);

	/* ... and recovers. */
	for (n = 0; n < 100 && crossover(p) == 16; n++)
		assert_int_equal(lake_policy_report_gpu(p, 8, 6800), 0);
	assert_int_equal(crossover(p), 8);

	/* The CPU gets faster everywhere: the GPU never wins. */
	for (n = 0; n < 100 && crossover(p) != LAKE_POLICY_NEVER; n++) {
		u32 b;

		for (b = 1; b <= MAX_BATCH; b *= 2)
			assert_int_equal(lake_policy_report_cpu(p, b, 10 * b),
					 0);
	}
	assert_int_equal(crossover(p), LAKE_POLICY_NEVER);

	/* EWMA arithmetic: 100 then 200 with weight 1/8 -> 112.5, truncated. */
	lake_policy_reset_calibration(p);
	lake_policy_report_cpu(p, 4, 100);
	lake_policy_report_cpu(p, 4, 200);
	lake_policy_snapshot(p, &s);
	assert_int_equal(s.bucket[2].cpu_ns, 112);
	lake_policy_destroy(p);
}

static void test_operator_override(void **state)
{
	struct lake_policy *p = new_policy();
	struct lake_policy_snapshot s;

	(void)state;
	lake_policy_set_daemon(p, true, true);
	load(p, 0, 1, 0, 0);
	calibrate(p, 0, 1000, 6000, 100);
	assert_int_equal(lake_policy_set_crossover(p, 3), 0);
	expect(p, 3, 0, GPU, LAKE_REASON_GPU_WINS);
	expect(p, 2, 0, CPU, LAKE_REASON_BELOW_CROSSOVER);
	lake_policy_snapshot(p, &s);
	assert_int_equal(s.crossover, 3);
	assert_int_equal(s.crossover_override, 3);
	assert_int_equal(s.crossover_calibrated, 8);

	/* Calibration goes on underneath the override. */
	lake_policy_reset_calibration(p);
	calibrate(p, 0, 1000, 0, 10);
	lake_policy_snapshot(p, &s);
	assert_int_equal(s.crossover, 3);
	assert_int_equal(s.crossover_calibrated, 1);

	assert_int_equal(lake_policy_set_crossover(p, 0), 0);
	assert_int_equal(crossover(p), 1);
	assert_int_equal(lake_policy_set_crossover(p, MAX_BATCH + 1), -EINVAL);
	assert_int_equal(crossover(p), 1);
	lake_policy_destroy(p);
}

static void test_huge_times_do_not_overflow(void **state)
{
	struct lake_policy *p = new_policy();
	struct lake_policy_snapshot s;

	(void)state;
	assert_int_equal(lake_policy_report_cpu(p, MAX_BATCH, ~0ull), 0);
	assert_int_equal(lake_policy_report_gpu(p, MAX_BATCH,
						LAKE_POLICY_MAX_NS / 2), 0);
	assert_int_equal(lake_policy_report_cpu(p, 1, 0), 0);
	assert_int_equal(lake_policy_report_gpu(p, 1, 0), 0);
	lake_policy_snapshot(p, &s);
	assert_int_equal(s.bucket[4].cpu_ns, LAKE_POLICY_MAX_NS);
	assert_int_equal(s.bucket[0].cpu_ns, 1);
	/* Equal times leave bucket 0 to the CPU; the clamped CPU loses 16. */
	assert_int_equal(s.crossover, 16);

	lake_policy_reset_calibration(p);
	assert_int_equal(lake_policy_report_cpu(p, MAX_BATCH,
						LAKE_POLICY_MAX_NS / 2), 0);
	assert_int_equal(lake_policy_report_gpu(p, MAX_BATCH, ~0ull), 0);
	assert_int_equal(crossover(p), LAKE_POLICY_NEVER);
	lake_policy_destroy(p);
}

static void test_counters_and_strings(void **state)
{
	struct lake_policy *p = healthy(0);
	struct lake_policy_snapshot s;
	u64 sum = 0;
	int i, j;

	(void)state;
	for (i = 0; i < 20; i++)
		lake_policy_choose(p, i % 12, i);
	lake_policy_snapshot(p, &s);
	for (i = 0; i < LAKE_REASON_NR; i++)
		sum += s.counters.reason[i];
	assert_int_equal(sum, 20);
	assert_int_equal(s.counters.cpu + s.counters.gpu, 20);
	assert_int_equal(s.counters.gpu, s.counters.reason[LAKE_REASON_GPU_WINS]);
	assert_string_equal(s.name, "linnos");
	assert_int_equal(s.window_ns, 5000);
	assert_int_equal(s.max_batch, MAX_BATCH);

	for (i = 0; i < LAKE_REASON_NR; i++) {
		assert_true(lake_policy_reason_str(i)[0] != '\0');
		for (j = 0; j < i; j++)
			assert_string_not_equal(lake_policy_reason_str(i),
						lake_policy_reason_str(j));
	}
	assert_string_equal(lake_policy_reason_str(LAKE_REASON_TRIPPED),
			    "tripped");
	assert_string_equal(lake_policy_reason_str(LAKE_REASON_PROBE), "probe");
	assert_string_equal(lake_policy_reason_str(LAKE_REASON_NR), "invalid");
	lake_policy_destroy(p);
}

static void test_bad_arguments(void **state)
{
	struct lake_policy_config cfg, bad;
	struct lake_policy *p;

	(void)state;
	assert_null(lake_policy_create("", 8, 0));
	assert_null(lake_policy_create(NULL, 8, 0));
	assert_null(lake_policy_create("0123456789012345678901234567890123",
				       8, 0));
	assert_null(lake_policy_create("x", 0, 0));
	assert_null(lake_policy_create("x", LAKE_POLICY_MAX_BATCH + 1, 0));
	p = lake_policy_create("x", LAKE_POLICY_MAX_BATCH, 0);
	assert_non_null(p);

	lake_policy_default_config(&cfg);
	assert_int_equal(cfg.util_max_pct, 70);
	assert_int_equal(cfg.procs_max, 1);
#define EXPECT_BAD(field, value) do {					\
		bad = cfg;						\
		bad.field = (value);					\
		assert_int_equal(lake_policy_set_config(p, &bad), -EINVAL); \
	} while (0)
	EXPECT_BAD(util_max_pct, 101);
	EXPECT_BAD(backoff_max_ns, cfg.backoff_min_ns - 1);
	EXPECT_BAD(backoff_min_ns, 0);
	EXPECT_BAD(load_max_age_ns, 0);
	EXPECT_BAD(probe_timeout_ns, 0);
	EXPECT_BAD(ewma_shift, 9);
	EXPECT_BAD(ewma_shift, 0);
#undef EXPECT_BAD
	cfg.ewma_shift = 8;
	assert_int_equal(lake_policy_set_config(p, &cfg), 0);
	lake_policy_destroy(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decision_table),
		cmocka_unit_test(test_trip_backoff_grows_and_caps),
		cmocka_unit_test(test_probe_success_resets),
		cmocka_unit_test(test_probe_timeout_counts_as_failure),
		cmocka_unit_test(test_stragglers_during_backoff),
		cmocka_unit_test(test_probe_waits_for_contention),
		cmocka_unit_test(test_forced_modes),
		cmocka_unit_test(test_forced_gpu_trips),
		cmocka_unit_test(test_calibration),
		cmocka_unit_test(test_crossover_must_hold_above),
		cmocka_unit_test(test_crossover_per_item),
		cmocka_unit_test(test_crossover_drifts),
		cmocka_unit_test(test_operator_override),
		cmocka_unit_test(test_huge_times_do_not_overflow),
		cmocka_unit_test(test_counters_and_strings),
		cmocka_unit_test(test_bad_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
