// SPDX-License-Identifier: GPL-2.0
/*
 * lake_bench: lakelib's costs measured from kernel code in one guest boot,
 * as ratios against a baseline taken in the same loop (TCG's absolute
 * figures mean little). Write "run" to debugfs lake/bench, read the table.
 *   null call     cuCtxSynchronize with nothing queued, vs lake_ping(): a
 *                 bare genl kernel -> laked -> kernel round trip
 *   async         16 cuLaunchKernel + cuStreamSynchronize, vs one
 *                 cuStreamSynchronize; the kernel is a one-thread vadd, so
 *                 what is measured is the launches' cost, not their work
 *   contexts      the null call, p50 and p99, while another context (a
 *                 kthread of its own) synchronizes one PAR_KERNEL_MS kernel
 *                 after another, vs alone: no call should wait for another
 *                 context's kernel
 *   copy          1 MiB cuMemcpyHtoD + cuMemcpyDtoH from a lakeshm buffer,
 *                 vs memcpy() of the same bytes in the guest kernel (run.sh
 *                 adds the user-space memcpy that laked's copies compare to);
 *                 then the same copies with the device address moved by
 *                 COPY_SHIFT, the one thing changed (see bench_copy)
 *   holders N / nullcalls / holders_end   N kthreads that each set a
 *                 context and wait, so lakelib's context table holds N live
 *                 entries; then the null call's p50 and p99 (run.sh runs it
 *                 alone and during a flood of unprivileged stats requests,
 *                 whose count walks that table under the lock every call takes)
 *   transport     cmd_transport(): the ring against genl
 *   staged        1 MiB and 64 MiB HtoD + DtoH from kvmalloc'd memory,
 *                 staged through lakelib's bounce pool, vs the same from a
 *                 lakeshm buffer (zero copy), rounds interleaved
 */
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include <lake/cuda.h>
#include <lake/lakelib.h>

#define ROUNDS		400
#define COPY_BYTES	(1 << 20)
#define COPY_ROUNDS	20
#define COPY_SHIFT	(64 << 10)
#define PAR_KERNEL_MS	50
#define PAR_MAX_NS	(5 * NSEC_PER_SEC)	/* one call at a time: ~25 ms a call */
#define CTL_OUT_MAX	4096
#include "selftest_ctl.h"
#include "../../tests/kernels/timed.h"
#include "../../tests/kernels/vadd.h"

LAKE_KERNEL_SIG(run_for, RUN_FOR_PARAMS);
LAKE_KERNEL_SIG(vadd, VADD_PARAMS);

static u64 t_a[ROUNDS], t_b[ROUNDS];

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 median(u64 *v, int n)
{
	sort(v, n, sizeof(*v), cmp_u64, NULL);
	return v[n / 2];
}

/* After median(), which sorted @v. */
static u64 p99(const u64 *v, int n)
{
	return v[n * 99 / 100];
}

/* ratio * 100 as an integer, printed as x.yy */
static void row(const char *name, u64 a, u64 b, const char *unit, u64 target_x100, bool lower)
{
	u64 r = b ? div64_u64(a * 100, b) : 0;
	bool met = lower ? r <= target_x100 : r >= target_x100;

	ctl_say("bench: %-34s %10llu %-5s vs %10llu  ratio %llu.%02llu  target %s%llu.%02llu  %s\n",
	    name, a, unit, b, r / 100, r % 100, lower ? "<=" : ">=", target_x100 / 100,
	    target_x100 % 100, met ? "met" : "MISSED");
}

static void bench_null_call(void)
{
	u64 t0, rtt = 0;
	int i, n = 0;

	for (i = 0; i < ROUNDS; i++) {
		t0 = ktime_get_ns();
		if (cuCtxSynchronize())
			goto fail;
		t_a[n] = ktime_get_ns() - t0;
		if (lake_ping(&rtt))
			goto fail;
		t_b[n++] = rtt;
	}
	row("null call vs bare genl round trip", median(t_a, n), median(t_b, n), "ns", 130, true);
	return;
fail:
	ctl_say("bench: null call: a call failed\n");
}

