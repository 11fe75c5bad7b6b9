// SPDX-License-Identifier: GPL-2.0
/*
 * Kernels that need __syncthreads() and __shared__ memory, in plain CUDA
 * C++ as nvcc takes it: the host device builds them with g++ -include
 * lake/cuda_host.h (tests/unit/laked.mk) and runs each block's threads as
 * fibers. Blocks are one-dimensional.
 */

/*
 * out[blockIdx.x] = the sum of the block's slice of in, by the usual tree in
 * shared memory: a thread reads its partner's partial sum only after the
 * barrier that follows its write. Any block size up to 1024 threads.
 */
__global__ void block_sum(long *in, long *out, int n)
{
	__shared__ long partial[1024];
	unsigned int t = threadIdx.x;
	unsigned int i = blockIdx.x * blockDim.x + t;
	unsigned int width;

	partial[t] = i < (unsigned int)n ? in[i] : 0;
	__syncthreads();
	for (width = 1; width < blockDim.x; width *= 2) {
		long mine = partial[t];

		if (t % (2 * width) == 0 && t + width < blockDim.x)
			mine += partial[t + width];
		__syncthreads();
		partial[t] = mine;
		__syncthreads();
	}
	if (t == 0)
		out[blockIdx.x] = partial[0];
}

/*
 * rounds times: every thread counts itself in, then, past a barrier, reads
 * the count. full[global thread] = the rounds in which it saw the whole
 * block arrive; a barrier that lets a thread through early makes it see
 * fewer. owner[] holds the block's index across the rounds: a block running
 * at once on another OS thread must not share it.
 */
__global__ void barrier_rounds(int *full, int rounds)
{
	__shared__ int arrived;
	__shared__ unsigned int owner[1024];
	unsigned int t = threadIdx.x, n = blockDim.x;
	int r, seen = 0;

	owner[t] = blockIdx.x;
	for (r = 0; r < rounds; r++) {
		if (t == 0)
			arrived = 0;
		__syncthreads();
		atomicAdd(&arrived, 1);
		__syncthreads();
		if (arrived == (int)n && owner[(t + r) % n] == blockIdx.x)
			seen++;
		__syncthreads();
	}
	full[blockIdx.x * n + t] = seen;
}
