// SPDX-License-Identifier: GPL-2.0
/*
 * Kernels of the CPU-fallback VM case: an integer vector add that a kernel
 * module can check bit for bit against its own CPU path, and a busy loop
 * that a second client runs to load the device.
 */
#include <lake/kernel.h>
#include "policy.h"

LAKE_KERNEL(iadd, IADD_PARAMS)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		c[i] = a[i] + b[i];
}

/* iters steps of an LCG per thread: work the compiler cannot fold away. */
LAKE_KERNEL(spin, SPIN_PARAMS)
{
	unsigned int x = blockIdx.x;
	unsigned long long i;

	for (i = 0; i < iters; i++)
		x = x * 1664525u + 1013904223u;
	out[blockIdx.x] = x;
}