/* ns of 16 one-thread vadd launches on @s and a synchronize; 0 if a call failed. */
static u64 launches16(CUfunction fn, CUdeviceptr a, CUstream s)
{
	void *params[] = { &a, &a, &a, &(int){ 1 } };
	u64 t0 = ktime_get_ns();
	int k;

	for (k = 0; k < 16; k++)
		if (cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, s, params, NULL))
			return 0;
	if (cuStreamSynchronize(s))
		return 0;
	return ktime_get_ns() - t0;
}

static void bench_async(CUfunction fn, CUdeviceptr a, CUstream s)
{
	u64 t0;
	int i;

	for (i = 0; i < ROUNDS / 4; i++) {
		t_a[i] = launches16(fn, a, s);
		if (!t_a[i])
			goto fail;
		t0 = ktime_get_ns();
		if (cuStreamSynchronize(s))
			goto fail;
		t_b[i] = ktime_get_ns() - t0;
	}
	row("16 launches + sync vs one sync", median(t_a, i), median(t_b, i), "ns", 200, true);
	return;
fail:
	ctl_say("bench: async: a call failed\n");
}

/* The other context: run_for kernels back to back, each waited for. */
static struct {
	struct completion syncing, done;
	bool stop;
	CUresult result;
	int kernels;
} par;

static int par_syncer(void *unused)
{
	unsigned long long ns = PAR_KERNEL_MS * NSEC_PER_MSEC;
	void *params[] = { &ns };
	CUcontext ctx = NULL;
	CUfunction fn;
	CUmodule mod;
	CUresult r;

	r = cuCtxCreate(&ctx, 0, 0);
	if (!r)
		r = cuModuleLoad(&mod, "timed.cubin");
	if (!r)
		r = lake_module_get_function(&fn, mod, &lake_sig_run_for);
	while (!r && !READ_ONCE(par.stop)) {
		r = cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL);
		if (!r)
			r = cuCtxSynchronize();
		if (!r && !par.kernels++)
			complete(&par.syncing);
	}
	par.result = r;
	complete(&par.syncing);
	if (ctx)
		cuCtxDestroy(ctx);
	kthread_complete_and_exit(&par.done, 0);
}

/* @v[i] = ns of the i-th null call, until ROUNDS or PAR_MAX_NS; how many. */
static int null_calls(u64 *v)
{
	u64 t0, start = ktime_get_ns();
	int n;

	for (n = 0; n < ROUNDS && ktime_get_ns() - start < PAR_MAX_NS; n++) {
		t0 = ktime_get_ns();
		if (cuCtxSynchronize())
			return -1;
		v[n] = ktime_get_ns() - t0;
	}
	return n;
}

/* Timed from the end of the other's first kernel (its warm-up), while the next ones run. */
static void bench_contexts(void)
{
	struct task_struct *t;
	int alone, with;

	alone = null_calls(t_a);
	if (alone <= 0) {
		ctl_say("bench: contexts: a call failed\n");
		return;
	}
	init_completion(&par.syncing);
	init_completion(&par.done);
	par.stop = false;
	par.result = CUDA_SUCCESS;
	par.kernels = 0;
	t = kthread_run(par_syncer, NULL, "lake_bench_sync");
	if (IS_ERR(t)) {
		ctl_say("bench: contexts: no thread\n");
		return;
	}
	wait_for_completion(&par.syncing);
	with = par.result ? 0 : null_calls(t_b);
	WRITE_ONCE(par.stop, true);
	wait_for_completion(&par.done);
	if (with <= 0 || par.result) {
		ctl_say("bench: contexts: a call failed (the other context's: %d)\n", par.result);
		return;
	}
	ctl_say("bench: contexts: %d null calls alone, %d while the other context synchronized %d ms kernels back to back (%d in all)\n",
		alone, with, PAR_KERNEL_MS, par.kernels);
	row("null call p50 beside a syncing ctx", median(t_b, with), median(t_a, alone), "ns",
	    200, true);
	row("null call p99 beside a syncing ctx", p99(t_b, with), p99(t_a, alone), "ns",
	    200, true);
}

