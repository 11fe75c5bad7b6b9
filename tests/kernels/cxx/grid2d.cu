// SPDX-License-Identifier: GPL-2.0
/*
 * A 2-D kernel: each thread of a 2-D grid of 2-D blocks writes which block
 * and thread it was into its element of a width x height matrix, and a
 * transposed copy through a shared tile with a barrier between.
 */

#define TILE	16

/* out[y * width + x] = block x | y << 8 | thread x << 16 | thread y << 24 */
__global__ void grid2d(unsigned int *out, int width, int height)
{
	unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;

	if (x < (unsigned int)width && y < (unsigned int)height)
		out[y * width + x] = blockIdx.x | blockIdx.y << 8 | threadIdx.x << 16 |
				     threadIdx.y << 24;
}

/* out = in transposed, for square TILE x TILE blocks; width a multiple of TILE */
__global__ void transpose(const float *in, float *out, int width)
{
	__shared__ float tile[TILE][TILE + 1];
	unsigned int x = blockIdx.x * TILE + threadIdx.x;
	unsigned int y = blockIdx.y * TILE + threadIdx.y;

	tile[threadIdx.y][threadIdx.x] = in[y * width + x];
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	out[y * width + x] = tile[threadIdx.x][threadIdx.y];
}
