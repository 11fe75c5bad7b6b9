// SPDX-License-Identifier: GPL-2.0
/* The AVX2 path (infer_simd.h): 8 lanes; 64 outputs a pass in layer 0, 32 in hidden layers. */
#define VEC_BYTES	32
#define ACC0		8
#define ACC1		4
#define SCORES_FN	linnos_scores_avx2
#include "infer_simd.h"
