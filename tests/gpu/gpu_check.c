// SPDX-License-Identifier: GPL-2.0
/*
 * gpu_check: laked's dispatcher on the real CUDA driver, on a machine with
 * an NVIDIA GPU (tests/gpu/run builds the cubins with nvcc and runs this).
 *   - the driver opens through dlopen and reports a device
 *   - every kernel's parameter layout from cuFuncGetParamInfo on the cubin
 *     equals the host device's for the .so built from the same source, C
 *     kernels and CUDA C++ ones (by mangled name, tests/kapi/hello)
 *   - that C++ module's barrier kernel gives the right sums
 *   - vadd end to end through wire records: contexts, memory, inline and
 *     region copies, launch, stream and event timing, async error latching
 *   - forged handles and device pointers are refused before the driver
 * Prints "ok - gpu.NAME" lines and "N passed, N failed".
 * gpu_check --host DIR runs the same checks with the host device standing in
 * for the driver, so the check itself is tested where there is no GPU.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "laked/laked.h"
#include "laked/log.h"

#define N		4096
#define REGION_SIZE	(1 << 20)

static int passed, failed;
static struct laked *dd;
static u8 replies[8 * LAKE_GENL_RECORDS_MAX];
static u32 replies_len;
static u64 next_id;

static void check(int ok, const char *name, const char *why)
{
	printf("%s - gpu.%s%s%s\n", ok ? "ok" : "not ok", name, ok ? "" : ": ", ok ? "" : why);
	ok ? passed++ : failed++;
}

static int collect(struct laked_reply_sink *s, const void *blob, u32 len)
{
	(void)s;
	if (len > sizeof(replies) - replies_len)
		return -ENOSPC;
	memcpy(replies + replies_len, blob, len);
	replies_len += len;
	return 0;
}

static struct laked_reply_sink sink = { .flush = collect };

/* Run one request; its reply (if any) lands in *rep, tail copied to @tail. */
static CUresult run(struct lake_wire_req *r, struct lake_wire_rep *rep, void *tail)
{
	u8 blob[LAKE_WIRE_RECORD_MAX];
	struct lake_wire_buf b = { .data = blob, .size = sizeof(blob) };
	struct lake_wire_iter it;
	const char *why = "";

	r->req_id = ++next_id;
	if (lake_wire_put_req(&b, r, &why)) {
		fprintf(stderr, "gpu_check: cannot encode %s: %s\n", lake_wire_api(r->api)->name, why);
		return CUDA_ERROR_UNKNOWN;
	}
	replies_len = 0;
	laked_dispatch_blob(dd, blob, b.len, &sink);
	lake_wire_iter_init(&it, replies, replies_len);
	if (lake_wire_next_rep(&it, rep) != 1)
		return r->flags & LAKE_WIRE_REQ_F_NOREPLY ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN;
	if (tail && rep->tail_len)
		memcpy(tail, rep->tail, rep->tail_len);
	return rep->result;
}

static struct lake_wire_req req(u16 api, u64 ctx)
{
	struct lake_wire_req r = { .api = api, .ctx = ctx };

	return r;
}

static u64 handle_of(u16 api, u64 ctx, u64 arg)
{
	struct lake_wire_req r = req(api, ctx);
	struct lake_wire_rep rep;

	r.args.handle.handle = arg;
	return run(&r, &rep, NULL) ? 0 : rep.res.handle.handle;
}

