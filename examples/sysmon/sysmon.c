// SPDX-License-Identifier: GPL-2.0
/*
 * lake_sysmon: anomaly detection over system calls with k nearest
 * neighbours (after LAKE's kNN example), on a stock kernel. Every period
 * each process's recent system calls are compared with a reference set of
 * known-good windows; a process far from all of them is reported. Nothing
 * is ever killed or slowed: sysmon only watches.
 *
 * The features. A probe on the raw_syscalls:sys_enter tracepoint (found by
 * name with for_each_kernel_tracepoint(), no kernel patch) counts every
 * system call of every process (tgid and start time) into a per-CPU
 * table: 48 classes of call (ref.c lists them) and 16 buckets of hashed
 * bigrams (the class of the call and of the one before it on that CPU's
 * slot). The table is double-buffered: the probe takes its CPU's raw
 * spinlock (uncontended but at the flip), finds or inserts its process in
 * at most 8 probes of a fixed hash, adds two counts and notes the comm; a
 * full table drops the call (counted: dropped). It never allocates, sleeps
 * or prints. Each period the worker flips every CPU's buffer, merges what
 * the old one holds per process, and adds the previous period's counts of
 * the same process: a window is the last two periods, sliding by one. A
 * process first seen in this period and still running is deferred to the
 * next, so that a short program is
 * judged on all its calls (counted: deferred); one whose process then
 * makes no call in the next period (a burst, then a sleep) is judged then
 * on its own period (counted: deferred_scored). A window with fewer than
 * min_calls calls is not scored (too little to judge: a process that only
 * exits).
 * Counts become features (ref.h): per group, sqrt of each share, x 4096.
 *
 * The model: k nearest neighbours. The reference is a versioned file of
 * known-good windows with its k and threshold (ref.c has the format),
 * recorded by this module's own exporter (debugfs lake/sysmon/windows,
 * from the feature registry "sysmon") while the system runs its normal
 * programs, and built by train.py, which also picks the threshold: a high
 * percentile of the leave-one-out scores of the reference windows, with a
 * margin. The distance is L2 on the features (4096 x the Hellinger distance
 * of the call mixes); a window's score is its mean distance to its k
 * nearest reference windows (knn.h); a score above the threshold is an
 * anomaly. The file is loaded with request_firmware_direct() (the ref
 * parameter at load, or "ref FILE" written to lake/sysmon/ctl); a file the
 * parser refuses leaves the old reference in place and the log says why.
 * Without a reference, windows are recorded and none is scored.
 *
 * Reports. Each anomalous window fires the tracepoint
 * lake_sysmon:sysmon_anomaly, logs a line (rate limited) and enters
 * lake/sysmon/flagged (the last 64 processes flagged, with their worst
 * score and how many windows); lake/sysmon/status has the counters, and
 * lakectl shows the policy and the registry ("lakectl policy sysmon",
 * "lakectl registry sysmon"). Reading status never waits for a batch.
 *
 * The policy. All windows of a period are scored as one batch (at most
 * max_batch; more are scored in several), on the side the policy "sysmon"
 * (lake/fallback.h) picks: the GPU side uploads the reference once per
 * file, then per batch copies the windows, launches sysmon_dist (one
 * thread per window and reference window) and sysmon_topk (one thread per
 * window) from knn.cu, and copies the scores back: one round trip to
 * laked. The CPU side runs the same knn.h code in the worker. Until
 * "calibrate" (written to ctl) has timed both sides the policy answers CPU;
 * "bench N ..." times both sides for batches of N windows and checks that
 * they give the same scores.
 *
 * When laked dies. lakelib fails the batch's calls at once; the batch is
 * reported to the policy, which trips to the CPU, and scored again there:
 * no window goes unscored. A laked that stops answering costs one
 * lakelib timeout_ms (it is fenced). The next GPU batch sets the path up
 * anew (a new context, the reference uploaded again).
 *
 * Limits. Counts are per process (a tgid and its group leader's
 * start_time, so a reused tgid is a new process: its own window and its
 * own line in flagged), so a process's threads share a window, and the
 * bigram of a thread's call pairs with whatever call came before on that
 * slot, from any of its threads. The comm is the process's (its group
 * leader's) newest: each CPU's slot times the comm it holds when it
 * changes (an exec, a rename) and harvest keeps the newest of them, not
 * the last CPU's, which may hold the name from before an exec. Only
 * x86_64's call numbers are classed (a 32-bit or x32 call is "other";
 * the module builds on x86_64 only). The probe costs every system call two counts, a lock and a hash lookup.
 * Kernels: for_each_kernel_tracepoint(), tracepoint_probe_register(),
 * tracepoint_synchronize_unregister() and sys_enter's prototype (struct
 * pt_regs *, long id) are the same on 6.1 and 6.12, which call the probe
 * with preemption off; later kernels make syscall tracepoints faultable
 * (probes preemptible), so the probe never relies on staying on one CPU:
 * it takes its table's lock. A reference describes the machine it
 * was recorded on: another machine's normal programs need their own.
 */
