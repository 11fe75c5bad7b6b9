// SPDX-License-Identifier: GPL-2.0
/*
 * lake_stage_selftest: copies from and to kernel memory outside lakeshm,
 * staged through lakelib's bounce pool (lakelib/stage.c), against a running
 * laked. Driven through debugfs lake/stage_selftest:
 *   vadd            NVIDIA's vectorAdd flow (alloc, HtoD a and b, launch,
 *                   DtoH c, check) with host buffers from kmalloc, vmalloc
 *                   and the stack, 1 B to 64 MiB (each size that fits)
 *   partial         staged copies there and back whose last chunk is
 *                   partial (sizes not a multiple of the 512 KiB chunk),
 *                   checked byte for byte, the bytes past the end untouched
 *   overwrite       an async HtoD whose source is overwritten at once, and
 *                   its bounce chunks reused by another copy while the
 *                   stream is still blocked: the device gets the old data
 *   exhaust N ITERS MS   N kthreads copy 1 MiB there and back ITERS times
 *                   each, sharing a small pool: all complete, data intact,
 *                   no iteration as long as MS (timeout_ms: a stall)
 *   big_start / big_result   a kthread copies 64 MiB there and back until
 *                   a call fails (the shell kills laked meanwhile); the
 *                   failed call's result and how long it took
 *   nopool          a staged copy when lakeshm cannot supply the pool
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/vmalloc.h>
#include <lake/cuda.h>
#include <lake/lakelib.h>
#include "../../kernels/vadd.h"
#include "../../kernels/selftest.h"
#include "selftest_ctl.h"

LAKE_KERNEL_SIG(vadd, VADD_PARAMS);
LAKE_KERNEL_SIG(wait_flag, WAIT_FLAG_PARAMS);

#define STACK_BYTES	6144	/* over the inline limit, within a kernel stack */
#define COPY_BYTES	(1 << 20)
#define BIG_BYTES	(64 << 20)
#define THREADS_MAX	16

#define CHECK(name, cond, fmt, ...) do {					\
	if (cond)								\
		ctl_say("ok - stage.%s\n", name);					\
	else									\
		ctl_say("not ok - stage.%s: " fmt "\n", name, ##__VA_ARGS__);	\
} while (0)

/* IEEE-754 bits of a small non-negative integer, exactly representable. */
static u32 f32_bits(u32 v)
{
	int e;

	if (!v)
		return 0;
	e = fls(v) - 1;
	return ((127 + e) << 23) | ((v << (23 - e)) & 0x7fffff);
}

/* A prime period: a chunk landing in another's place shows. */
static u32 val(size_t i)
{
	return i % 65521;
}

static CUresult setup(CUcontext *ctx)
{
	CUresult r = cuInit(0);

	return r ? r : cuCtxCreate(ctx, 0, 0);
}

/* The vectorAdd flow with @buf (@bytes) as host a, b and c in turn. */
static const char *vadd_flow(CUfunction fn, u32 *buf, size_t bytes)
{
	size_t i, n = bytes / 4;
	CUdeviceptr a = 0, b = 0, c = 0;
	const char *why = NULL;
	int nn = n;
	void *params[] = { &a, &b, &c, &nn };
	u8 *raw = (u8 *)buf;

	if (cuMemAlloc(&a, bytes) || cuMemAlloc(&b, bytes) || cuMemAlloc(&c, bytes)) {
		why = "cuMemAlloc";
		goto out;
	}
	if (!n) {	/* under one float: the bytes there and back */
		raw[0] = 0x5a;
		if (cuMemcpyHtoD(a, raw, bytes))
			why = "HtoD";
		raw[0] = 0;
		if (!why && cuMemcpyDtoH(raw, a, bytes))
			why = "DtoH";
		if (!why && raw[0] != 0x5a)
			why = "byte differs";
		goto out;
	}
	for (i = 0; i < n; i++)
		buf[i] = f32_bits(val(i));
	if (cuMemcpyHtoD(a, buf, bytes)) {
		why = "HtoD a";
		goto out;
	}
	for (i = 0; i < n; i++)
		buf[i] = f32_bits(2 * val(i));
	if (cuMemcpyHtoD(b, buf, bytes)) {
		why = "HtoD b";
		goto out;
	}
	memset(buf, 0, bytes);
	if (cuLaunchKernel(fn, DIV_ROUND_UP(n, 256), 1, 1, 256, 1, 1, 0, NULL, params, NULL)) {
		why = "launch";
		goto out;
	}
	if (cuMemcpyDtoH(buf, c, bytes)) {
		why = "DtoH c";
		goto out;
	}
	for (i = 0; i < n; i++)
		if (buf[i] != f32_bits(3 * val(i))) {
			why = "c differs";
			break;
		}
out:
	cuMemFree(a);
	cuMemFree(b);
	cuMemFree(c);
	return why;
}

