// SPDX-License-Identifier: GPL-2.0
/*
 * CUDA C++ kernels on the host device, through its public API: modules
 * built from tests/kernels/cxx/ with g++ -include lake/cuda_host.h,
 * loaded by their .cubin names, functions looked up by mangled name. Their
 * layouts (substitutions, every supported type, the refusals), barriers and
 * shared memory over many block shapes up to 1024 threads, a barrier that
 * not every thread reaches and __trap() (the launch fails, the context goes
 * on), atomics across blocks, and C kernels beside them unchanged.
 *
 * Each case runs under an alarm: a block that hangs at a barrier fails the
 * test binary rather than stalling the suite.
 */
#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>
#include "hostdev_util.h"

#define CASE_SECONDS	60

static CUmodule barriers, grid, faults, params, atomics;
static pthread_mutex_t warn_lock = PTHREAD_MUTEX_INITIALIZER;
static char warned[4096];

/* The device's log lines, from whichever thread ran the block. */
static void capture(const char *line)
{
	pthread_mutex_lock(&warn_lock);
	if (strlen(warned) + strlen(line) + 2 < sizeof(warned)) {
		strcat(warned, line);
		strcat(warned, "\n");
	}
	pthread_mutex_unlock(&warn_lock);
}

static bool warned_of(const char *what)
{
	bool found;

	pthread_mutex_lock(&warn_lock);
	found = strstr(warned, what) != NULL;
	warned[0] = '\0';
	pthread_mutex_unlock(&warn_lock);
	return found;
}

static CUmodule load_cubin(const char *stem)
{
	CUmodule mod = NULL;

	if (D->cuModuleLoad(&mod, kernel_path(stem, ".cubin")) != CUDA_SUCCESS)
		fail_msg("cuModuleLoad(%s): build the test kernels first",
			 kernel_path(stem, ".cubin"));
	return mod;
}

static int setup(void **state)
{
	struct lake_host_opts opts = {
		.mem_bytes = TEST_MEM,
		.workers = TEST_WORKERS,
		.warn = capture,
	};

	(void)state;
	alarm(CASE_SECONDS);
	warned[0] = '\0';
	if (lake_driver_open_host(&D, &opts) || D->cuInit(0) || D->cuCtxCreate(&C, 0, 0))
		return -1;
	barriers = load_cubin("cxx/barriers");
	grid = load_cubin("cxx/grid2d");
	faults = load_cubin("cxx/faults");
	params = load_cubin("cxx/params");
	atomics = load_cubin("cxx/atomics");
	return 0;
}

/*
 * The alarm covers the close as well: a kernel that crashed, which cmocka's
 * signal handler leaves half run, hangs it.
 */
static int teardown(void **state)
{
	int ret = close_device(state);

	alarm(0);
	return ret;
}

static void check_layout(CUfunction fn, const size_t *offs, const size_t *sizes, size_t n)
{
	size_t i, off, size;

	for (i = 0; i < n; i++) {
		CU(D->cuFuncGetParamInfo(fn, i, &off, &size));
		assert_int_equal(off, offs[i]);
		assert_int_equal(size, sizes[i]);
	}
	assert_int_equal(D->cuFuncGetParamInfo(fn, n, &off, &size), CUDA_ERROR_INVALID_VALUE);
}

