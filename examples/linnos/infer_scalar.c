// SPDX-License-Identifier: GPL-2.0
/*
 * The scalar path: general registers only (the kernel builds it with
 * -mno-sse -mno-avx, like all its C), no FPU section needed, so it runs in
 * any context. It is the reference the SIMD paths and the GPU kernels must
 * match bit for bit; the arithmetic is in infer.h.
 *
 * Zero inputs are skipped: digits are often 0 (leading zeros of small
 * counts) and ReLU zeroes about half of each hidden layer, and skipping a
 * zero term changes no sum. Stack: two 1 KiB activation buffers in two
 * frames (the second only for NN+1 and NN+2) and 256 bytes of sums.
 */
#include "infer.h"

#define CHUNK	32	/* hidden outputs summed per pass over the inputs */

/* Digits above 9 would void the overflow proof; they count as 9. */
static inline s32 digit(u8 x)
{
	return x > 9 ? 9 : x;
}

static void layer0(const struct linnos_layer *l, const u8 *x, s32 *a)
{
	u32 i, j;

	memcpy(a, l->b, sizeof(s32) * LINNOS_HIDDEN);
	for (i = 0; i < LINNOS_INPUTS; i++) {
		const s32 *w = l->w + i * LINNOS_HIDDEN;
		s32 xi = digit(x[i]);

		if (!xi)
			continue;
		for (j = 0; j < LINNOS_HIDDEN; j++)
			a[j] += xi * w[j];
	}
	for (j = 0; j < LINNOS_HIDDEN; j++)
		if (a[j] < 0)
			a[j] = 0;
}

static void hidden(const struct linnos_layer *l, const s32 *a, s32 *out)
{
	s64 sum[CHUNK];
	u32 i, j0, c;

	for (j0 = 0; j0 < LINNOS_HIDDEN; j0 += CHUNK) {
		memset(sum, 0, sizeof(sum));
		for (i = 0; i < LINNOS_HIDDEN; i++) {
			const s32 *w = l->w + i * LINNOS_HIDDEN + j0;
			s64 ai = a[i];

			if (!ai)
				continue;
			for (c = 0; c < CHUNK; c++)
				sum[c] += ai * w[c];
		}
		for (c = 0; c < CHUNK; c++)
			out[j0 + c] = linnos_finish(l->b[j0 + c], sum[c]);
	}
}

/* NN+1 and NN+2: their second buffer lives in this frame only. */
static noinline void hidden_layers(const struct linnos_model *m, s32 *a)
{
	s32 t[LINNOS_HIDDEN];
	u32 l;

	for (l = 1; l + 1 < m->nlayers; l++) {
		hidden(&m->layer[l], a, t);
		memcpy(a, t, sizeof(t));
	}
}

void linnos_output_layer(const struct linnos_layer *l, const s32 *a, s32 *z)
{
	s64 s0 = 0, s1 = 0;
	u32 i;

	for (i = 0; i < LINNOS_HIDDEN; i++) {
		s64 ai = a[i];

		if (!ai)
			continue;
		s0 += ai * l->w[2 * i];
		s1 += ai * l->w[2 * i + 1];
	}
	z[0] = (s32)(l->b[0] + s0 / LINNOS_SCALE);
	z[1] = (s32)(l->b[1] + s1 / LINNOS_SCALE);
}

void linnos_scores_scalar(const struct linnos_model *m, const u8 *in, s32 *z)
{
	s32 a[LINNOS_HIDDEN];

	layer0(&m->layer[0], in, a);
	if (m->nlayers > 2)
		hidden_layers(m, a);
	linnos_output_layer(&m->layer[m->nlayers - 1], a, z);
}