static noinline void vadd_stack(CUfunction fn, size_t bytes)
{
	u32 buf[STACK_BYTES / 4];
	const char *why = vadd_flow(fn, buf, bytes);

	CHECK("vadd_stack", !why, "%zu bytes: %s", bytes, why);
}

static void cmd_vadd(void)
{
	static const size_t sizes[] = { 1, 4096, 16384, 1 << 20, 64 << 20 };
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	const char *why;
	unsigned int i;
	u32 *buf;

	if (setup(&ctx) || cuModuleLoad(&mod, "vadd.cubin") ||
	    lake_module_get_function(&fn, mod, &lake_sig_vadd)) {
		ctl_say("not ok - stage.vadd_setup\n");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		/* kmalloc cannot give 64 MiB; vmalloc takes it. */
		if (sizes[i] <= KMALLOC_MAX_SIZE) {
			buf = kmalloc(sizes[i], GFP_KERNEL);
			why = buf ? vadd_flow(fn, buf, sizes[i]) : "no memory";
			kfree(buf);
			CHECK("vadd_kmalloc", !why, "%zu bytes: %s", sizes[i], why);
		}
		buf = vmalloc(sizes[i]);
		why = buf ? vadd_flow(fn, buf, sizes[i]) : "no memory";
		vfree(buf);
		CHECK("vadd_vmalloc", !why, "%zu bytes: %s", sizes[i], why);
	}
	vadd_stack(fn, 1);
	vadd_stack(fn, 4096);
	vadd_stack(fn, STACK_BYTES);
	cuModuleUnload(mod);
	cuCtxDestroy(ctx);
}

static u8 pattern(size_t i, unsigned int seed)
{
	return (u8)(i * 7 + i / 65521 + seed);
}

/* 0 when @p holds pattern(., @seed) over @bytes, else 1 + the first bad index. */
static size_t bad_at(const u8 *p, size_t bytes, unsigned int seed)
{
	size_t i;

	for (i = 0; i < bytes; i++)
		if (p[i] != pattern(i, seed))
			return i + 1;
	return 0;
}

static void fill(u8 *p, size_t bytes, unsigned int seed)
{
	size_t i;

	for (i = 0; i < bytes; i++)
		p[i] = pattern(i, seed);
}

#define STAGE_CHUNK_BYTES	(512 << 10)	/* lakelib/stage.c's STAGE_CHUNK */
#define GUARD_BYTES		64

static const char *partial_copy(size_t bytes, unsigned int seed)
{
	u8 *buf = vmalloc(bytes + GUARD_BYTES);
	CUdeviceptr d = 0;
	const char *why = NULL;
	size_t bad;

	if (!buf)
		return "no memory";
	fill(buf, bytes, seed);
	memset(buf + bytes, 0xa5, GUARD_BYTES);
	if (cuMemAlloc(&d, bytes) || cuMemcpyHtoD(d, buf, bytes)) {
		why = "alloc or HtoD";
		goto out;
	}
	memset(buf, 0, bytes);
	if (cuMemcpyDtoH(buf, d, bytes)) {
		why = "DtoH";
		goto out;
	}
	bad = bad_at(buf, bytes, seed);
	if (bad) {
		ctl_say("# partial: %zu bytes: byte %zu differs\n", bytes, bad - 1);
		why = "data differs";
	} else if (memchr_inv(buf + bytes, 0xa5, GUARD_BYTES)) {
		why = "written past the end";
	}
out:
	cuMemFree(d);
	vfree(buf);
	return why;
}

