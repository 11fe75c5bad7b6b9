// SPDX-License-Identifier: GPL-2.0
/*
 * laked's CUDA backend without a GPU: against fake drivers (cuda_stub.c)
 * it must bind every op to the ABI version cuda.h binds the plain name to,
 * fall back where a driver lacks a newer symbol, and fail cleanly, naming
 * the symbol or library, when something is missing. Then the real thing:
 * where libcuda.so.1 is absent (a machine without the NVIDIA driver),
 * opening it fails with -ENOENT and --device=auto picks the host device.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "hostdev_util.h"
#include "laked/nvml.h"

static const char *(*stub_last)(void);
static void *stub;

static void open_stub(const char *stem)
{
	const char *path = kernel_path(stem, ".so");

	if (lake_driver_open_cuda_lib(&D, path))
		fail_msg("open %s: %s (build the test stubs first)", path, lake_driver_last_error());
	/* The same object the backend loaded: dlopen counts references. */
	stub = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(stub);
	stub_last = (const char *(*)(void))dlsym(stub, "cuda_stub_last");
	assert_non_null(stub_last);
	assert_string_equal(D->name, "cuda");
	assert_string_equal(lake_driver_last_error(), "");
}

static int close_stub(void **state)
{
	(void)state;
	lake_driver_close(D);
	D = NULL;
	if (stub)
		dlclose(stub);
	stub = NULL;
	return 0;
}

/* Arguments for the calls below: the stub looks at none of them. */
static struct {
	CUdeviceptr p;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	CUstream s;
	CUevent e;
	size_t x, y;
	const char *str;
	char buf[8];
	float ms;
	int v;
} a;

/*
 * Every op of struct lake_driver: a call, and the symbol cuda.h binds the
 * plain name to ("#define cuMemAlloc cuMemAlloc_v2"), which it must reach.
 */
#define OPS(X) \
	X(cuInit, "cuInit", D->cuInit(0)) \
	X(cuDriverGetVersion, "cuDriverGetVersion", D->cuDriverGetVersion(&a.v)) \
	X(cuDeviceGet, "cuDeviceGet", D->cuDeviceGet(&a.v, 0)) \
	X(cuDeviceGetCount, "cuDeviceGetCount", D->cuDeviceGetCount(&a.v)) \
	X(cuDeviceGetName, "cuDeviceGetName", D->cuDeviceGetName(a.buf, 8, 0)) \
	X(cuDeviceGetAttribute, "cuDeviceGetAttribute", \
	  D->cuDeviceGetAttribute(&a.v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0)) \
	X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", D->cuDeviceTotalMem(&a.x, 0)) \
	X(cuCtxCreate, "cuCtxCreate_v2", D->cuCtxCreate(&a.ctx, 0, 0)) \
	X(cuCtxDestroy, "cuCtxDestroy_v2", D->cuCtxDestroy(a.ctx)) \
	X(cuCtxGetCurrent, "cuCtxGetCurrent", D->cuCtxGetCurrent(&a.ctx)) \
	X(cuCtxSetCurrent, "cuCtxSetCurrent", D->cuCtxSetCurrent(a.ctx)) \
	X(cuCtxSynchronize, "cuCtxSynchronize", D->cuCtxSynchronize()) \
	X(cuModuleLoad, "cuModuleLoad", D->cuModuleLoad(&a.mod, "m.cubin")) \
	X(cuModuleUnload, "cuModuleUnload", D->cuModuleUnload(a.mod)) \
	X(cuModuleGetFunction, "cuModuleGetFunction", D->cuModuleGetFunction(&a.fn, a.mod, "f")) \
	X(cuFuncGetParamInfo, "cuFuncGetParamInfo", D->cuFuncGetParamInfo(a.fn, 0, &a.x, &a.y)) \
	X(cuLaunchKernel, "cuLaunchKernel", \
	  D->cuLaunchKernel(a.fn, 1, 1, 1, 1, 1, 1, 0, a.s, NULL, NULL)) \
	X(cuMemAlloc, "cuMemAlloc_v2", D->cuMemAlloc(&a.p, 1)) \
	X(cuMemAllocPitch, "cuMemAllocPitch_v2", D->cuMemAllocPitch(&a.p, &a.x, 1, 1, 4)) \
	X(cuMemFree, "cuMemFree_v2", D->cuMemFree(a.p)) \
	X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", D->cuMemcpyHtoD(a.p, a.buf, 1)) \
	X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", D->cuMemcpyDtoH(a.buf, a.p, 1)) \
	X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", D->cuMemcpyHtoDAsync(a.p, a.buf, 1, a.s)) \
	X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", D->cuMemcpyDtoHAsync(a.buf, a.p, 1, a.s)) \
	X(cuMemsetD8, "cuMemsetD8_v2", D->cuMemsetD8(a.p, 0, 1)) \
	X(cuMemsetD32, "cuMemsetD32_v2", D->cuMemsetD32(a.p, 0, 1)) \
	X(cuMemsetD8Async, "cuMemsetD8Async", D->cuMemsetD8Async(a.p, 0, 1, a.s)) \
	X(cuMemsetD32Async, "cuMemsetD32Async", D->cuMemsetD32Async(a.p, 0, 1, a.s)) \
	X(cuMemGetInfo, "cuMemGetInfo_v2", D->cuMemGetInfo(&a.x, &a.y)) \
	X(cuStreamCreate, "cuStreamCreate", D->cuStreamCreate(&a.s, 0)) \
	X(cuStreamSynchronize, "cuStreamSynchronize", D->cuStreamSynchronize(a.s)) \
	X(cuStreamDestroy, "cuStreamDestroy_v2", D->cuStreamDestroy(a.s)) \
	X(cuStreamQuery, "cuStreamQuery", D->cuStreamQuery(a.s)) \
	X(cuEventCreate, "cuEventCreate", D->cuEventCreate(&a.e, 0)) \
	X(cuEventRecord, "cuEventRecord", D->cuEventRecord(a.e, a.s)) \
	X(cuEventSynchronize, "cuEventSynchronize", D->cuEventSynchronize(a.e)) \
	X(cuEventElapsedTime, "cuEventElapsedTime_v2", D->cuEventElapsedTime(&a.ms, a.e, a.e)) \
	X(cuEventDestroy, "cuEventDestroy_v2", D->cuEventDestroy(a.e)) \
	X(cuMemHostRegister, "cuMemHostRegister_v2", D->cuMemHostRegister(a.buf, 1, 0)) \
	X(cuMemHostUnregister, "cuMemHostUnregister", D->cuMemHostUnregister(a.buf)) \
	X(cuGetErrorName, "cuGetErrorName", D->cuGetErrorName(CUDA_SUCCESS, &a.str)) \
	X(cuGetErrorString, "cuGetErrorString", D->cuGetErrorString(CUDA_SUCCESS, &a.str))

