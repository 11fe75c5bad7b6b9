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
 * at most 8 probes of a fixed hash, adds two counts and copies the comm; a
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
 * slot, from any of its threads. The comm is the last one seen (after
 * an exec, the new program's). Only x86_64's call numbers are classed (a
 * 32-bit or x32 call is "other"; the module builds on x86_64 only). The
 * probe costs every system call two counts, a lock and a hash lookup.
 * Kernels: for_each_kernel_tracepoint(), tracepoint_probe_register(),
 * tracepoint_synchronize_unregister() and sys_enter's prototype (struct
 * pt_regs *, long id) are the same on 6.1 and 6.12, which call the probe
 * with preemption off; later kernels make syscall tracepoints faultable
 * (probes preemptible), so the probe never relies on staying on one CPU:
 * it takes its table's lock. A reference describes the machine it
 * was recorded on: another machine's normal programs need their own.
 */
#define pr_fmt(fmt) "lake_sysmon: " fmt

#include <linux/compat.h>
#include <linux/debugfs.h>
#include <linux/firmware.h>
#include <linux/hash.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <lake/compat.h>
#include <lake/cuda.h>
#include <lake/fallback.h>
#include <lake/features.h>
#include <lake/lakelib.h>
#include <lake/shm.h>
#include "ref.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

#define POLICY_NAME	"sysmon"
#define SLOT_PROBES	8	/* hash probes before a call is dropped */
#define NO_CLASS	0xff
#define PROCS_MAX	2048	/* windows per period; more are dropped */
#define FLAGGED_MAX	64
#define REG_CAPACITY	4096
#define CALIB_ROUNDS	3
#define BENCH_ROUNDS	5
#define BENCH_SIZES	12
#define BLOCK		256

LAKE_KERNEL_SIG(sysmon_dist, SYSMON_DIST_PARAMS);
LAKE_KERNEL_SIG(sysmon_topk, SYSMON_TOPK_PARAMS);

static unsigned int period_ms = 1000;
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

static unsigned int min_calls = 16;
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

static unsigned int max_batch = 256;
module_param(max_batch, uint, 0444);
MODULE_PARM_DESC(max_batch, "windows per batch at most (1..1024, default 256)");
static unsigned int slots = 256;
module_param(slots, uint, 0444);
MODULE_PARM_DESC(slots, "processes per CPU per period (a power of two, 64..4096, default 256)");
static char *ref;
module_param(ref, charp, 0444);
MODULE_PARM_DESC(ref, "reference file under /lib/firmware to load at start (default none)");

/* A process is (tgid, its group leader's start_time): a reused tgid is another. */
struct sm_slot {
	u32 tgid;		/* 0: free */
	u64 start;
	u8 last;		/* class of the slot's previous call, or NO_CLASS */
	char comm[TASK_COMM_LEN];
	u32 c[SYSMON_DIMS];
};

struct sm_cpu {
	raw_spinlock_t lock;
	u32 live;		/* which table the probe fills */
	u64 calls, dropped;	/* under lock */
	struct sm_slot *table[2];
};

/* One process's window, as the worker merges it. */
struct sm_win {
	u32 tgid;
	u64 start;
	u8 deferred;		/* first seen and still running: judged next period */
	u8 taken;		/* as prev_win: merged into this period's window */
	char comm[TASK_COMM_LEN];
	u32 c[SYSMON_DIMS];
};

struct sm_flag {
	u32 tgid;
	u64 start;
	char comm[TASK_COMM_LEN];
	u32 score, windows;
	u64 last_ns;
};

static struct sm_cpu **cpus;
static struct tracepoint *tp_enter;
static bool probe_on;

static struct lake_fallback *fb;
static struct lake_features *reg;
static struct dentry *dir;
static struct delayed_work tick_work;
static bool stopping;

/*
 * sm_lock: the worker's tables, the reference and the GPU state; held by a
 * tick and by every ctl command. Status and flagged never take it.
 */
static DEFINE_MUTEX(sm_lock);
static struct sysmon_ref *cur_ref;
static u32 ref_gen;
/* cur_ref's figures for status, which must not wait for sm_lock. */
static struct {
	u32 count, k, threshold;
} shown;
static struct sm_win *cur_win, *prev_win;	/* PROCS_MAX each */
static u32 cur_n, prev_n;
static struct sm_slot *merge_buf;		/* slots */
static u16 *feat;				/* max_batch * SYSMON_DIMS */
static u32 *score, *d2;				/* max_batch; SYSMON_REF_MAX */
/* The batch being filled: its windows, their counts (two periods) and calls. */
static struct sm_win **batch_win;		/* max_batch */
static u32 *batch_counts;			/* max_batch * SYSMON_DIMS */
static u32 *batch_calls;			/* max_batch */

