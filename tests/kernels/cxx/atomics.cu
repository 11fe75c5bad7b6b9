// SPDX-License-Identifier: GPL-2.0
/*
 * Every thread of every block adds 1 to each counter: blocks run at once on
 * several OS threads, so only real atomics give the exact totals.
 */
__global__ void count_all(int *i, unsigned int *u, unsigned long long *ull, float *f, double *d)
{
	atomicAdd(i, 1);
	atomicAdd(u, 1u);
	atomicAdd(ull, 1ull);
	atomicAdd(f, 1.0f);
	atomicAdd(d, 1.0);
}
