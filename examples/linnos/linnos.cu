// SPDX-License-Identifier: GPL-2.0
/*
 * LinnOS's layers on the GPU, for a batch of n inputs. Built by nvcc into
 * linnos.fatbin (sm_80 and sm_90) for a GPU and by cc into linnos.so for
 * laked's host device (examples/linnos/linnos.mk).
 *
 * Weights are linnos_model_export()'s layout: per layer, s32 [out][in] then
 * biases, the layer starting at linnos_export_offset(). The arithmetic is
 * the CPU paths' (infer.h), sums in a different order: the parser's overflow
 * proof makes every order give the same integers, so a GPU batch agrees bit
 * for bit with the scalar path. A launch is one thread per output value:
 *
 *	linnos_layer0	n * 256 threads: a = relu(b + W x), x the digits
 *	linnos_hidden	n * 256 threads: out = relu(b + (W a) / 1000)
 *	linnos_output	n threads: z = b + (W a) / 1000, slow[v] = z[1] > z[0]
 *
 * NN is layer0 then output; NN+1 and NN+2 put one or two hidden between.
 */
#include <lake/kernel.h>

#define IN	31	/* LINNOS_INPUTS, examples/linnos/model.h */
#define HID	256	/* LINNOS_HIDDEN */
#define SCALE	1000	/* LINNOS_SCALE */

LAKE_KERNEL(linnos_layer0, (const int *, wb), (const unsigned char *, x),
	    (int *, a), (int, n))
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	int v = t / HID, j = t % HID;
	const int *w = wb + j * IN;
	int i, s;

	if (v >= n)
		return;
	s = wb[HID * IN + j];
	for (i = 0; i < IN; i++) {
		int d = x[v * IN + i];

		s += (d > 9 ? 9 : d) * w[i];
	}
	a[v * HID + j] = s > 0 ? s : 0;
}

LAKE_KERNEL(linnos_hidden, (const int *, wb), (const int *, a), (int *, out),
	    (int, n))
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	int v = t / HID, j = t % HID;
	const int *w = wb + j * HID;
	long long s = 0, z;
	int i;

	if (v >= n)
		return;
	for (i = 0; i < HID; i++)
		s += (long long)w[i] * a[v * HID + i];
	z = wb[HID * HID + j] + s / SCALE;
	out[v * HID + j] = z > 0 ? (int)z : 0;
}

LAKE_KERNEL(linnos_output, (const int *, wb), (const int *, a), (int *, z),
	    (unsigned char *, slow), (int, n))
{
	int v = blockIdx.x * blockDim.x + threadIdx.x;
	long long s0 = 0, s1 = 0;
	int i;

	if (v >= n)
		return;
	for (i = 0; i < HID; i++) {
		s0 += (long long)wb[i] * a[v * HID + i];
		s1 += (long long)wb[HID + i] * a[v * HID + i];
	}
	z[2 * v] = (int)(wb[2 * HID] + s0 / SCALE);
	z[2 * v + 1] = (int)(wb[2 * HID + 1] + s1 / SCALE);
	slow[v] = z[2 * v + 1] > z[2 * v];
}
