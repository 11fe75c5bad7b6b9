// SPDX-License-Identifier: GPL-2.0
/*
 * The host device through the ops table, part 1: initialization, device
 * queries, contexts, memory, host registration, error names, and that every
 * forged or stale handle or pointer gets the exact CUDA error. Streams,
 * events and kernels: test_hostdev_exec.c.
 */
#include "hostdev_util.h"

static void test_second_open_is_busy(void **state)
{
	struct lake_driver *other = NULL;

	(void)state;
	assert_int_equal(lake_driver_open_host(&other, NULL), -EBUSY);
	assert_null(other);
	assert_non_null(strstr(lake_driver_last_error(), "already open"));
	assert_string_equal(D->name, "host");
}

static void test_everything_needs_cuinit(void **state)
{
	CUdeviceptr p = 0;
	CUcontext ctx = NULL;
	CUmodule mod = NULL;
	CUfunction fn = NULL;
	CUstream s = NULL;
	CUevent e = NULL;
	size_t a = 0, b = 0;
	char name[32];
	float ms;
	int v = 0;

	(void)state;
	/* These work before cuInit, as in CUDA. */
	CU(D->cuDriverGetVersion(&v));
	assert_int_equal(v, LAKE_CUDA_API_VERSION);
	{
		const char *str = NULL;

		CU(D->cuGetErrorName(CUDA_ERROR_NOT_INITIALIZED, &str));
		assert_string_equal(str, "CUDA_ERROR_NOT_INITIALIZED");
	}

#define NI(call) assert_int_equal((call), CUDA_ERROR_NOT_INITIALIZED)
	NI(D->cuDeviceGet(&v, 0));
	NI(D->cuDeviceGetCount(&v));
	NI(D->cuDeviceGetName(name, sizeof(name), 0));
	NI(D->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0));
	NI(D->cuDeviceTotalMem(&a, 0));
	NI(D->cuCtxCreate(&ctx, 0, 0));
	NI(D->cuCtxDestroy(ctx));
	NI(D->cuCtxGetCurrent(&ctx));
	NI(D->cuCtxSetCurrent(NULL));
	NI(D->cuCtxSynchronize());
	NI(D->cuModuleLoad(&mod, "x.so"));
	NI(D->cuModuleUnload(mod));
	NI(D->cuModuleGetFunction(&fn, mod, "vadd"));
	NI(D->cuFuncGetParamInfo(fn, 0, &a, &b));
	NI(D->cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
	NI(D->cuMemAlloc(&p, 16));
	NI(D->cuMemAllocPitch(&p, &a, 16, 16, 4));
	NI(D->cuMemFree(p));
	NI(D->cuMemcpyHtoD(p, name, 1));
	NI(D->cuMemcpyDtoH(name, p, 1));
	NI(D->cuMemcpyHtoDAsync(p, name, 1, NULL));
	NI(D->cuMemcpyDtoHAsync(name, p, 1, NULL));
	NI(D->cuMemsetD8(p, 0, 1));
	NI(D->cuMemsetD32(p, 0, 1));
	NI(D->cuMemsetD8Async(p, 0, 1, NULL));
	NI(D->cuMemsetD32Async(p, 0, 1, NULL));
	NI(D->cuMemGetInfo(&a, &b));
	NI(D->cuStreamCreate(&s, 0));
	NI(D->cuStreamSynchronize(s));
	NI(D->cuStreamDestroy(s));
	NI(D->cuStreamQuery(s));
	NI(D->cuEventCreate(&e, 0));
	NI(D->cuEventRecord(e, s));
	NI(D->cuEventSynchronize(e));
	NI(D->cuEventElapsedTime(&ms, e, e));
	NI(D->cuEventDestroy(e));
	NI(D->cuMemHostRegister(name, sizeof(name), 0));
	NI(D->cuMemHostUnregister(name));
#undef NI
	assert_int_equal(D->cuInit(1), CUDA_ERROR_INVALID_VALUE);
	CU(D->cuInit(0));
	CU(D->cuDeviceGetCount(&v));
	assert_int_equal(v, 1);
}

