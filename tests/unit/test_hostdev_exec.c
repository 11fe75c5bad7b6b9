// SPDX-License-Identifier: GPL-2.0
/*
 * The host device through the ops table, part 2: modules, functions and
 * launches: load paths, parameter layouts, both argument forms, launch
 * validation, thread geometry. The kernels are tests/kernels/vadd.cu and
 * selftest.cu built as shared objects.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "hostdev_kernels.h"

static void test_module_load_paths(void **state)
{
	static const char *const exts[] = { ".so", ".cubin", ".fatbin", ".ptx" };
	CUmodule mod = NULL;
	CUfunction fn;
	Dl_info info;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		CU(D->cuModuleLoad(&mod, kernel_path("vadd", exts[i])));
		CU(D->cuModuleGetFunction(&fn, mod, "vadd"));
		CU(D->cuModuleUnload(mod));
		assert_int_equal(D->cuModuleUnload(mod), CUDA_ERROR_INVALID_HANDLE);
	}
	assert_int_equal(D->cuModuleLoad(&mod, kernel_path("missing", ".so")),
			 CUDA_ERROR_FILE_NOT_FOUND);
	assert_int_equal(D->cuModuleLoad(&mod, kernel_path("missing", ".cubin")),
			 CUDA_ERROR_FILE_NOT_FOUND);
	/* Files that exist but are no lake module: not an image. */
	assert_int_equal(D->cuModuleLoad(&mod, "/proc/self/exe"), CUDA_ERROR_INVALID_IMAGE);
	assert_int_not_equal(dladdr((void *)printf, &info), 0);
	assert_int_equal(D->cuModuleLoad(&mod, info.dli_fname), CUDA_ERROR_INVALID_IMAGE);

	assert_int_equal(D->cuModuleLoad(NULL, kernel_path("vadd", ".so")),
			 CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuModuleLoad(&mod, NULL), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuModuleUnload((CUmodule)0x5000001), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuModuleUnload(NULL), CUDA_ERROR_INVALID_HANDLE);
}

static void check_layout(CUfunction fn, const size_t *offs, const size_t *sizes, size_t n)
{
	size_t i, off, size;

	/* How a dispatcher finds the count: probe until INVALID_VALUE. */
	for (i = 0; D->cuFuncGetParamInfo(fn, i, &off, &size) == CUDA_SUCCESS; i++) {
		assert_true(i < n);
		assert_int_equal(off, offs[i]);
		assert_int_equal(size, sizes[i]);
	}
	assert_int_equal(i, n);
	assert_int_equal(D->cuFuncGetParamInfo(fn, n, &off, &size), CUDA_ERROR_INVALID_VALUE);
}