static void test_layouts(void **state)
{
	static const size_t p3_off[] = { 0, 8, 16 }, p3_size[] = { 8, 8, 4 };
	static const size_t p4_off[] = { 0, 8, 16, 24 }, p4_size[] = { 8, 8, 8, 8 };
	static const size_t ptr3_size[] = { 8, 8, 8 };
	static const size_t axpy_size[] = { 8, 8, 8, 4 };
	static const size_t grid_off[] = { 0, 8, 12 }, grid_size[] = { 8, 4, 4 };
	/* out, char, uchar, short, ushort, int, uint, long, ulong, float, double, bool, schar, ll, ull */
	static const size_t echo_off[] = { 0, 8, 9, 10, 12, 16, 20, 24, 32, 40, 48, 56, 57, 64, 72 };
	static const size_t echo_size[] = { 8, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 1, 1, 8, 8 };
	CUfunction fn, again;

	(void)state;
	fn = get_function(barriers, "_Z9block_sumPlS_i");
	check_layout(fn, p3_off, p3_size, 3);
	CU(D->cuModuleGetFunction(&again, barriers, "_Z9block_sumPlS_i"));
	assert_ptr_equal(fn, again);
	check_layout(get_function(params, "_Z11scale_pairsPfPdS_S0_"), p4_off, p4_size, 4);
	check_layout(get_function(params, "_Z6gatherPPlPKfS_"), p3_off, ptr3_size, 3);
	check_layout(get_function(params, "_Z28prediction_final_layer_batchPlS_S_S_"), p4_off,
		     p4_size, 4);
	check_layout(get_function(params, "_Z4axpyIdEvPT_PKS0_S0_i"), p4_off, axpy_size, 4);
	check_layout(get_function(params, "_Z4echoPxchstijlmfdbaxy"), echo_off, echo_size, 15);
	check_layout(get_function(params, "_Z4noopv"), NULL, NULL, 0);
	check_layout(get_function(params, "_Z5applyPFiiEPi"), p4_off, p4_size, 2);
	check_layout(get_function(grid, "_Z6grid2dPjii"), grid_off, grid_size, 3);
}

static void test_refusals(void **state)
{
	CUmodule vadd;
	CUfunction fn;

	(void)state;
	assert_int_equal(D->cuModuleGetFunction(&fn, params, "_Z8by_value5pointPi"),
			 CUDA_ERROR_NOT_SUPPORTED);
	assert_true(warned_of("parameter 1 (point) is not supported"));
	assert_int_equal(D->cuModuleGetFunction(&fn, params, "_Z6memberM5pointiPS_Pi"),
			 CUDA_ERROR_NOT_SUPPORTED);
	assert_true(warned_of("parameter 1 (int point::*) is not supported"));
	/* extern "C": there, but with no types to call it with. */
	assert_int_equal(D->cuModuleGetFunction(&fn, params, "plain_c"), CUDA_ERROR_NOT_FOUND);
	assert_true(warned_of("extern \"C\""));
	assert_int_equal(D->cuModuleGetFunction(&fn, params, "_Z7missingPi"), CUDA_ERROR_NOT_FOUND);
	assert_int_equal(D->cuModuleGetFunction(&fn, params, "missing"), CUDA_ERROR_NOT_FOUND);
	/* Mangled names of the libraries the module links are no kernels of it. */
	assert_int_equal(D->cuModuleGetFunction(&fn, params, "_ZSt9terminatev"),
			 CUDA_ERROR_NOT_FOUND);
	/* A variable of the module, not a function. */
	assert_int_equal(D->cuModuleGetFunction(&fn, params, "lake_kmodule_abi"),
			 CUDA_ERROR_NOT_FOUND);
	/* A C module has no C++ kernels, and a C++ one no descriptors. */
	vadd = load_cubin("vadd");
	assert_int_equal(D->cuModuleGetFunction(&fn, vadd, "_Z4vaddPKfS0_Pfi"),
			 CUDA_ERROR_NOT_FOUND);
	assert_int_equal(D->cuModuleGetFunction(&fn, params, "vadd"), CUDA_ERROR_NOT_FOUND);
	CU(D->cuModuleUnload(vadd));
}

static CUresult launch(CUfunction fn, unsigned int gx, unsigned int gy, unsigned int bx,
		       unsigned int by, void **args)
{
	return D->cuLaunchKernel(fn, gx, gy, 1, bx, by, 1, 0, NULL, args, NULL);
}

