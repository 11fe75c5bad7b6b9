// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for LinnOS's weight-file parser (examples/linnos/
 * model.c). Each input is parsed as it is and again with its CRC field
 * recomputed, so that mutations reach the checks behind the checksum (value
 * ranges, the overflow proof). A refusal must come with a reason and no
 * model; an accepted model must export exactly its payload and give the
 * same scores on every CPU path (UBSan stops any overflow the proof missed).
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u8 *copy;

	try_parse(data, size);
	if (size < 64)
		return 0;
	copy = malloc(size);
	memcpy(copy, data, size);
	lt_file_fix_crc(copy, size);
	try_parse(copy, size);
	free(copy);
	return 0;
}
