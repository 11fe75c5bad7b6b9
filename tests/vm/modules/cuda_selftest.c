// SPDX-License-Identifier: GPL-2.0
/*
 * lake_cuda_selftest: calls every function lakelib exports and checks the
 * results, from kernel code, against a running laked (host device in the
 * VM suite). Driven through debugfs lake/cuda_selftest: write a command,
 * read back TAP-like "ok - cuda.NAME" lines.
 *   basic              the whole API, one context, vadd end to end
 *   nodaemon           every call fails at once with CUDA_ERROR_NO_DEVICE
 *   coalesce           16 async launches + 1 synchronize: one message
 *   threads N ITERS    N kthreads, each its own context, vadd in a loop
 *   hold N / go / results   N kthreads block in cuCtxSynchronize on "go";
 *                      results reports each one's CUresult and wait time
 *   stale_save / stale_check   a context from one laked used after a restart
 *   ctx_threads N / ctx_threads_end   N kthreads set a shared context and
 *                      exit; the shell watches ctx_threads in lakelib_stats
 *   ctx_kworker        a work item does not see the context of the one before
 *   layouts_hold / layouts_drop   a function looked up, then its context
 *                      destroyed; the shell watches func_layouts
 *   hostile N          N rounds of calls against a lying daemon (genl_fuzz
 *                      daemon): whatever it answers, every call returns and
 *                      nothing lands outside the caller's buffers
 *   ringstress N WORDS N synchronous memsets of 1..WORDS words, sizes mixed,
 *                      so that laked's replies land around the moment a
 *                      spinning caller gives up and marks itself asleep:
 *                      every call answered, none waiting for the timeout
 *                      (a lost wakeup of the command ring's sleep protocol)
 * It also registers the genl family "lake_selftest", without parallel_ops:
 * its one command calls cuDriverGetVersion from inside the handler, with
 * genl_mutex held, and answers the CUresult (LAKE_SELFTEST_A_RESULT), so a
 * user-space probe can check that laked's reply still gets through.
 * No floating point in the kernel: floats are built and checked as bits.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include <lake/cuda.h>
#include <lake/lakelib.h>
#include "../../kernels/vadd.h"
#include "selftest_ctl.h"

LAKE_KERNEL_SIG(vadd, VADD_PARAMS);

#define N		1024	/* vadd elements */
#define HOLD_MAX	8

#define CHECK(name, cond, fmt, ...) do {					\
	if (cond)								\
		ctl_say("ok - cuda.%s\n", name);					\
	else									\
		ctl_say("not ok - cuda.%s: " fmt "\n", name, ##__VA_ARGS__);	\
} while (0)

#define EXPECT(name, call, want) do {						\
	CUresult _r = (call);							\
	CHECK(name, _r == (want), "%s returned %d, want %d", #call, _r, (want));	\
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

struct vadd_env {
	CUmodule mod;
	CUfunction fn;
	CUdeviceptr a, b, c;
	u32 *host;		/* N floats, kmalloc: travels inline in slices */
};

/* Fill a and b with i and 2i, then check c == 3i, through @host. */
static bool vadd_fill(struct vadd_env *v, u32 *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = f32_bits(i);
	if (cuMemcpyHtoD(v->a, buf, n * 4))
		return false;
	for (i = 0; i < n; i++)
		buf[i] = f32_bits(2 * i);
	return cuMemcpyHtoD(v->b, buf, n * 4) == CUDA_SUCCESS;
}

static int vadd_bad(const u32 *c, size_t n)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < n; i++)
		bad += c[i] != f32_bits(3 * i);
	return bad;
}

/* Load vadd and allocate its buffers; v->host is the caller's. */
static CUresult vadd_setup(struct vadd_env *v, size_t n)
{
	CUresult r;

	v->mod = NULL;
	v->fn = NULL;
	v->a = v->b = v->c = 0;
	r = cuModuleLoad(&v->mod, "vadd.cubin");
	if (!r)
		r = lake_module_get_function(&v->fn, v->mod, &lake_sig_vadd);
	if (!r)
		r = cuMemAlloc(&v->a, n * 4);
	if (!r)
		r = cuMemAlloc(&v->b, n * 4);
	if (!r)
		r = cuMemAlloc(&v->c, n * 4);
	return r;
}

static CUresult vadd_launch(struct vadd_env *v, int n, CUstream s)
{
	void *params[] = { &v->a, &v->b, &v->c, &n };

	return cuLaunchKernel(v->fn, (n + 127) / 128, 1, 1, 128, 1, 1, 0, s, params, NULL);
}