static void test_echo_and_substitutions(void **state)
{
	char c = -5;
	unsigned char uc = 250;
	short s = -30000;
	unsigned short us = 65000;
	int i = -2000000000;
	unsigned int u = 4000000000U;
	long l = -(1L << 40);
	unsigned long ul = 1UL << 63;
	float f = 2.5f;
	double d = -1.25;
	bool b = true;
	signed char sc = -100;
	long long ll = -(1LL << 50);
	unsigned long long ull = ~0ULL;
	long long want[] = { -5, 250, -30000, 65000, -2000000000, 4000000000LL, -(1LL << 40),
			     (long long)(1ULL << 63), 10, -5, 1, -100, -(1LL << 50), -1 };
	long long got[14];
	CUdeviceptr out = dev_alloc(sizeof(got)), x, y, xo, yo;
	void *echo_args[] = { &out, &c, &uc, &s, &us, &i, &u, &l, &ul, &f, &d, &b, &sc, &ll, &ull };
	void *pairs_args[] = { &x, &y, &xo, &yo };
	float xs[32], xr[32];
	double ys[32], yr[32];
	int k;

	(void)state;
	CU(launch(get_function(params, "_Z4echoPxchstijlmfdbaxy"), 1, 1, 32, 1, echo_args));
	CU(D->cuMemcpyDtoH(got, out, sizeof(got)));
	assert_memory_equal(got, want, sizeof(want));

	for (k = 0; k < 32; k++) {
		xs[k] = (float)k;
		ys[k] = k * 0.5;
	}
	x = dev_alloc(sizeof(xs));
	y = dev_alloc(sizeof(ys));
	xo = dev_alloc(sizeof(xs));
	yo = dev_alloc(sizeof(ys));
	CU(D->cuMemcpyHtoD(x, xs, sizeof(xs)));
	CU(D->cuMemcpyHtoD(y, ys, sizeof(ys)));
	CU(launch(get_function(params, "_Z11scale_pairsPfPdS_S0_"), 1, 1, 32, 1, pairs_args));
	CU(D->cuMemcpyDtoH(xr, xo, sizeof(xr)));
	CU(D->cuMemcpyDtoH(yr, yo, sizeof(yr)));
	for (k = 0; k < 32; k++) {
		assert_true(xr[k] == 2.0f * xs[k]);
		assert_true(yr[k] == 3.0 * ys[k]);
	}
}

static void test_pointers_and_templates(void **state)
{
	long rows_host[8][8], outs[8], w_l[2] = { 3, -2 }, b_l[2] = { 7, 11 }, mid[64], fin[64];
	float wf[8];
	double yh[100], xh[100], a = 0.5;
	CUdeviceptr rows = dev_alloc(sizeof(rows_host)), ptrs = dev_alloc(8 * sizeof(long *));
	CUdeviceptr w = dev_alloc(sizeof(wf)), out = dev_alloc(sizeof(outs));
	CUdeviceptr dw = dev_alloc(sizeof(w_l)), db = dev_alloc(sizeof(b_l));
	CUdeviceptr dm = dev_alloc(sizeof(mid)), df = dev_alloc(sizeof(fin));
	CUdeviceptr dy = dev_alloc(sizeof(yh)), dx = dev_alloc(sizeof(xh));
	long *row_ptrs[8];
	void *gather_args[] = { &ptrs, &w, &out };
	void *linnos_args[] = { &dw, &db, &dm, &df };
	int n = 100, i, j;
	void *axpy_args[] = { &dy, &dx, &a, &n };

	(void)state;
	for (i = 0; i < 8; i++) {
		for (j = 0; j < 8; j++)
			rows_host[i][j] = i * 10 + j;
		row_ptrs[i] = (long *)(uintptr_t)(rows + i * sizeof(rows_host[0]));
		wf[i] = (float)(i + 1);
	}
	CU(D->cuMemcpyHtoD(rows, rows_host, sizeof(rows_host)));
	CU(D->cuMemcpyHtoD(ptrs, row_ptrs, sizeof(row_ptrs)));
	CU(D->cuMemcpyHtoD(w, wf, sizeof(wf)));
	CU(launch(get_function(params, "_Z6gatherPPlPKfS_"), 1, 1, 8, 1, gather_args));
	CU(D->cuMemcpyDtoH(outs, out, sizeof(outs)));
	for (i = 0; i < 8; i++)
		assert_int_equal(outs[i], (i * 10 + i) * (i + 1));

	for (i = 0; i < 64; i++)
		mid[i] = i - 20;
	CU(D->cuMemcpyHtoD(dw, w_l, sizeof(w_l)));
	CU(D->cuMemcpyHtoD(db, b_l, sizeof(b_l)));
	CU(D->cuMemcpyHtoD(dm, mid, sizeof(mid)));
	CU(launch(get_function(params, "_Z28prediction_final_layer_batchPlS_S_S_"), 2, 1, 32, 1,
		  linnos_args));
	CU(D->cuMemcpyDtoH(fin, df, sizeof(fin)));
	for (i = 0; i < 64; i++)
		assert_int_equal(fin[i], mid[i] * w_l[i % 2] + b_l[i % 2]);

	for (i = 0; i < 100; i++) {
		yh[i] = i;
		xh[i] = 2 * i;
	}
	CU(D->cuMemcpyHtoD(dy, yh, sizeof(yh)));
	CU(D->cuMemcpyHtoD(dx, xh, sizeof(xh)));
	CU(launch(get_function(params, "_Z4axpyIdEvPT_PKS0_S0_i"), 4, 1, 32, 1, axpy_args));
	CU(D->cuMemcpyDtoH(yh, dy, sizeof(yh)));
	for (i = 0; i < 100; i++)
		assert_true(yh[i] == i + 0.5 * 2 * i);

	CU(launch(get_function(params, "_Z4noopv"), 3, 1, 7, 1, gather_args));
	CU(D->cuCtxSynchronize());
}