static void cmd_partial(void)
{
	static const size_t sizes[] = {
		3 * STAGE_CHUNK_BYTES + 3001, 2 * STAGE_CHUNK_BYTES + 1, STAGE_CHUNK_BYTES + 4097,
	};
	CUcontext ctx;
	const char *why;
	unsigned int i;

	if (setup(&ctx)) {
		ctl_say("not ok - stage.partial_setup\n");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		why = partial_copy(sizes[i], i + 3);
		CHECK("partial_last_chunk", !why, "%zu bytes: %s", sizes[i], why);
	}
	cuCtxDestroy(ctx);
}

/*
 * CUDA's pageable rules: an async HtoD has taken its data when it returns,
 * an async DtoH has put it in place. Stream s is held by a kernel that
 * spins until a flag is set from the non-blocking s2, so the first copy
 * cannot run before the caller overwrites its source and another copy (on
 * s2) reuses the same bounce chunks.
 */
static void cmd_overwrite(void)
{
	CUdeviceptr d = 0, d2 = 0, flag = 0, out = 0;
	unsigned long long spins = 1ULL << 40;
	void *params[] = { &flag, &out, &spins };
	u8 *buf = vmalloc(COPY_BYTES), *other = vmalloc(COPY_BYTES);
	CUstream s = NULL, s2 = NULL;
	CUcontext ctx = NULL;
	CUmodule mod = NULL;
	CUfunction fn;
	CUresult r;
	size_t bad;

	if (!buf || !other || setup(&ctx) || cuModuleLoad(&mod, "selftest.cubin") ||
	    lake_module_get_function(&fn, mod, &lake_sig_wait_flag) ||
	    cuMemAlloc(&d, COPY_BYTES) || cuMemAlloc(&d2, COPY_BYTES) ||
	    cuMemAlloc(&flag, 4) || cuMemAlloc(&out, 4) || cuMemsetD32(flag, 0, 1) ||
	    cuStreamCreate(&s, 0) || cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING)) {
		ctl_say("not ok - stage.overwrite_setup\n");
		goto out;
	}
	fill(buf, COPY_BYTES, 1);
	fill(other, COPY_BYTES, 2);
	r = cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, s, params, NULL);
	CHECK("overwrite_launch", !r, "%d", r);
	r = cuMemcpyHtoDAsync(d, buf, COPY_BYTES, s);
	CHECK("overwrite_htod_async", !r, "%d", r);
	memset(buf, 0xee, COPY_BYTES);
	r = cuMemcpyHtoDAsync(d2, other, COPY_BYTES, s2);
	CHECK("overwrite_chunks_reused", !r, "%d", r);
	r = cuMemsetD32Async(flag, 1, 1, s2);
	if (!r)
		r = cuStreamSynchronize(s);
	CHECK("overwrite_stream_done", !r, "%d", r);
	r = cuMemcpyDtoH(buf, d, COPY_BYTES);
	bad = r ? 0 : bad_at(buf, COPY_BYTES, 1);
	CHECK("overwrite_old_data_delivered", !r && !bad, "result %d, byte %zu differs", r,
	      bad - 1);
	memset(other, 0, COPY_BYTES);
	r = cuMemcpyDtoHAsync(other, d2, COPY_BYTES, s2);
	bad = r ? 0 : bad_at(other, COPY_BYTES, 2);
	CHECK("dtoh_async_in_place_on_return", !r && !bad, "result %d, byte %zu differs", r,
	      bad - 1);
