// SPDX-License-Identifier: GPL-2.0
/*
 * vadd's work (tests/kernels/vadd.cu) as CUDA C++, for bench/bench_cxx.c:
 * without a barrier, and with three, each thread's sum passing through
 * shared memory to its neighbour and back.
 */
__global__ void vadd(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		c[i] = a[i] + b[i];
}

__global__ void vadd_sync3(const float *a, const float *b, float *c, int n)
{
	__shared__ float s[1024];
	unsigned int t = threadIdx.x, next = (t + 1) % blockDim.x;
	int i = blockIdx.x * blockDim.x + t;
	float v;

	s[t] = i < n ? a[i] + b[i] : 0;
	__syncthreads();
	v = s[next];
	__syncthreads();
	s[next] = v;
	__syncthreads();
	if (i < n)
		c[i] = s[t];
}
