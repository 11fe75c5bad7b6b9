// SPDX-License-Identifier: GPL-2.0
/*
 * Kernels that must fail the launch on the host device rather than hang it
 * or run on: a barrier that not every thread reaches, and __trap().
 */

/* The common mistake: threads past n return before a barrier the rest wait at. */
__global__ void divergent(int *out, int n)
{
	__shared__ int s[1024];
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	s[threadIdx.x] = i;
	__syncthreads();
	out[i] = s[(threadIdx.x + 1) % blockDim.x];
}

/* Thread 0 of every block leaves between two barriers. */
__global__ void late_divergent(int *out)
{
	__syncthreads();
	if (threadIdx.x == 0)
		return;
	__syncthreads();
	out[threadIdx.x] = 1;
}

/* Thread `at` of block `block` traps, after a barrier; the others write 1. */
__global__ void trap_at(int *out, int block, int at)
{
	__syncthreads();
	if (blockIdx.x == (unsigned int)block && threadIdx.x == (unsigned int)at)
		__trap();
	out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}