#define pr_fmt(fmt) "lake_sysmon: " fmt

#include <linux/ctype.h>
#include <linux/firmware.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <lake/compat.h>
#include <lake/fallback.h>
#include <lake/features.h>
#include "sysmon.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

unsigned int period_ms = 1000;
static int period_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 10, 60000);
}
static const struct kernel_param_ops period_ops = {
	.set = period_set,
	.get = param_get_uint,
};
module_param_cb(period_ms, &period_ops, &period_ms, 0644);
MODULE_PARM_DESC(period_ms, "how often windows are scored, ms (10..60000, default 1000)");

unsigned int min_calls = 16;
static int min_calls_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 1000000);
}
static const struct kernel_param_ops min_calls_ops = {
	.set = min_calls_set,
	.get = param_get_uint,
};
module_param_cb(min_calls, &min_calls_ops, &min_calls, 0644);
MODULE_PARM_DESC(min_calls, "system calls a window needs to be scored (1..1000000, default 16)");

unsigned int max_batch = 256;
module_param(max_batch, uint, 0444);
MODULE_PARM_DESC(max_batch, "windows per batch at most (1..1024, default 256)");
unsigned int slots = 256;
module_param(slots, uint, 0444);
MODULE_PARM_DESC(slots, "processes per CPU per period (a power of two, 64..4096, default 256)");
static char *ref;
module_param(ref, charp, 0444);
MODULE_PARM_DESC(ref, "reference file under /lib/firmware to load at start (default none)");

struct lake_fallback *sm_fb;
struct lake_features *sm_reg;
static struct delayed_work tick_work;
static bool stopping;

DEFINE_MUTEX(sm_lock);
struct sysmon_ref *cur_ref;
u32 ref_gen;
struct sm_shown shown;
struct sm_win *cur_win;
static struct sm_win *prev_win;			/* PROCS_MAX */
u32 cur_n;
static u32 prev_n;
u16 *feat;
u32 *score;
static u32 *d2;					/* SYSMON_REF_MAX: the CPU side's scratch */
/* The batch being filled: its windows, their counts (two periods) and calls. */
static struct sm_win **batch_win;		/* max_batch */
static u32 *batch_counts;			/* max_batch * SYSMON_DIMS */
static u32 *batch_calls;			/* max_batch */
struct sm_stats sm_st;

static DEFINE_SPINLOCK(flag_lock);
static struct sm_flag flags_tab[FLAGGED_MAX];
static u32 flags_next;

static const struct lake_feature_desc schema[NR_F] = {
	[F_TGID] = { "tgid", sizeof(u32), 1 },
	[F_COMM] = { "comm", TASK_COMM_LEN, 1 },
	[F_CALLS] = { "calls", SYSMON_DIMS * sizeof(u32), 1 },
	[F_SCORE] = { "score", sizeof(u32), 1 },
};

/* --- reports --------------------------------------------------------- */

static void record(const struct sm_win *w, const u32 *counts, u32 sc)
{
	struct lake_reg_vec *v = lake_features_begin(sm_reg);

	if (!v)
		return;
	lake_features_capture(sm_reg, v, F_TGID, &w->tgid, sizeof(u32));
	lake_features_capture(sm_reg, v, F_COMM, w->comm, TASK_COMM_LEN);
	lake_features_capture(sm_reg, v, F_CALLS, counts, SYSMON_DIMS * sizeof(u32));
	lake_features_capture(sm_reg, v, F_SCORE, &sc, sizeof(u32));
	lake_features_commit(sm_reg, v);
}