static void test_device(CUdevice *dev)
{
	char name[64] = "";
	size_t total = 0;
	int v = 0, count = 0, x = 0;
	CUdevice bad;

	EXPECT("init", cuInit(0), CUDA_SUCCESS);
	EXPECT("driver_version", cuDriverGetVersion(&v), CUDA_SUCCESS);
	CHECK("driver_version_value", v >= 12000, "%d", v);
	EXPECT("device_count", cuDeviceGetCount(&count), CUDA_SUCCESS);
	CHECK("device_count_value", count >= 1, "%d", count);
	EXPECT("device_get", cuDeviceGet(dev, 0), CUDA_SUCCESS);
	EXPECT("device_get_bad_ordinal", cuDeviceGet(&bad, 99), CUDA_ERROR_INVALID_DEVICE);
	EXPECT("device_name", cuDeviceGetName(name, sizeof(name), *dev), CUDA_SUCCESS);
	CHECK("device_name_value", name[0], "empty");
	EXPECT("device_name_bad_len", cuDeviceGetName(name, 0, *dev), CUDA_ERROR_INVALID_VALUE);
	EXPECT("device_attribute", cuDeviceGetAttribute(&x, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
						       *dev), CUDA_SUCCESS);
	CHECK("device_attribute_value", x > 0, "%d", x);
	EXPECT("device_total_mem", cuDeviceTotalMem(&total, *dev), CUDA_SUCCESS);
	CHECK("device_total_mem_value", total > 0, "%zu", total);
	EXPECT("null_out_pointer", cuDeviceGetCount(NULL), CUDA_ERROR_INVALID_VALUE);
}

static void test_memory(struct vadd_env *v, u32 *shm)
{
	u8 *bytes = (u8 *)shm;
	size_t free = 0, total = 0, pitch = 0;
	CUdeviceptr p;
	void *big;
	int i, bad;

	EXPECT("mem_get_info", cuMemGetInfo(&free, &total), CUDA_SUCCESS);
	CHECK("mem_get_info_value", free <= total && total > 0, "%zu/%zu", free, total);
	EXPECT("mem_alloc_pitch", cuMemAllocPitch(&p, &pitch, 100, 4, 4), CUDA_SUCCESS);
	CHECK("mem_alloc_pitch_value", pitch >= 100, "%zu", pitch);
	EXPECT("mem_free_pitch", cuMemFree(p), CUDA_SUCCESS);
	EXPECT("mem_free_twice", cuMemFree(p), CUDA_ERROR_INVALID_VALUE);

	EXPECT("memset_d32", cuMemsetD32(v->c, f32_bits(5), N), CUDA_SUCCESS);
	EXPECT("memcpy_dtoh_shm", cuMemcpyDtoH(shm, v->c, N * 4), CUDA_SUCCESS);
	for (bad = 0, i = 0; i < N; i++)
		bad += shm[i] != f32_bits(5);
	CHECK("memset_d32_value", !bad, "%d words differ", bad);
	EXPECT("memset_d8", cuMemsetD8(v->c, 0xab, 16), CUDA_SUCCESS);
	EXPECT("memcpy_dtoh_inline", cuMemcpyDtoH(v->host, v->c, 64), CUDA_SUCCESS);
	bytes = (u8 *)v->host;
	CHECK("memset_d8_value", bytes[0] == 0xab && bytes[15] == 0xab && bytes[16] != 0xab,
	      "%02x %02x %02x", bytes[0], bytes[15], bytes[16]);

	big = kzalloc(8192, GFP_KERNEL);
	/* Staged (lakelib/stage.c), and refused by laked: past the device buffer. */
	EXPECT("memcpy_staged_past_device_buffer", cuMemcpyHtoD(v->a, big, 8192),
	       CUDA_ERROR_INVALID_VALUE);
	kfree(big);
	EXPECT("memcpy_shm_past_allocation", cuMemcpyHtoD(v->a, shm + N - 4, 64),
	       CUDA_ERROR_INVALID_VALUE);
	EXPECT("memcpy_bad_dptr", cuMemcpyHtoD(0x10, v->host, 64), CUDA_ERROR_INVALID_VALUE);
	EXPECT("memcpy_dptr_overrun", cuMemcpyHtoD(v->a + N * 4 - 8, v->host, 64),
	       CUDA_ERROR_INVALID_VALUE);
}

