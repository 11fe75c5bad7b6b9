// SPDX-License-Identifier: GPL-2.0
/*
 * What a CUDA C++ kernel's block costs on the host device, against a C
 * kernel's (lake/kernel.h): one block of 256 threads doing vadd's work,
 * launched and synchronized from one thread (a grid of one block runs on
 * the thread that waits for it), as C (tests/kernels/vadd.cu), and as C++
 * without a barrier and with three (tests/kernels/cxx/bench.cu). Each
 * figure is the median of ROUNDS rounds of LAUNCHES launches. A C++ block
 * runs its threads on fibers: one for a kernel without barriers, one per
 * thread past a barrier; a switch there and back, measured alone with the
 * same swapcontext, is what running barrier-free threads off the fiber, on
 * the executor's own stack, would save per block. Each thread is one
 * ffi_call, also measured alone.
 */
#include <ffi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <ucontext.h>
#include <lake/port.h>
#include "laked/driver.h"

#define ROUNDS		31
#define LAUNCHES	200
#define THREADS		256
#define SWITCHES	100000
#define CALLS		1000000

static struct lake_driver *D;

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v)
{
	qsort(v, ROUNDS, sizeof(*v), cmp_double);
	return v[ROUNDS / 2];
}

static void check(CUresult r, const char *what)
{
	if (r != CUDA_SUCCESS) {
		fprintf(stderr, "bench_cxx: %s: CUresult %d (build the host kernels first)\n",
			what, (int)r);
		exit(1);
	}
}

static CUfunction function(const char *stem, const char *name)
{
	const char *dir = getenv("LAKE_KERNEL_DIR");
	char path[512];
	CUmodule mod;
	CUfunction fn;

	snprintf(path, sizeof(path), "%s/%s.cubin", dir ? dir : "build/kernels", stem);
	check(D->cuModuleLoad(&mod, path), path);
	check(D->cuModuleGetFunction(&fn, mod, name), name);
	return fn;
}

/* Microseconds per block of @fn, after checking that it computed vadd. */
static double block_us(CUfunction fn)
{
	static float a[THREADS], b[THREADS], c[THREADS];
	CUdeviceptr da, db, dc;
	double us[ROUNDS];
	int n = THREADS, i, r;
	void *args[] = { &da, &db, &dc, &n };

	check(D->cuMemAlloc(&da, sizeof(a)), "cuMemAlloc");
	check(D->cuMemAlloc(&db, sizeof(b)), "cuMemAlloc");
	check(D->cuMemAlloc(&dc, sizeof(c)), "cuMemAlloc");
	for (i = 0; i < n; i++) {
		a[i] = (float)i;
		b[i] = (float)(3 * i);
	}
	check(D->cuMemcpyHtoD(da, a, sizeof(a)), "cuMemcpyHtoD");
	check(D->cuMemcpyHtoD(db, b, sizeof(b)), "cuMemcpyHtoD");
	for (r = 0; r < ROUNDS; r++) {
		u64 t0 = now_ns();

		for (i = 0; i < LAUNCHES; i++) {
			check(D->cuLaunchKernel(fn, 1, 1, 1, THREADS, 1, 1, 0, NULL, args, NULL),
			      "cuLaunchKernel");
			check(D->cuCtxSynchronize(), "cuCtxSynchronize");
		}
		us[r] = (double)(now_ns() - t0) / LAUNCHES / 1000;
	}
	check(D->cuMemcpyDtoH(c, dc, sizeof(c)), "cuMemcpyDtoH");
	for (i = 0; i < n; i++) {
		if (c[i] != 4.0f * (float)i) {
			fprintf(stderr, "bench_cxx: c[%d] = %g, not %g\n", i, c[i], 4.0 * i);
			exit(1);
		}
	}
	D->cuMemFree(da);
	D->cuMemFree(db);
	D->cuMemFree(dc);
	return median(us);
}

static ucontext_t main_uc, fiber_uc;

static void ping(void)
{
	for (;;)
		swapcontext(&fiber_uc, &main_uc);
}

/* Microseconds per switch to a fiber and back. */
static double switch_us(void)
{
	static char stack[64 * 1024];
	double us[ROUNDS];
	int i, r;

	getcontext(&fiber_uc);
	fiber_uc.uc_stack.ss_sp = stack;
	fiber_uc.uc_stack.ss_size = sizeof(stack);
	makecontext(&fiber_uc, ping, 0);
	for (r = 0; r < ROUNDS; r++) {
		u64 t0 = now_ns();

		for (i = 0; i < SWITCHES / ROUNDS; i++)
			swapcontext(&main_uc, &fiber_uc);
		us[r] = (double)(now_ns() - t0) / (SWITCHES / ROUNDS) / 1000;
	}
	return median(us);
}

static volatile int sink;

static void two_args(int *p, int n)
{
	sink = *p + n;
}

/* Nanoseconds per ffi_call of a function of two arguments: what each C++ thread pays. */
static double ffi_ns(void)
{
	ffi_type *types[] = { &ffi_type_pointer, &ffi_type_sint };
	int x = 1, n = 2, *px = &x, i, r;
	void *args[] = { &px, &n };
	double ns[ROUNDS];
	ffi_cif cif;

	if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 2, &ffi_type_void, types) != FFI_OK)
		exit(1);
	for (r = 0; r < ROUNDS; r++) {
		u64 t0 = now_ns();

		for (i = 0; i < CALLS / ROUNDS; i++)
			ffi_call(&cif, FFI_FN(two_args), NULL, args);
		ns[r] = (double)(now_ns() - t0) / (CALLS / ROUNDS);
	}
	return median(ns);
}

int main(void)
{
	struct lake_host_opts opts = { .mem_bytes = 64 << 20, .workers = 1 };
	double c, none, three, sw;
	CUcontext ctx;

	if (lake_driver_open_host(&D, &opts)) {
		fprintf(stderr, "bench_cxx: %s\n", lake_driver_last_error());
		return 1;
	}
	check(D->cuInit(0), "cuInit");
	check(D->cuCtxCreate(&ctx, 0, 0), "cuCtxCreate");
	c = block_us(function("vadd", "vadd"));
	none = block_us(function("cxx/bench", "_Z4vaddPKfS0_Pfi"));
	three = block_us(function("cxx/bench", "_Z10vadd_sync3PKfS0_Pfi"));
	sw = switch_us();
	printf("C++ kernels on the host device (one block of %d threads, launch + sync, median of %d rounds x %d)\n",
	       THREADS, ROUNDS, LAUNCHES);
	printf("  %-44s %10s\n", "metric", "value");
	printf("  %-44s %10.2f\n", "us per 256-thread block, C kernel", c);
	printf("  %-44s %10.2f\n", "us per 256-thread block, C++, no barrier", none);
	printf("  %-44s %10.2f\n", "us per 256-thread block, C++, 3 barriers", three);
	printf("  %-44s %10.1f\n", "ns per thread, C++ over C", (none - c) * 1000 / THREADS);
	printf("  %-44s %10.1f\n", "ns per thread and barrier, C++", (three - none) * 1000 / THREADS / 3);
	printf("  %-44s %10.3f\n", "us per fiber switch there and back", sw);
	printf("  %-44s %10.1f\n", "ns per ffi_call of two arguments", ffi_ns());
	lake_driver_close(D);
	return 0;
}
