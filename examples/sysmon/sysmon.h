/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lake_sysmon's shared state, between its files:
 *	sysmon.c	the essay, parameters, the worker (tick, batches, reports),
 *			the reference, load and unload
 *	probe.c		the probe on raw_syscalls:sys_enter, its per-CPU tables, harvest
 *	gpu.c		the GPU side (knn.cu through laked), calibration, the bench
 *	debugfs.c	lake/sysmon/: status, flagged, bench, ctl, the exporter
 *
 * Locks, in the order taken: sm_lock (a mutex: the worker's tables, the
 * reference, the GPU state; held by a tick and by every ctl command), then a
 * CPU's table lock (raw, irq-unsafe users only: the probe and harvest) or
 * flag_lock (irq-safe). status and flagged never take sm_lock; an exporter
 * reader's own mutex is taken alone (then the registry's, inside lakelib).
 */
#ifndef SYSMON_H
#define SYSMON_H

#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <lake/fallback.h>
#include <lake/features.h>
#include "ref.h"

#define POLICY_NAME	"sysmon"
#define PROCS_MAX	2048	/* windows per period; more are dropped */
#define FLAGGED_MAX	64
#define REG_CAPACITY	4096
#define CALIB_ROUNDS	3
#define BENCH_SIZES	12

/* One process's window, as the worker merges it. */
struct sm_win {
	u32 tgid;
	u64 start;
	u8 deferred;		/* first seen and still running: judged next period */
	u8 taken;		/* as prev_win: merged into this period's window */
	char comm[TASK_COMM_LEN];
	u64 comm_ns;		/* when the newest CPU slot's comm was set */
	u32 c[SYSMON_DIMS];
};

struct sm_flag {
	u32 tgid;
	u64 start;
	char comm[TASK_COMM_LEN];
	u32 score, windows;
	u64 last_ns;
};

/* The worker's counters (status). */
struct sm_stats {
	atomic64_t ticks, windows, small, scored_cpu, scored_gpu, flagged;
	atomic64_t batches_cpu, batches_gpu, gpu_errors, redone_cpu, deferred, deferred_scored;
	atomic64_t overflow;
};

/* The registry's record: what the exporter writes. */
enum { F_TGID, F_COMM, F_CALLS, F_SCORE, NR_F };

/* sysmon.c */
extern unsigned int period_ms, min_calls, max_batch, slots;
extern struct lake_fallback *sm_fb;
extern struct lake_features *sm_reg;
extern struct mutex sm_lock;
extern struct sysmon_ref *cur_ref;		/* sm_lock */
extern u32 ref_gen;				/* sm_lock: bumped per reference */
/* cur_ref's figures for status, which must not wait for sm_lock. */
struct sm_shown {
	u32 count, k, threshold;
};
extern struct sm_shown shown;
extern struct sm_win *cur_win;			/* sm_lock; PROCS_MAX */
extern u32 cur_n;
extern u16 *feat;				/* sm_lock; max_batch * SYSMON_DIMS */
extern u32 *score;				/* sm_lock; max_batch */
extern struct sm_stats sm_st;
void sm_tick(void);
int sm_load_ref(const char *name);
void sm_cpu_score(const struct sysmon_ref *rf, const u16 *q, u32 nq, u32 *out);
void sm_flagged_copy(struct sm_flag *out);	/* FLAGGED_MAX entries */
void sm_reset(void);

/*
 * Counts. A slot's u32 holds one CPU's calls in one period (60 s at most):
 * 2^32 of them would take a call every 14 ns, below the cost of a system
 * call's entry alone. Windows sum CPUs and two periods, so they add in u64
 * and saturate at U32_MAX (a share then errs; nothing wraps).
 */
static inline u32 sm_sat_add(u32 a, u32 b)
{
	return (u32)min_t(u64, (u64)a + b, U32_MAX);
}

/* probe.c */
int sm_probe_alloc(void);
void sm_probe_free(void);
int sm_probe_start(void);
void sm_probe_stop(void);
bool sm_probe_on(void);
void sm_probe_totals(u64 *calls, u64 *dropped);
void sm_harvest(void);
struct sm_win *sm_win_find(struct sm_win *w, u32 n, u32 tgid, u64 start);
u32 sm_win_calls(const u32 *c);

/* gpu.c */
int sm_gpu_init(void);
void sm_gpu_teardown(void);
int sm_gpu_score(const struct sysmon_ref *rf, const u16 *q, u32 nq, u32 *out, u64 *ns);
int sm_calib_run(void *arg, enum lake_target side, u32 nq);
int sm_bench(const u32 *sizes, u32 n);
extern char bench_text[];

/* debugfs.c */
void sm_debugfs_init(void);
void sm_debugfs_exit(void);

#endif /* SYSMON_H */
