// SPDX-License-Identifier: GPL-2.0
/*
 * LinnOS's CPU inference as the module runs it: model.c and infer_*.c
 * built with the kernel's code-generation flags (bench/linnos.mk: no
 * vector registers outside the SIMD files, no red zone, no PIC, zeroed
 * stack variables, 8-byte stack alignment), on the shipped weights and
 * plausible inputs. One inference per call of linnos_infer_batch_on() (in
 * the kernel that call also opens and closes its FPU section, which a
 * host build does not pay). First checks that every path gives the scalar
 * path's answers in this build. Prints the median ns per inference of 5 rounds,
 * in thread CPU time (the build machine is shared)
 * for each variant and each path this CPU has.
 */
#include <stdio.h>
#include <time.h>

#include "tests/unit/linnos_util.h"

#define INPUTS	4096
#define ROUNDS	5

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static struct linnos_model *load(const char *path)
{
	struct linnos_model *m;
	const char *why;
	FILE *f = fopen(path, "rb");
	static u8 buf[LINNOS_MODEL_MAX_BYTES];
	size_t len;

	if (!f) {
		perror(path);
		exit(1);
	}
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (linnos_model_parse(buf, len, &m, &why)) {
		fprintf(stderr, "%s: %s\n", path, why);
		exit(1);
	}
	return m;
}

static double bench(const struct linnos_model *m, enum linnos_path p, const u8 *in,
		    u32 count, u32 *slow)
{
	double per[ROUNDS];
	u32 r, i;
	u8 out;

	for (r = 0; r < ROUNDS; r++) {
		u64 t0 = now_ns();

		*slow = 0;
		for (i = 0; i < count; i++) {
			linnos_infer_batch_on(m, p, in + (size_t)(i % INPUTS) * LINNOS_INPUTS, 1, &out);
			*slow += out;
		}
		per[r] = (double)(now_ns() - t0) / count;
	}
	qsort(per, ROUNDS, sizeof(per[0]), cmp);
	return per[ROUNDS / 2];
}

int main(void)
{
	static const char *const files[] = {
		"examples/linnos/weights/linnos_nn.lnw",
		"examples/linnos/weights/linnos_nn1.lnw",
		"examples/linnos/weights/linnos_nn2.lnw",
	};
	static const char *const names[] = { "NN", "NN+1", "NN+2" };
	/* The targets, NN only (LinnOS reported 4-6 us on its CPU). */
	static const double target[LINNOS_PATH_COUNT] = { 3000, 800, 500 };
	static u8 in[INPUTS * LINNOS_INPUTS];
	u64 s = 7;
	u32 i, v, slow;
	enum linnos_path p;

	for (i = 0; i < INPUTS; i++)
		lt_random_input(in + i * LINNOS_INPUTS, &s);
	printf("%-26s %9s %9s  %s\n", "name", "median_ns", "target_ns", "verdict");
	for (v = 0; v < 3; v++) {
		struct linnos_model *m = load(files[v]);
		static u8 want[INPUTS], got[INPUTS];

		linnos_infer_batch_on(m, LINNOS_PATH_SCALAR, in, INPUTS, want);
		for (p = LINNOS_PATH_AVX2; p < LINNOS_PATH_COUNT; p++) {
			if (!linnos_path_supported(p))
				continue;
			linnos_infer_batch_on(m, p, in, INPUTS, got);
			if (memcmp(want, got, INPUTS)) {
				printf("linnos_%s_%s: differs from scalar\n", names[v],
				       linnos_path_name(p));
				return 1;
			}
		}

		for (p = LINNOS_PATH_SCALAR; p < LINNOS_PATH_COUNT; p++) {
			char name[64];
			double ns;

			snprintf(name, sizeof(name), "linnos_%s_%s", names[v], linnos_path_name(p));
			if (!linnos_path_supported(p)) {
				printf("%-26s %9s %9s  not on this CPU\n", name, "-", "-");
				continue;
			}
			ns = bench(m, p, in, v == 0 ? 40000 : 4000, &slow);
			if (v == 0)
				printf("%-26s %9.1f %9.0f  %s\n", name, ns, target[p],
				       ns <= target[p] ? "pass" : "FAIL");
			else
				printf("%-26s %9.1f %9s  (%u of %u slow)\n", name, ns, "", slow, 4000);
		}
		linnos_model_free(m);
	}
	return 0;
}
