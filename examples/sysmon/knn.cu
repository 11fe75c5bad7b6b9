// SPDX-License-Identifier: GPL-2.0
/*
 * examples/sysmon's kNN on the GPU: one batch of nq windows against the
 * reference set of count windows. Built by nvcc into sysmon_knn.fatbin for
 * a GPU and by cc into sysmon_knn.so for laked's host device
 * (examples/sysmon/sysmon.mk). The arithmetic is knn.h's, shared with the
 * module's CPU side, so both sides give the same scores.
 *
 *	sysmon_dist	nq * count threads: d2[q][r] = |q - ref r|^2
 *	sysmon_topk	nq threads: score[q] = mean distance to the k nearest
 */
#include <lake/kernel.h>
#include "knn.h"

LAKE_KERNEL(sysmon_dist, SYSMON_DIST_PARAMS)
{
	long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	int v, r;

	if (t >= (long long)nq * count)
		return;
	v = (int)(t / count);
	r = (int)(t % count);
	d2[t] = sysmon_dist2(q + v * SYSMON_DIMS, refs + (long long)r * SYSMON_DIMS);
}

LAKE_KERNEL(sysmon_topk, SYSMON_TOPK_PARAMS)
{
	int v = blockIdx.x * blockDim.x + threadIdx.x;

	if (v >= nq)
		return;
	score[v] = sysmon_score_row(d2 + (long long)v * count, (unsigned int)count,
				    (unsigned int)k);
}
