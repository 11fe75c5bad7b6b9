/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPU-fallback policy (lake/policy.h) as kernel modules use it: one
 * object per model, registered in lakelib, fed by lakelib itself with
 * laked's liveness and load reports, and visible in debugfs:
 *
 *   lake/policy/<name>/status     mode, crossover, load, trip state and
 *                                 back-off, decisions per reason, the last
 *                                 reason, the smoothed times per bucket
 *   lake/policy/<name>/mode       auto | cpu | gpu (read and write)
 *   lake/policy/<name>/crossover  the override, 0 = the calibrated value
 *
 * Load reports: a device that counts compute processes (the CUDA driver
 * with NVML) is judged by the LAKE rule, utilization above util_max_pct
 * with more than procs_max processes. A device that cannot (the host
 * device: LAKE_LOAD_F_PROCS clear) is judged on utilization alone, as if
 * every user were a stranger; tune util_max_pct with set_config(). The
 * host device also reports its queue occupancy, which queue_max (off by
 * default) turns into a rule of its own.
 *
 * Context: create, destroy and calibrate sleep (process context). Every
 * other call takes the policy's irq-safe spinlock and may run in any
 * context, hard irq included.
 */
#ifndef LAKE_FALLBACK_H
#define LAKE_FALLBACK_H

#include <lake/policy.h>

struct lake_fallback;

/*
 * Name: 1..LAKE_POLICY_NAME_MAX-1 characters, no '/'; max_batch:
 * 1..LAKE_POLICY_MAX_BATCH. ERR_PTR(-EINVAL), (-EEXIST) for a name in use,
 * or (-ENOMEM). The policy starts in mode auto, uncalibrated.
 */
struct lake_fallback *lake_fallback_create(const char *name, u32 max_batch,
					   u64 window_ns);
/* No other call on fb may be running or follow. NULL is ignored. */
void lake_fallback_destroy(struct lake_fallback *fb);

/* Fixed at create. */
const char *lake_fallback_name(const struct lake_fallback *fb);
u32 lake_fallback_max_batch(const struct lake_fallback *fb);
u64 lake_fallback_window_ns(const struct lake_fallback *fb);

/* CPU or GPU for a batch of this size; the reason is recorded. */
enum lake_target lake_fallback_choose(struct lake_fallback *fb, u32 batch);

/*
 * Times observed for completed batches of 1..max_batch items (-EINVAL
 * otherwise): the calibration follows them. A GPU report also ends a probe
 * with success.
 */
int lake_fallback_report_cpu(struct lake_fallback *fb, u32 batch, u64 ns);
int lake_fallback_report_gpu(struct lake_fallback *fb, u32 batch, u64 ns);
/* A GPU call failed or timed out: trip to the CPU, or fail the probe. */
void lake_fallback_report_gpu_error(struct lake_fallback *fb);

int lake_fallback_set_mode(struct lake_fallback *fb, enum lake_policy_mode mode);
/* 0 returns to the calibrated crossover; -EINVAL above max_batch. */
int lake_fallback_set_crossover(struct lake_fallback *fb, u32 batch);
void lake_fallback_get_config(struct lake_fallback *fb,
			      struct lake_policy_config *cfg);
/* -EINVAL leaves the old config in place. */
int lake_fallback_set_config(struct lake_fallback *fb,
			     const struct lake_policy_config *cfg);
void lake_fallback_reset_calibration(struct lake_fallback *fb);

enum lake_policy_reason lake_fallback_last_reason(struct lake_fallback *fb);
/* The snapshot is ~750 bytes: keep it off irq stacks. */
void lake_fallback_snapshot(struct lake_fallback *fb,
			    struct lake_policy_snapshot *snap);

/* Runs a batch of @batch made-up items on @side; 0 or -errno. */
typedef int (*lake_fallback_run_t)(void *arg, enum lake_target side, u32 batch);

/*
 * Process context. Forget the old timings, then time @run on each side
 * at batch 1, 2, 4, ... up to max_batch, @rounds times each, after one
 * untimed run per side (the first GPU call may set its path up). A CPU
 * failure is returned; a GPU failure is reported as one and returned.
 */
int lake_fallback_calibrate(struct lake_fallback *fb, u32 rounds,
			    lake_fallback_run_t run, void *arg);

#endif /* LAKE_FALLBACK_H */