/* block_sum over @blocks blocks of @threads, n a few short of filling them. */
static void block_sum_case(unsigned int blocks, unsigned int threads)
{
	int n = (int)(blocks * threads) - (threads > 4 ? 3 : 0), i;
	size_t bytes = (size_t)blocks * threads * sizeof(long);
	long *in = malloc(bytes), *sums = malloc(blocks * sizeof(long)), want;
	CUdeviceptr din = dev_alloc(bytes), dout = dev_alloc(blocks * sizeof(long));
	void *args[] = { &din, &dout, &n };
	unsigned int b;

	assert_non_null(in);
	assert_non_null(sums);
	for (i = 0; i < n; i++)
		in[i] = (long)i * 7 - 1000;
	CU(D->cuMemcpyHtoD(din, in, (size_t)n * sizeof(long)));
	CU(launch(get_function(barriers, "_Z9block_sumPlS_i"), blocks, 1, threads, 1, args));
	CU(D->cuMemcpyDtoH(sums, dout, blocks * sizeof(long)));
	for (b = 0; b < blocks; b++) {
		want = 0;
		for (i = (int)(b * threads); i < (int)((b + 1) * threads) && i < n; i++)
			want += in[i];
		if (sums[b] != want)
			fail_msg("block_sum <<<%u, %u>>>: block %u summed %ld, not %ld", blocks,
				 threads, b, sums[b], want);
	}
	CU(D->cuMemFree(din));
	CU(D->cuMemFree(dout));
	free(in);
	free(sums);
}

