// SPDX-License-Identifier: GPL-2.0
/* The AVX-512 path (infer_simd.h): 16 lanes; all 256 outputs a pass in layer 0, 128 in hidden layers. */
#define VEC_BYTES	64
#define ACC0		16
#define ACC1		8
#define SCORES_FN	linnos_scores_avx512
#include "infer_simd.h"