static void test_launch(struct vadd_env *v, u32 *shm, CUstream s)
{
	size_t off = 0, size = 0;
	u8 buf[32];
	size_t buf_size = sizeof(buf);
	void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE,
			  &buf_size, CU_LAUNCH_PARAM_END };
	CUevent e0, e1;
	u32 ms_bits = 0;
	float ms;
	int n = N;

	EXPECT("func_param_info", cuFuncGetParamInfo(v->fn, 3, &off, &size), CUDA_SUCCESS);
	CHECK("func_param_info_value", off == 24 && size == 4, "off %zu size %zu", off, size);
	EXPECT("func_param_info_past_end", cuFuncGetParamInfo(v->fn, 4, &off, &size),
	       CUDA_ERROR_INVALID_VALUE);
	CHECK("vadd_fill_inline", vadd_fill(v, v->host, N), "HtoD failed");

	EXPECT("event_create", cuEventCreate(&e0, 0), CUDA_SUCCESS);
	EXPECT("event_create_2", cuEventCreate(&e1, 0), CUDA_SUCCESS);
	EXPECT("event_record", cuEventRecord(e0, s), CUDA_SUCCESS);
	EXPECT("launch_params", vadd_launch(v, N, s), CUDA_SUCCESS);
	EXPECT("event_record_2", cuEventRecord(e1, s), CUDA_SUCCESS);
	EXPECT("stream_synchronize", cuStreamSynchronize(s), CUDA_SUCCESS);
	EXPECT("stream_query", cuStreamQuery(s), CUDA_SUCCESS);
	EXPECT("event_synchronize", cuEventSynchronize(e1), CUDA_SUCCESS);
	EXPECT("event_elapsed", cuEventElapsedTime(&ms, e0, e1), CUDA_SUCCESS);
	memcpy(&ms_bits, &ms, 4);
	CHECK("event_elapsed_value", !(ms_bits & 0x80000000) && (ms_bits & 0x7f800000) != 0x7f800000,
	      "bits %#x", ms_bits);
	EXPECT("event_destroy", cuEventDestroy(e0), CUDA_SUCCESS);
	EXPECT("event_destroy_2", cuEventDestroy(e1), CUDA_SUCCESS);
	EXPECT("event_destroy_stale", cuEventDestroy(e1), CUDA_ERROR_INVALID_HANDLE);

	memset(shm, 0, N * 4);
	EXPECT("vadd_dtoh_shm", cuMemcpyDtoH(shm, v->c, N * 4), CUDA_SUCCESS);
	CHECK("vadd_result", !vadd_bad(shm, N), "%d elements wrong", vadd_bad(shm, N));

	/* The `extra` form with the layout laked reported. */
	memset(buf, 0, sizeof(buf));
	memcpy(buf + 0, &v->a, 8);
	memcpy(buf + 8, &v->b, 8);
	memcpy(buf + 16, &v->c, 8);
	memcpy(buf + 24, &n, 4);
	EXPECT("memset_async", cuMemsetD32Async(v->c, 0, N, s), CUDA_SUCCESS);
	EXPECT("launch_extra", cuLaunchKernel(v->fn, N / 128, 1, 1, 128, 1, 1, 0, s, NULL, extra),
	       CUDA_SUCCESS);
	EXPECT("memcpy_dtoh_async_shm", cuMemcpyDtoHAsync(shm, v->c, N * 4, s), CUDA_SUCCESS);
	EXPECT("stream_synchronize_2", cuStreamSynchronize(s), CUDA_SUCCESS);
	CHECK("vadd_result_extra", !vadd_bad(shm, N), "%d elements wrong", vadd_bad(shm, N));

	memset(v->host, 0, 64);
	EXPECT("memcpy_dtoh_async_inline", cuMemcpyDtoHAsync(v->host, v->c, 64, s), CUDA_SUCCESS);
	CHECK("memcpy_dtoh_async_inline_value", !vadd_bad(v->host, 16), "data not there on return");
	EXPECT("memcpy_htod_async_shm", cuMemcpyHtoDAsync(v->a, shm, N * 4, s), CUDA_SUCCESS);
	EXPECT("stream_synchronize_3", cuStreamSynchronize(s), CUDA_SUCCESS);

	EXPECT("launch_unknown_function", cuLaunchKernel((CUfunction)0x77, 1, 1, 1, 1, 1, 1, 0, s,
							 NULL, NULL), CUDA_ERROR_INVALID_HANDLE);
	EXPECT("launch_missing_params", cuLaunchKernel(v->fn, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL),
	       CUDA_ERROR_INVALID_VALUE);
}

/* Async errors surface at the next synchronizing call, and only there. */
static void test_async_errors(struct vadd_env *v, u32 *shm, CUstream s)
{
	CUdeviceptr tmp;

	EXPECT("async_bad_copy_returns_success", cuMemcpyHtoDAsync(0xdead0000, shm, 64, s),
	       CUDA_SUCCESS);
	EXPECT("async_error_at_stream_sync", cuStreamSynchronize(s), CUDA_ERROR_INVALID_VALUE);
	EXPECT("async_error_reported_once", cuStreamSynchronize(s), CUDA_SUCCESS);
	EXPECT("async_bad_memset", cuMemsetD8Async(0xdead0000, 0, 4, s), CUDA_SUCCESS);
	EXPECT("sync_call_returns_own_result", cuMemAlloc(&tmp, 64), CUDA_SUCCESS);
	EXPECT("async_error_at_ctx_sync", cuCtxSynchronize(), CUDA_ERROR_INVALID_VALUE);
	EXPECT("ctx_sync_clean", cuCtxSynchronize(), CUDA_SUCCESS);
	EXPECT("mem_free", cuMemFree(tmp), CUDA_SUCCESS);
}

