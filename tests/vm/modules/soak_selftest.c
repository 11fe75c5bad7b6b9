// SPDX-License-Identifier: GPL-2.0
/*
 * lake_soak_selftest: kernel threads issuing mixed sync and async CUDA calls
 * for as long as the shell lets them, while it kills and restarts laked
 * (tests/vm/cases/55-soak.sh). Every call is timed and its result judged:
 * it succeeds with the right data, or fails within the bound the shell
 * gives (timeout_ms plus slack). Driven through debugfs lake/soak_selftest:
 *   start N SEED BOUND_MS   N kthreads (1..16), seeded, run until stop
 *   fault / clear           the shell is about to break laked / laked is
 *                           back: calls overlapping this window are
 *                           "during faults"
 *   stop                    stop the threads (bounded) and report figures
 *                           ("# soak: ...") and checks
 *   burst N ASYNC BOUND_MS  N kthreads sharing one context each queue
 *                           ASYNC memsets on their own slice and sync once;
 *   burst_result            wait for them (bounded), report results
 *   long_start              an async launch of a kernel that spins until
 *                           laked dies (the rmmod checks); nothing waits on
 *                           it and its context is left to laked
 * One iteration of a worker is one of: vadd with sync copies, vadd on a
 * stream with async copies and a stream sync, a memset on a stream then a
 * DtoH, or a bare synchronizing call. Host buffers are kmalloc (inline),
 * lakeshm (zero copy) or vmalloc (staged), values salted per iteration, so
 * stale or foreign data shows. A failed call ends the iteration; the worker
 * then rebuilds its context (laked may be another one by then).
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/vmalloc.h>
#include <lake/cuda.h>
#include <lake/lakelib.h>
#include "../../kernels/vadd.h"
#include "../../kernels/selftest.h"
#include "selftest_ctl.h"

LAKE_KERNEL_SIG(vadd, VADD_PARAMS);
LAKE_KERNEL_SIG(wait_flag, WAIT_FLAG_PARAMS);

#define WORKERS_MAX	16
#define SMALL_N		1024		/* floats: 4 KiB, inline */
#define BIG_N		(64 * 1024)	/* floats: 256 KiB, staged or shm */
#define CODES_MAX	16
#define STOP_WAIT_MS	30000

#define CHECK(name, cond, fmt, ...) do {					\
	if (cond)								\
		ctl_say("ok - soak.%s\n", name);					\
	else									\
		ctl_say("not ok - soak.%s: " fmt "\n", name, ##__VA_ARGS__);	\
} while (0)

struct worker {
	int id;
	struct task_struct *task;
	struct completion done;
	u64 rnd;
	u64 calls, fault_calls, errors, quiet_errors, wrong, late;
	u64 iters_ok, ok_after_clear, max_ns, shm_failures;
	CUresult first_wrong_op;
	bool ready;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	CUstream s;
	CUdeviceptr a, b, c;
	u32 *kbuf, *vbuf;
};

static struct worker workers[WORKERS_MAX];
static int nworkers;
static bool stopping;
static u64 bound_ns;
/* Faults: begun counts "fault" commands; active while one is open. */
static atomic_t faults_begun = ATOMIC_INIT(0);
static bool fault_active;
static u64 clear_ns;		/* when the last fault window closed */

static DEFINE_SPINLOCK(codes_lock);
static struct { CUresult code; u64 n; } codes[CODES_MAX];
static u64 codes_other;

/* IEEE-754 bits of a small non-negative integer, exactly representable. */
static u32 f32_bits(u32 v)
{
	int e;

	if (!v)
		return 0;
	e = fls(v) - 1;
	return ((127 + e) << 23) | ((v << (23 - e)) & 0x7fffff);
}

/* xorshift64*: seeded per worker, so a run replays its choices. */
static u32 rnd(struct worker *w)
{
	w->rnd ^= w->rnd >> 12;
	w->rnd ^= w->rnd << 25;
	w->rnd ^= w->rnd >> 27;
	return (w->rnd * 0x2545f4914f6cdd1dULL) >> 32;
}

static void count_code(CUresult r)
{
	int i;

	spin_lock(&codes_lock);
	for (i = 0; i < CODES_MAX; i++) {
		if (codes[i].n && codes[i].code != r)
			continue;
		codes[i].code = r;
		codes[i].n++;
		break;
	}
	if (i == CODES_MAX)
		codes_other++;
	spin_unlock(&codes_lock);
}

/* One call, timed and judged; its result. */
#define CALL(w, expr) call_done(w, ({						\
	struct call_start _s = call_begin();					\
	CUresult _r = (expr);							\
	_s.r = _r;								\
	_s; }))

