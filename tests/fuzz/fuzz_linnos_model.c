// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for LinnOS's weight-file parser (examples/linnos/
 * model.c). Each input is parsed as it is and again with its CRC field
 * recomputed, so that mutations reach the checks behind the checksum. A
 * third parse builds a well-formed NN file whose weights are the input's
 * bytes scaled up by a power of two the input chooses: these probe the
 * overflow proof's edge. A refusal must come with a reason and no model; an
 * accepted model must export exactly its payload and give the same scores
 * on every CPU path, which an overflow the proof missed would break (the
 * paths wrap differently; UBSan stops the others).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/linnos_util.h"

static void check(int cond)
{
	if (!cond)
		abort();
}

static void try_parse(const u8 *data, size_t size)
{
	struct linnos_model *m = (struct linnos_model *)1;
	const char *why = NULL;
	enum linnos_path p;
	u8 in[LINNOS_INPUTS], *ex;
	s32 z0[2], z[2];
	size_t need, i;
	int ret = linnos_model_parse(data, size, &m, &why);

	if (ret) {
		check(ret == -EINVAL && why && !m);
		return;
	}
	check(m != NULL && size <= LINNOS_MODEL_MAX_BYTES);
	need = linnos_model_export(m, NULL, 0);
	check(need == size - 64);
	ex = malloc(need);
	check(linnos_model_export(m, ex, need) == need);
	check(memcmp(ex, data + 64, need) == 0);
	free(ex);
	/* Inputs from the file's own bytes: all 9s, and some mixes. */
	for (i = 0; i < 4; i++) {
		size_t k;

		for (k = 0; k < LINNOS_INPUTS; k++)
			in[k] = i == 0 ? 9 : data[(64 + i * 131 + k * 7) % size] % 12;
		linnos_infer_scores(m, LINNOS_PATH_SCALAR, in, z0);
		for (p = LINNOS_PATH_AVX2; p < LINNOS_PATH_COUNT; p++) {
			if (!linnos_path_supported(p))
				continue;
			linnos_infer_scores(m, p, in, z);
			check(z[0] == z0[0] && z[1] == z0[1]);
		}
	}
	linnos_model_free(m);
}

static struct lt_model *nn;
static u8 *nn_file;
static size_t nn_len;

static void scaled_weights(const u8 *data, size_t size)
{
	u32 shift = data[0] % 20, l, i, k = 1;

	for (l = 0; l < nn->nl; l++) {
		for (i = 0; i < nn->in[l] * nn->out[l]; i++, k++) {
			s64 w = (s64)(s8)data[k % size] * ((s64)1 << shift);

			nn->wq[l][i] = w > LINNOS_PARAM_MAX ? LINNOS_PARAM_MAX :
				       w < -LINNOS_PARAM_MAX ? -LINNOS_PARAM_MAX : w;
		}
		for (i = 0; i < nn->out[l]; i++, k++)
			nn->bq[l][i] = (s8)data[k % size] * (1 << (shift / 2));
	}
	free(nn_file);
	nn_file = lt_model_file(nn, 500, &nn_len);
	try_parse(nn_file, nn_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u8 *copy;

	if (!nn)
		nn = lt_model_random(LINNOS_NN, 1.0, 1);
	try_parse(data, size);
	if (size < 64)
		return 0;
	copy = malloc(size);
	memcpy(copy, data, size);
	lt_file_fix_crc(copy, size);
	try_parse(copy, size);
	free(copy);
	scaled_weights(data, size);
	return 0;
}