out:
	if (s)
		cuStreamDestroy(s);
	if (s2)
		cuStreamDestroy(s2);
	cuMemFree(d);
	cuMemFree(d2);
	cuMemFree(flag);
	cuMemFree(out);
	if (mod)
		cuModuleUnload(mod);
	if (ctx)
		cuCtxDestroy(ctx);
	vfree(buf);
	vfree(other);
}

struct worker {
	struct task_struct *task;
	struct completion done;
	CUcontext ctx;
	CUdeviceptr d;
	int id, iters, ok;
	CUresult result;
	const char *why;
	u64 fail_ns;		/* how long the failed call took */
	u64 max_ns;		/* the longest iteration */
	bool stop;
};

static struct worker workers[THREADS_MAX];

/* Sync and async forms in turn: async on the NULL stream, then synchronized. */
static int exhaust_worker(void *arg)
{
	struct worker *w = arg;
	u8 *src = vmalloc(COPY_BYTES), *dst = vmalloc(COPY_BYTES);
	int i;
	u64 t0;

	w->result = src && dst ? cuCtxSetCurrent(w->ctx) : CUDA_ERROR_OUT_OF_MEMORY;
	for (i = 0; i < w->iters && !w->result; i++) {
		fill(src, COPY_BYTES, w->id * 31 + i);
		t0 = ktime_get_ns();
		memset(dst, 0, COPY_BYTES);
		if (i & 1)
			w->result = cuMemcpyHtoDAsync(w->d, src, COPY_BYTES, NULL) ?:
				    cuMemcpyDtoHAsync(dst, w->d, COPY_BYTES, NULL) ?:
				    cuCtxSynchronize();
		else
			w->result = cuMemcpyHtoD(w->d, src, COPY_BYTES) ?:
				    cuMemcpyDtoH(dst, w->d, COPY_BYTES);
		w->max_ns = max(w->max_ns, ktime_get_ns() - t0);
		if (!w->result && bad_at(dst, COPY_BYTES, w->id * 31 + i))
			w->why = "data differs";
		else if (!w->result)
			w->ok++;
	}
	vfree(src);
	vfree(dst);
	complete(&w->done);
	return 0;
}

/*
 * Nobody may wait for the pool while holding chunks: a caller that did
 * would sit out a whole timeout_ms (@stall_ms) before going on with its own.
 */
static void cmd_exhaust(int n, int iters, unsigned int stall_ms)
{
	CUcontext ctx;
	int i;

	n = clamp(n, 1, THREADS_MAX);
	if (setup(&ctx)) {
		ctl_say("not ok - stage.exhaust_setup\n");
		return;
	}
	for (i = 0; i < n; i++) {
		workers[i] = (struct worker){ .id = i, .iters = iters, .ctx = ctx };
		init_completion(&workers[i].done);
		if (cuMemAlloc(&workers[i].d, COPY_BYTES))
			workers[i].result = CUDA_ERROR_OUT_OF_MEMORY;
	}
	for (i = 0; i < n; i++) {
		workers[i].task = workers[i].result ? NULL :
				  kthread_run(exhaust_worker, &workers[i], "lake_stage%d", i);
		if (IS_ERR_OR_NULL(workers[i].task))
			complete(&workers[i].done);
	}
	for (i = 0; i < n; i++) {
		wait_for_completion(&workers[i].done);
		CHECK("exhaust_worker", !workers[i].result && workers[i].ok == iters,
		      "worker %d: %d/%d ok, result %d, %s", i, workers[i].ok, iters,
		      workers[i].result, workers[i].why ?: "");
		CHECK("exhaust_no_stall", workers[i].max_ns < (u64)stall_ms * NSEC_PER_MSEC,
		      "worker %d: an iteration took %llu ms", i, workers[i].max_ns / NSEC_PER_MSEC);
		cuMemFree(workers[i].d);
	}
	cuCtxDestroy(ctx);
}