struct call_start {
	u64 t0;
	int faults;
	bool active;
	CUresult r;
};

static struct call_start call_begin(void)
{
	return (struct call_start){ .t0 = ktime_get_ns(),
				    .faults = atomic_read(&faults_begun),
				    .active = READ_ONCE(fault_active) };
}

static CUresult call_done(struct worker *w, struct call_start s)
{
	u64 d = ktime_get_ns() - s.t0;
	bool faulty = s.active || READ_ONCE(fault_active) ||
		      atomic_read(&faults_begun) != s.faults;

	w->calls++;
	w->fault_calls += faulty;
	w->max_ns = max(w->max_ns, d);
	if (d > bound_ns)
		w->late++;
	if (s.r) {
		w->errors++;
		/* Before the first fault nothing may fail. */
		if (!s.faults && !faulty)
			w->quiet_errors++;
		count_code(s.r);
	}
	return s.r;
}

static void teardown(struct worker *w)
{
	CUresult r;
	int i;

	/*
	 * Against a dead laked this fails at once; it is a call too. A
	 * destroy whose send failed (an injected allocation failure) leaves
	 * the context, and its layouts, alive: a careful caller retries.
	 */
	for (i = 0; w->ctx && i < 8; i++) {
		r = CALL(w, cuCtxDestroy(w->ctx));
		if (r != CUDA_ERROR_DEVICE_UNAVAILABLE && r != CUDA_ERROR_OUT_OF_MEMORY)
			break;
	}
	w->ctx = NULL;
	w->ready = false;
}

static CUresult setup(struct worker *w)
{
	CUresult r;

	w->ctx = NULL;
	w->mod = NULL;
	w->s = NULL;
	w->a = w->b = w->c = 0;
	r = CALL(w, cuInit(0));
	if (!r)
		r = CALL(w, cuCtxCreate(&w->ctx, 0, 0));
	if (r)
		return r;
	r = CALL(w, cuModuleLoad(&w->mod, "vadd.cubin"));
	if (!r)
		r = CALL(w, lake_module_get_function(&w->fn, w->mod, &lake_sig_vadd));
	if (!r)
		r = CALL(w, cuStreamCreate(&w->s, 0));
	if (!r)
		r = CALL(w, cuMemAlloc(&w->a, BIG_N * 4));
	if (!r)
		r = CALL(w, cuMemAlloc(&w->b, BIG_N * 4));
	if (!r)
		r = CALL(w, cuMemAlloc(&w->c, BIG_N * 4));
	w->ready = !r;
	return r;
}

/* a = v, b = 2v, expected c = 3v, v = (i + salt) % 4096: exact in floats. */
static u32 vval(size_t i, u32 salt)
{
	return (i + salt) % 4096;
}

static size_t bad_vadd(const u32 *c, size_t n, u32 salt)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (c[i] != f32_bits(3 * vval(i, salt)))
			return i + 1;
	return 0;
}

static CUresult launch(struct worker *w, int n, CUstream s)
{
	void *params[] = { &w->a, &w->b, &w->c, &n };

	return CALL(w, cuLaunchKernel(w->fn, DIV_ROUND_UP(n, 256), 1, 1, 256, 1, 1, 0, s,
				      params, NULL));
}

/* One operation on @buf (@n floats). */
static int run_op(struct worker *w, u32 op, u32 *buf, size_t n, u32 salt, u32 pat)
{
	size_t i;
	int v;

	switch (op) {
	case 0:		/* vadd, sync copies */
	case 1:		/* vadd on a stream, async copies, one stream sync */
		for (i = 0; i < n; i++)
			buf[i] = f32_bits(vval(i, salt));
		if (op == 0 ? CALL(w, cuMemcpyHtoD(w->a, buf, n * 4)) :
			      CALL(w, cuMemcpyHtoDAsync(w->a, buf, n * 4, w->s)))
			return 1;
		for (i = 0; i < n; i++)
			buf[i] = f32_bits(2 * vval(i, salt));
		if (op == 0 ? CALL(w, cuMemcpyHtoD(w->b, buf, n * 4)) :
			      CALL(w, cuMemcpyHtoDAsync(w->b, buf, n * 4, w->s)))
			return 1;
		memset(buf, 0xee, n * 4);
		if (launch(w, n, op == 0 ? NULL : w->s))
			return 1;
		if (op == 0 ? CALL(w, cuMemcpyDtoH(buf, w->c, n * 4)) :
			      CALL(w, cuMemcpyDtoHAsync(buf, w->c, n * 4, w->s)) ||
			      CALL(w, cuStreamSynchronize(w->s)))
			return 1;
		return bad_vadd(buf, n, salt) ? -1 : 0;
	case 2:		/* memset on a stream, then a sync DtoH */
		if (CALL(w, cuMemsetD32Async(w->c, pat, n, w->s)))
			return 1;
		memset(buf, 0, n * 4);
		if (CALL(w, cuMemcpyDtoH(buf, w->c, n * 4)))
			return 1;
		for (i = 0; i < n; i++)
			if (buf[i] != pat)
				return -1;
		return 0;
	default:	/* bare synchronizing calls */
		if (CALL(w, cuDriverGetVersion(&v)) || CALL(w, cuCtxSynchronize()))
			return 1;
		return v > 0 ? 0 : -1;
	}
}

