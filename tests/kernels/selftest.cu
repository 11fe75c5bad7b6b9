// SPDX-License-Identifier: GPL-2.0
/*
 * Kernels that probe a device's execution model rather than compute
 * anything: the thread geometry (index3d), the packing of mixed parameter
 * types (mixed), and stream ordering and failure (wait_flag).
 */
#include <lake/kernel.h>
#include "selftest.h"

/*
 * out[2 * k] = linear block id, out[2 * k + 1] = linear thread id in the
 * block, where k is the thread's global linear id: every thread of a 3-D
 * grid of 3-D blocks writes its own pair.
 */
LAKE_KERNEL(index3d, INDEX3D_PARAMS)
{
	unsigned int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
	unsigned int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
	unsigned int k = block * (blockDim.x * blockDim.y * blockDim.z) + thread;

	out[2 * k] = block;
	out[2 * k + 1] = thread;
}

/* Parameters of different sizes and alignments, echoed back through out. */
LAKE_KERNEL(mixed, MIXED_PARAMS)
{
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		out[0] = c;
		out[1] = (long long)d;
		out[2] = s;
		out[3] = (long long)(f * 4.0f);
	}
}

/*
 * Spin until *flag is non-zero, then copy it to *out. A kernel that cannot
 * finish before the host says so makes stream ordering observable. After
 * max_spins iterations it traps instead, which is also how tests make a
 * launch fail.
 */
LAKE_KERNEL(wait_flag, WAIT_FLAG_PARAMS)
{
	unsigned long long spins = 0;

	while (!*flag) {
		if (++spins > max_spins)
			LAKE_TRAP();
	}
	*out = *flag;
}