static void test_bad_handles(struct vadd_env *v)
{
	/* vadd has four parameters: a module that declares one is refused. */
	static const struct lake_kernel_sig vadd_short = { "vadd", 1, { { 0, 8 } } };
	static const struct lake_kernel_sig vadd_empty = { .name = "vadd" };
	CUfunction f;
	CUstream s;
	const char *str = NULL;

	EXPECT("get_function_forged_module", cuModuleGetFunction(&f, (CUmodule)0x1234, "vadd"),
	       CUDA_ERROR_INVALID_HANDLE);
	EXPECT("get_function_layout_disagrees", lake_module_get_function(&f, v->mod, &vadd_short),
	       CUDA_ERROR_INVALID_IMAGE);
	EXPECT("get_function_malformed_signature",
	       lake_module_get_function(&f, v->mod, &vadd_empty), CUDA_ERROR_INVALID_VALUE);
	EXPECT("get_function_no_signature", lake_module_get_function(&f, v->mod, NULL),
	       CUDA_ERROR_INVALID_VALUE);
	EXPECT("get_function_unknown_name", cuModuleGetFunction(&f, v->mod, "no_such_kernel"),
	       CUDA_ERROR_NOT_FOUND);
	EXPECT("stream_sync_forged", cuStreamSynchronize((CUstream)0x999), CUDA_ERROR_INVALID_HANDLE);
	EXPECT("event_destroy_forged", cuEventDestroy((CUevent)0x4242), CUDA_ERROR_INVALID_HANDLE);
	EXPECT("module_load_missing", cuModuleLoad(&v->mod, "missing.cubin"),
	       CUDA_ERROR_FILE_NOT_FOUND);
	EXPECT("module_load_escape", cuModuleLoad(&v->mod, "../../etc/passwd"),
	       CUDA_ERROR_FILE_NOT_FOUND);
	EXPECT("stream_create", cuStreamCreate(&s, 0), CUDA_SUCCESS);
	EXPECT("stream_destroy", cuStreamDestroy(s), CUDA_SUCCESS);
	EXPECT("stream_destroy_stale", cuStreamDestroy(s), CUDA_ERROR_INVALID_HANDLE);
	EXPECT("error_name", cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &str), CUDA_SUCCESS);
	CHECK("error_name_value", str && !strcmp(str, "CUDA_ERROR_INVALID_VALUE"), "%s", str);
	EXPECT("error_string_unknown", cuGetErrorString(9999, &str), CUDA_ERROR_INVALID_VALUE);
}

static void cmd_basic(void)
{
	struct vadd_env v;
	CUcontext ctx, cur = NULL;
	CUdevice dev = 0;
	CUdeviceptr p;
	CUstream s;
	u32 *shm = lake_shm_alloc(N * 4);

	v.host = kzalloc(N * 4, GFP_KERNEL);
	if (!shm || !v.host) {
		ctl_say("not ok - cuda.setup: no memory\n");
		goto out;
	}
	test_device(&dev);
	EXPECT("no_context", cuMemAlloc(&p, 64), CUDA_ERROR_INVALID_CONTEXT);
	EXPECT("ctx_create", cuCtxCreate(&ctx, 0, dev), CUDA_SUCCESS);
	EXPECT("ctx_get_current", cuCtxGetCurrent(&cur), CUDA_SUCCESS);
	CHECK("ctx_current_is_new", cur == ctx, "%px vs %px", cur, ctx);
	EXPECT("vadd_setup", vadd_setup(&v, N), CUDA_SUCCESS);
	EXPECT("stream_create", cuStreamCreate(&s, 0), CUDA_SUCCESS);
	test_memory(&v, shm);
	test_launch(&v, shm, s);
	test_async_errors(&v, shm, s);
	test_bad_handles(&v);
	EXPECT("stream_destroy", cuStreamDestroy(s), CUDA_SUCCESS);
	EXPECT("mem_free_a", cuMemFree(v.a), CUDA_SUCCESS);
	EXPECT("mem_free_b", cuMemFree(v.b), CUDA_SUCCESS);
	EXPECT("mem_free_c", cuMemFree(v.c), CUDA_SUCCESS);
	EXPECT("module_unload", cuModuleUnload(v.mod), CUDA_SUCCESS);
	EXPECT("module_unload_stale", cuModuleUnload(v.mod), CUDA_ERROR_INVALID_HANDLE);
	EXPECT("ctx_destroy", cuCtxDestroy(ctx), CUDA_SUCCESS);
	cuCtxGetCurrent(&cur);
	CHECK("ctx_destroy_clears_current", !cur, "%px", cur);
	EXPECT("ctx_set_stale", cuCtxSetCurrent(ctx), CUDA_SUCCESS);
	EXPECT("ctx_stale_rejected", cuMemAlloc(&p, 64), CUDA_ERROR_INVALID_CONTEXT);
	cuCtxSetCurrent(NULL);
out:
	kfree(v.host);
	if (shm)
		lake_shm_free(shm);
}

static void cmd_nodaemon(void)
{
	unsigned long t0 = jiffies;
	CUcontext ctx;
	int x;

	EXPECT("nodaemon_init", cuInit(0), CUDA_ERROR_NO_DEVICE);
	EXPECT("nodaemon_count", cuDeviceGetCount(&x), CUDA_ERROR_NO_DEVICE);
	EXPECT("nodaemon_ctx_create", cuCtxCreate(&ctx, 0, 0), CUDA_ERROR_NO_DEVICE);
	CHECK("nodaemon_no_wait", time_before(jiffies, t0 + HZ / 10), "took %u ms",
	      jiffies_to_msecs(jiffies - t0));
}