/* Layout of @name from the real driver (cubin) and the host device (.so). */
static void compare_layout(struct lake_driver *cuda, struct lake_driver *host,
			   const char *dir, const char *stem, const char *name)
{
	char path[PATH_MAX + 32], what[96];
	size_t co, cs, ho, hs;
	CUmodule cm, hm;
	CUfunction cf, hf;
	int i, same = 1;

	snprintf(path, sizeof(path), "%s/%s.cubin", dir, stem);
	if (cuda->cuModuleLoad(&cm, path) || cuda->cuModuleGetFunction(&cf, cm, name)) {
		snprintf(what, sizeof(what), "%s not loadable from %s.cubin", name, stem);
		check(0, "layout_matches_host", what);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s.so", dir, stem);
	if (host->cuModuleLoad(&hm, path) || host->cuModuleGetFunction(&hf, hm, name)) {
		check(0, "layout_matches_host", "host .so not loadable");
		return;
	}
	for (i = 0; i < LAKE_WIRE_MAX_PARAMS; i++) {
		CUresult a = cuda->cuFuncGetParamInfo(cf, i, &co, &cs);
		CUresult b = host->cuFuncGetParamInfo(hf, i, &ho, &hs);

		if (a != b || (!a && (co != ho || cs != hs)))
			same = 0;
		if (a)
			break;
	}
	snprintf(what, sizeof(what), "%s: parameter %d differs", name, i);
	check(same, "layout_matches_host", what);
	cuda->cuModuleUnload(cm);
	host->cuModuleUnload(hm);
}

/*
 * A LAKE-style module's C++ kernels (tests/kapi/hello), found by mangled
 * name: block_sum's barriers and shared memory give the right sums.
 */
static void kapi_block_sum(struct lake_driver *drv, const char *dir)
{
	enum { BLOCK = 256, BLOCKS = 4, COUNT = BLOCK * BLOCKS - 24 };
	static long in[COUNT], out[BLOCKS];
	char path[PATH_MAX + 32];
	CUdeviceptr din = 0, dout = 0;
	CUfunction fn;
	CUmodule mod;
	int n = COUNT, i, b, ok;
	void *args[] = { &din, &dout, &n };

	snprintf(path, sizeof(path), "%s/kapi_hello.cubin", dir);
	if (drv->cuModuleLoad(&mod, path) ||
	    drv->cuModuleGetFunction(&fn, mod, "_Z9block_sumPlS_i")) {
		check(0, "kapi_block_sum", "kapi_hello.cubin or _Z9block_sumPlS_i not loadable");
		return;
	}
	for (i = 0; i < COUNT; i++)
		in[i] = 7 * i - 1000;
	ok = !drv->cuMemAlloc(&din, sizeof(in)) && !drv->cuMemAlloc(&dout, sizeof(out)) &&
	     !drv->cuMemcpyHtoD(din, in, sizeof(in)) &&
	     !drv->cuLaunchKernel(fn, BLOCKS, 1, 1, BLOCK, 1, 1, 0, NULL, args, NULL) &&
	     !drv->cuCtxSynchronize() && !drv->cuMemcpyDtoH(out, dout, sizeof(out));
	for (b = 0; ok && b < BLOCKS; b++) {
		long want = 0;

		for (i = b * BLOCK; i < (b + 1) * BLOCK && i < COUNT; i++)
			want += in[i];
		ok = out[b] == want;
	}
	check(ok, "kapi_block_sum", "wrong sums or a call failed");
	if (din)
		drv->cuMemFree(din);
	if (dout)
		drv->cuMemFree(dout);
	drv->cuModuleUnload(mod);
}

static void end_to_end(const char *dir, u8 *region)
{
	static float a[N], b[N], c[N];
	struct lake_wire_rep rep;
	struct lake_wire_req r;
	u64 ctx, mod, fn, da, db, dc, s, e0, e1;
	u8 params[28];
	int n = N, i, bad = 0;

	r = req(LAKE_API_INIT, 0);
	check(run(&r, &rep, NULL) == CUDA_SUCCESS, "init", "cuInit failed");
	r = req(LAKE_API_CTX_CREATE, 0);
	ctx = run(&r, &rep, NULL) ? 0 : rep.res.handle.handle;
	check(ctx != 0, "ctx_create", "failed");
	r = req(LAKE_API_MODULE_LOAD, ctx);
	r.tail = "vadd.cubin";
	r.tail_len = sizeof("vadd.cubin");
	mod = run(&r, &rep, NULL) ? 0 : rep.res.handle.handle;
	check(mod != 0, "module_load_cubin", dir);
	r = req(LAKE_API_MODULE_GET_FUNCTION, ctx);
	r.args.handle.handle = mod;
	r.tail = "vadd";
	r.tail_len = sizeof("vadd");
	fn = run(&r, &rep, NULL) ? 0 : rep.res.get_function.func;
	check(fn && rep.res.get_function.count == 4 && rep.res.get_function.param[3].offset == 24,
	      "get_function_layout", "vadd's layout is not {0,8,16,24}");
	da = handle_of(LAKE_API_MEM_ALLOC, ctx, 0);
	r = req(LAKE_API_MEM_ALLOC, ctx);
	r.args.size.bytes = N * 4;
	da = run(&r, &rep, NULL) ? 0 : rep.res.handle.handle;
	db = run(&r, &rep, NULL) ? 0 : rep.res.handle.handle;
	dc = run(&r, &rep, NULL) ? 0 : rep.res.handle.handle;
	check(da && db && dc, "mem_alloc", "failed");

	for (i = 0; i < N; i++) {
		a[i] = i;
		b[i] = 2 * i;
	}
	memcpy(region, b, sizeof(b));
	r = req(LAKE_API_MEMCPY_HTOD, ctx);
	r.args.memcpy = (struct lake_wire_memcpy_args){ .dptr = da, .bytes = 4096,
		.where = LAKE_WIRE_INLINE };
	r.tail = a;
	r.tail_len = 4096;
	check(run(&r, &rep, NULL) == CUDA_SUCCESS, "memcpy_inline", "failed");
	r.args.memcpy = (struct lake_wire_memcpy_args){ .dptr = da + 4096, .bytes = N * 4 - 4096,
		.where = LAKE_WIRE_SHM, .shm_off = 0 };
	memcpy(region, (u8 *)a + 4096, N * 4 - 4096);
	r.tail = NULL;
	r.tail_len = 0;
	check(run(&r, &rep, NULL) == CUDA_SUCCESS, "memcpy_region", "failed");
	memcpy(region, b, sizeof(b));
	r.args.memcpy = (struct lake_wire_memcpy_args){ .dptr = db, .bytes = N * 4,
		.where = LAKE_WIRE_SHM, .shm_off = 0 };
	run(&r, &rep, NULL);

	s = handle_of(LAKE_API_STREAM_CREATE, ctx, 0);
	e0 = handle_of(LAKE_API_EVENT_CREATE, ctx, 0);
	e1 = handle_of(LAKE_API_EVENT_CREATE, ctx, 0);
	check(s && e0 && e1, "stream_event_create", "failed");
	r = req(LAKE_API_EVENT_RECORD, ctx);
	r.stream = s;
	r.args.handle.handle = e0;
	run(&r, &rep, NULL);
	memcpy(params, &da, 8);
	memcpy(params + 8, &db, 8);
	memcpy(params + 16, &dc, 8);
	memcpy(params + 24, &n, 4);
	r = req(LAKE_API_LAUNCH_KERNEL, ctx);
	r.stream = s;
	r.flags = LAKE_WIRE_REQ_F_NOREPLY;
	r.args.launch = (struct lake_wire_launch_args){ .func = fn, .grid = { N / 128, 1, 1 },
		.block = { 128, 1, 1 } };
	r.tail = params;
	r.tail_len = sizeof(params);
	check(run(&r, &rep, NULL) == CUDA_SUCCESS, "launch", "refused");
	r = req(LAKE_API_EVENT_RECORD, ctx);
	r.stream = s;
	r.args.handle.handle = e1;
	run(&r, &rep, NULL);
	r = req(LAKE_API_STREAM_SYNCHRONIZE, ctx);
	r.stream = s;
	check(run(&r, &rep, NULL) == CUDA_SUCCESS, "stream_synchronize", "failed");
	r = req(LAKE_API_MEMCPY_DTOH, ctx);
	r.args.memcpy = (struct lake_wire_memcpy_args){ .dptr = dc, .bytes = N * 4,
		.where = LAKE_WIRE_SHM, .shm_off = 0 };
	check(run(&r, &rep, NULL) == CUDA_SUCCESS, "memcpy_dtoh_region", "failed");
	memcpy(c, region, sizeof(c));
	for (i = 0; i < N; i++)
		bad += c[i] != 3.0f * i;
	check(!bad, "vadd_result", "wrong elements");
	r = req(LAKE_API_EVENT_ELAPSED_TIME, ctx);
	r.args.elapsed.start = e0;
	r.args.elapsed.end = e1;
	check(run(&r, &rep, NULL) == CUDA_SUCCESS, "event_elapsed", "failed");

	r = req(LAKE_API_MEMCPY_HTOD_ASYNC, ctx);
	r.stream = s;
	r.flags = LAKE_WIRE_REQ_F_NOREPLY;
	r.args.memcpy = (struct lake_wire_memcpy_args){ .dptr = dc + N * 4 - 8, .bytes = 64,
		.where = LAKE_WIRE_SHM };
	check(run(&r, &rep, NULL) == CUDA_ERROR_INVALID_VALUE, "dptr_overrun_refused",
	      "an out-of-range copy reached the driver");
	r = req(LAKE_API_STREAM_SYNCHRONIZE, ctx);
	r.stream = 0x1234;
	check(run(&r, &rep, NULL) == CUDA_ERROR_INVALID_HANDLE, "forged_stream_refused", "accepted");
	r = req(LAKE_API_CTX_DESTROY, 0);
	r.args.handle.handle = ctx;
	check(run(&r, &rep, NULL) == CUDA_SUCCESS, "ctx_destroy", "failed");
}

int main(int argc, char **argv)
{
	bool stand_in = argc > 1 && !strcmp(argv[1], "--host");
	const char *dir = argc > 1 + stand_in ? argv[1 + stand_in] : "build/gpu";
	struct lake_driver *cuda, *host;
	struct laked_config cfg = { 0 };
	char absdir[PATH_MAX], name[128] = "";
	static u8 region[REGION_SIZE];
	CUcontext cctx, hctx;
	int count = 0, ret;

	laked_log_set_level(LOG_ERR);
	if (!realpath(dir, absdir)) {
		perror("gpu_check: kernel directory");
		return 2;
	}
	ret = stand_in ? lake_driver_open_host(&cuda, NULL) : lake_driver_open_cuda(&cuda);
	check(!ret, "driver_open", lake_driver_last_error());
	if (ret)
		goto out;
	check(!cuda->cuInit(0) && !cuda->cuDeviceGetCount(&count) && count > 0 &&
	      !cuda->cuDeviceGetName(name, sizeof(name), 0), "device", "no usable device");
	printf("# device: %s (%d found)\n", name, count);
	/* Only one host device at a time: the stand-in compares with itself. */
	if (stand_in) {
		host = cuda;
	} else if (lake_driver_open_host(&host, NULL) || host->cuInit(0) ||
		   host->cuCtxCreate(&hctx, 0, 0)) {
		check(0, "host_device_open", lake_driver_last_error());
		goto out;
	}
	if (cuda->cuCtxCreate(&cctx, 0, 0)) {
		check(0, "ctx", "cuCtxCreate failed");
		goto out;
	}
	compare_layout(cuda, host, absdir, "vadd", "vadd");
	compare_layout(cuda, host, absdir, "selftest", "mixed");
	compare_layout(cuda, host, absdir, "selftest", "wait_flag");
	compare_layout(cuda, host, absdir, "timed", "run_for");
	compare_layout(cuda, host, absdir, "kapi_hello", "_Z12hello_kernelPii");
	compare_layout(cuda, host, absdir, "kapi_hello", "_Z9block_sumPlS_i");
	compare_layout(cuda, host, absdir, "kapi_hello", "_Z5scalePiji");
	kapi_block_sum(cuda, absdir);
	if (!stand_in) {
		host->cuCtxDestroy(hctx);
		lake_driver_close(host);
	}
	/* Portable: pinned for every context, as laked pins the region. */
	check(!cuda->cuMemHostRegister(region, sizeof(region), CU_MEMHOSTREGISTER_PORTABLE),
	      "region_pinned", "cuMemHostRegister failed");
	cfg.drv = cuda;
	cfg.module_dir = absdir;
	cfg.region = region;
	cfg.region_size = sizeof(region);
	if (laked_init(&dd, &cfg)) {
		check(0, "dispatcher", "laked_init failed");
		goto out;
	}
	end_to_end(absdir, region);
	laked_fini(dd);
	cuda->cuMemHostUnregister(region);
	cuda->cuCtxDestroy(cctx);
out:
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
