// SPDX-License-Identifier: GPL-2.0
/*
 * A module as LAKE's are written: LAKE's headers ("cuda.h", "lake_shm.h",
 * found through include/kapi), buffers from kava_alloc, kernels looked up
 * by their mangled C++ names in a cubin named by a module parameter. It is
 * built with the README's commands, against lake's Module.symvers, and
 * links to the _v2 names. Loading it runs every check once and logs
 * "kapi_hello: ok - NAME" per check, then "kapi_hello: N passed, N failed".
 */
#define pr_fmt(fmt) "kapi_hello: " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include "cuda.h"
#include "lake_shm.h"

static char *cubin_path = "kapi_hello.cubin";
module_param(cubin_path, charp, 0444);
MODULE_PARM_DESC(cubin_path, "the kernels' cubin, as laked's module directory resolves it");

#define N_HELLO	10
#define N_SUM	1000
#define SUM_BLOCK 256
#define N_SUM_BLOCKS ((N_SUM + SUM_BLOCK - 1) / SUM_BLOCK)
#define W	48
#define H	32

static int passed, failed;

static void result(const char *name, bool ok)
{
	if (ok)
		passed++;
	else
		failed++;
	pr_info("%s - %s\n", ok ? "ok" : "not ok", name);
}

/* A CUDA call that must succeed; its name and error are logged otherwise. */
static bool cu_ok(CUresult r, const char *what)
{
	const char *name = "?";

	if (r == CUDA_SUCCESS)
		return true;
	cuGetErrorName(r, &name);
	pr_warn("%s: %s (%d)\n", what, name, r);
	return false;
}

#define CU(call) cu_ok(call, #call)

static bool hello(CUmodule mod, int *buf)
{
	CUfunction fn;
	CUdeviceptr d;
	int n = N_HELLO, i;
	void *args[] = { &d, &n };
	bool ok;

	if (!CU(cuModuleGetFunction(&fn, mod, "_Z12hello_kernelPii")) ||
	    !CU(cuMemAlloc(&d, N_HELLO * sizeof(int))))
		return false;
	memset(buf, 0xff, N_HELLO * sizeof(int));
	ok = CU(cuMemcpyHtoD(d, buf, N_HELLO * sizeof(int))) &&
	     CU(cuLaunchKernel(fn, 1, 1, 1, N_HELLO, 1, 1, 0, NULL, args, NULL)) &&
	     CU(cuCtxSynchronize()) &&
	     CU(cuMemcpyDtoH(buf, d, N_HELLO * sizeof(int)));
	for (i = 0; ok && i < N_HELLO; i++)
		ok = buf[i] == i;
	return CU(cuMemFree(d)) && ok;
}

/* __shared__ and __syncthreads: a tree sum per block. */
static bool block_sum(CUmodule mod, long *buf)
{
	long *out = buf + N_SUM;
	CUdeviceptr in_d, out_d;
	CUfunction fn;
	int n = N_SUM, i, b;
	void *args[] = { &in_d, &out_d, &n };
	bool ok;

	if (!CU(cuModuleGetFunction(&fn, mod, "_Z9block_sumPlS_i")) ||
	    !CU(cuMemAlloc(&in_d, N_SUM * sizeof(long))))
		return false;
	if (!CU(cuMemAlloc(&out_d, N_SUM_BLOCKS * sizeof(long)))) {
		cuMemFree(in_d);
		return false;
	}
	for (i = 0; i < N_SUM; i++)
		buf[i] = i * 3 + 1;
	ok = CU(cuMemcpyHtoD(in_d, buf, N_SUM * sizeof(long))) &&
	     CU(cuLaunchKernel(fn, N_SUM_BLOCKS, 1, 1, SUM_BLOCK, 1, 1, 0, NULL, args, NULL)) &&
	     CU(cuMemcpyDtoH(out, out_d, N_SUM_BLOCKS * sizeof(long)));
	for (b = 0; ok && b < N_SUM_BLOCKS; b++) {
		long want = 0;

		for (i = b * SUM_BLOCK; i < min(N_SUM, (b + 1) * SUM_BLOCK); i++)
			want += i * 3 + 1;
		if (out[b] != want) {
			pr_warn("block %d: sum %ld, want %ld\n", b, out[b], want);
			ok = false;
		}
	}
	return CU(cuMemFree(out_d)) && CU(cuMemFree(in_d)) && ok;
}