/*
 * laked's socket closed, lakelib not yet told (lakelib_release_delay_ms):
 * a call and a ping must find nobody, whoever holds laked's portid now.
 */
static void cmd_dying(void)
{
	u64 rtt = 0;
	int x, ret;

	CHECK("dying_call_fails", cuDeviceGetCount(&x) != CUDA_SUCCESS, "a call was answered");
	ret = lake_ping(&rtt);
	CHECK("dying_ping_unanswered", ret, "answered in %llu ns", rtt);
}

/* 16 launches and one synchronize: the shell checks they took one message. */
static void cmd_coalesce(void)
{
	struct vadd_env v;
	CUcontext ctx;
	CUstream s;
	int i, fails = 0;
	u64 msgs;

	v.host = kzalloc(N * 4, GFP_KERNEL);
	if (!v.host || cuCtxCreate(&ctx, 0, 0) || vadd_setup(&v, N) || cuStreamCreate(&s, 0) ||
	    !vadd_fill(&v, v.host, N)) {
		ctl_say("not ok - cuda.coalesce_setup\n");
		kfree(v.host);
		return;
	}
	msgs = lake_messages_sent();
	for (i = 0; i < 16; i++)
		fails += vadd_launch(&v, N, s) != CUDA_SUCCESS;
	EXPECT("coalesce_sync", cuStreamSynchronize(s), CUDA_SUCCESS);
	msgs = lake_messages_sent() - msgs;
	CHECK("coalesce_launches", !fails, "%d launches failed", fails);
	/* One message, or two if the delayed flush fired mid-way; never 17. */
	CHECK("coalesce_messages", msgs >= 1 && msgs <= 2, "%llu messages", msgs);
	cuStreamDestroy(s);
	cuCtxDestroy(ctx);
	kfree(v.host);
}

struct worker {
	struct task_struct *task;
	int id, iters, ok;
	CUresult result;
	unsigned long waited;	/* jiffies */
	struct completion ready;
};

static struct worker workers[HOLD_MAX];
static int nworkers;
static atomic_t running = ATOMIC_INIT(0);
static DECLARE_COMPLETION(go);

static int vadd_worker(void *arg)
{
	struct worker *w = arg;
	struct vadd_env v;
	CUcontext ctx;
	int i;

	v.host = kzalloc(N * 4, GFP_KERNEL);
	w->result = v.host ? cuCtxCreate(&ctx, 0, 0) : CUDA_ERROR_OUT_OF_MEMORY;
	if (!w->result)
		w->result = vadd_setup(&v, N);
	for (i = 0; !w->result && i < w->iters; i++) {
		w->result = vadd_fill(&v, v.host, N) ? vadd_launch(&v, N, NULL) :
			    CUDA_ERROR_UNKNOWN;
		if (!w->result)
			w->result = cuMemcpyDtoH(v.host, v.c, 4096);
		if (!w->result && vadd_bad(v.host, 1024))
			w->result = CUDA_ERROR_UNKNOWN;
		if (!w->result)
			w->ok++;
	}
	if (v.host) {
		cuCtxDestroy(ctx);
		kfree(v.host);
	}
	complete(&w->ready);
	atomic_dec(&running);
	return 0;
}

static int hold_worker(void *arg)
{
	struct worker *w = arg;
	unsigned long t0;
	CUcontext ctx;

	w->result = cuCtxCreate(&ctx, 0, 0);
	complete(&w->ready);
	wait_for_completion(&go);
	t0 = jiffies;
	if (!w->result)
		w->result = cuCtxSynchronize();
	w->waited = jiffies - t0;
	w->ok = 1;
	if (!w->result)
		cuCtxDestroy(ctx);
	atomic_dec(&running);
	return 0;
}

static void start_workers(int n, int iters, int (*fn)(void *))
{
	int i;

	nworkers = clamp(n, 1, HOLD_MAX);
	reinit_completion(&go);
	for (i = 0; i < nworkers; i++) {
		workers[i] = (struct worker){ .id = i, .iters = iters };
		init_completion(&workers[i].ready);
		atomic_inc(&running);
		workers[i].task = kthread_run(fn, &workers[i], "lake_st%d", i);
		if (IS_ERR(workers[i].task)) {
			atomic_dec(&running);
			workers[i].result = CUDA_ERROR_OUT_OF_MEMORY;
			complete(&workers[i].ready);
		}
	}
	for (i = 0; i < nworkers; i++)
		wait_for_completion(&workers[i].ready);
}

static void cmd_threads(int n, int iters)
{
	int i;

	start_workers(n, iters, vadd_worker);
	for (i = 0; i < nworkers; i++)
		CHECK("threads_worker", !workers[i].result && workers[i].ok == iters,
		      "worker %d: %d/%d ok, result %d", i, workers[i].ok, iters, workers[i].result);
}

