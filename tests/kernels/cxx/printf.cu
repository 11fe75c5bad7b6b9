// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel that prints, as kernels do while being debugged: on the host
 * device the line goes to laked's stdout, under its sandbox.
 */
__global__ void say(int n)
{
	if (threadIdx.x == 0)
		printf("say: block %u of %d\n", blockIdx.x, n);
}