/* Median ns of HtoD + DtoH of @shm at @d, and of a kernel memcpy each time; 0: failed. */
static u64 copy_ns(CUdeviceptr d, u8 *shm, u8 *src, u8 *dst, u64 *memcpy_ns)
{
	u64 t0;
	int i;

	for (i = 0; i < COPY_ROUNDS; i++) {
		t0 = ktime_get_ns();
		if (cuMemcpyHtoD(d, shm, COPY_BYTES) || cuMemcpyDtoH(shm, d, COPY_BYTES)) {
			ctl_say("bench: copy: a call failed\n");
			return 0;
		}
		t_a[i] = ktime_get_ns() - t0;
		t0 = ktime_get_ns();
		memcpy(dst, src, COPY_BYTES);
		memcpy(src, dst, COPY_BYTES);
		t_b[i] = ktime_get_ns() - t0;
	}
	*memcpy_ns = median(t_b, COPY_ROUNDS);
	return median(t_a, COPY_ROUNDS);
}

/*
 * laked copies between the shm region and the host device's arena. In
 * laked both start on 2 MiB boundaries (the kernel aligns big anonymous
 * mappings; the region lands beside the arena) and here both buffers start
 * theirs, so their addresses are equal modulo 2 MiB. Under TCG that alone
 * slows a memcpy 2-3x: QEMU's software TLB is direct-mapped, so source and
 * destination pages take the same entry and evict each other at every
 * access. A real CPU's TLB is set-associative and does not care. The
 * second run moves the device address by COPY_SHIFT, nothing else, to show
 * how much of the gap is that emulation artifact.
 */
static void bench_copy(CUdeviceptr d)
{
	u8 *shm = lake_shm_alloc(COPY_BYTES), *src = vmalloc(COPY_BYTES), *dst = vmalloc(COPY_BYTES);
	u64 lake_ns, memcpy_ns, shifted_ns;

	if (!shm || !src || !dst) {
		ctl_say("bench: copy: no memory\n");
		goto out;
	}
	memset(shm, 0x5a, COPY_BYTES);
	memset(src, 0x5a, COPY_BYTES);
	lake_ns = copy_ns(d, shm, src, dst, &memcpy_ns);
	if (!lake_ns)
		goto out;
	/* Throughput ratio = time ratio inverted: lake MB/s over memcpy MB/s. */
	ctl_say("bench: copy 1 MiB there and back: lake %llu MB/s, kernel memcpy %llu MB/s\n",
	    div64_u64(2ULL * COPY_BYTES * 1000, lake_ns), div64_u64(2ULL * COPY_BYTES * 1000, memcpy_ns));
	ctl_say("bench: copy_lake_ns %llu\n", lake_ns);
	row("1 MiB copy throughput vs kernel memcpy", memcpy_ns, lake_ns, "ns", 50, false);
	shifted_ns = copy_ns(d + COPY_SHIFT, shm, src, dst, &memcpy_ns);
	if (shifted_ns)
		ctl_say("bench: copy_shifted_ns %llu\n", shifted_ns);
out:
	vfree(src);
	vfree(dst);
	if (shm)
		lake_shm_free(shm);
}

