// SPDX-License-Identifier: GPL-2.0
/*
 * kapi_hello's kernels, plain CUDA C++ as LAKE's modules have them: nvcc
 * builds the cubin, g++ with lake/cuda_host.h the host device's .so, and
 * both name the kernels alike (_Z12hello_kernelPii, ...). It includes the
 * runtime header as LAKE's kernel files do (include/kapi/host for g++).
 */
#include <cuda_runtime.h>

__global__ void hello_kernel(int *inputs, int n)
{
	int id = blockIdx.x * blockDim.x + threadIdx.x;

	if (id < n)
		inputs[id] = id;
}

/* One sum per block of 256 threads: a tree in shared memory, a barrier a level. */
__global__ void block_sum(long *in, long *out, int n)
{
	__shared__ long part[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	part[threadIdx.x] = i < n ? in[i] : 0;
	__syncthreads();
	for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			part[threadIdx.x] += part[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		out[blockIdx.x] = part[0];
}

/* A 2-D grid that covers the width x height matrix exactly. */
__global__ void scale(int *m, unsigned int width, int k)
{
	unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;

	m[y * width + x] *= k;
}