static void test_function_lookup_and_param_info(void **state)
{
	static const size_t vadd_off[] = { 0, 8, 16, 24 }, vadd_size[] = { 8, 8, 8, 4 };
	static const size_t mixed_off[] = { 0, 8, 16, 24, 32 }, mixed_size[] = { 1, 8, 2, 8, 4 };
	char long_name[300];
	CUfunction fn = NULL;
	size_t off = 99;

	(void)state;
	check_layout(vadd_fn, vadd_off, vadd_size, 4);
	check_layout(mixed_fn, mixed_off, mixed_size, 5);
	CU(D->cuFuncGetParamInfo(vadd_fn, 3, &off, NULL));
	assert_int_equal(off, 24);
	assert_int_equal(D->cuFuncGetParamInfo(vadd_fn, 0, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuFuncGetParamInfo((CUfunction)0x7000001, 0, &off, NULL),
			 CUDA_ERROR_INVALID_HANDLE);

	CU(D->cuModuleGetFunction(&fn, vadd_mod, "vadd"));
	assert_ptr_equal(fn, vadd_fn);
	assert_int_equal(D->cuModuleGetFunction(&fn, vadd_mod, "index3d"), CUDA_ERROR_NOT_FOUND);
	assert_int_equal(D->cuModuleGetFunction(&fn, vadd_mod, "vad"), CUDA_ERROR_NOT_FOUND);
	memset(long_name, 'v', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_int_equal(D->cuModuleGetFunction(&fn, vadd_mod, long_name), CUDA_ERROR_NOT_FOUND);
	assert_int_equal(D->cuModuleGetFunction(&fn, vadd_mod, NULL), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuModuleGetFunction(NULL, vadd_mod, "vadd"), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuModuleGetFunction(&fn, (CUmodule)vadd_fn, "vadd"),
			 CUDA_ERROR_INVALID_HANDLE);

	/* Unloading the module makes its functions stale. */
	CU(D->cuModuleUnload(vadd_mod));
	assert_int_equal(D->cuFuncGetParamInfo(vadd_fn, 0, &off, NULL), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuLaunchKernel(vadd_fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL),
			 CUDA_ERROR_INVALID_HANDLE);
}

#define N	1000
#define PAD	64

static float A[N], B[N], OUT[N + PAD];

struct vadd_bufs {
	CUdeviceptr a, b, c;
	int n;
};

static struct vadd_bufs vadd_setup(void)
{
	struct vadd_bufs v = { .n = N };
	int i;

	for (i = 0; i < N; i++) {
		A[i] = (float)i * 0.5f;
		B[i] = (float)(N - i) * 0.25f;
	}
	v.a = dev_alloc(sizeof(A));
	v.b = dev_alloc(sizeof(B));
	v.c = dev_alloc(sizeof(OUT));
	CU(D->cuMemcpyHtoD(v.a, A, sizeof(A)));
	CU(D->cuMemcpyHtoD(v.b, B, sizeof(B)));
	CU(D->cuMemsetD8(v.c, 0xff, sizeof(OUT)));
	return v;
}

static void vadd_check(const struct vadd_bufs *v)
{
	unsigned char sentinel[PAD * sizeof(float)];
	int i;

	CU(D->cuMemcpyDtoH(OUT, v->c, sizeof(OUT)));
	for (i = 0; i < N; i++)
		assert_true(OUT[i] == A[i] + B[i]);
	/* Threads past n (the last block is partial) wrote nothing. */
	memset(sentinel, 0xff, sizeof(sentinel));
	assert_memory_equal(&OUT[N], sentinel, sizeof(sentinel));
}

static void test_vadd_kernel_params(void **state)
{
	struct vadd_bufs v = vadd_setup();
	void *args[] = { &v.a, &v.b, &v.c, &v.n };
	CUstream s;

	(void)state;
	/* 8 blocks of 128: the last one is partial. */
	CU(D->cuLaunchKernel(vadd_fn, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
	vadd_check(&v);

	CU(D->cuMemsetD8(v.c, 0xff, sizeof(OUT)));
	CU(D->cuStreamCreate(&s, 0));
	CU(D->cuLaunchKernel(vadd_fn, (N + 255) / 256, 1, 1, 256, 1, 1, 0, s, args, NULL));
	CU(D->cuStreamSynchronize(s));
	vadd_check(&v);
	CU(D->cuStreamDestroy(s));
}

static void test_vadd_extra(void **state)
{
	struct vadd_bufs v = vadd_setup();
	unsigned char buf[64];
	size_t size, off, psize, small;
	void *extra[] = {
		CU_LAUNCH_PARAM_BUFFER_POINTER, buf,
		CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
		CU_LAUNCH_PARAM_END,
	};
	void *no_size[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_END };
	void *bad_key[] = { (void *)0x7, buf, CU_LAUNCH_PARAM_END };
	void *args[] = { &v.a, &v.b, &v.c, &v.n };
	void *small_extra[] = {
		CU_LAUNCH_PARAM_BUFFER_POINTER, buf,
		CU_LAUNCH_PARAM_BUFFER_SIZE, &small,
		CU_LAUNCH_PARAM_END,
	};
	void *values[] = { &v.a, &v.b, &v.c, &v.n };
	size_t i;

	(void)state;
	/* Pack the buffer the way a dispatcher does: from the reported layout. */
	memset(buf, 0, sizeof(buf));
	size = 0;
	for (i = 0; D->cuFuncGetParamInfo(vadd_fn, i, &off, &psize) == CUDA_SUCCESS; i++) {
		memcpy(buf + off, values[i], psize);
		size = off + psize;
	}
	CU(D->cuLaunchKernel(vadd_fn, (N + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, NULL, extra));
	vadd_check(&v);

	small = size - 1;
	assert_int_equal(D->cuLaunchKernel(vadd_fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, small_extra),
			 CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuLaunchKernel(vadd_fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, no_size),
			 CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuLaunchKernel(vadd_fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, bad_key),
			 CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuLaunchKernel(vadd_fn, 1, 1, 1, 1, 1, 1, 0, NULL, args, extra),
			 CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuLaunchKernel(vadd_fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL),
			 CUDA_ERROR_INVALID_VALUE);
}

static void test_launch_validation(void **state)
{
	CUdeviceptr p = dev_alloc(64);
	int n = 1;
	void *args[] = { &p, &p, &p, &n };
	void *null_arg[] = { &p, NULL, &p, &n };
	CUcontext other;
	CUstream s;

#define L(gx, gy, gz, bx, by, bz, sh) \
	D->cuLaunchKernel(vadd_fn, gx, gy, gz, bx, by, bz, sh, NULL, args, NULL)
	(void)state;
	CU(L(1, 1, 1, 1024, 1, 1, 0));
	CU(L(1, 65535, 1, 1, 1, 1, 0));
	assert_int_equal(L(0, 1, 1, 1, 1, 1, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(L(1, 0, 1, 1, 1, 1, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(L(1, 1, 1, 1, 1, 0, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(L(0x80000000U, 1, 1, 1, 1, 1, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(L(1, 65536, 1, 1, 1, 1, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(L(1, 1, 65536, 1, 1, 1, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(L(1, 1, 1, 1025, 1, 1, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(L(1, 1, 1, 1, 1, 65, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(L(1, 1, 1, 32, 32, 2, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(L(1, 1, 1, 1, 1, 1, 16), CUDA_ERROR_INVALID_VALUE);
#undef L
	assert_int_equal(D->cuLaunchKernel(vadd_fn, 1, 1, 1, 1, 1, 1, 0, NULL, null_arg, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL),
			 CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuLaunchKernel(vadd_fn, 1, 1, 1, 1, 1, 1, 0, (CUstream)0x3000001,
					   args, NULL), CUDA_ERROR_INVALID_HANDLE);
	/* A function runs only in the context that loaded its module. */
	CU(D->cuCtxCreate(&other, 0, 0));
	assert_int_equal(D->cuLaunchKernel(vadd_fn, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL),
			 CUDA_ERROR_INVALID_CONTEXT);
	CU(D->cuStreamCreate(&s, 0));
	CU(D->cuCtxSetCurrent(C));
	assert_int_equal(D->cuLaunchKernel(vadd_fn, 1, 1, 1, 1, 1, 1, 0, s, args, NULL),
			 CUDA_ERROR_INVALID_CONTEXT);
	CU(D->cuCtxDestroy(other));
	CU(D->cuCtxSynchronize());
}

/* Every thread of a 3-D grid of 3-D blocks sees its own coordinates. */
static void test_thread_geometry(void **state)
{
	const unsigned int gx = 4, gy = 2, gz = 3, bx = 4, by = 3, bz = 2;
	const unsigned int threads = gx * gy * gz * bx * by * bz;
	unsigned int *out = calloc(2 * threads, sizeof(*out));
	CUdeviceptr d = dev_alloc(2 * threads * sizeof(*out));
	void *args[] = { &d };
	unsigned int x, y, z, tx, ty, tz;

	(void)state;
	CU(D->cuMemsetD8(d, 0xff, 2 * threads * sizeof(*out)));
	CU(D->cuLaunchKernel(index_fn, gx, gy, gz, bx, by, bz, 0, NULL, args, NULL));
	CU(D->cuMemcpyDtoH(out, d, 2 * threads * sizeof(*out)));
	for (z = 0; z < gz; z++)
		for (y = 0; y < gy; y++)
			for (x = 0; x < gx; x++)
				for (tz = 0; tz < bz; tz++)
					for (ty = 0; ty < by; ty++)
						for (tx = 0; tx < bx; tx++) {
							unsigned int blk = x + gx * (y + gy * z);
							unsigned int thr = tx + bx * (ty + by * tz);
							unsigned int k = blk * bx * by * bz + thr;

							assert_int_equal(out[2 * k], blk);
							assert_int_equal(out[2 * k + 1], thr);
						}
	free(out);
}

static void test_mixed_parameter_types(void **state)
{
	CUdeviceptr out = dev_alloc(4 * sizeof(long long));
	char c = -7;
	double d = 12345.0;
	short s = -300;
	float f = 2.5f;
	void *args[] = { &c, &d, &s, &out, &f };
	long long got[4];
	unsigned char buf[40];
	size_t size = sizeof(buf), i, off, psize;
	void *extra[] = {
		CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, NULL,
	};

	(void)state;
	CU(D->cuLaunchKernel(mixed_fn, 2, 1, 1, 3, 1, 1, 0, NULL, args, NULL));
	CU(D->cuMemcpyDtoH(got, out, sizeof(got)));
	assert_int_equal(got[0], -7);
	assert_int_equal(got[1], 12345);
	assert_int_equal(got[2], -300);
	assert_int_equal(got[3], 10);

	/* The same values through a packed buffer, padding bytes set to garbage. */
	d = 99.0;
	memset(buf, 0xa5, sizeof(buf));
	for (i = 0; D->cuFuncGetParamInfo(mixed_fn, i, &off, &psize) == CUDA_SUCCESS; i++)
		memcpy(buf + off, args[i], psize);
	CU(D->cuMemsetD8(out, 0, sizeof(got)));
	CU(D->cuLaunchKernel(mixed_fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, extra));
	CU(D->cuMemcpyDtoH(got, out, sizeof(got)));
	assert_int_equal(got[0], -7);
	assert_int_equal(got[1], 99);
	assert_int_equal(got[2], -300);
	assert_int_equal(got[3], 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, close_device)
		T(test_module_load_paths),
		T(test_function_lookup_and_param_info),
		T(test_vadd_kernel_params),
		T(test_vadd_extra),
		T(test_launch_validation),
		T(test_thread_geometry),
		T(test_mixed_parameter_types),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
