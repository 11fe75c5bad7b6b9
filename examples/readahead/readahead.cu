// SPDX-License-Identifier: GPL-2.0
/*
 * The readahead model on the GPU: one thread per window (a device's input
 * vector), the whole network in it, since a layer of at most 64 units is
 * less work than a launch. Built by nvcc into readahead.fatbin for a GPU
 * and by cc into readahead.so for laked's host device (readahead.mk).
 *
 * The arithmetic is model.c's ra_infer(), sums in the same s64 with the
 * same truncating divisions, so a GPU batch picks the CPU's classes bit
 * for bit; the module's VM case compares them.
 */
#include <lake/kernel.h>
#include "ra_kernel.h"

#define IN	9		/* RA_INPUTS, model.h */
#define MAXH	64		/* RA_MAX_HIDDEN */
#define ONE	1000		/* RA_ONE */

LAKE_KERNEL(readahead_infer, RA_KERNEL_PARAMS)
{
	int v = blockIdx.x * blockDim.x + threadIdx.x;
	const int *b1 = wb + hidden * IN, *w2 = b1 + hidden, *b2 = w2 + classes * hidden;
	long long h[MAXH], best = 0;
	int i, j, k, c = 0;

	if (v >= n || hidden > MAXH)
		return;
	for (j = 0; j < hidden; j++) {
		long long s = 0;

		for (i = 0; i < IN; i++)
			s += (long long)wb[j * IN + i] * x[v * IN + i];
		s = b1[j] + s / ONE;
		h[j] = s < 0 ? 0 : s;
	}
	for (k = 0; k < classes; k++) {
		long long s = 0;

		for (j = 0; j < hidden; j++)
			s += (long long)w2[k * hidden + j] * h[j];
		s = b2[k] + s / ONE;
		if (!k || s > best) {
			best = s;
			c = k;
		}
	}
#ifdef RA_FORGE_CLASS
	c = RA_FORGE_CLASS;	/* tests only: a hostile laked's reply */
#endif
	cls[v] = (unsigned char)c;
}