static struct {
	bool ready;
	u32 gen;		/* the reference uploaded */
	CUcontext ctx;
	CUmodule mod;
	CUfunction dist, topk;
	CUstream stream;
	CUdeviceptr refs, q, d2, score;
	u16 *hq;		/* lakeshm: max_batch windows, then max_batch scores */
	u32 *hscore;
} gpu;

static struct {
	atomic64_t ticks, windows, small, scored_cpu, scored_gpu, flagged;
	atomic64_t batches_cpu, batches_gpu, gpu_errors, redone_cpu, deferred, deferred_scored;
	atomic64_t overflow;
} st;

static DEFINE_SPINLOCK(flag_lock);
static struct sm_flag flags_tab[FLAGGED_MAX];
static u32 flags_next;

/* The bench's rows, read from lake/sysmon/bench; the GPU side's scores. */
static char bench_text[2048];
static u32 bench_gpu[1024];			/* max_batch at most */

enum { F_TGID, F_COMM, F_CALLS, F_SCORE, NR_F };
static const struct lake_feature_desc schema[NR_F] = {
	[F_TGID] = { "tgid", sizeof(u32), 1 },
	[F_COMM] = { "comm", TASK_COMM_LEN, 1 },
	[F_CALLS] = { "calls", SYSMON_DIMS * sizeof(u32), 1 },
	[F_SCORE] = { "score", sizeof(u32), 1 },
};

/* --- the probe: every system call of every process ------------------- */

/*
 * Counts. A slot's u32 holds one CPU's calls in one period (60 s at most):
 * 2^32 of them would take a call every 14 ns, below the cost of a system
 * call's entry alone. Windows sum CPUs and two periods, so they add in u64
 * and saturate at U32_MAX (a share then errs; nothing wraps).
 */
static inline u32 sat_add(u32 a, u32 b)
{
	return (u32)min_t(u64, (u64)a + b, U32_MAX);
}

static void sm_probe(void *data, struct pt_regs *regs, long id)
{
	struct sm_cpu *c = cpus[raw_smp_processor_id()];
	/* A 32-bit or x32 call's number means another call: "other". */
	u32 tgid = current->tgid, cls = in_compat_syscall() ? 0 : sysmon_class(id), h, i;
	u64 start = current->group_leader->start_time;
	struct sm_slot *t, *s = NULL;

	/*
	 * The lock, not the CPU we run on, makes the table ours: a probe
	 * moved to another CPU (where syscall tracepoints are preemptible)
	 * still updates a table under its lock.
	 */
	raw_spin_lock(&c->lock);
	t = c->table[c->live];
	h = hash_32(tgid, ilog2(slots));
	for (i = 0; i < SLOT_PROBES; i++) {
		struct sm_slot *x = &t[(h + i) & (slots - 1)];

		if (x->tgid == tgid && x->start == start) {
			s = x;
			break;
		}
		if (!x->tgid) {
			s = x;
			s->tgid = tgid;
			s->start = start;
			s->last = NO_CLASS;
			break;
		}
	}
	if (s) {
		s->c[cls]++;
		if (s->last != NO_CLASS)
			s->c[sysmon_bigram(s->last, cls)]++;
		s->last = cls;
		memcpy(s->comm, current->comm, TASK_COMM_LEN);
		c->calls++;
	} else {
		c->dropped++;
	}
	raw_spin_unlock(&c->lock);
}

static void find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sys_enter"))
		*(struct tracepoint **)priv = tp;
}

/* --- windows --------------------------------------------------------- */

static struct sm_win *win_find(struct sm_win *w, u32 n, u32 tgid, u64 start)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (w[i].tgid == tgid && w[i].start == start)
			return &w[i];
	return NULL;
}

/*
 * Flip each CPU's table and merge the old one into cur_win. A tgid on
 * several CPUs is found by a linear search of cur_win: at most PROCS_MAX
 * per slot, in process context, once a period.
 */