#define DEFINE_CALL(op, sym, call) static void call_##op(void) { call; }
OPS(DEFINE_CALL)

static const struct {
	const char *op;
	void (*call)(void);
	const char *symbol;
} ops[] = {
#define ENTRY(op, sym, call) { #op, call_##op, sym },
	OPS(ENTRY)
};

#define NOPS (sizeof(ops) / sizeof(ops[0]))

/* Which symbol of the stub @op reached. */
static const char *reached(const char *op)
{
	size_t i;

	for (i = 0; i < NOPS; i++) {
		if (!strcmp(ops[i].op, op)) {
			ops[i].call();
			return stub_last();
		}
	}
	fail_msg("no op %s", op);
	return NULL;
}

/* Every function pointer of the table is set: counts them from the struct. */
static void assert_all_ops_set(void)
{
	const char *first = (const char *)&D->cuInit;
	const char *end = (const char *)(D + 1);
	size_t n = (size_t)(end - first) / sizeof(void (*)(void)), i;

	assert_int_equal(n, NOPS);
	for (i = 0; i < n; i++) {
		void (*fn)(void);

		memcpy(&fn, first + i * sizeof(fn), sizeof(fn));
		assert_non_null(fn);
	}
}

static void test_binds_current_abi(void **state)
{
	struct lake_driver *again;
	size_t i;

	(void)state;
	open_stub("libcuda_stub");
	assert_all_ops_set();
	for (i = 0; i < NOPS; i++)
		assert_string_equal(reached(ops[i].op), ops[i].symbol);
	assert_int_equal(lake_driver_open_cuda_lib(&again, kernel_path("libcuda_stub", ".so")),
			 -EBUSY);
}

