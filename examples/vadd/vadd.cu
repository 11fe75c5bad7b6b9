// SPDX-License-Identifier: GPL-2.0
/*
 * The example's kernel: c = a + b over n unsigned 32-bit integers, one
 * thread per element. Built by nvcc into example_vadd.cubin for a GPU and
 * by cc into example_vadd.so for laked's host device (examples/vadd/vadd.mk).
 */
#include <lake/kernel.h>
#include "vadd_kernel.h"

LAKE_KERNEL(vadd, VADD_PARAMS)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		c[i] = a[i] + b[i];
}