/* workers[0]: 64 MiB there and back until a call fails or it is told to stop. */
static int big_worker(void *arg)
{
	struct worker *w = arg;
	u8 *buf = vmalloc(BIG_BYTES);
	u64 t0;

	w->result = buf ? setup(&w->ctx) : CUDA_ERROR_OUT_OF_MEMORY;
	if (!w->result)
		w->result = cuMemAlloc(&w->d, BIG_BYTES);
	if (buf)
		memset(buf, 0x3c, BIG_BYTES);
	while (!w->result && !READ_ONCE(w->stop)) {
		t0 = ktime_get_ns();
		w->result = w->ok & 1 ? cuMemcpyDtoH(buf, w->d, BIG_BYTES) :
					cuMemcpyHtoD(w->d, buf, BIG_BYTES);
		w->fail_ns = ktime_get_ns() - t0;
		w->ok++;
	}
	vfree(buf);
	complete(&w->done);
	return 0;
}

static void cmd_big_start(void)
{
	struct worker *w = &workers[0];

	*w = (struct worker){ .id = 0 };
	init_completion(&w->done);
	w->task = kthread_run(big_worker, w, "lake_stage_big");
	if (IS_ERR(w->task)) {
		w->result = CUDA_ERROR_OUT_OF_MEMORY;
		complete(&w->done);
	}
	ctl_say("started\n");
}

static void cmd_big_result(unsigned int timeout_ms)
{
	struct worker *w = &workers[0];

	if (!wait_for_completion_timeout(&w->done, 30 * HZ)) {
		WRITE_ONCE(w->stop, true);
		wait_for_completion(&w->done);
		ctl_say("not ok - stage.big_failed: still copying after 30 s\n");
		return;
	}
	ctl_say("# call %d failed\n", w->ok);
	CHECK("big_failed", w->result == CUDA_ERROR_DEVICE_UNAVAILABLE ||
	      w->result == CUDA_ERROR_NO_DEVICE, "result %d after %d copies", w->result, w->ok);
	CHECK("big_failed_within_timeout", w->fail_ns < (u64)timeout_ms * NSEC_PER_MSEC,
	      "%llu ms", w->fail_ns / NSEC_PER_MSEC);
}

static void cmd_nopool(void)
{
	u8 *buf = kzalloc(16384, GFP_KERNEL);
	CUdeviceptr d = 0;
	CUcontext ctx;
	CUresult r;

	if (!buf || setup(&ctx) || cuMemAlloc(&d, 16384)) {
		ctl_say("not ok - stage.nopool_setup\n");
		kfree(buf);
		return;
	}
	r = cuMemcpyHtoD(d, buf, 16384);
	CHECK("nopool_out_of_memory", r == CUDA_ERROR_OUT_OF_MEMORY, "%d", r);
	r = cuMemcpyHtoD(d, buf, 4096);
	CHECK("nopool_inline_still_works", !r, "%d", r);
	cuMemFree(d);
	cuCtxDestroy(ctx);
	kfree(buf);
}

static void ctl_command(char *cmd)
{
	int a, b, c;

	if (!strcmp(cmd, "vadd"))
		cmd_vadd();
	else if (!strcmp(cmd, "partial"))
		cmd_partial();
	else if (!strcmp(cmd, "overwrite"))
		cmd_overwrite();
	else if (sscanf(cmd, "exhaust %d %d %d", &a, &b, &c) == 3)
		cmd_exhaust(a, b, c);
	else if (!strcmp(cmd, "big_start"))
		cmd_big_start();
	else if (sscanf(cmd, "big_result %d", &a) == 1)
		cmd_big_result(a);
	else if (!strcmp(cmd, "nopool"))
		cmd_nopool();
	else
		ctl_say("unknown command\n");
}

static int __init stage_selftest_init(void)
{
	return ctl_create("stage_selftest");
}

static void __exit stage_selftest_exit(void)
{
	ctl_remove();
}

module_init(stage_selftest_init);
module_exit(stage_selftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake: staged copies of kernel memory outside lakeshm, checked in the guest");