static void flag(const struct sm_win *w, u32 calls, u32 sc, u32 thr, bool on_gpu)
{
	struct sm_flag *f = NULL;
	unsigned long irq;
	u32 i;

	atomic64_inc(&sm_st.flagged);
	trace_sysmon_anomaly(w->tgid, w->comm, sc, thr, calls, on_gpu);
	pr_warn_ratelimited("anomaly: tgid %u (%.16s) score %u > threshold %u over %u calls\n",
			    w->tgid, w->comm, sc, thr, calls);
	spin_lock_irqsave(&flag_lock, irq);
	for (i = 0; i < FLAGGED_MAX; i++)
		if (flags_tab[i].windows && flags_tab[i].tgid == w->tgid &&
		    flags_tab[i].start == w->start)
			f = &flags_tab[i];
	if (!f) {
		f = &flags_tab[flags_next];
		flags_next = (flags_next + 1) % FLAGGED_MAX;
		memset(f, 0, sizeof(*f));
		f->tgid = w->tgid;
		f->start = w->start;
	}
	memcpy(f->comm, w->comm, TASK_COMM_LEN);
	f->score = max(f->score, sc);
	f->windows++;
	f->last_ns = ktime_get_ns();
	spin_unlock_irqrestore(&flag_lock, irq);
}

void sm_flagged_copy(struct sm_flag *out)
{
	unsigned long irq;

	spin_lock_irqsave(&flag_lock, irq);
	memcpy(out, flags_tab, sizeof(flags_tab));
	spin_unlock_irqrestore(&flag_lock, irq);
}

/* ctl's reset: the worker's counters and flagged; the probe's calls and dropped stay. */
void sm_reset(void)
{
	atomic64_t *ctr = (atomic64_t *)&sm_st;
	unsigned long irq;
	size_t i;

	for (i = 0; i < sizeof(sm_st) / sizeof(*ctr); i++)
		atomic64_set(&ctr[i], 0);
	spin_lock_irqsave(&flag_lock, irq);
	memset(flags_tab, 0, sizeof(flags_tab));
	flags_next = 0;
	spin_unlock_irqrestore(&flag_lock, irq);
}

/* --- scoring --------------------------------------------------------- */

/*
 * The CPU side: knn.h per window, yielding the CPU every RESCHED_ROWS
 * windows (a window against 8192 references is ~0.5M operations).
 */
#define RESCHED_ROWS	16
void sm_cpu_score(const struct sysmon_ref *rf, const u16 *q, u32 nq, u32 *out)
{
	u32 v;

	for (v = 0; v < nq; v++) {
		out[v] = sysmon_score_one(rf, q + (size_t)v * SYSMON_DIMS, d2);
		if (v % RESCHED_ROWS == RESCHED_ROWS - 1)
			cond_resched();
	}
}

/* One batch on the policy's side; true when the GPU side scored it. */
static bool score_batch(const struct sysmon_ref *rf, u32 nq)
{
	enum lake_target side = lake_fallback_choose(sm_fb, nq);
	u64 t0, ns;

	if (side == LAKE_TARGET_GPU) {
		if (!sm_gpu_score(rf, feat, nq, score, &ns)) {
			lake_fallback_report_gpu(sm_fb, nq, ns);
			atomic64_inc(&sm_st.batches_gpu);
			atomic64_add(nq, &sm_st.scored_gpu);
			return true;
		}
		/* The policy trips to the CPU; this batch is scored there. */
		lake_fallback_report_gpu_error(sm_fb);
		atomic64_inc(&sm_st.redone_cpu);
	}
	t0 = ktime_get_ns();
	sm_cpu_score(rf, feat, nq, score);
	lake_fallback_report_cpu(sm_fb, nq, ktime_get_ns() - t0);
	atomic64_inc(&sm_st.batches_cpu);
	atomic64_add(nq, &sm_st.scored_cpu);
	return false;
}

/* The batch's nq windows: scored (with a reference), recorded, judged. */
static void finish_batch(u32 nq)
{
	const struct sysmon_ref *rf = cur_ref;
	bool on_gpu = false;
	u32 i;

	if (rf && nq)
		on_gpu = score_batch(rf, nq);
	for (i = 0; i < nq; i++) {
		u32 sc = rf ? score[i] : 0;

		record(batch_win[i], batch_counts + (size_t)i * SYSMON_DIMS, sc);
		if (rf && sc > rf->threshold)
			flag(batch_win[i], batch_calls[i], sc, rf->threshold, on_gpu);
	}
}

