/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the host-device tests: a fresh device per test, a context made
 * current, and the paths of the test kernels (LAKE_KERNEL_DIR, default
 * build/kernels, as built by tests/unit/laked.mk).
 */
#ifndef LAKE_TEST_HOSTDEV_UTIL_H
#define LAKE_TEST_HOSTDEV_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "laked/driver.h"

#define MIB		(1024ULL * 1024)
#define TEST_MEM	(64 * MIB)
#define TEST_WORKERS	2
/* wait_flag's bound: seconds of spinning, so a broken test fails, not hangs */
#define SPIN_FOREVER	20000000000ULL

static struct lake_driver *D;
static CUcontext C;

#define CU(call)	assert_int_equal((call), CUDA_SUCCESS)

static inline int open_device(void **state)
{
	struct lake_host_opts opts = { .mem_bytes = TEST_MEM, .workers = TEST_WORKERS };

	(void)state;
	return lake_driver_open_host(&D, &opts);
}

static inline int open_device_ctx(void **state)
{
	if (open_device(state))
		return -1;
	if (D->cuInit(0) || D->cuCtxCreate(&C, 0, 0))
		return -1;
	return 0;
}

static inline int close_device(void **state)
{
	(void)state;
	lake_driver_close(D);
	D = NULL;
	C = NULL;
	return 0;
}

static inline const char *kernel_path(const char *stem, const char *ext)
{
	static char path[512];
	const char *dir = getenv("LAKE_KERNEL_DIR");

	snprintf(path, sizeof(path), "%s/%s%s", dir ? dir : "build/kernels", stem, ext);
	return path;
}

static inline CUmodule load_module(const char *stem)
{
	CUmodule mod = NULL;
	CUresult r = D->cuModuleLoad(&mod, kernel_path(stem, ".so"));

	if (r != CUDA_SUCCESS)
		fail_msg("cuModuleLoad(%s) = %d: build the test kernels first", kernel_path(stem, ".so"),
			 r);
	return mod;
}

static inline CUfunction get_function(CUmodule mod, const char *name)
{
	CUfunction fn = NULL;

	CU(D->cuModuleGetFunction(&fn, mod, name));
	return fn;
}

static inline CUdeviceptr dev_alloc(size_t bytes)
{
	CUdeviceptr p = 0;

	CU(D->cuMemAlloc(&p, bytes));
	return p;
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static inline double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#endif /* LAKE_TEST_HOSTDEV_UTIL_H */