/* Throughput of staged copies over zero-copy ones, as lower time over higher. */
static void bench_staged(size_t bytes, int rounds, const char *name)
{
	u8 *shm = lake_shm_alloc(bytes), *kv = kvmalloc(bytes, GFP_KERNEL);
	CUdeviceptr d = 0;
	u64 t0;
	int i;

	if (!shm || !kv || cuMemAlloc(&d, bytes)) {
		ctl_say("bench: staged %s: no memory\n", name);
		goto out;
	}
	memset(shm, 0x5a, bytes);
	memset(kv, 0x5a, bytes);
	for (i = 0; i < rounds; i++) {
		t0 = ktime_get_ns();
		if (cuMemcpyHtoD(d, shm, bytes) || cuMemcpyDtoH(shm, d, bytes))
			goto fail;
		t_a[i] = ktime_get_ns() - t0;
		t0 = ktime_get_ns();
		if (cuMemcpyHtoD(d, kv, bytes) || cuMemcpyDtoH(kv, d, bytes))
			goto fail;
		t_b[i] = ktime_get_ns() - t0;
	}
	ctl_say("bench: staged %s there and back: zero-copy %llu MB/s, staged %llu MB/s\n", name,
		div64_u64(2ULL * bytes * 1000, median(t_a, rounds)),
		div64_u64(2ULL * bytes * 1000, median(t_b, rounds)));
	row(name[0] == '1' ? "1 MiB staged vs zero-copy throughput" :
	    "64 MiB staged vs zero-copy throughput", median(t_a, rounds), median(t_b, rounds),
	    "ns", 60, false);
	goto out;
fail:
	ctl_say("bench: staged %s: a call failed\n", name);
out:
	cuMemFree(d);
	kvfree(kv);
	if (shm)
		lake_shm_free(shm);
}

static void cmd_run(void)
{
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	CUdeviceptr d;
	CUstream s;

	if (cuInit(0) || cuCtxCreate(&ctx, 0, 0) || cuModuleLoad(&mod, "vadd.cubin") ||
	    lake_module_get_function(&fn, mod, &lake_sig_vadd) ||
	    cuMemAlloc(&d, COPY_BYTES + COPY_SHIFT) || cuStreamCreate(&s, 0)) {
		ctl_say("bench: setup failed (is laked running?)\n");
		return;
	}
	bench_null_call();
	bench_async(fn, d, s);
	bench_contexts();
	bench_copy(d);
	bench_staged(1 << 20, COPY_ROUNDS, "1 MiB");
	bench_staged(64 << 20, 5, "64 MiB");
	cuStreamDestroy(s);
	cuMemFree(d);
	cuModuleUnload(mod);
	cuCtxDestroy(ctx);
}

/*
 * The transport, in one loop each, against bare genl round trips taken
 * between them: null calls back to back (both sides awake), the same
 * with a pause before each (both sides asleep: past every spin), and 16
 * async launches + a sync against one null call. run.sh runs it with
 * laked on each transport, on 1 and 2 CPUs; it prints what it measured,
 * run.sh the ratios.
 */
static u64 t_c[ROUNDS];

static void transport_row(const char *what, u64 *v, int n)
{
	u64 p50 = median(v, n);

	ctl_say("bench: transport %s: p50 %llu ns, p99 %llu ns\n", what, p50, p99(v, n));
}