static void test_block_sum_shapes(void **state)
{
	static const unsigned int shapes[][2] = {
		{ 1, 1 }, { 1, 2 }, { 3, 5 }, { 7, 32 }, { 64, 33 }, { 16, 256 }, { 5, 1000 },
		{ 4, 1024 }, { 300, 64 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		block_sum_case(shapes[i][0], shapes[i][1]);
}

/* Every thread sees every other arrive at each barrier, its block's shared memory its own. */
static void test_every_thread_every_barrier(void **state)
{
	static const unsigned int shapes[][2] = { { 1, 1 }, { 2, 7 }, { 24, 128 }, { 6, 1024 } };
	unsigned int s, i, n;
	int rounds = 3, *full;
	CUdeviceptr dfull;
	void *args[] = { &dfull, &rounds };

	(void)state;
	for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		n = shapes[s][0] * shapes[s][1];
		full = malloc(n * sizeof(int));
		assert_non_null(full);
		dfull = dev_alloc(n * sizeof(int));
		CU(launch(get_function(barriers, "_Z14barrier_roundsPii"), shapes[s][0], 1,
			  shapes[s][1], 1, args));
		CU(D->cuMemcpyDtoH(full, dfull, n * sizeof(int)));
		for (i = 0; i < n; i++)
			if (full[i] != rounds)
				fail_msg("<<<%u, %u>>>: thread %u saw its block whole in %d of %d rounds",
					 shapes[s][0], shapes[s][1], i, full[i], rounds);
		CU(D->cuMemFree(dfull));
		free(full);
	}
}

static void grid2d_case(unsigned int gx, unsigned int gy, unsigned int bx, unsigned int by)
{
	int width = (int)(gx * bx) - 1, height = (int)(gy * by);
	size_t cells = (size_t)width * height;
	unsigned int *got = malloc(cells * sizeof(*got)), x, y, want;
	CUdeviceptr out = dev_alloc(cells * sizeof(*got) + 4);
	void *args[] = { &out, &width, &height };

	assert_non_null(got);
	CU(launch(get_function(grid, "_Z6grid2dPjii"), gx, gy, bx, by, args));
	CU(D->cuMemcpyDtoH(got, out, cells * sizeof(*got)));
	for (y = 0; y < (unsigned int)height; y++) {
		for (x = 0; x < (unsigned int)width; x++) {
			want = x / bx | (y / by) << 8 | (x % bx) << 16 | (y % by) << 24;
			if (got[y * width + x] != want)
				fail_msg("grid2d <<<(%u,%u), (%u,%u)>>>: (%u,%u) = %#x, not %#x", gx,
					 gy, bx, by, x, y, got[y * width + x], want);
		}
	}
	CU(D->cuMemFree(out));
	free(got);
}

static void test_2d(void **state)
{
	enum { W = 64 };
	static float in[W * W], out[W * W];
	CUdeviceptr din = dev_alloc(sizeof(in)), dout = dev_alloc(sizeof(out));
	int width = W, i;
	void *args[] = { &din, &dout, &width };

	(void)state;
	grid2d_case(3, 2, 16, 8);
	grid2d_case(1, 1, 32, 32);
	grid2d_case(5, 7, 1, 1);
	grid2d_case(2, 9, 4, 3);
	for (i = 0; i < W * W; i++)
		in[i] = (float)i;
	CU(D->cuMemcpyHtoD(din, in, sizeof(in)));
	CU(launch(get_function(grid, "_Z9transposePKfPfi"), W / 16, W / 16, 16, 16, args));
	CU(D->cuMemcpyDtoH(out, dout, sizeof(out)));
	for (i = 0; i < W * W; i++)
		assert_true(out[i] == in[(i % W) * W + i / W]);
}

/* After a failed launch the context is usable: the next launch runs. */
static void check_good_launch(void)
{
	block_sum_case(3, 64);
}

static void test_divergent_barrier_fails(void **state)
{
	CUdeviceptr out = dev_alloc(1024 * sizeof(int));
	int n = 100, ones[64];
	void *args[] = { &out, &n };
	void *late_args[] = { &out };
	int i;

	(void)state;
	CU(launch(get_function(faults, "_Z9divergentPii"), 2, 1, 64, 1, args));
	assert_int_equal(D->cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
	assert_true(warned_of("wait at __syncthreads()"));
	CU(D->cuCtxSynchronize());
	check_good_launch();

	/* Every thread in range: the same kernel is fine. */
	n = 128;
	CU(launch(get_function(faults, "_Z9divergentPii"), 2, 1, 64, 1, args));
	CU(D->cuCtxSynchronize());
	assert_false(warned_of("__syncthreads"));

	CU(launch(get_function(faults, "_Z14late_divergentPi"), 4, 1, 1024, 1, late_args));
	assert_int_equal(D->cuStreamSynchronize(NULL), CUDA_ERROR_LAUNCH_FAILED);
	assert_true(warned_of("wait at __syncthreads()"));

	/* One thread alone is never divergent. */
	CU(D->cuMemsetD8(out, 0, 64 * sizeof(int)));
	CU(launch(get_function(faults, "_Z14late_divergentPi"), 1, 1, 1, 1, late_args));
	CU(D->cuCtxSynchronize());
	CU(D->cuMemcpyDtoH(ones, out, sizeof(ones)));
	for (i = 0; i < 64; i++)
		assert_int_equal(ones[i], 0);
	check_good_launch();
}

static void test_trap_fails(void **state)
{
	CUdeviceptr out = dev_alloc(8 * 64 * sizeof(int));
	int block = 3, at = 5, ones[8 * 64], i;
	void *args[] = { &out, &block, &at };

	(void)state;
	CU(launch(get_function(faults, "_Z7trap_atPiii"), 8, 1, 64, 1, args));
	assert_int_equal(D->cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
	assert_true(warned_of("__trap()"));
	CU(D->cuCtxSynchronize());
	check_good_launch();

	block = 0;
	at = 0;
	CU(launch(get_function(faults, "_Z7trap_atPiii"), 1, 1, 1024, 1, args));
	assert_int_equal(D->cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);

	block = -1;
	CU(launch(get_function(faults, "_Z7trap_atPiii"), 8, 1, 64, 1, args));
	CU(D->cuCtxSynchronize());
	CU(D->cuMemcpyDtoH(ones, out, sizeof(ones)));
	for (i = 0; i < 8 * 64; i++)
		assert_int_equal(ones[i], 1);
}

static void test_atomics_across_blocks(void **state)
{
	struct {
		int i;
		unsigned int u;
		unsigned long long ull;
		float f;
		double d;
	} got;
	CUdeviceptr base = dev_alloc(sizeof(got)), pi = base, pu = base + 4, pull = base + 8;
	CUdeviceptr pf = base + 16, pd = base + 24;
	void *args[] = { &pi, &pu, &pull, &pf, &pd };
	unsigned int blocks = 64, threads = 256, total = blocks * threads;

	(void)state;
	assert_int_equal(offsetof(typeof(got), d), 24);
	CU(D->cuMemsetD8(base, 0, sizeof(got)));
	CU(launch(get_function(atomics, "_Z9count_allPiPjPyPfPd"), blocks, 1, threads, 1, args));
	CU(D->cuMemcpyDtoH(&got, base, sizeof(got)));
	assert_int_equal(got.i, total);
	assert_int_equal(got.u, total);
	assert_int_equal(got.ull, total);
	assert_true(got.f == (float)total);
	assert_true(got.d == (double)total);
}

/* A C kernel (lake/kernel.h) in the same device, its descriptor path unchanged. */
static void test_c_kernels_unaffected(void **state)
{
	static float a[256], b[256], c[256];
	CUmodule mod = load_cubin("vadd");
	CUdeviceptr da = dev_alloc(sizeof(a)), db = dev_alloc(sizeof(b)), dc = dev_alloc(sizeof(c));
	static const size_t off[] = { 0, 8, 16, 24 }, size[] = { 8, 8, 8, 4 };
	CUfunction vadd = get_function(mod, "vadd");
	int n = 256, i;
	void *args[] = { &da, &db, &dc, &n };

	(void)state;
	check_layout(vadd, off, size, 4);
	for (i = 0; i < n; i++) {
		a[i] = (float)i;
		b[i] = (float)(2 * i);
	}
	CU(D->cuMemcpyHtoD(da, a, sizeof(a)));
	CU(D->cuMemcpyHtoD(db, b, sizeof(b)));
	CU(launch(vadd, 2, 1, 128, 1, args));
	block_sum_case(2, 128);
	CU(D->cuMemcpyDtoH(c, dc, sizeof(c)));
	for (i = 0; i < n; i++)
		assert_true(c[i] == 3.0f * (float)i);
	CU(D->cuModuleUnload(mod));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_layouts),
		T(test_refusals),
		T(test_echo_and_substitutions),
		T(test_pointers_and_templates),
		T(test_block_sum_shapes),
		T(test_every_thread_every_barrier),
		T(test_2d),
		T(test_divergent_barrier_fails),
		T(test_trap_fails),
		T(test_atomics_across_blocks),
		T(test_c_kernels_unaffected),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