/*
 * One iteration: 0 done right, 1 a call failed, -1 a wrong result, 2 no
 * lakeshm buffer to run it with.
 */
static int iterate(struct worker *w)
{
	u32 op = rnd(w) % 4, kind = rnd(w) % 3, salt = rnd(w) % 4096, pat = rnd(w);
	size_t n = kind ? BIG_N : SMALL_N;
	u32 *buf, *shm = NULL;
	int ret;

	/*
	 * lakeshm is zero copy: an async HtoD reads it when laked runs it, so
	 * op 1 stages from vmalloc instead. Taken per iteration, so that
	 * lakeshm's injected failures hit it.
	 */
	if (kind == 1 && op == 1)
		kind = 2;
	if (kind == 1) {
		shm = lake_shm_alloc(BIG_N * 4);
		if (!shm) {
			w->shm_failures++;
			return 2;
		}
	}
	buf = kind == 0 ? w->kbuf : kind == 1 ? shm : w->vbuf;
	ret = run_op(w, op, buf, n, salt, pat);
	if (shm)
		lake_shm_free(shm);
	return ret;
}

static int soak_worker(void *arg)
{
	struct worker *w = arg;
	int ret;

	while (!READ_ONCE(stopping)) {
		u64 t0 = ktime_get_ns();

		if (!w->ready && setup(w)) {
			teardown(w);
			msleep(20);	/* no laked yet: let it come back */
			continue;
		}
		ret = iterate(w);
		if (ret < 0) {
			w->wrong++;
			teardown(w);
		} else if (ret == 1) {
			teardown(w);
		} else if (!ret) {
			w->iters_ok++;
			if (!READ_ONCE(fault_active) && t0 > READ_ONCE(clear_ns))
				w->ok_after_clear++;
		}
		cond_resched();
	}
	if (w->ready)
		teardown(w);
	complete(&w->done);
	return 0;
}

static void free_bufs(struct worker *w)
{
	kfree(w->kbuf);
	vfree(w->vbuf);
	w->kbuf = NULL;
	w->vbuf = NULL;
}

static void cmd_start(int n, u64 seed, u32 bound_ms)
{
	int i;

	if (nworkers) {
		ctl_say("not ok - soak.start: already running\n");
		return;
	}
	memset(codes, 0, sizeof(codes));
	codes_other = 0;
	atomic_set(&faults_begun, 0);
	WRITE_ONCE(fault_active, false);
	clear_ns = 0;
	bound_ns = (u64)bound_ms * NSEC_PER_MSEC;
	WRITE_ONCE(stopping, false);
	n = clamp(n, 1, WORKERS_MAX);
	for (i = 0; i < n; i++) {
		struct worker *w = &workers[i];

		*w = (struct worker){ .id = i, .rnd = seed * 2654435761ULL + i + 1 };
		init_completion(&w->done);
		w->kbuf = kmalloc(SMALL_N * 4, GFP_KERNEL);
		w->vbuf = vmalloc(BIG_N * 4);
		if (!w->kbuf || !w->vbuf) {
			free_bufs(w);
			break;
		}
		w->task = kthread_run(soak_worker, w, "lake_soak%d", i);
		if (IS_ERR(w->task)) {
			free_bufs(w);
			break;
		}
		nworkers++;
	}
	CHECK("started", nworkers == n, "%d of %d workers", nworkers, n);
}