static void cmd_results(void)
{
	int i;

	for (i = 0; i < nworkers; i++)
		ctl_say("worker %d done %d result %d waited_ms %u\n", i, workers[i].ok,
		    workers[i].result, jiffies_to_msecs(workers[i].waited));
}

static CUcontext stale_ctx;

static void cmd_stale_save(void)
{
	EXPECT("stale_save_ctx", cuCtxCreate(&stale_ctx, 0, 0), CUDA_SUCCESS);
	cuCtxSetCurrent(NULL);
}

static void cmd_stale_check(void)
{
	CUdeviceptr p;

	cuCtxSetCurrent(stale_ctx);
	EXPECT("stale_ctx_after_restart", cuMemAlloc(&p, 64), CUDA_ERROR_INVALID_CONTEXT);
	cuCtxSetCurrent(NULL);
}

/*
 * Many short-lived threads set a context and exit without clearing it:
 * lakelib must drop their entries (the shell watches ctx_threads in
 * lakelib_stats while share_ctx stays alive; ctx_threads_end destroys it).
 */
static CUcontext share_ctx;
static DECLARE_COMPLETION(thread_done);

static int ctx_thread(void *arg)
{
	CUcontext cur = NULL;

	if (cuCtxSetCurrent(share_ctx) || cuCtxGetCurrent(&cur) || cur != share_ctx)
		atomic_inc((atomic_t *)arg);
	complete(&thread_done);
	return 0;
}

static void cmd_ctx_threads(int n)
{
	atomic_t bad = ATOMIC_INIT(0);
	struct task_struct *t;
	int i, started = 0;

	EXPECT("ctx_threads_create", cuCtxCreate(&share_ctx, 0, 0), CUDA_SUCCESS);
	cuCtxSetCurrent(NULL);
	for (i = 0; i < n; i++) {
		reinit_completion(&thread_done);
		t = kthread_run(ctx_thread, &bad, "lake_ctx%d", i);
		if (IS_ERR(t))
			break;
		wait_for_completion(&thread_done);
		started++;
	}
	CHECK("ctx_threads_ran", started == n && !atomic_read(&bad), "%d/%d started, %d bad",
	      started, n, atomic_read(&bad));
}

static void cmd_ctx_threads_end(void)
{
	EXPECT("ctx_threads_destroy", cuCtxDestroy(share_ctx), CUDA_SUCCESS);
	share_ctx = NULL;
}

/*
 * Two work items run by one kworker: the second must not see the context
 * the first set. Ordered work runs on one worker at a time; the idle worker
 * is reused, but the check counts only rounds where both ran on one.
 */
static struct {
	struct work_struct set, look;
	CUcontext seen;
	struct pid *set_by, *look_by;
	CUresult set_result;
} wk;

static void work_set(struct work_struct *w)
{
	wk.set_result = cuCtxSetCurrent(share_ctx);
	wk.set_by = task_pid(current);
}

static void work_look(struct work_struct *w)
{
	wk.seen = (CUcontext)1;
	cuCtxGetCurrent(&wk.seen);
	wk.look_by = task_pid(current);
}

static void cmd_ctx_kworker(void)
{
	struct workqueue_struct *wq = alloc_ordered_workqueue("lake_st_wq", 0);
	int round, same = 0, leaked = 0;

	if (!wq) {
		CHECK("ctx_kworker_wq", false, "no workqueue");
		return;
	}
	EXPECT("ctx_kworker_create", cuCtxCreate(&share_ctx, 0, 0), CUDA_SUCCESS);
	cuCtxSetCurrent(NULL);
	INIT_WORK(&wk.set, work_set);
	INIT_WORK(&wk.look, work_look);
	for (round = 0; round < 20 && same < 5; round++) {
		queue_work(wq, &wk.set);
		flush_workqueue(wq);
		queue_work(wq, &wk.look);
		flush_workqueue(wq);
		if (wk.set_by != wk.look_by || wk.set_result)
			continue;
		same++;
		leaked += wk.seen != NULL;
	}
	destroy_workqueue(wq);
	CHECK("ctx_kworker_same_worker", same > 0, "no two work items ran on one worker");
	CHECK("ctx_kworker_not_inherited", same && !leaked,
	      "%d of %d rounds saw the previous work item's context", leaked, same);
	cmd_ctx_threads_end();
}

/* A function's layout goes with its context, module or not unloaded. */
static CUcontext layouts_ctx;

static void cmd_layouts_hold(void)
{
	CUmodule mod;
	CUfunction fn;

	EXPECT("layouts_ctx", cuCtxCreate(&layouts_ctx, 0, 0), CUDA_SUCCESS);
	EXPECT("layouts_load", cuModuleLoad(&mod, "vadd.cubin"), CUDA_SUCCESS);
	EXPECT("layouts_get_function", lake_module_get_function(&fn, mod, &lake_sig_vadd),
	       CUDA_SUCCESS);
	cuCtxSetCurrent(NULL);
}

