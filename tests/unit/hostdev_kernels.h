/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the tests that run kernels: a device with vadd.so and selftest.so
 * loaded, and helpers around wait_flag, the kernel that spins until the host
 * writes a flag, which makes ordering and timing observable without
 * sleeping and hoping.
 */
#ifndef LAKE_TEST_HOSTDEV_KERNELS_H
#define LAKE_TEST_HOSTDEV_KERNELS_H

#include "hostdev_util.h"

static CUmodule vadd_mod, self_mod;
static CUfunction vadd_fn, wait_fn, index_fn, mixed_fn;

static inline int setup(void **state)
{
	if (open_device_ctx(state))
		return -1;
	vadd_mod = load_module("vadd");
	self_mod = load_module("selftest");
	vadd_fn = get_function(vadd_mod, "vadd");
	wait_fn = get_function(self_mod, "wait_flag");
	index_fn = get_function(self_mod, "index3d");
	mixed_fn = get_function(self_mod, "mixed");
	return 0;
}

static inline CUresult launch_wait(CUstream s, CUdeviceptr flag, CUdeviceptr out,
			    unsigned long long spins)
{
	void *args[] = { &flag, &out, &spins };

	return D->cuLaunchKernel(wait_fn, 1, 1, 1, 1, 1, 1, 0, s, args, NULL);
}

/* Writes the flag from a non-blocking stream: waits for nothing else. */
static inline void release_flag(CUdeviceptr flag, int value)
{
	static int v;
	CUstream s;

	v = value;
	CU(D->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CU(D->cuMemcpyHtoDAsync(flag, &v, sizeof(v), s));
	CU(D->cuStreamSynchronize(s));
	CU(D->cuStreamDestroy(s));
}

static inline int read_int(CUdeviceptr p)
{
	int v = -1;

	CU(D->cuMemcpyDtoH(&v, p, sizeof(v)));
	return v;
}

static inline CUdeviceptr zeroed(size_t bytes)
{
	CUdeviceptr p = dev_alloc(bytes);

	CU(D->cuMemsetD8(p, 0, bytes));
	return p;
}

#endif /* LAKE_TEST_HOSTDEV_KERNELS_H */
