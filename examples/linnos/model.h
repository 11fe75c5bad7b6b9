/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LinnOS's model, portable: the weight-file format, its parser, feature
 * encoding and integer inference. Includes only lake/port.h, so the host
 * tests, fuzzer and benchmark run the very code the module builds.
 *
 * Interface agreed between the model core (model.c, infer_*.c) and the
 * device-mapper target (dm-linnos.c); change both sides together.
 */
#ifndef LINNOS_MODEL_H
#define LINNOS_MODEL_H

#include <lake/port.h>

#define LINNOS_INPUTS		31	/* one decimal digit each */
#define LINNOS_HIDDEN		256
#define LINNOS_OUTPUTS		2	/* slow when out[1] > out[0] */
#define LINNOS_HISTORY		4	/* completed reads remembered */
#define LINNOS_PENDING_CAP	999
#define LINNOS_LATENCY_CAP	9999	/* us */

/* Weights and biases are float x LINNOS_SCALE, rounded to integers. */
#define LINNOS_SCALE		1000
/* Largest |weight| or |bias| a file may hold (float 8388.607). */
#define LINNOS_PARAM_MAX	((1 << 23) - 1)
#define LINNOS_MAX_LAYERS	4
/* A weight file is never larger than this (NN+2 is 561,224 bytes). */
#define LINNOS_MODEL_MAX_BYTES	(1u << 20)

enum linnos_variant {
	LINNOS_NN = 0,		/* 31 -> 256 -> 2 */
	LINNOS_NN1 = 1,		/* one more 256x256 hidden layer */
	LINNOS_NN2 = 2,		/* two more */
};

/* What the target knows about one device when a read is issued. */
struct linnos_history {
	u32 latency_us[LINNOS_HISTORY];	/* [0] = most recent completed read */
	u32 pending_at_issue[LINNOS_HISTORY];
};

struct linnos_model;	/* parsed, validated weights; opaque */

/*
 * Parse and validate a weight file (format in model.c's head comment).
 * Returns 0 and a new model, or -EINVAL/-ENOMEM with *why set to a static
 * human-readable reason (truncated, bad magic, bad version, variant or
 * layer-size mismatch, bad checksum, trailing bytes, ...).
 */
int linnos_model_parse(const void *buf, size_t len, struct linnos_model **out,
		       const char **why);
/*
 * A parsed model holds one reference, its owner's. linnos_model_get() adds
 * one for a user that outlives the owner's hold (the GPU batch, whose RPC
 * may outlast a swap); linnos_model_free() drops one and frees the model
 * with the last. Concurrent gets and frees are safe; a get needs a
 * reference or an RCU read section that saw the model published.
 */
void linnos_model_get(struct linnos_model *m);
void linnos_model_free(struct linnos_model *m);
enum linnos_variant linnos_model_variant(const struct linnos_model *m);
/* The slow threshold (us) the model was trained with; never 0. */
u32 linnos_model_threshold_us(const struct linnos_model *m);

/*
 * The 31 input digits for a read issued with @pending reads outstanding,
 * most significant digit first: in[0..2] @pending (capped at 999); then for
 * each history entry k = 0..3 (0 newest), in[3 + 7k .. 3 + 7k + 3] its
 * latency in us (capped at 9999) and in[3 + 7k + 4 .. 3 + 7k + 6] its
 * pending count at issue (capped at 999).
 */
void linnos_encode(const struct linnos_history *h, u32 pending, u8 in[LINNOS_INPUTS]);

/* Scalar integer inference: 1 when predicted slow, else 0. No FPU. */
int linnos_infer_scalar(const struct linnos_model *m, const u8 in[LINNOS_INPUTS]);

/*
 * Batched inference on the best CPU path available (AVX-512, AVX2 or
 * scalar, chosen at run time; SIMD inside kernel_fpu_begin/end in the
 * kernel). Results are bit-identical to linnos_infer_scalar.
 * out[i] = 1 slow / 0 fast for in[i * LINNOS_INPUTS ...].
 */
void linnos_infer_batch(const struct linnos_model *m, const u8 *in, u32 n, u8 *out);

/* The CPU paths, for tests, the benchmark and status files. */
enum linnos_path {
	LINNOS_PATH_SCALAR,
	LINNOS_PATH_AVX2,
	LINNOS_PATH_AVX512,
	LINNOS_PATH_COUNT,
};

bool linnos_path_supported(enum linnos_path p);
enum linnos_path linnos_path_best(void);
const char *linnos_path_name(enum linnos_path p);
/* linnos_infer_batch on path @p, which must be supported. */
void linnos_infer_batch_on(const struct linnos_model *m, enum linnos_path p,
			   const u8 *in, u32 n, u8 *out);
/* The two output scores of one input on path @p (slow when z[1] > z[0]). */
void linnos_infer_scores(const struct linnos_model *m, enum linnos_path p,
			 const u8 in[LINNOS_INPUTS], s32 z[LINNOS_OUTPUTS]);

/*
 * The device-side layout: the weights as the GPU kernels in linnos.cu take
 * them (one contiguous s32 array per layer: weights row-major [out][in],
 * then biases), for copying into device memory once per model.
 * Returns the number of bytes written to @dst (or needed, when dst is NULL).
 * Layer l starts linnos_export_offset(variant, l) s32 elements in; a @cap
 * too small writes nothing and returns 0.
 */
size_t linnos_model_export(const struct linnos_model *m, void *dst, size_t cap);
size_t linnos_export_offset(enum linnos_variant v, u32 layer);
/* Number of weight layers: 2 for NN, 3 for NN+1, 4 for NN+2. */
static inline u32 linnos_layers(enum linnos_variant v)
{
	return 2 + (u32)v;
}

#endif /* LINNOS_MODEL_H */