static void cmd_layouts_drop(void)
{
	EXPECT("layouts_ctx_destroy", cuCtxDestroy(layouts_ctx), CUDA_SUCCESS);
}

#define GUARD		0xa5
#define HOSTILE_COPY	64	/* bytes copied inline; the rest of the buffer is guard */
#define HOSTILE_BUF	256
#define HOSTILE_NAME	16

struct hostile_tally {
	int ok, failed, unterminated;
};

static CUresult tally(struct hostile_tally *t, CUresult r)
{
	if (!r)
		t->ok++;
	else
		t->failed++;
	return r;
}

/* One round of the API, every buffer followed by guard bytes. */
static void hostile_round(struct hostile_tally *t, u8 *host, char *name)
{
	CUcontext ctx;
	CUdeviceptr d;
	CUfunction fn;
	CUmodule mod;
	CUstream s;
	size_t fr, tot;
	int v = 0, n = HOSTILE_COPY / 4;
	void *params[] = { &d, &d, &d, &n };

	tally(t, cuInit(0));
	tally(t, cuDriverGetVersion(&v));
	if (!tally(t, cuDeviceGetName(name, HOSTILE_NAME, 0)) &&
	    strnlen(name, HOSTILE_NAME) == HOSTILE_NAME)
		t->unterminated++;
	if (tally(t, cuCtxCreate(&ctx, 0, 0)))
		return;
	if (!tally(t, cuMemAlloc(&d, HOSTILE_COPY))) {
		tally(t, cuMemcpyHtoD(d, host, HOSTILE_COPY));
		tally(t, cuMemcpyDtoH(host, d, HOSTILE_COPY));
		tally(t, cuMemGetInfo(&fr, &tot));
		if (!tally(t, cuStreamCreate(&s, 0))) {
			tally(t, cuMemcpyDtoHAsync(host, d, HOSTILE_COPY, s));
			tally(t, cuStreamSynchronize(s));
			tally(t, cuStreamDestroy(s));
		}
		if (!tally(t, cuModuleLoad(&mod, "vadd.cubin"))) {
			if (!tally(t, lake_module_get_function(&fn, mod, &lake_sig_vadd)))
				tally(t, cuLaunchKernel(fn, 1, 1, 1, n, 1, 1, 0, NULL, params, NULL));
			tally(t, cuCtxSynchronize());
			tally(t, cuModuleUnload(mod));
		}
		tally(t, cuMemFree(d));
	}
	tally(t, cuCtxDestroy(ctx));
}

static void cmd_hostile(int rounds)
{
	u8 *host = kmalloc(HOSTILE_BUF, GFP_KERNEL);
	char *name = kmalloc(HOSTILE_BUF, GFP_KERNEL);
	struct hostile_tally t = {};
	int i, guard_bad = 0, name_bad = 0;
	unsigned long t0, worst = 0;

	if (!host || !name) {
		ctl_say("not ok - cuda.hostile_setup: no memory\n");
		goto out;
	}
	for (i = 0; i < rounds; i++) {
		memset(host, GUARD, HOSTILE_BUF);
		memset(name, GUARD, HOSTILE_BUF);
		t0 = jiffies;
		hostile_round(&t, host, name);
		worst = max(worst, jiffies - t0);
		guard_bad += !!memchr_inv(host + HOSTILE_COPY, GUARD, HOSTILE_BUF - HOSTILE_COPY);
		name_bad += !!memchr_inv(name + HOSTILE_NAME, GUARD, HOSTILE_BUF - HOSTILE_NAME);
	}
	cuCtxSetCurrent(NULL);
	ctl_say("# hostile: %d rounds, %d calls succeeded, %d failed, slowest round %u ms\n",
		rounds, t.ok, t.failed, jiffies_to_msecs(worst));
	CHECK("hostile_calls_made", t.ok + t.failed >= rounds * 4, "%d calls", t.ok + t.failed);
	CHECK("hostile_copy_guard_intact", !guard_bad, "%d rounds wrote past the %d-byte copy",
	      guard_bad, HOSTILE_COPY);
	CHECK("hostile_name_guard_intact", !name_bad, "%d rounds wrote past the %d-byte name",
	      name_bad, HOSTILE_NAME);
	CHECK("hostile_name_terminated", !t.unterminated, "%d names without a NUL",
	      t.unterminated);
out:
	kfree(name);
	kfree(host);
}

/* A call that waited this long slept through its reply (timeout_ms is longer). */
#define STRESS_STALL_MS	1000

