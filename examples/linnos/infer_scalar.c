// SPDX-License-Identifier: GPL-2.0
/*
 * The scalar path: general registers only (the kernel builds it with
 * -mno-sse -mno-avx, like all its C), no FPU section needed, so it runs in
 * any context. It is the reference the SIMD paths and the GPU kernels must
 * match bit for bit; the arithmetic is in infer.h.
 *
 * Zero inputs are skipped: digits are often 0 (leading zeros of small
 * counts) and ReLU zeroes about half of each hidden layer, and skipping a
 * zero term changes no sum. Layer 0 sums two outputs per 64-bit word
 * (infer.h). Stack: 1 KiB of activations, and 1 KiB more in one callee at
 * a time (layer 0's sums, or NN+1 and NN+2's second buffer).
 */
#include "infer.h"

#define CHUNK	32	/* hidden outputs summed per pass over the inputs */

/* Digits above 9 would void the overflow proof; they count as 9. */
static inline s32 digit(u8 x)
{
	return x > 9 ? 9 : x;
}

/* Layer 0 on the paired weights (infer.h): 128 words for 256 outputs. */
static void layer0(const struct linnos_model *m, const u8 *x, s32 *a)
{
	u64 s[LINNOS_HIDDEN / 2];
	u32 i, k;

	memcpy(s, m->l0_pairs[LINNOS_INPUTS], sizeof(s));
	for (i = 0; i < LINNOS_INPUTS; i++) {
		const u64 *w = m->l0_pairs[i];
		u64 xi = digit(x[i]);

		if (!xi)
			continue;
		for (k = 0; k < LINNOS_HIDDEN / 2; k++)
			s[k] += xi * w[k];
	}
	for (k = 0; k < LINNOS_HIDDEN / 2; k++) {
		s32 lo = (s32)(u32)s[k];
		s32 hi = (s32)(u32)((s[k] - (u64)(s64)lo) >> 32);

		a[2 * k] = lo > 0 ? lo : 0;
		a[2 * k + 1] = hi > 0 ? hi : 0;
	}
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

static void output(const struct linnos_layer *l, const s32 *a, s32 *z)
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

	layer0(m, in, a);
	if (m->nlayers > 2)
		hidden_layers(m, a);
	output(&m->layer[m->nlayers - 1], a, z);
}