static void cmd_stop(void)
{
	u64 calls = 0, fault_calls = 0, errors = 0, quiet = 0, wrong = 0, late = 0;
	u64 ok = 0, after = 0, max_ns = 0, shm_failures = 0;
	int i, lost = 0, idle = 0;

	WRITE_ONCE(stopping, true);
	for (i = 0; i < nworkers; i++) {
		struct worker *w = &workers[i];

		/* A worker stuck past this is a lost call; its state stays. */
		if (!wait_for_completion_timeout(&w->done, msecs_to_jiffies(STOP_WAIT_MS))) {
			lost++;
			continue;
		}
		free_bufs(w);
		calls += w->calls;
		fault_calls += w->fault_calls;
		errors += w->errors;
		quiet += w->quiet_errors;
		wrong += w->wrong;
		late += w->late;
		ok += w->iters_ok;
		after += w->ok_after_clear;
		max_ns = max(max_ns, w->max_ns);
		shm_failures += w->shm_failures;
		idle += !w->iters_ok;
	}
	ctl_say("# soak: %d workers, %u faults, %llu calls, %llu during faults, %llu errors, "
		"%llu wrong results, %d lost, %llu late, max call %llu ms (bound %llu ms)\n",
		nworkers, atomic_read(&faults_begun), calls, fault_calls, errors, wrong, lost,
		late, max_ns / NSEC_PER_MSEC, bound_ns / NSEC_PER_MSEC);
	ctl_say("# soak: %llu iterations right, %llu after the last fault; %llu lakeshm allocations failed\n",
		ok, after, shm_failures);
	spin_lock(&codes_lock);
	for (i = 0; i < CODES_MAX && codes[i].n; i++) {
		const char *name = "?";

		cuGetErrorName(codes[i].code, &name);
		ctl_say("# soak: errors %s (%d) %llu\n", name, codes[i].code, codes[i].n);
	}
	spin_unlock(&codes_lock);
	CHECK("calls_made", calls > 0, "none");
	CHECK("no_wrong_results", !wrong, "%llu", wrong);
	CHECK("no_lost_calls", !lost, "%d workers still in a call after %d ms", lost,
	      STOP_WAIT_MS);
	CHECK("calls_within_bound", !late, "%llu calls over %llu ms, max %llu ms", late,
	      bound_ns / NSEC_PER_MSEC, max_ns / NSEC_PER_MSEC);
	CHECK("no_error_before_faults", !quiet, "%llu", quiet);
	CHECK("every_worker_progressed", !idle, "%d workers never completed an iteration", idle);
	CHECK("work_after_last_fault", after > 0, "no iteration right after the last restart");
	CHECK("codes_all_counted", !codes_other, "%llu errors of further codes", codes_other);
	if (!lost)
		nworkers = 0;
}

/* burst: threads sharing one context, for the receive-buffer checks. */
#define BURST_MAX	32
#define SLICE		256	/* u32 per thread */
static CUcontext burst_ctx;
static CUdeviceptr burst_buf;
static struct burst {
	struct task_struct *task;
	struct completion done;
	int id, async;
	CUresult r;
	u64 ns;
	bool wrong;
} bursts[BURST_MAX];
static int nbursts;

static int burst_fn(void *arg)
{
	struct burst *b = arg;
	CUdeviceptr p = burst_buf + b->id * SLICE * 4;
	u32 host[SLICE];
	u64 t0 = ktime_get_ns();
	int i;

	b->r = cuCtxSetCurrent(burst_ctx);
	for (i = 0; !b->r && i < b->async; i++)
		b->r = cuMemsetD32Async(p, b->id * 1000 + i, SLICE, NULL);
	if (!b->r)
		b->r = cuMemcpyDtoH(host, p, sizeof(host));
	b->ns = ktime_get_ns() - t0;
	for (i = 0; !b->r && i < SLICE; i++)
		b->wrong |= host[i] != b->id * 1000 + b->async - 1;
	complete(&b->done);
	return 0;
}

static void cmd_burst(int n, int async, u32 ms)
{
	int i;

	if (nbursts) {
		ctl_say("not ok - soak.burst: already running\n");
		return;
	}
	bound_ns = (u64)ms * NSEC_PER_MSEC;
	n = clamp(n, 1, BURST_MAX);
	if (!burst_ctx && (cuInit(0) || cuCtxCreate(&burst_ctx, 0, 0) ||
			   cuMemAlloc(&burst_buf, BURST_MAX * SLICE * 4))) {
		ctl_say("not ok - soak.burst_setup\n");
		return;
	}
	for (i = 0; i < n; i++) {
		bursts[i] = (struct burst){ .id = i, .async = max(async, 1) };
		init_completion(&bursts[i].done);
		bursts[i].task = kthread_run(burst_fn, &bursts[i], "lake_burst%d", i);
		if (IS_ERR(bursts[i].task))
			break;
		nbursts++;
	}
	CHECK("burst_started", nbursts == n, "%d of %d", nbursts, n);
}