static void cmd_ring_stress(int calls, int words)
{
	u64 t0, dt = 0, worst = 0, total = 0;
	int i, stalled = 0;
	CUresult r = CUDA_SUCCESS;
	CUdeviceptr d;
	CUcontext ctx;

	if (cuCtxCreate(&ctx, 0, 0)) {
		ctl_say("not ok - cuda.ring_stress_setup: no context\n");
		return;
	}
	if (cuMemAlloc(&d, (size_t)words * 4)) {
		ctl_say("not ok - cuda.ring_stress_setup: no device memory\n");
		cuCtxDestroy(ctx);
		return;
	}
	for (i = 0; i < calls; i++) {
		t0 = ktime_get_ns();
		r = cuMemsetD32(d, i, 1 + (u32)i * 2654435761u % words);
		dt = ktime_get_ns() - t0;
		if (r)
			break;
		total += dt;
		worst = max(worst, dt);
		stalled += dt > (u64)STRESS_STALL_MS * NSEC_PER_MSEC;
		cond_resched();
	}
	ctl_say("# ring_stress: %d of %d calls, mean %llu us, slowest %llu us, %d over %d ms\n",
		i, calls, i ? total / i / NSEC_PER_USEC : 0, worst / NSEC_PER_USEC,
		stalled, STRESS_STALL_MS);
	CHECK("ring_stress_all_answered", i == calls, "call %d returned %d after %llu ms",
	      i, r, dt / NSEC_PER_MSEC);
	CHECK("ring_stress_none_stalled", !stalled, "%d calls waited over %d ms", stalled,
	      STRESS_STALL_MS);
	cuMemFree(d);
	cuCtxDestroy(ctx);
}

static void ctl_command(char *cmd)
{
	int a = 0, b = 0;

	if (!strcmp(cmd, "basic"))
		cmd_basic();
	else if (!strcmp(cmd, "nodaemon"))
		cmd_nodaemon();
	else if (!strcmp(cmd, "dying"))
		cmd_dying();
	else if (!strcmp(cmd, "coalesce"))
		cmd_coalesce();
	else if (sscanf(cmd, "threads %d %d", &a, &b) == 2)
		cmd_threads(a, b);
	else if (sscanf(cmd, "hold %d", &a) == 1)
		start_workers(a, 0, hold_worker);
	else if (!strcmp(cmd, "go"))
		complete_all(&go);
	else if (!strcmp(cmd, "results"))
		cmd_results();
	else if (!strcmp(cmd, "stale_save"))
		cmd_stale_save();
	else if (!strcmp(cmd, "stale_check"))
		cmd_stale_check();
	else if (sscanf(cmd, "ctx_threads %d", &a) == 1)
		cmd_ctx_threads(a);
	else if (!strcmp(cmd, "ctx_threads_end"))
		cmd_ctx_threads_end();
	else if (!strcmp(cmd, "ctx_kworker"))
		cmd_ctx_kworker();
	else if (!strcmp(cmd, "layouts_hold"))
		cmd_layouts_hold();
	else if (!strcmp(cmd, "layouts_drop"))
		cmd_layouts_drop();
	else if (sscanf(cmd, "hostile %d", &a) == 1 && a > 0 && a <= 100000)
		cmd_hostile(a);
	else if (sscanf(cmd, "ringstress %d %d", &a, &b) == 2 && a > 0 && a <= 1000000 &&
		 b > 0 && b <= (1 << 20))
		cmd_ring_stress(a, b);
	else
		ctl_say("unknown command\n");
}

enum { LAKE_SELFTEST_CMD_UNSPEC, LAKE_SELFTEST_CMD_CALL };
enum { LAKE_SELFTEST_A_UNSPEC, LAKE_SELFTEST_A_RESULT, LAKE_SELFTEST_A_MAX = LAKE_SELFTEST_A_RESULT };

static struct genl_family nested_family;

static int nested_call(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	int version = 0;
	CUresult r;
	void *hdr;

	r = cuDriverGetVersion(&version);
	msg = genlmsg_new(nla_total_size(sizeof(u32)), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &nested_family, 0, LAKE_SELFTEST_CMD_CALL);
	if (!hdr || nla_put_u32(msg, LAKE_SELFTEST_A_RESULT, r)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static const struct nla_policy nested_policy[LAKE_SELFTEST_A_MAX + 1] = {
	[LAKE_SELFTEST_A_RESULT] = { .type = NLA_U32 },
};

static const struct genl_ops nested_ops[] = {
	{ .cmd = LAKE_SELFTEST_CMD_CALL, .doit = nested_call, .flags = GENL_ADMIN_PERM },
};

static struct genl_family nested_family __ro_after_init = {
	.name = "lake_selftest",
	.version = 1,
	.maxattr = LAKE_SELFTEST_A_MAX,
	.policy = nested_policy,
	.module = THIS_MODULE,
	.ops = nested_ops,
	.n_ops = ARRAY_SIZE(nested_ops),
};

static int __init selftest_init(void)
{
	int ret = genl_register_family(&nested_family);

	if (ret)
		return ret;
	ret = ctl_create("cuda_selftest");
	if (ret)
		genl_unregister_family(&nested_family);
	return ret;
}

static void __exit selftest_exit(void)
{
	genl_unregister_family(&nested_family);
	complete_all(&go);
	while (atomic_read(&running))
		msleep(10);
	ctl_remove();
}

module_init(selftest_init);
module_exit(selftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake: selftest of lakelib's CUDA API against laked");
