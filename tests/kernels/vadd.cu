// SPDX-License-Identifier: GPL-2.0
/*
 * Vector add, c = a + b, one thread per element: the first kernel built both
 * by nvcc (vadd.cubin) and by cc (vadd.so, for laked's host device).
 */
#include <lake/kernel.h>
#include "vadd.h"

LAKE_KERNEL(vadd, VADD_PARAMS)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		c[i] = a[i] + b[i];
}