/* A 2-D grid, with the copies asynchronous on a stream of its own. */
static bool scale(CUmodule mod, int *buf)
{
	unsigned int width = W;
	CUfunction fn;
	CUstream s;
	CUdeviceptr d;
	int k = -3, i;
	void *args[] = { &d, &width, &k };
	bool ok;

	if (!CU(cuModuleGetFunction(&fn, mod, "_Z5scalePiji")) ||
	    !CU(cuStreamCreate(&s, 0)))
		return false;
	if (!CU(cuMemAlloc(&d, W * H * sizeof(int)))) {
		cuStreamDestroy(s);
		return false;
	}
	for (i = 0; i < W * H; i++)
		buf[i] = i;
	ok = CU(cuMemcpyHtoDAsync(d, buf, W * H * sizeof(int), s)) &&
	     CU(cuLaunchKernel(fn, W / 16, H / 8, 1, 16, 8, 1, 0, s, args, NULL)) &&
	     CU(cuMemcpyDtoHAsync(buf, d, W * H * sizeof(int), s)) &&
	     CU(cuStreamSynchronize(s));
	for (i = 0; ok && i < W * H; i++)
		ok = buf[i] == -3 * i;
	return CU(cuMemFree(d)) && CU(cuStreamDestroy(s)) && ok;
}

static bool memset_words(int *buf)
{
	unsigned char *bytes = (unsigned char *)buf;
	CUdeviceptr d;
	bool ok;
	int i;

	if (!CU(cuMemAlloc(&d, 64 * sizeof(int))))
		return false;
	ok = CU(cuMemsetD32(d, 0x01020304, 64)) && CU(cuMemsetD8(d, 0xab, 8)) &&
	     CU(cuMemcpyDtoH(buf, d, 64 * sizeof(int)));
	for (i = 0; ok && i < 8; i++)
		ok = bytes[i] == 0xab;
	for (i = 2; ok && i < 64; i++)
		ok = buf[i] == 0x01020304;
	return CU(cuMemFree(d)) && ok;
}

static bool memory_sizes(CUdevice dev)
{
	size_t total, free_b, all;

	return CU(cuDeviceTotalMem(&all, dev)) && CU(cuMemGetInfo(&free_b, &total)) &&
	       total == all && free_b <= total && total > 0;
}

/* LAKE's contention checks: laked reports, whatever its device measures. */
static bool nvml_helpers(void)
{
	CUresult r1, r2;
	int procs = -1, pct = -1;

	r1 = nvmlRunningProcs(&procs);
	r2 = nvmlUtilRate(&pct);
	if (nvmlRunningProcs(NULL) != CUDA_ERROR_INVALID_VALUE ||
	    nvmlUtilRate(NULL) != CUDA_ERROR_INVALID_VALUE)
		return false;
	pr_info("nvmlRunningProcs: %d (%d), nvmlUtilRate: %d%% (%d)\n", procs, r1, pct, r2);
	return (r1 == CUDA_SUCCESS ? procs >= 0 : r1 == CUDA_ERROR_NOT_SUPPORTED) &&
	       (r2 == CUDA_SUCCESS ? pct >= 0 && pct <= 100 : r2 == CUDA_ERROR_NOT_SUPPORTED);
}

static bool shm_offsets(void *buf)
{
	void *other = kmalloc(64, GFP_KERNEL);
	bool ok;

	ok = kava_shm_offset(buf) >= 0 && kava_shm_offset((char *)buf + 8) == kava_shm_offset(buf) + 8;
	if (other)
		ok = ok && kava_shm_offset(other) < 0;
	kfree(other);
	return ok && other;
}

static int __init kapi_hello_init(void)
{
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	bool have_ctx, have_mod = false;
	void *buf;

	buf = kava_alloc(W * H * sizeof(int) + 2 * N_SUM * sizeof(long));
	result("kava_alloc", buf);
	if (!buf)
		goto out;
	result("kava_shm_offset", shm_offsets(buf));
	result("cuInit", CU(cuInit(0)));
	have_ctx = CU(cuDeviceGet(&dev, 0)) && CU(cuCtxCreate(&ctx, 0, dev));
	result("cuCtxCreate", have_ctx);
	if (have_ctx) {
		have_mod = CU(cuModuleLoad(&mod, cubin_path));
		result("cuModuleLoad", have_mod);
		result("memory_sizes", memory_sizes(dev));
		result("nvml_helpers", nvml_helpers());
		result("memset", memset_words(buf));
	}
	if (have_mod) {
		result("hello_kernel", hello(mod, buf));
		result("block_sum", block_sum(mod, buf));
		result("scale_2d", scale(mod, buf));
		result("cuModuleUnload", CU(cuModuleUnload(mod)));
	}
	if (have_ctx)
		result("cuCtxDestroy", CU(cuCtxDestroy(ctx)));
	kava_free(buf);
out:
	pr_info("%d passed, %d failed\n", passed, failed);
	return 0;
}

static void __exit kapi_hello_exit(void)
{
}

module_init(kapi_hello_init);
module_exit(kapi_hello_exit);
MODULE_DESCRIPTION("a LAKE-style module, built against include/kapi");
MODULE_LICENSE("GPL");