static void test_device_queries(void **state)
{
	char name[64];
	size_t total = 0;
	int v = -1;

	(void)state;
	assert_int_equal(D->cuDriverGetVersion(NULL), CUDA_ERROR_INVALID_VALUE);
	CU(D->cuDeviceGet(&v, 0));
	assert_int_equal(v, 0);
	assert_int_equal(D->cuDeviceGet(&v, 1), CUDA_ERROR_INVALID_DEVICE);
	assert_int_equal(D->cuDeviceGet(&v, -1), CUDA_ERROR_INVALID_DEVICE);
	assert_int_equal(D->cuDeviceGet(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuDeviceGetCount(NULL), CUDA_ERROR_INVALID_VALUE);

	CU(D->cuDeviceGetName(name, sizeof(name), 0));
	assert_true(strlen(name) > 4);
	{
		char small[5];

		/* Truncated and terminated, as CUDA does. */
		CU(D->cuDeviceGetName(small, sizeof(small), 0));
		assert_int_equal(strlen(small), sizeof(small) - 1);
		assert_memory_equal(small, name, sizeof(small) - 1);
	}
	assert_int_equal(D->cuDeviceGetName(name, 0, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuDeviceGetName(NULL, 8, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuDeviceGetName(name, sizeof(name), 1), CUDA_ERROR_INVALID_DEVICE);

	CU(D->cuDeviceTotalMem(&total, 0));
	assert_int_equal(total, TEST_MEM);
	assert_int_equal(D->cuDeviceTotalMem(&total, 3), CUDA_ERROR_INVALID_DEVICE);
	assert_int_equal(D->cuDeviceTotalMem(NULL, 0), CUDA_ERROR_INVALID_VALUE);

	CU(D->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0));
	assert_int_equal(v, 1024);
	CU(D->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
	assert_int_equal(v, TEST_WORKERS);
	CU(D->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0));
	assert_int_equal(v, 9);
	CU(D->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 0));
	assert_int_equal(v, 64);
	CU(D->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 0));
	assert_int_equal(v, 0);
	assert_int_equal(D->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 0),
			 CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuDeviceGetAttribute(&v, (CUdevice_attribute)100000, 0),
			 CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 1),
			 CUDA_ERROR_INVALID_DEVICE);
	assert_int_equal(D->cuDeviceGetAttribute(NULL, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0),
			 CUDA_ERROR_INVALID_VALUE);
}