static void cmd_burst_result(void)
{
	int i, ok = 0, lost = 0, late = 0, wrong = 0, timeouts = 0, gone = 0, other = 0;
	u64 max_ns = 0;
	bool is_gone;

	for (i = 0; i < nbursts; i++) {
		struct burst *b = &bursts[i];

		if (!wait_for_completion_timeout(&b->done, msecs_to_jiffies(STOP_WAIT_MS))) {
			lost++;
			continue;
		}
		max_ns = max(max_ns, b->ns);
		late += b->ns > bound_ns;
		wrong += b->wrong;
		ok += !b->r && !b->wrong;
		timeouts += b->r == CUDA_ERROR_TIMEOUT;
		/* laked lost mid-call, or gone before the call was sent */
		is_gone = b->r == CUDA_ERROR_DEVICE_UNAVAILABLE || b->r == CUDA_ERROR_NO_DEVICE;
		gone += is_gone;
		other += b->r && b->r != CUDA_ERROR_TIMEOUT && !is_gone;
	}
	ctl_say("# burst: %d threads: %d right, %d timed out, %d laked gone, %d other errors, "
		"%d wrong, %d lost, max %llu ms\n", nbursts, ok, timeouts, gone, other, wrong,
		lost, max_ns / NSEC_PER_MSEC);
	/* The shell judges the counts; these hold whatever laked did. */
	ctl_say("burst ok %d timeout %d gone %d other %d\n", ok, timeouts, gone, other);
	CHECK("burst_no_wrong", !wrong, "%d", wrong);
	CHECK("burst_no_lost", !lost, "%d", lost);
	CHECK("burst_within_bound", !late, "%d over %llu ms", late, bound_ns / NSEC_PER_MSEC);
	if (!lost)
		nbursts = 0;
	/* After a fence the context belongs to a dead laked: drop it. */
	if (timeouts || gone || other) {
		cuCtxDestroy(burst_ctx);
		burst_ctx = NULL;
	}
}

/* A kernel that spins until laked dies; nothing waits on it. */
static void cmd_long_start(void)
{
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	CUdeviceptr flag, out;
	unsigned long long spins = ~0ULL;
	void *params[] = { &flag, &out, &spins };
	CUresult r;

	r = cuInit(0);
	if (!r)
		r = cuCtxCreate(&ctx, 0, 0);
	if (!r)
		r = cuModuleLoad(&mod, "selftest.cubin");
	if (!r)
		r = lake_module_get_function(&fn, mod, &lake_sig_wait_flag);
	if (!r)
		r = cuMemAlloc(&flag, 4);
	if (!r)
		r = cuMemAlloc(&out, 4);
	if (!r)
		r = cuMemsetD32(flag, 0, 1);
	if (!r)
		r = cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL);
	CHECK("long_launched", !r, "result %d", r);
}

static void ctl_command(char *cmd)
{
	unsigned long long seed;
	int a, b;
	u32 ms;

	if (sscanf(cmd, "start %d %llu %u", &a, &seed, &ms) == 3) {
		cmd_start(a, seed, ms);
	} else if (!strcmp(cmd, "fault")) {
		WRITE_ONCE(fault_active, true);
		atomic_inc(&faults_begun);
	} else if (!strcmp(cmd, "clear")) {
		WRITE_ONCE(clear_ns, ktime_get_ns());
		WRITE_ONCE(fault_active, false);
	} else if (!strcmp(cmd, "stop")) {
		cmd_stop();
	} else if (sscanf(cmd, "burst %d %d %u", &a, &b, &ms) == 3) {
		cmd_burst(a, b, ms);
	} else if (!strcmp(cmd, "burst_result")) {
		cmd_burst_result();
	} else if (!strcmp(cmd, "long_start")) {
		cmd_long_start();
	} else {
		ctl_say("not ok - soak.command: unknown '%s'\n", cmd);
	}
}

static int __init soak_init(void)
{
	return ctl_create("soak_selftest");
}

static void __exit soak_exit(void)
{
	int i;

	/* Unloaded mid-run (the unload case): each stops after its call. */
	WRITE_ONCE(stopping, true);
	for (i = 0; i < nworkers; i++) {
		wait_for_completion(&workers[i].done);
		free_bufs(&workers[i]);
	}
	for (i = 0; i < nbursts; i++)
		wait_for_completion(&bursts[i].done);
	if (burst_ctx)
		cuCtxDestroy(burst_ctx);
	ctl_remove();
}

module_init(soak_init);
module_exit(soak_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake: soak of kernel CUDA callers through laked's faults");