static void harvest(void)
{
	unsigned int cpu;
	u32 i, j;

	cur_n = 0;
	for_each_possible_cpu(cpu) {
		struct sm_cpu *c = cpus[cpu];
		struct sm_slot *old;

		raw_spin_lock(&c->lock);
		old = c->table[c->live];
		c->live ^= 1;
		raw_spin_unlock(&c->lock);
		/* No probe can hold the old table now: each took the lock. */
		memcpy(merge_buf, old, slots * sizeof(*old));
		memset(old, 0, slots * sizeof(*old));
		for (i = 0; i < slots; i++) {
			struct sm_slot *s = &merge_buf[i];
			struct sm_win *w;

			if (!s->tgid)
				continue;
			w = win_find(cur_win, cur_n, s->tgid, s->start);
			if (!w) {
				if (cur_n == PROCS_MAX) {
					atomic64_inc(&st.overflow);
					continue;
				}
				w = &cur_win[cur_n++];
				memset(w, 0, sizeof(*w));
				w->tgid = s->tgid;
				w->start = s->start;
			}
			memcpy(w->comm, s->comm, TASK_COMM_LEN);
			for (j = 0; j < SYSMON_DIMS; j++)
				w->c[j] = sat_add(w->c[j], s->c[j]);
		}
		cond_resched();
	}
}

static u32 win_calls(const u32 *c)
{
	u64 n = 0;
	u32 j;

	for (j = 0; j < SYSMON_UNI; j++)
		n += c[j];
	return (u32)min_t(u64, n, U32_MAX);
}

static void record(const struct sm_win *w, const u32 *counts, u32 sc)
{
	struct lake_reg_vec *v = lake_features_begin(reg);

	if (!v)
		return;
	lake_features_capture(reg, v, F_TGID, &w->tgid, sizeof(u32));
	lake_features_capture(reg, v, F_COMM, w->comm, TASK_COMM_LEN);
	lake_features_capture(reg, v, F_CALLS, counts, SYSMON_DIMS * sizeof(u32));
	lake_features_capture(reg, v, F_SCORE, &sc, sizeof(u32));
	lake_features_commit(reg, v);
}

