// SPDX-License-Identifier: GPL-2.0
/*
 * linnos_curve: LinnOS's per-batch time on a real GPU against the CPU, the
 * curve `make bench` draws in the guest for laked's host device. The GPU
 * side is the target's (examples/linnos/gpu.c): inputs copied in, the layer
 * kernels of linnos.cu (linnos.fatbin), verdicts copied back, one stream
 * synchronize; the CPU side is linnos_infer_batch. Batch 1 to 256, the
 * fastest of 5 runs each after one untimed run; every GPU batch's verdicts
 * must equal the CPU's, and its scores the scalar path's, bit for bit
 * ("ok - gpu.linnos_verdicts").
 *
 * usage: linnos_curve [--host] KERNELDIR WEIGHTS
 * --host runs the host device in place of the driver (linnos.so), so the
 * program itself is tested where there is no GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "laked/driver.h"
#include "examples/linnos/model.h"

#define MAXV	256
#define ROUNDS	5
#define BLOCK	256

static struct lake_driver *d;
static CUfunction f0, fh, fo;
static CUstream stream;
static CUdeviceptr dw, din, dact[2], dz, dslow;

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static CUresult gpu_batch(const struct linnos_model *m, const u8 *in, u32 n, u8 *slow)
{
	enum linnos_variant v = linnos_model_variant(m);
	CUdeviceptr w = dw, a = dact[0], b = dact[1], t;
	int nn = n;
	void *p0[] = { &w, &din, &a, &nn };
	void *ph[] = { &w, &a, &b, &nn };
	void *po[] = { &w, &a, &dz, &dslow, &nn };
	u32 l, layers = linnos_layers(v);
	CUresult r;

	r = d->cuMemcpyHtoDAsync(din, in, n * LINNOS_INPUTS, stream);
	if (!r)
		r = d->cuLaunchKernel(f0, (n * LINNOS_HIDDEN + BLOCK - 1) / BLOCK, 1, 1, BLOCK, 1, 1,
				      0, stream, p0, NULL);
	for (l = 1; l + 1 < layers && !r; l++) {
		w = dw + linnos_export_offset(v, l) * sizeof(s32);
		r = d->cuLaunchKernel(fh, (n * LINNOS_HIDDEN + BLOCK - 1) / BLOCK, 1, 1, BLOCK, 1,
				      1, 0, stream, ph, NULL);
		t = a;
		a = b;
		b = t;
	}
	w = dw + linnos_export_offset(v, layers - 1) * sizeof(s32);
	if (!r)
		r = d->cuLaunchKernel(fo, (n + BLOCK - 1) / BLOCK, 1, 1, BLOCK, 1, 1, 0, stream,
				      po, NULL);
	if (!r)
		r = d->cuMemcpyDtoHAsync(slow, dslow, n, stream);
	return r ? r : d->cuStreamSynchronize(stream);
}

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	void *buf = malloc(LINNOS_MODEL_MAX_BYTES + 1);

	*len = f && buf ? fread(buf, 1, LINNOS_MODEL_MAX_BYTES + 1, f) : 0;
	if (f)
		fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	static u8 in[MAXV * LINNOS_INPUTS], cpu[MAXV], gpu[MAXV];
	static s32 z[MAXV * LINNOS_OUTPUTS], zc[LINNOS_OUTPUTS];
	bool host = argc > 1 && !strcmp(argv[1], "--host");
	const char *why = "?";
	struct linnos_model *m;
	char path[4096];
	u64 t, best_c, best_g;
	u32 n, i, cross = 0;
	int r, k, bad = 0;
	size_t len, wbytes;
	CUcontext ctx;
	CUmodule mod;
	void *buf, *wb;

	if (argc != 3 + host) {
		fprintf(stderr, "usage: linnos_curve [--host] KERNELDIR WEIGHTS\n");
		return 2;
	}
	buf = read_file(argv[2 + host], &len);
	if (linnos_model_parse(buf, len, &m, &why)) {
		fprintf(stderr, "linnos_curve: %s: %s\n", argv[2 + host], why);
		return 2;
	}
	free(buf);
	if (host ? lake_driver_open_host(&d, NULL) : lake_driver_open_cuda(&d)) {
		fprintf(stderr, "linnos_curve: %s\n", lake_driver_last_error());
		return 2;
	}
	snprintf(path, sizeof(path), "%s/linnos.%s", argv[1 + host], host ? "so" : "fatbin");
	wbytes = linnos_model_export(m, NULL, 0);
	wb = malloc(wbytes);
	linnos_model_export(m, wb, wbytes);
	r = d->cuInit(0) || d->cuCtxCreate(&ctx, 0, 0) || d->cuModuleLoad(&mod, path) ||
	    d->cuModuleGetFunction(&f0, mod, "linnos_layer0") ||
	    d->cuModuleGetFunction(&fh, mod, "linnos_hidden") ||
	    d->cuModuleGetFunction(&fo, mod, "linnos_output") ||
	    d->cuStreamCreate(&stream, 0) || d->cuMemAlloc(&dw, wbytes) ||
	    d->cuMemcpyHtoD(dw, wb, wbytes) || d->cuMemAlloc(&din, sizeof(in)) ||
	    d->cuMemAlloc(&dact[0], MAXV * LINNOS_HIDDEN * 4) ||
	    d->cuMemAlloc(&dact[1], MAXV * LINNOS_HIDDEN * 4) ||
	    d->cuMemAlloc(&dz, MAXV * LINNOS_OUTPUTS * 4) || d->cuMemAlloc(&dslow, MAXV);
	free(wb);
	if (r) {
		fprintf(stderr, "linnos_curve: setup failed (%s)\n", path);
		return 2;
	}
	srand(1);
	for (i = 0; i < sizeof(in); i++)
		in[i] = rand() % 10;
	for (n = 1; n <= MAXV; n *= 2) {
		best_c = best_g = ~0ull;
		for (k = -1; k < ROUNDS; k++) {
			t = now_ns();
			linnos_infer_batch(m, in, n, cpu);
			t = now_ns() - t;
			if (k >= 0 && t < best_c)
				best_c = t;
			t = now_ns();
			if (gpu_batch(m, in, n, gpu)) {
				printf("not ok - gpu.linnos_batch: batch %u failed\n", n);
				return 1;
			}
			t = now_ns() - t;
			if (k >= 0 && t < best_g)
				best_g = t;
			bad += memcmp(cpu, gpu, n) != 0;
		}
		if (d->cuMemcpyDtoH(z, dz, n * sizeof(zc))) {
			printf("not ok - gpu.linnos_scores: copy failed\n");
			return 1;
		}
		for (i = 0; i < n; i++) {
			linnos_infer_scores(m, LINNOS_PATH_SCALAR, in + i * LINNOS_INPUTS, zc);
			bad += memcmp(zc, z + i * LINNOS_OUTPUTS, sizeof(zc)) != 0;
		}
		printf("# linnos batch %u cpu_ns %llu gpu_ns %llu\n", n,
		       (unsigned long long)best_c, (unsigned long long)best_g);
		if (!cross && best_g < best_c)
			cross = n;
	}
	if (cross)
		printf("# linnos crossover %u\n", cross);
	else
		printf("# linnos crossover never\n");
	printf("%s - gpu.linnos_verdicts%s\n", bad ? "not ok" : "ok",
	       bad ? ": GPU and CPU verdicts or scores differ" : "");
	d->cuCtxDestroy(ctx);
	lake_driver_close(d);
	linnos_model_free(m);
	return bad ? 1 : 0;
}