static void cmd_transport(void)
{
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	CUdeviceptr d;
	CUstream s;
	u64 t0, rtt;
	int i;

	if (cuInit(0) || cuCtxCreate(&ctx, 0, 0) || cuModuleLoad(&mod, "vadd.cubin") ||
	    lake_module_get_function(&fn, mod, &lake_sig_vadd) || cuMemAlloc(&d, 4096) ||
	    cuStreamCreate(&s, 0)) {
		ctl_say("bench: transport: setup failed (is laked running?)\n");
		return;
	}
	for (i = 0; i < ROUNDS; i++) {
		t0 = ktime_get_ns();
		if (cuCtxSynchronize())
			goto fail;
		t_a[i] = ktime_get_ns() - t0;
	}
	for (i = 0; i < ROUNDS; i++) {
		if (lake_ping(&rtt))
			goto fail;
		t_b[i] = rtt;
	}
	for (i = 0; i < ROUNDS / 4; i++) {
		usleep_range(2000, 2500);
		t0 = ktime_get_ns();
		if (cuCtxSynchronize())
			goto fail;
		t_c[i] = ktime_get_ns() - t0;
	}
	transport_row("null_awake", t_a, ROUNDS);
	transport_row("genl_awake", t_b, ROUNDS);
	transport_row("null_asleep", t_c, ROUNDS / 4);
	for (i = 0; i < ROUNDS / 4; i++) {
		usleep_range(2000, 2500);
		if (lake_ping(&rtt))
			goto fail;
		t_c[i] = rtt;
	}
	transport_row("genl_asleep", t_c, ROUNDS / 4);
	for (i = 0; i < ROUNDS / 4; i++) {
		t_c[i] = launches16(fn, d, s);
		if (!t_c[i])
			goto fail;
	}
	transport_row("async16", t_c, ROUNDS / 4);
	goto out;
fail:
	ctl_say("bench: transport: a call failed\n");
out:
	cuStreamDestroy(s);
	cuMemFree(d);
	cuModuleUnload(mod);
	cuCtxDestroy(ctx);
}

static struct {
	CUcontext ctx;
	struct completion stop, gone;
	atomic_t live;
} hold;

static int holder_fn(void *unused)
{
	cuCtxSetCurrent(hold.ctx);
	wait_for_completion(&hold.stop);
	cuCtxSetCurrent(NULL);
	if (atomic_dec_and_test(&hold.live))
		complete(&hold.gone);
	return 0;
}

static void cmd_holders(int n)
{
	struct task_struct *t;
	int i;

	if (hold.ctx || cuInit(0) || cuCtxCreate(&hold.ctx, 0, 0)) {
		ctl_say("bench: holders: setup failed\n");
		return;
	}
	init_completion(&hold.stop);
	init_completion(&hold.gone);
	atomic_set(&hold.live, 1);
	for (i = 0; i < n; i++) {
		atomic_inc(&hold.live);
		t = kthread_run(holder_fn, NULL, "lake_bench_hold");
		if (IS_ERR(t)) {
			atomic_dec(&hold.live);
			break;
		}
	}
	ctl_say("bench: holders: %d threads hold a context\n", i);
}

static void cmd_nullcalls(void)
{
	u64 p50;
	int n;

	cuCtxSetCurrent(hold.ctx);
	n = null_calls(t_a);
	cuCtxSetCurrent(NULL);
	if (n <= 0) {
		ctl_say("bench: nullcalls: a call failed\n");
		return;
	}
	p50 = median(t_a, n);	/* sorts: before p99() */
	ctl_say("bench: nullcalls: %d calls, p50 %llu ns, p99 %llu ns\n", n, p50, p99(t_a, n));
}

static void cmd_holders_end(void)
{
	if (!hold.ctx)
		return;
	complete_all(&hold.stop);
	if (!atomic_dec_and_test(&hold.live))
		wait_for_completion(&hold.gone);
	cuCtxSetCurrent(hold.ctx);
	cuCtxDestroy(hold.ctx);
	hold.ctx = NULL;
}

static void ctl_command(char *cmd)
{
	int n;

	if (!strcmp(cmd, "run"))
		cmd_run();
	else if (sscanf(cmd, "holders %d", &n) == 1)
		cmd_holders(n);
	else if (!strcmp(cmd, "nullcalls"))
		cmd_nullcalls();
	else if (!strcmp(cmd, "holders_end"))
		cmd_holders_end();
	else if (!strcmp(cmd, "transport"))
		cmd_transport();
	else
		ctl_say("unknown command\n");
}

static int __init bench_init(void)
{
	return ctl_create("bench");
}

static void __exit bench_exit(void)
{
	ctl_remove();
}

module_init(bench_init);
module_exit(bench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake: lakelib benchmarks, run in the test guest");
