/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Weight files for LinnOS's tests, fuzz seeds and benchmark: random float
 * models, their integer (x 1000) weights, and the file that carries them,
 * written independently of model.c (its own CRC, its own layout code).
 */
#ifndef LINNOS_UTIL_H
#define LINNOS_UTIL_H

#include "examples/linnos/model.h"

struct lt_model {
	enum linnos_variant variant;
	u32 nl;
	u32 in[LINNOS_MAX_LAYERS], out[LINNOS_MAX_LAYERS];
	double *w[LINNOS_MAX_LAYERS], *b[LINNOS_MAX_LAYERS];	/* [out][in], [out] */
	s32 *wq[LINNOS_MAX_LAYERS], *bq[LINNOS_MAX_LAYERS];	/* round(x 1000) */
};

u64 lt_rand(u64 *state);
double lt_gauss(u64 *state);
/* Weights N(0, (wscale / sqrt(fan_in))^2), biases N(0, 0.1^2). */
struct lt_model *lt_model_random(enum linnos_variant v, double wscale, u64 seed);
/* After changing w or b: recompute wq and bq. */
void lt_model_quantize(struct lt_model *m);
void lt_model_free(struct lt_model *m);
/* The weight file of m's integer weights; free() it. */
u8 *lt_model_file(const struct lt_model *m, u32 threshold_us, size_t *len);
u32 lt_crc32(const u8 *p, size_t len);
/* Rewrite the CRC field after editing a file. */
void lt_file_fix_crc(u8 *file, size_t len);
/* A plausible input: an encoded history, or (one in 8) random digits. */
void lt_random_input(u8 in[LINNOS_INPUTS], u64 *state);

#endif /* LINNOS_UTIL_H */