/*
 * Window @w, with @p's counts (its previous period) if any, into the
 * batch, scoring a full one; false if it has too few calls to judge.
 */
static bool judge(struct sm_win *w, const struct sm_win *p, u32 *nq)
{
	u32 *counts = batch_counts + (size_t)*nq * SYSMON_DIMS, calls, j;

	for (j = 0; j < SYSMON_DIMS; j++)
		counts[j] = sm_sat_add(w->c[j], p ? p->c[j] : 0);
	calls = sm_win_calls(counts);
	atomic64_inc(&sm_st.windows);
	if (calls < READ_ONCE(min_calls)) {
		atomic64_inc(&sm_st.small);
		return false;
	}
	sysmon_features(counts, feat + (size_t)*nq * SYSMON_DIMS);
	batch_win[*nq] = w;
	batch_calls[(*nq)++] = calls;
	if (*nq == max_batch) {
		finish_batch(*nq);
		*nq = 0;
		cond_resched();
	}
	return true;
}

/* Is the process of @w still running (not yet exiting, its tgid not reused)? */
static bool running(const struct sm_win *w)
{
	struct task_struct *t;
	bool alive;

	rcu_read_lock();
	t = pid_task(find_pid_ns(w->tgid, &init_pid_ns), PIDTYPE_TGID);
	alive = t && t->start_time == w->start && !(t->flags & PF_EXITING);
	rcu_read_unlock();
	return alive;
}

/*
 * Under sm_lock: one period's windows, scored in batches of max_batch. A
 * process first seen this period and still running waits for the next
 * period, which scores its two periods together: a short program is judged
 * on all of its calls, not on where a period happened to cut it.
 */
void sm_tick(void)
{
	u32 i, nq = 0;

	atomic64_inc(&sm_st.ticks);
	sm_harvest();
	for (i = 0; i < cur_n; i++) {
		struct sm_win *w = &cur_win[i];
		struct sm_win *p = sm_win_find(prev_win, prev_n, w->tgid, w->start);

		if (p)
			p->taken = 1;
		if (!p && running(w)) {
			w->deferred = 1;
			atomic64_inc(&sm_st.deferred);
			continue;
		}
		judge(w, p, &nq);
	}
	/*
	 * A deferred window whose process made no call this period (a burst,
	 * then a sleep) has nothing to wait for: judged on its own counts.
	 */
	for (i = 0; i < prev_n; i++) {
		struct sm_win *p = &prev_win[i];

		if (p->deferred && !p->taken && judge(p, NULL, &nq))
			atomic64_inc(&sm_st.deferred_scored);
	}
	finish_batch(nq);
	/* This period becomes the previous one. */
	swap(cur_win, prev_win);
	prev_n = cur_n;
	cur_n = 0;
}

static void tick_fn(struct work_struct *work)
{
	mutex_lock(&sm_lock);
	sm_tick();
	mutex_unlock(&sm_lock);
	if (!READ_ONCE(stopping))
		queue_delayed_work(system_unbound_wq, &tick_work,
				   msecs_to_jiffies(READ_ONCE(period_ms)));
}

/* --- the reference --------------------------------------------------- */

static bool name_ok(const char *name)
{
	const char *p;

	if (!*name || *name == '/' || strstr(name, ".."))
		return false;
	for (p = name; *p; p++)
		if (!isalnum(*p) && !strchr("._-/", *p))
			return false;
	return true;
}

/* Under sm_lock. A refused file leaves the old reference in place. */
int sm_load_ref(const char *name)
{
	const struct firmware *fw;
	struct sysmon_ref *rf;
	const char *why;
	int ret;

	if (!strcmp(name, "none")) {
		sysmon_ref_free(cur_ref);
		cur_ref = NULL;
		ref_gen++;
		WRITE_ONCE(shown.count, 0);
		pr_info("reference dropped: windows are recorded, not scored\n");
		return 0;
	}
	if (!name_ok(name)) {
		pr_err("bad reference file name (a relative path of letters, digits, '._-/')\n");
		return -EINVAL;
	}
	ret = request_firmware_direct(&fw, name, NULL);
	if (ret) {
		pr_err("cannot read /lib/firmware/%s: %d; reference unchanged\n", name, ret);
		return ret;
	}
	ret = sysmon_ref_parse(fw->data, fw->size, &rf, &why);
	release_firmware(fw);
	if (ret) {
		pr_err("reference %s refused: %s; reference unchanged\n", name, why);
		return ret;
	}
	sysmon_ref_free(cur_ref);
	cur_ref = rf;
	ref_gen++;
	WRITE_ONCE(shown.k, rf->k);
	WRITE_ONCE(shown.threshold, rf->threshold);
	WRITE_ONCE(shown.count, rf->count);
	pr_info("reference %s: %u windows, k %u, threshold %u\n", name, rf->count, rf->k,
		rf->threshold);
	return 0;
}