static void test_old_driver_fallbacks(void **state)
{
	size_t off;

	(void)state;
	open_stub("libcuda_stub_old");
	assert_all_ops_set();
	assert_string_equal(reached("cuEventElapsedTime"), "cuEventElapsedTime");
	assert_string_equal(reached("cuCtxCreate"), "cuCtxCreate_v2");
	assert_string_equal(reached("cuMemAlloc"), "cuMemAlloc_v2");
	assert_int_equal(D->cuFuncGetParamInfo(NULL, 0, &off, NULL),
			 CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER);
}

static void test_ctx_create_through_v4(void **state)
{
	void (*v4_args)(void **, unsigned int *, CUdevice *);
	unsigned int flags = 0;
	void *params = NULL;
	CUcontext ctx;
	CUdevice dev = -1;

	(void)state;
	open_stub("libcuda_stub_future");
	assert_string_equal(reached("cuCtxCreate"), "cuCtxCreate_v4");
	CU(D->cuCtxCreate(&ctx, CU_CTX_SCHED_BLOCKING_SYNC, 0));
	v4_args = (void (*)(void **, unsigned int *, CUdevice *))dlsym(stub, "cuda_stub_v4_args");
	assert_non_null(v4_args);
	v4_args(&params, &flags, &dev);
	assert_null(params);
	assert_int_equal(flags, CU_CTX_SCHED_BLOCKING_SYNC);
	assert_int_equal(dev, 0);
}

static void test_missing_symbol_fails_cleanly(void **state)
{
	struct lake_driver *drv = NULL;
	Dl_info info;

	(void)state;
	/* libc is a shared object with none of the driver's symbols. */
	assert_int_not_equal(dladdr((void *)printf, &info), 0);
	assert_int_equal(lake_driver_open_cuda_lib(&drv, info.dli_fname), -ENOSYS);
	assert_null(drv);
	assert_non_null(strstr(lake_driver_last_error(), "cuInit"));
	/* Nothing stays half open. */
	open_stub("libcuda_stub");
}

static void test_absent_library(void **state)
{
	struct lake_driver *drv = NULL;
	struct lake_nvml *nv = NULL;

	(void)state;
	assert_int_equal(lake_driver_open_cuda_lib(&drv, "/nonexistent/libcuda.so.1"), -ENOENT);
	assert_null(drv);
	assert_non_null(strstr(lake_driver_last_error(), "/nonexistent/libcuda.so.1"));
	assert_int_equal(lake_nvml_open(&nv, "/nonexistent/libnvidia-ml.so.1", 0), -ENOENT);
	assert_null(nv);
}

/* This machine's own driver: absent here, so -ENOENT naming libcuda.so.1. */
static void test_system_driver(void **state)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	struct lake_driver *drv = NULL;
	int ret = lake_driver_open_cuda(&drv);

	(void)state;
	if (lib) {
		dlclose(lib);
		assert_int_equal(ret, 0);
		assert_string_equal(drv->name, "cuda");
		lake_driver_close(drv);
		return;
	}
	assert_int_equal(ret, -ENOENT);
	assert_null(drv);
	assert_non_null(strstr(lake_driver_last_error(), "libcuda.so.1"));
}

static void test_auto_picks_a_device(void **state)
{
	struct lake_host_opts opts = { .mem_bytes = TEST_MEM, .workers = 1 };
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	struct lake_driver *drv = NULL;
	int n = 0;

	(void)state;
	assert_int_equal(lake_driver_open_auto(&drv, &opts), 0);
	if (!strcmp(drv->name, "host")) {
		/* Passed over for a reason, which is kept for the log. */
		assert_non_null(strstr(lake_driver_last_error(), "cuda"));
		CU(drv->cuInit(0));
		CU(drv->cuDeviceGetCount(&n));
		assert_int_equal(n, 1);
	} else {
		assert_non_null(lib);
		assert_string_equal(drv->name, "cuda");
		CU(drv->cuDeviceGetCount(&n));
		assert_true(n > 0);
	}
	if (!lib)
		assert_string_equal(drv->name, "host");
	else
		dlclose(lib);
	lake_driver_close(drv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_binds_current_abi, close_stub),
		cmocka_unit_test_teardown(test_old_driver_fallbacks, close_stub),
		cmocka_unit_test_teardown(test_ctx_create_through_v4, close_stub),
		cmocka_unit_test_teardown(test_missing_symbol_fails_cleanly, close_stub),
		cmocka_unit_test(test_absent_library),
		cmocka_unit_test(test_system_driver),
		cmocka_unit_test(test_auto_picks_a_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
