/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the model core: the parsed model as the inference paths read it,
 * and the entry point of each path. Not for the target.
 *
 * Arithmetic, the same on every path and on the GPU (linnos.cu):
 *	layer 0:	z = b + sum_i w_i * x_i		(x the 31 digits)
 *	layer l > 0:	z = b + (sum_i w_i * a_i) / LINNOS_SCALE
 * with a = max(z, 0) feeding the next layer, C's truncating division, and
 * slow when z[1] > z[0] at the output. The parser proves by interval
 * arithmetic, over every input of digits 0..9, that each z fits in s32, that
 * layer 0's sum fits in s32 at every partial step when it starts from b,
 * and (from |w| <= LINNOS_PARAM_MAX < 2^23, a < 2^31, at most 256 terms)
 * that the later layers' sums fit in s64: no path can overflow, so integer
 * paths agree bit for bit whatever their order of summation.
 */
#ifndef LINNOS_INFER_H
#define LINNOS_INFER_H

#include "model.h"

#ifndef noinline
#define noinline	__attribute__((__noinline__))
#endif

struct linnos_layer {
	u32 in, out;
	const s32 *w;		/* [in][out]: one input's weights are contiguous */
	const s32 *b;		/* [out] */
};

/*
 * Layer 0 again for the scalar path, two outputs per 64-bit word: word k
 * of row i is w[i][2k] + w[i][2k + 1] * 2^32 (mod 2^64), row 31 the biases.
 * Summed with wrapping u64 arithmetic, a word ends as L + H * 2^32 where L
 * and H are the two outputs' sums; both fit in s32 (the overflow proof),
 * so the low half read as s32 is L and the rest shifted down is H: half
 * the multiply-adds, exactly.
 */
struct linnos_model {
	lake_port_ref ref;
	enum linnos_variant variant;
	u32 nlayers;
	u32 threshold_us;
	struct linnos_layer layer[LINNOS_MAX_LAYERS];
	u64 l0_pairs[LINNOS_INPUTS + 1][LINNOS_HIDDEN / 2];
	s32 data[];		/* the layers' w and b, each padded to 16 elements */
};

/* One input's output scores; SIMD paths must run inside an FPU section. */
void linnos_scores_scalar(const struct linnos_model *m, const u8 *in, s32 *z);
void linnos_scores_avx2(const struct linnos_model *m, const u8 *in, s32 *z);
void linnos_scores_avx512(const struct linnos_model *m, const u8 *in, s32 *z);

/* b + sum / LINNOS_SCALE, clamped at 0 for a hidden layer (the parser's bound). */
static inline s32 linnos_finish(s32 b, s64 sum)
{
	s64 z = b + sum / LINNOS_SCALE;

	return z > 0 ? (s32)z : 0;
}

#endif /* LINNOS_INFER_H */