static void test_context_lifecycle(void **state)
{
	CUcontext a = NULL, b = NULL, cur = (CUcontext)1;
	CUdeviceptr p;

	(void)state;
	CU(D->cuInit(0));
	assert_int_equal(D->cuCtxCreate(NULL, 0, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuCtxCreate(&a, 0x100, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuCtxCreate(&a, CU_CTX_SCHED_SPIN | CU_CTX_SCHED_YIELD, 0),
			 CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuCtxCreate(&a, 0, 1), CUDA_ERROR_INVALID_DEVICE);

	/* Before any context: nothing current, context-bound calls refuse. */
	CU(D->cuCtxGetCurrent(&cur));
	assert_null(cur);
	assert_int_equal(D->cuMemAlloc(&p, 16), CUDA_ERROR_INVALID_CONTEXT);
	assert_int_equal(D->cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
	assert_int_equal(D->cuCtxGetCurrent(NULL), CUDA_ERROR_INVALID_VALUE);

	CU(D->cuCtxCreate(&a, CU_CTX_SCHED_BLOCKING_SYNC, 0));
	CU(D->cuCtxGetCurrent(&cur));
	assert_ptr_equal(cur, a);
	CU(D->cuCtxCreate(&b, 0, 0));
	assert_ptr_not_equal(a, b);
	CU(D->cuCtxGetCurrent(&cur));
	assert_ptr_equal(cur, b);
	CU(D->cuCtxSetCurrent(a));
	CU(D->cuCtxGetCurrent(&cur));
	assert_ptr_equal(cur, a);
	CU(D->cuCtxSynchronize());

	assert_int_equal(D->cuCtxSetCurrent((CUcontext)0x1234), CUDA_ERROR_INVALID_CONTEXT);
	assert_int_equal(D->cuCtxDestroy((CUcontext)0x1234), CUDA_ERROR_INVALID_CONTEXT);
	assert_int_equal(D->cuCtxDestroy(NULL), CUDA_ERROR_INVALID_CONTEXT);

	/* Destroying the current context leaves none current. */
	CU(D->cuCtxDestroy(a));
	CU(D->cuCtxGetCurrent(&cur));
	assert_null(cur);
	assert_int_equal(D->cuCtxDestroy(a), CUDA_ERROR_INVALID_CONTEXT);
	assert_int_equal(D->cuCtxSetCurrent(a), CUDA_ERROR_INVALID_CONTEXT);
	CU(D->cuCtxSetCurrent(b));
	CU(D->cuCtxSetCurrent(NULL));
	assert_int_equal(D->cuMemAlloc(&p, 16), CUDA_ERROR_INVALID_CONTEXT);
	CU(D->cuCtxDestroy(b));
}

/* A context takes its memory, streams, events and modules with it. */
static void test_context_destroy_releases_everything(void **state)
{
	size_t free0, free1, total;
	CUcontext other;
	CUdeviceptr p;
	CUmodule mod;
	CUfunction fn;
	CUstream s;
	CUevent e;
	size_t off;

	(void)state;
	CU(D->cuMemGetInfo(&free0, &total));
	CU(D->cuCtxCreate(&other, 0, 0));
	p = dev_alloc(4 * MIB);
	CU(D->cuStreamCreate(&s, 0));
	CU(D->cuEventCreate(&e, 0));
	mod = load_module("vadd");
	fn = get_function(mod, "vadd");
	CU(D->cuMemGetInfo(&free1, &total));
	assert_true(free1 <= free0 - 4 * MIB);

	CU(D->cuCtxDestroy(other));
	CU(D->cuCtxSetCurrent(C));
	CU(D->cuMemGetInfo(&free1, &total));
	assert_int_equal(free1, free0);
	assert_int_equal(D->cuMemFree(p), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuEventSynchronize(e), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuModuleUnload(mod), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuFuncGetParamInfo(fn, 0, &off, NULL), CUDA_ERROR_INVALID_HANDLE);
}

static void test_mem_alloc_and_free(void **state)
{
	size_t free0, free1, total;
	CUdeviceptr a, b, p;

	(void)state;
	CU(D->cuMemGetInfo(&free0, &total));
	assert_int_equal(total, TEST_MEM);
	assert_int_equal(free0, TEST_MEM);
	assert_int_equal(D->cuMemGetInfo(NULL, &total), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemGetInfo(&free1, NULL), CUDA_ERROR_INVALID_VALUE);

	assert_int_equal(D->cuMemAlloc(NULL, 16), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemAlloc(&p, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemAlloc(&p, TEST_MEM + 1), CUDA_ERROR_OUT_OF_MEMORY);
	assert_int_equal(D->cuMemAlloc(&p, SIZE_MAX), CUDA_ERROR_OUT_OF_MEMORY);

	a = dev_alloc(1000);
	b = dev_alloc(3 * MIB);
	assert_int_not_equal(a, 0);
	assert_int_equal(a % 256, 0);
	assert_int_equal(b % 256, 0);
	assert_true(b >= a + 1000 || a >= b + 3 * MIB);
	CU(D->cuMemGetInfo(&free1, &total));
	assert_true(free1 <= free0 - 3 * MIB - 1000);

	/* Only the exact start of a live allocation can be freed. */
	assert_int_equal(D->cuMemFree(a + 8), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemFree(0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemFree(0x1000), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemFree((CUdeviceptr)(uintptr_t)&free0), CUDA_ERROR_INVALID_VALUE);
	CU(D->cuMemFree(a));
	assert_int_equal(D->cuMemFree(a), CUDA_ERROR_INVALID_VALUE);
	CU(D->cuMemFree(b));
	CU(D->cuMemGetInfo(&free1, &total));
	assert_int_equal(free1, free0);

	/* All of it can be allocated, and then nothing more. */
	a = dev_alloc(TEST_MEM);
	assert_int_equal(D->cuMemAlloc(&p, 1), CUDA_ERROR_OUT_OF_MEMORY);
	CU(D->cuMemFree(a));
}

static void test_mem_copies_are_bounds_checked(void **state)
{
	unsigned char in[300], out[300], big[600];
	CUdeviceptr a, b;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 7 + 1);
	a = dev_alloc(300);
	b = dev_alloc(300);
	CU(D->cuMemcpyHtoD(a, in, sizeof(in)));
	memset(out, 0, sizeof(out));
	CU(D->cuMemcpyDtoH(out, a, sizeof(out)));
	assert_memory_equal(in, out, sizeof(in));

	/* Inside one allocation, at any offset. */
	CU(D->cuMemcpyDtoH(out, a + 100, 200));
	assert_memory_equal(out, in + 100, 200);
	CU(D->cuMemcpyHtoD(a + 299, in, 1));

	/* One byte past the allocation, or across into the next: refused. */
	memset(big, 0, sizeof(big));
	assert_int_equal(D->cuMemcpyHtoD(a, big, 301), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemcpyDtoH(out, a + 1, 300), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemcpyDtoH(big, a, b > a ? (size_t)(b - a) + 1 : 600),
			 CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemcpyHtoD(a + 10, in, SIZE_MAX), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemcpyHtoD(0x1000, in, 1), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemcpyDtoH(out, (CUdeviceptr)(uintptr_t)in, 1),
			 CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemcpyHtoD(a, NULL, 1), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemcpyDtoH(NULL, a, 1), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemcpyHtoDAsync(a, big, 301, NULL), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemcpyDtoHAsync(out, a + 300, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemcpyHtoDAsync(a, NULL, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	/* The refused copies changed nothing. */
	CU(D->cuMemcpyDtoH(out, a, 299));
	assert_memory_equal(out, in, 299);

	/* Zero bytes is a no-op, as in CUDA. */
	CU(D->cuMemcpyHtoD(a, in, 0));
	CU(D->cuMemcpyDtoHAsync(out, a, 0, NULL));

	/* A freed allocation is stale, for every path. */
	CU(D->cuMemFree(a));
	assert_int_equal(D->cuMemcpyHtoD(a, in, 1), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemcpyDtoH(out, a, 1), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemcpyHtoDAsync(a, in, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemcpyDtoHAsync(out, a, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemsetD8(a, 0, 1), CUDA_ERROR_INVALID_VALUE);
	CU(D->cuMemFree(b));
}

static void test_memset(void **state)
{
	unsigned int words[64];
	unsigned char bytes[256];
	CUdeviceptr p;
	size_t i;

	(void)state;
	p = dev_alloc(256);
	CU(D->cuMemsetD8(p, 0xab, 256));
	CU(D->cuMemsetD8(p + 10, 0x11, 5));
	CU(D->cuMemcpyDtoH(bytes, p, 256));
	for (i = 0; i < 256; i++)
		assert_int_equal(bytes[i], i >= 10 && i < 15 ? 0x11 : 0xab);

	CU(D->cuMemsetD32(p + 4, 0xdeadbeef, 62));
	CU(D->cuMemcpyDtoH(words, p, 256));
	for (i = 0; i < 64; i++)
		assert_int_equal(words[i], i >= 1 && i < 63 ? 0xdeadbeef : 0xabababab);

	assert_int_equal(D->cuMemsetD32(p + 2, 0, 1), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemsetD32(p, 0, 65), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemsetD32(p, 0, SIZE_MAX / 2), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemsetD8(p, 0, 257), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemsetD8(p + 256, 0, 1), CUDA_ERROR_INVALID_VALUE);
	CU(D->cuMemFree(p));
}

static void test_mem_alloc_pitch(void **state)
{
	unsigned char row[100] = { 1 };
	size_t pitch = 0;
	CUdeviceptr p;

	(void)state;
	CU(D->cuMemAllocPitch(&p, &pitch, 100, 7, 4));
	assert_true(pitch >= 100);
	assert_int_equal(pitch % 4, 0);
	/* pitch * height bytes are addressable, and no more. */
	CU(D->cuMemcpyHtoD(p + pitch * 6, row, sizeof(row)));
	CU(D->cuMemsetD8(p, 0, pitch * 7));
	assert_int_equal(D->cuMemsetD8(p, 0, pitch * 7 + 1), CUDA_ERROR_INVALID_VALUE);
	CU(D->cuMemFree(p));

	assert_int_equal(D->cuMemAllocPitch(&p, &pitch, 100, 7, 3), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemAllocPitch(&p, &pitch, 0, 7, 4), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemAllocPitch(&p, &pitch, 100, 0, 4), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemAllocPitch(NULL, &pitch, 100, 7, 4), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemAllocPitch(&p, NULL, 100, 7, 4), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemAllocPitch(&p, &pitch, 1024, SIZE_MAX / 512, 4),
			 CUDA_ERROR_OUT_OF_MEMORY);
}

static void test_host_register(void **state)
{
	static char buf[8192];

	(void)state;
	CU(D->cuMemHostRegister(buf, 4096, CU_MEMHOSTREGISTER_PORTABLE));
	assert_int_equal(D->cuMemHostRegister(buf + 100, 10, 0),
			 CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
	CU(D->cuMemHostRegister(buf + 4096, 4096, CU_MEMHOSTREGISTER_DEVICEMAP));
	assert_int_equal(D->cuMemHostUnregister(buf + 1), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
	CU(D->cuMemHostUnregister(buf));
	assert_int_equal(D->cuMemHostUnregister(buf), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
	CU(D->cuMemHostRegister(buf, 4096, 0));

	assert_int_equal(D->cuMemHostRegister(NULL, 10, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemHostRegister(buf, 0, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemHostRegister(buf, 10, 0x100), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemHostRegister(buf, 10, CU_MEMHOSTREGISTER_IOMEMORY),
			 CUDA_ERROR_NOT_SUPPORTED);
	assert_int_equal(D->cuMemHostUnregister(NULL), CUDA_ERROR_INVALID_VALUE);
}

static void test_error_names(void **state)
{
	const char *s = NULL;

	(void)state;
	CU(D->cuGetErrorName(CUDA_ERROR_INVALID_HANDLE, &s));
	assert_string_equal(s, "CUDA_ERROR_INVALID_HANDLE");
	CU(D->cuGetErrorName(CUDA_SUCCESS, &s));
	assert_string_equal(s, "CUDA_SUCCESS");
	CU(D->cuGetErrorString(CUDA_ERROR_LAUNCH_FAILED, &s));
	assert_string_equal(s, "unspecified launch failure");
	assert_int_equal(D->cuGetErrorName((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
	assert_null(s);
	s = "x";
	assert_int_equal(D->cuGetErrorString((CUresult)-1, &s), CUDA_ERROR_INVALID_VALUE);
	assert_null(s);
	assert_int_equal(D->cuGetErrorName(CUDA_SUCCESS, NULL), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuGetErrorString(CUDA_SUCCESS, NULL), CUDA_ERROR_INVALID_VALUE);
}

/* Handles of one kind are refused where another kind is expected. */
static void test_handles_are_typed(void **state)
{
	CUstream s;
	CUevent e;
	size_t off;

	(void)state;
	CU(D->cuStreamCreate(&s, 0));
	CU(D->cuEventCreate(&e, 0));
	assert_int_equal(D->cuEventSynchronize((CUevent)s), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuStreamQuery((CUstream)e), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuModuleUnload((CUmodule)s), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuFuncGetParamInfo((CUfunction)e, 0, &off, NULL),
			 CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuCtxSetCurrent((CUcontext)s), CUDA_ERROR_INVALID_CONTEXT);
	assert_int_equal(D->cuStreamDestroy((CUstream)C), CUDA_ERROR_INVALID_HANDLE);
	CU(D->cuStreamDestroy(s));
	CU(D->cuEventDestroy(e));
}

/*
 * A slot freed by one object and reused by the next does not make the old
 * handle valid again: handles carry a generation.
 */
static void test_stale_handles_never_alias(void **state)
{
	CUstream s1, s2;
	CUevent e1, e2;
	CUcontext c1, c2;

	(void)state;
	CU(D->cuEventCreate(&e1, 0));
	CU(D->cuEventDestroy(e1));
	CU(D->cuEventCreate(&e2, 0));
	assert_ptr_not_equal(e1, e2);
	assert_int_equal(D->cuEventRecord(e1, NULL), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuEventDestroy(e1), CUDA_ERROR_INVALID_HANDLE);
	CU(D->cuEventRecord(e2, NULL));
	CU(D->cuEventSynchronize(e2));

	CU(D->cuStreamCreate(&s1, 0));
	CU(D->cuStreamDestroy(s1));
	CU(D->cuStreamCreate(&s2, 0));
	assert_ptr_not_equal(s1, s2);
	assert_int_equal(D->cuStreamQuery(s1), CUDA_ERROR_INVALID_HANDLE);
	CU(D->cuStreamQuery(s2));

	CU(D->cuCtxCreate(&c1, 0, 0));
	CU(D->cuCtxDestroy(c1));
	CU(D->cuCtxCreate(&c2, 0, 0));
	assert_int_equal(D->cuCtxSetCurrent(c1), CUDA_ERROR_INVALID_CONTEXT);
	CU(D->cuCtxDestroy(c2));

	assert_int_equal(D->cuStreamQuery((CUstream)~(uintptr_t)0), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuEventDestroy((CUevent)(uintptr_t)0x1000000ffffffULL),
			 CUDA_ERROR_INVALID_HANDLE);

	/* Nor does closing and reopening the device. */
	CU(D->cuCtxSetCurrent(C));
	close_device(state);
	assert_int_equal(open_device_ctx(state), 0);
	assert_int_equal(D->cuStreamQuery(s2), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuEventSynchronize(e2), CUDA_ERROR_INVALID_HANDLE);
}

/* The load hook of an idle host device. */
static void test_load_idle(void **state)
{
	struct lake_device_load l;

	(void)state;
	memset(&l, 0xff, sizeof(l));
	assert_int_equal(D->load(D, &l), 0);
	assert_int_equal(l.flags, LAKE_DEVICE_LOAD_UTIL | LAKE_DEVICE_LOAD_QUEUE);
	assert_int_equal(l.queued, 0);
	assert_true(l.util_percent <= 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_second_open_is_busy, open_device, close_device),
		cmocka_unit_test_setup_teardown(test_everything_needs_cuinit, open_device,
						close_device),
		cmocka_unit_test_setup_teardown(test_device_queries, open_device_ctx, close_device),
		cmocka_unit_test_setup_teardown(test_context_lifecycle, open_device, close_device),
		cmocka_unit_test_setup_teardown(test_context_destroy_releases_everything,
						open_device_ctx, close_device),
		cmocka_unit_test_setup_teardown(test_mem_alloc_and_free, open_device_ctx,
						close_device),
		cmocka_unit_test_setup_teardown(test_mem_copies_are_bounds_checked, open_device_ctx,
						close_device),
		cmocka_unit_test_setup_teardown(test_memset, open_device_ctx, close_device),
		cmocka_unit_test_setup_teardown(test_mem_alloc_pitch, open_device_ctx, close_device),
		cmocka_unit_test_setup_teardown(test_host_register, open_device_ctx, close_device),
		cmocka_unit_test_setup_teardown(test_error_names, open_device, close_device),
		cmocka_unit_test_setup_teardown(test_handles_are_typed, open_device_ctx,
						close_device),
		cmocka_unit_test_setup_teardown(test_stale_handles_never_alias, open_device_ctx,
						close_device),
		cmocka_unit_test_setup_teardown(test_load_idle, open_device_ctx, close_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
