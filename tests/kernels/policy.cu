// SPDX-License-Identifier: GPL-2.0
/*
 * Kernels of the CPU-fallback VM case: an integer vector add that a kernel
 * module can check bit for bit against its own CPU path, and a busy wait
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

/*
 * Each block spins until *flag is non-zero: the device stays fully busy for
 * as long as the second client wants, however fast the host runs. After
 * max_spins iterations a block gives up, so a lost client cannot hold the
 * device for ever.
 */
LAKE_KERNEL(hold, HOLD_PARAMS)
{
	unsigned long long spins = 0;

	while (!*flag && spins < max_spins)
		spins++;
}