/* --- load and unload ------------------------------------------------- */

static void free_tables(void)
{
	sm_probe_free();
	kvfree(cur_win);
	kvfree(prev_win);
	kvfree(feat);
	kvfree(score);
	kvfree(d2);
	kvfree(batch_win);
	kvfree(batch_counts);
	kvfree(batch_calls);
}

static int alloc_tables(void)
{
	int ret = sm_probe_alloc();

	if (ret)
		return ret;
	cur_win = kvcalloc(PROCS_MAX, sizeof(*cur_win), GFP_KERNEL);
	prev_win = kvcalloc(PROCS_MAX, sizeof(*prev_win), GFP_KERNEL);
	feat = kvcalloc((size_t)max_batch * SYSMON_DIMS, sizeof(u16), GFP_KERNEL);
	score = kvcalloc(max_batch, sizeof(u32), GFP_KERNEL);
	d2 = kvcalloc(SYSMON_REF_MAX, sizeof(u32), GFP_KERNEL);
	batch_win = kvcalloc(max_batch, sizeof(*batch_win), GFP_KERNEL);
	batch_counts = kvcalloc((size_t)max_batch * SYSMON_DIMS, sizeof(u32), GFP_KERNEL);
	batch_calls = kvcalloc(max_batch, sizeof(u32), GFP_KERNEL);
	if (!cur_win || !prev_win || !feat || !score || !d2 || !batch_win ||
	    !batch_counts || !batch_calls)
		return -ENOMEM;
	return 0;
}

static void sysmon_cleanup(void)
{
	sm_probe_stop();
	WRITE_ONCE(stopping, true);
	cancel_delayed_work_sync(&tick_work);
	sm_debugfs_exit();
	sm_gpu_teardown();
	lake_features_destroy(sm_reg);
	sm_reg = NULL;
	lake_fallback_destroy(sm_fb);
	sm_fb = NULL;
	sysmon_ref_free(cur_ref);
	cur_ref = NULL;
	free_tables();
}

static int __init sysmon_init(void)
{
	int ret;

	if (max_batch < 1 || max_batch > 1024 || slots < 64 || slots > 4096 ||
	    !is_power_of_2(slots) || period_ms < 10 || period_ms > 60000) {
		pr_err("bad parameters: max_batch 1..1024, slots a power of two 64..4096, period_ms 10..60000\n");
		return -EINVAL;
	}
	INIT_DELAYED_WORK(&tick_work, tick_fn);
	ret = alloc_tables();
	if (ret)
		goto fail;
	ret = sm_gpu_init();
	if (ret)
		goto fail;
	sm_fb = lake_fallback_create(POLICY_NAME, max_batch, 0);
	if (IS_ERR(sm_fb)) {
		ret = PTR_ERR(sm_fb);
		sm_fb = NULL;
		goto fail;
	}
	sm_reg = lake_features_create(POLICY_NAME, schema, NR_F, REG_CAPACITY, 1);
	if (IS_ERR(sm_reg)) {
		ret = PTR_ERR(sm_reg);
		sm_reg = NULL;
		goto fail;
	}
	if (ref && *ref) {
		mutex_lock(&sm_lock);
		ret = sm_load_ref(ref);
		mutex_unlock(&sm_lock);
		if (ret)
			goto fail;
	}
	sm_debugfs_init();
	ret = sm_probe_start();
	if (ret)
		goto fail;
	queue_delayed_work(system_unbound_wq, &tick_work, msecs_to_jiffies(period_ms));
	pr_info("watching system calls: period %u ms, %u slots per CPU\n", period_ms, slots);
	return 0;
fail:
	sysmon_cleanup();
	return ret;
}

static void __exit sysmon_exit(void)
{
	sysmon_cleanup();
}

module_init(sysmon_init);
module_exit(sysmon_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake example: kNN anomaly detection over system calls");