static void flag(const struct sm_win *w, u32 calls, u32 sc, u32 thr, bool on_gpu)
{
	struct sm_flag *f = NULL;
	unsigned long irq;
	u32 i;

	atomic64_inc(&st.flagged);
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

/* --- the GPU side ---------------------------------------------------- */

static void gpu_free_ref(void)
{
	if (gpu.refs)
		cuMemFree(gpu.refs);
	if (gpu.d2)
		cuMemFree(gpu.d2);
	gpu.refs = 0;
	gpu.d2 = 0;
	gpu.gen = 0;
}

static CUresult gpu_setup(void)
{
	CUdevice dev;
	CUresult r;

	/* Left by a failure: a live laked frees it, a new one refuses it. */
	if (gpu.ctx)
		cuCtxDestroy(gpu.ctx);
	/* Everything below was the old context's (gone with it, or with laked). */
	gpu.ctx = NULL;
	gpu.stream = NULL;
	gpu.refs = gpu.q = gpu.d2 = gpu.score = 0;
	gpu.gen = 0;
	r = cuInit(0);
	if (!r)
		r = cuDeviceGet(&dev, 0);
	if (!r)
		r = cuCtxCreate(&gpu.ctx, 0, dev);
	if (!r)
		r = cuModuleLoad(&gpu.mod, "sysmon_knn.fatbin");
	if (!r)
		r = lake_module_get_function(&gpu.dist, gpu.mod, &lake_sig_sysmon_dist);
	if (!r)
		r = lake_module_get_function(&gpu.topk, gpu.mod, &lake_sig_sysmon_topk);
	if (!r)
		r = cuMemAlloc(&gpu.q, (size_t)max_batch * SYSMON_DIMS * sizeof(u16));
	if (!r)
		r = cuMemAlloc(&gpu.score, (size_t)max_batch * sizeof(u32));
	if (!r)
		r = cuStreamCreate(&gpu.stream, CU_STREAM_NON_BLOCKING);
	return r;
}

/* The reference on the device, once per file. */
static CUresult gpu_upload(const struct sysmon_ref *rf)
{

	size_t bytes = (size_t)rf->count * SYSMON_DIMS * sizeof(u16);
	void *host;
	CUresult r;

	/* Through lakeshm, by offset: no bounce chunk for a one-off copy. */
	host = lake_shm_alloc(bytes);
	if (!host)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memcpy(host, rf->rows, bytes);
	gpu_free_ref();
	r = cuMemAlloc(&gpu.refs, bytes);
	if (!r)
		r = cuMemAlloc(&gpu.d2, (size_t)max_batch * rf->count * sizeof(u32));
	if (!r)
		r = cuMemcpyHtoD(gpu.refs, host, bytes);
	lake_shm_free(host);
	if (!r) {
		gpu.gen = ref_gen;
	}
	return r;
}

static CUresult gpu_exec(const struct sysmon_ref *rf, const u16 *q, u32 nq, u32 *out)
{
	int inq = nq, cnt = rf->count, k = rf->k;
	void *pd[] = { &gpu.q, &gpu.refs, &gpu.d2, &inq, &cnt };
	void *pt[] = { &gpu.d2, &gpu.score, &inq, &cnt, &k };
	u64 threads = (u64)nq * rf->count;
	CUresult r, sync;

	memcpy(gpu.hq, q, (size_t)nq * SYSMON_DIMS * sizeof(u16));
	r = cuMemcpyHtoDAsync(gpu.q, gpu.hq, (size_t)nq * SYSMON_DIMS * sizeof(u16), gpu.stream);
	if (!r)
		r = cuLaunchKernel(gpu.dist, DIV_ROUND_UP(threads, BLOCK), 1, 1, BLOCK, 1, 1,
				   0, gpu.stream, pd, NULL);
	if (!r)
		r = cuLaunchKernel(gpu.topk, DIV_ROUND_UP(nq, 64), 1, 1, 64, 1, 1,
				   0, gpu.stream, pt, NULL);
	if (!r)
		r = cuMemcpyDtoHAsync(gpu.hscore, gpu.score, nq * sizeof(u32), gpu.stream);
	/* Even after a failure: nothing queued may outlive the batch. */
	sync = cuStreamSynchronize(gpu.stream);
	if (!r)
		r = sync;
	if (!r)
		memcpy(out, gpu.hscore, nq * sizeof(u32));
	return r;
}

/*
 * Under sm_lock: 0 and in *ns the batch's own time (not the context's
 * setup or the reference's upload, which a first batch also does), or
 * -EIO, logged and counted. The caller tells the policy: calibration
 * reports its failures itself.
 */
static int gpu_score(const struct sysmon_ref *rf, const u16 *q, u32 nq, u32 *out, u64 *ns)
{
	const char *name = "?";
	CUresult r;
	u64 t0;

	r = gpu.ready ? cuCtxSetCurrent(gpu.ctx) : gpu_setup();
	if (!r && gpu.gen != ref_gen)
		r = gpu_upload(rf);
	t0 = ktime_get_ns();
	if (!r)
		r = gpu_exec(rf, q, nq, out);
	*ns = ktime_get_ns() - t0;
	gpu.ready = !r;
	cuCtxSetCurrent(NULL);
	if (r) {
		cuGetErrorName(r, &name);
		pr_warn_ratelimited("GPU batch failed: %s\n", name);
		atomic64_inc(&st.gpu_errors);
		return -EIO;
	}
	return 0;
}

/* --- scoring --------------------------------------------------------- */

/*
 * The CPU side: knn.h per window, yielding the CPU every RESCHED_ROWS
 * windows (a window against 8192 references is ~0.5M operations).
 */
#define RESCHED_ROWS	16
static void cpu_score(const struct sysmon_ref *rf, const u16 *q, u32 nq, u32 *out)
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
	enum lake_target side = lake_fallback_choose(fb, nq);
	u64 t0, ns;

	if (side == LAKE_TARGET_GPU) {
		if (!gpu_score(rf, feat, nq, score, &ns)) {
			lake_fallback_report_gpu(fb, nq, ns);
			atomic64_inc(&st.batches_gpu);
			atomic64_add(nq, &st.scored_gpu);
			return true;
		}
		/* The policy trips to the CPU; this batch is scored there. */
		lake_fallback_report_gpu_error(fb);
		atomic64_inc(&st.redone_cpu);
	}
	t0 = ktime_get_ns();
	cpu_score(rf, feat, nq, score);
	lake_fallback_report_cpu(fb, nq, ktime_get_ns() - t0);
	atomic64_inc(&st.batches_cpu);
	atomic64_add(nq, &st.scored_cpu);
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
		counts[j] = sat_add(w->c[j], p ? p->c[j] : 0);
	calls = win_calls(counts);
	atomic64_inc(&st.windows);
	if (calls < READ_ONCE(min_calls)) {
		atomic64_inc(&st.small);
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
static void tick(void)
{
	u32 i, nq = 0;

	atomic64_inc(&st.ticks);
	harvest();
	for (i = 0; i < cur_n; i++) {
		struct sm_win *w = &cur_win[i];
		struct sm_win *p = win_find(prev_win, prev_n, w->tgid, w->start);

		if (p)
			p->taken = 1;
		if (!p && running(w)) {
			w->deferred = 1;
			atomic64_inc(&st.deferred);
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
			atomic64_inc(&st.deferred_scored);
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
	tick();
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
static int load_ref(const char *name)
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

/* --- calibration and the bench --------------------------------------- */

/* A made-up batch: reference windows, shifted so no score is 0. */
static void fake_batch(const struct sysmon_ref *rf, u32 nq)
{
	u32 i, j;

	for (i = 0; i < nq; i++) {
		const u16 *r = rf->rows + (size_t)((i * 7u) % rf->count) * SYSMON_DIMS;
		u16 *f = feat + (size_t)i * SYSMON_DIMS;

		for (j = 0; j < SYSMON_DIMS; j++)
			f[j] = min_t(u32, r[j] + ((i + j) % 5) * 37, SYSMON_FEAT_MAX);
	}
}

/* lake_fallback_calibrate() times this and reports a failure itself. */
static int calib_run(void *arg, enum lake_target side, u32 nq)
{
	u64 ns;

	fake_batch(cur_ref, nq);
	if (side == LAKE_TARGET_GPU)
		return gpu_score(cur_ref, feat, nq, score, &ns);
	cpu_score(cur_ref, feat, nq, score);
	return 0;
}

/* Under sm_lock: the best of BENCH_ROUNDS on each side, and whether they agree. */
static int bench(const u32 *sizes, u32 n)
{
	const struct sysmon_ref *rf = cur_ref;
	size_t len = 0;
	u32 i, crossover = 0;
	int ret = 0;

	len += scnprintf(bench_text + len, sizeof(bench_text) - len,
			 "refs %u k %u dims %u\n", rf->count, rf->k, SYSMON_DIMS);
	for (i = 0; i < n && !ret; i++) {
		u64 cpu_ns = U64_MAX, gpu_ns = U64_MAX, t, ns;
		u32 nq = sizes[i], r, j, mism = 0;

		for (r = 0; r < BENCH_ROUNDS; r++) {
			fake_batch(rf, nq);
			t = ktime_get_ns();
			cpu_score(rf, feat, nq, score);
			cpu_ns = min(cpu_ns, ktime_get_ns() - t);
		}
		/* score[] holds the CPU side's; the GPU side's land in its own buffer. */
		for (r = 0; r < BENCH_ROUNDS && !ret; r++) {
			t = ktime_get_ns();
			ret = gpu_score(rf, feat, nq, bench_gpu, &ns);
			gpu_ns = min(gpu_ns, ktime_get_ns() - t);
		}
		if (ret)
			break;
		for (j = 0; j < nq; j++)
			mism += score[j] != bench_gpu[j];
		if (!crossover && gpu_ns < cpu_ns)
			crossover = nq;
		len += scnprintf(bench_text + len, sizeof(bench_text) - len,
				 "batch %u cpu_ns %llu gpu_ns %llu mismatches %u\n",
				 nq, cpu_ns, gpu_ns, mism);
	}
	if (!ret && crossover)
		scnprintf(bench_text + len, sizeof(bench_text) - len, "crossover %u\n", crossover);
	else if (!ret)
		scnprintf(bench_text + len, sizeof(bench_text) - len, "crossover never\n");
	return ret;
}

/* --- debugfs --------------------------------------------------------- */

static int status_show(struct seq_file *m, void *unused)
{
	u64 calls = 0, dropped = 0;
	unsigned long irq;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		raw_spin_lock_irqsave(&cpus[cpu]->lock, irq);
		calls += cpus[cpu]->calls;
		dropped += cpus[cpu]->dropped;
		raw_spin_unlock_irqrestore(&cpus[cpu]->lock, irq);
	}
	seq_printf(m, "probe %s\ncalls %llu\ndropped %llu\n", probe_on ? "on" : "off",
		   calls, dropped);
#define SHOW(x) seq_printf(m, #x " %lld\n", atomic64_read(&st.x))
	SHOW(ticks);
	SHOW(windows);
	SHOW(small);
	SHOW(scored_cpu);
	SHOW(scored_gpu);
	SHOW(flagged);
	SHOW(batches_cpu);
	SHOW(batches_gpu);
	SHOW(gpu_errors);
	SHOW(redone_cpu);
	SHOW(deferred);
	SHOW(deferred_scored);
	SHOW(overflow);
#undef SHOW
	/* The reference's figures, as the last load set them (never waits for a tick). */
	if (READ_ONCE(shown.count))
		seq_printf(m, "ref %u\nk %u\nthreshold %u\n", READ_ONCE(shown.count),
			   READ_ONCE(shown.k), READ_ONCE(shown.threshold));
	else
		seq_puts(m, "ref none\n");
	seq_printf(m, "period_ms %u\nmin_calls %u\nmax_batch %u\n", READ_ONCE(period_ms),
		   READ_ONCE(min_calls), max_batch);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(status);

static int flagged_show(struct seq_file *m, void *unused)
{
	struct sm_flag *copy;
	unsigned long irq;
	u32 i;

	copy = kmalloc_array(FLAGGED_MAX, sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	spin_lock_irqsave(&flag_lock, irq);
	memcpy(copy, flags_tab, sizeof(flags_tab));
	spin_unlock_irqrestore(&flag_lock, irq);
	seq_puts(m, "tgid comm score windows last_ns\n");
	for (i = 0; i < FLAGGED_MAX; i++)
		if (copy[i].windows)
			seq_printf(m, "%u %.16s %u %u %llu\n", copy[i].tgid, copy[i].comm,
				   copy[i].score, copy[i].windows, copy[i].last_ns);
	kfree(copy);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(flagged);

static int bench_show(struct seq_file *m, void *unused)
{
	if (mutex_lock_killable(&sm_lock))
		return -EINTR;
	seq_puts(m, bench_text);
	mutex_unlock(&sm_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bench);

static int ctl_cmd(char *cmd)
{
	u32 sizes[BENCH_SIZES], n = 0;
	char *arg, *tok;
	int ret;

	cmd = strim(cmd);
	if (!strcmp(cmd, "tick")) {
		tick();
		return 0;
	}
	if (!strcmp(cmd, "reset")) {
		atomic64_t *ctr = (atomic64_t *)&st;
		unsigned long irq;
		size_t i;

		/* The worker's counters and flagged; the probe's calls and dropped stay. */
		for (i = 0; i < sizeof(st) / sizeof(*ctr); i++)
			atomic64_set(&ctr[i], 0);
		spin_lock_irqsave(&flag_lock, irq);
		memset(flags_tab, 0, sizeof(flags_tab));
		flags_next = 0;
		spin_unlock_irqrestore(&flag_lock, irq);
		return 0;
	}
	if (!strncmp(cmd, "ref ", 4))
		return load_ref(strim(cmd + 4));
	if (!cur_ref && (!strcmp(cmd, "calibrate") || !strncmp(cmd, "bench ", 6))) {
		pr_err("%s needs a reference\n", cmd);
		return -ENODATA;
	}
	if (!strcmp(cmd, "calibrate")) {
		ret = lake_fallback_calibrate(fb, CALIB_ROUNDS, calib_run, NULL);
		if (ret)
			pr_err("calibrate failed: %d\n", ret);
		return ret;
	}
	if (!strncmp(cmd, "bench ", 6)) {
		arg = cmd + 6;
		while ((tok = strsep(&arg, " ")) && n < BENCH_SIZES) {
			if (!*tok)
				continue;
			if (kstrtou32(tok, 10, &sizes[n]) || !sizes[n] || sizes[n] > max_batch) {
				pr_err("bench: batch sizes are 1..%u\n", max_batch);
				return -EINVAL;
			}
			n++;
		}
		if (!n || tok)
			return -EINVAL;
		return bench(sizes, n);
	}
	pr_err("unknown command (tick, reset, ref FILE|none, calibrate, bench N...)\n");
	return -EINVAL;
}

static ssize_t ctl_write(struct file *f, const char __user *ubuf, size_t len, loff_t *ppos)
{
	char cmd[128];
	int ret;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';
	if (mutex_lock_killable(&sm_lock))
		return -EINTR;
	ret = ctl_cmd(cmd);
	mutex_unlock(&sm_lock);
	return ret ? ret : len;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
	.llseek = noop_llseek,
};

/*
 * The exporter: each open of lake/sysmon/windows reads, as CSV, the
 * windows the registry holds (its ring keeps the newest REG_CAPACITY),
 * oldest first, then those recorded while it reads; an empty read means
 * nothing new (train.py's input):
 *	ts_ns,tgid,comm,calls,score,c0..c63
 * c0..c47 the classes' counts, c48..c63 the bigram buckets', over the
 * window (two periods); score 0 without a reference. Each open has its
 * own cursor, so readers do not take windows from one another.
 */
#define EXPORT_CHUNK	32	/* records per fetch, copied with IRQs off */
/* The longest line: ts, tgid, calls, score and 64 counts as u64/u32 digits. */
#define EXPORT_LINE	(20 + 3 * 11 + 1 + TASK_COMM_LEN + 11 * SYSMON_DIMS + 2)
#define EXPORT_HEAD	(32 + 5 * SYSMON_DIMS)

struct export_reader {
	struct mutex lock;			/* readers sharing the open file */
	u64 since_ns, last_seq;
	bool header_done;
	size_t len, off;
	void *recs;				/* EXPORT_CHUNK records */
	char text[EXPORT_HEAD + EXPORT_CHUNK * EXPORT_LINE];
};

/* One record as a CSV line; returns its length. */
static size_t export_line(char *p, size_t cap, const struct lake_reg_record *rec)
{
	char comm[TASK_COMM_LEN + 1] = "";
	const u32 *c;
	u32 tgid, sc;
	size_t len;
	int j;

	memcpy(&tgid, lake_features_record_feature(reg, rec, F_TGID, 0), sizeof(tgid));
	memcpy(comm, lake_features_record_feature(reg, rec, F_COMM, 0), TASK_COMM_LEN);
	memcpy(&sc, lake_features_record_feature(reg, rec, F_SCORE, 0), sizeof(sc));
	c = (const u32 *)lake_features_record_feature(reg, rec, F_CALLS, 0);
	for (j = 0; comm[j]; j++)
		if (comm[j] == ',' || comm[j] < ' ' || comm[j] > '~')
			comm[j] = '_';
	len = scnprintf(p, cap, "%llu,%u,%s,%u,%u", rec->ts_end, tgid, comm, win_calls(c), sc);
	for (j = 0; j < SYSMON_DIMS; j++)
		len += scnprintf(p + len, cap - len, ",%u", c[j]);
	len += scnprintf(p + len, cap - len, "\n");
	return len;
}

/*
 * The next chunk as text; 0 when nothing is new. Records come by ts_end
 * (>= the last one read); those read already (seq) are skipped.
 */
static size_t export_fill(struct export_reader *t)
{
	size_t rs = lake_features_record_size(reg), n = 0;
	int got, i, j;

	if (!t->header_done) {
		n = scnprintf(t->text, sizeof(t->text), "ts_ns,tgid,comm,calls,score");
		for (j = 0; j < SYSMON_DIMS; j++)
			n += scnprintf(t->text + n, sizeof(t->text) - n, ",c%d", j);
		n += scnprintf(t->text + n, sizeof(t->text) - n, "\n");
		t->header_done = true;
	}
	got = lake_features_fetch(reg, t->since_ns, t->recs, EXPORT_CHUNK * rs, EXPORT_CHUNK);
	for (i = 0; i < got; i++) {
		const struct lake_reg_record *rec = t->recs + i * rs;

		if (rec->seq <= t->last_seq)
			continue;
		t->last_seq = rec->seq;
		t->since_ns = rec->ts_end;
		n += export_line(t->text + n, sizeof(t->text) - n, rec);
	}
	return n;
}

static int windows_open(struct inode *inode, struct file *f)
{
	struct export_reader *t = kvzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return -ENOMEM;
	t->recs = kvmalloc_array(EXPORT_CHUNK, lake_features_record_size(reg), GFP_KERNEL);
	if (!t->recs) {
		kvfree(t);
		return -ENOMEM;
	}
	mutex_init(&t->lock);
	f->private_data = t;
	return nonseekable_open(inode, f);
}

static ssize_t windows_read(struct file *f, char __user *ubuf, size_t len, loff_t *ppos)
{
	struct export_reader *t = f->private_data;
	ssize_t n = 0;

	if (mutex_lock_killable(&t->lock))
		return -EINTR;
	if (t->off == t->len) {
		t->len = export_fill(t);
		t->off = 0;
	}
	if (t->len) {
		n = min(len, t->len - t->off);
		if (copy_to_user(ubuf, t->text + t->off, n))
			n = -EFAULT;
		else
			t->off += n;
	}
	mutex_unlock(&t->lock);
	return n;
}

static int windows_release(struct inode *inode, struct file *f)
{
	struct export_reader *t = f->private_data;

	mutex_destroy(&t->lock);
	kvfree(t->recs);
	kvfree(t);
	return 0;
}

static const struct file_operations windows_fops = {
	.owner = THIS_MODULE,
	.open = windows_open,
	.read = windows_read,
	.release = windows_release,
};

/* --- load and unload ------------------------------------------------- */

static void free_tables(void)
{
	unsigned int cpu;

	if (cpus) {
		for_each_possible_cpu(cpu) {
			if (!cpus[cpu])
				continue;
			kvfree(cpus[cpu]->table[0]);
			kvfree(cpus[cpu]->table[1]);
			kfree(cpus[cpu]);
		}
		kfree(cpus);
	}
	cpus = NULL;
	kvfree(cur_win);
	kvfree(prev_win);
	kvfree(merge_buf);
	kvfree(feat);
	kvfree(score);
	kvfree(d2);
	kvfree(batch_win);
	kvfree(batch_counts);
	kvfree(batch_calls);
}

static int alloc_tables(void)
{
	unsigned int cpu;

	cpus = kcalloc(nr_cpu_ids, sizeof(*cpus), GFP_KERNEL);
	if (!cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct sm_cpu *c = kzalloc_node(sizeof(*c), GFP_KERNEL, cpu_to_node(cpu));

		if (!c)
			return -ENOMEM;
		cpus[cpu] = c;
		raw_spin_lock_init(&c->lock);
		c->table[0] = kvcalloc(slots, sizeof(struct sm_slot), GFP_KERNEL);
		c->table[1] = kvcalloc(slots, sizeof(struct sm_slot), GFP_KERNEL);
		if (!c->table[0] || !c->table[1])
			return -ENOMEM;
	}
	cur_win = kvcalloc(PROCS_MAX, sizeof(*cur_win), GFP_KERNEL);
	prev_win = kvcalloc(PROCS_MAX, sizeof(*prev_win), GFP_KERNEL);
	merge_buf = kvcalloc(slots, sizeof(*merge_buf), GFP_KERNEL);
	feat = kvcalloc((size_t)max_batch * SYSMON_DIMS, sizeof(u16), GFP_KERNEL);
	score = kvcalloc(max_batch, sizeof(u32), GFP_KERNEL);
	d2 = kvcalloc(SYSMON_REF_MAX, sizeof(u32), GFP_KERNEL);
	batch_win = kvcalloc(max_batch, sizeof(*batch_win), GFP_KERNEL);
	batch_counts = kvcalloc((size_t)max_batch * SYSMON_DIMS, sizeof(u32), GFP_KERNEL);
	batch_calls = kvcalloc(max_batch, sizeof(u32), GFP_KERNEL);
	if (!cur_win || !prev_win || !merge_buf || !feat || !score || !d2 || !batch_win ||
	    !batch_counts || !batch_calls)
		return -ENOMEM;
	return 0;
}

static void gpu_teardown(void)
{
	if (gpu.ctx) {
		/* Frees everything of ours in laked, if laked is still there. */
		cuCtxDestroy(gpu.ctx);
		gpu.ctx = NULL;
	}
	if (gpu.hq)
		lake_shm_free(gpu.hq);
	gpu.hq = NULL;
}

static void sysmon_cleanup(void)
{
	if (probe_on) {
		tracepoint_probe_unregister(tp_enter, sm_probe, NULL);
		/* No probe runs, or will run, once this returns. */
		tracepoint_synchronize_unregister();
		probe_on = false;
	}
	WRITE_ONCE(stopping, true);
	cancel_delayed_work_sync(&tick_work);
	debugfs_remove_recursive(dir);
	dir = NULL;
	gpu_teardown();
	lake_features_destroy(reg);
	reg = NULL;
	lake_fallback_destroy(fb);
	fb = NULL;
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
	gpu.hq = lake_shm_alloc((size_t)max_batch * (SYSMON_DIMS * sizeof(u16) + sizeof(u32)));
	if (!gpu.hq) {
		ret = -ENOMEM;
		goto fail;
	}
	gpu.hscore = (u32 *)(gpu.hq + (size_t)max_batch * SYSMON_DIMS);
	fb = lake_fallback_create(POLICY_NAME, max_batch, 0);
	if (IS_ERR(fb)) {
		ret = PTR_ERR(fb);
		fb = NULL;
		goto fail;
	}
	reg = lake_features_create(POLICY_NAME, schema, NR_F, REG_CAPACITY, 1);
	if (IS_ERR(reg)) {
		ret = PTR_ERR(reg);
		reg = NULL;
		goto fail;
	}
	if (ref && *ref) {
		mutex_lock(&sm_lock);
		ret = load_ref(ref);
		mutex_unlock(&sm_lock);
		if (ret)
			goto fail;
	}
	dir = debugfs_create_dir("sysmon", lake_debugfs_dir());
	debugfs_create_file("status", 0400, dir, NULL, &status_fops);
	debugfs_create_file("flagged", 0400, dir, NULL, &flagged_fops);
	debugfs_create_file("bench", 0400, dir, NULL, &bench_fops);
	debugfs_create_file("windows", 0400, dir, NULL, &windows_fops);
	debugfs_create_file("ctl", 0200, dir, NULL, &ctl_fops);

	for_each_kernel_tracepoint(find_tp, &tp_enter);
	if (!tp_enter) {
		pr_err("no sys_enter tracepoint (CONFIG_FTRACE_SYSCALLS off?)\n");
		ret = -ENOENT;
		goto fail;
	}
	ret = tracepoint_probe_register(tp_enter, sm_probe, NULL);
	if (ret) {
		pr_err("cannot attach to raw_syscalls:sys_enter: %d\n", ret);
		goto fail;
	}
	probe_on = true;
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
