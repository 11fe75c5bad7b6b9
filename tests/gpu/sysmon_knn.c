// SPDX-License-Identifier: GPL-2.0
/*
 * sysmon_knn: examples/sysmon's kNN kernels (knn.cu) on a real GPU against
 * the module's CPU side (ref.c's sysmon_score_batch), over the shipped
 * reference. The GPU side is the module's (examples/sysmon/gpu.c): the
 * reference uploaded once, then per batch the windows copied in,
 * sysmon_dist (a thread per window and reference window) and sysmon_topk
 * (a thread per window), the scores copied back, one stream synchronize.
 * Batch 1 to 256, the fastest of 5 runs each after one untimed run; every
 * GPU batch's scores must equal the CPU's ("ok - gpu.sysmon_scores").
 *
 * usage: sysmon_knn [--host] KERNELDIR REFERENCE
 * --host runs the host device in place of the driver (sysmon_knn.so), so
 * the program itself is tested where there is no GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "laked/driver.h"
#include "examples/sysmon/ref.h"

#define MAXV	256
#define ROUNDS	5
#define BLOCK	256

static struct lake_driver *d;
static CUfunction fdist, ftopk;
static CUstream stream;
static CUdeviceptr drefs, dq, dd2, dscore;

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static CUresult gpu_batch(const struct sysmon_ref *rf, const u16 *q, u32 n, u32 *out)
{
	int nq = n, cnt = rf->count, k = rf->k;
	void *pd[] = { &dq, &drefs, &dd2, &nq, &cnt };
	void *pt[] = { &dd2, &dscore, &nq, &cnt, &k };
	u64 threads = (u64)n * rf->count;
	CUresult r;

	r = d->cuMemcpyHtoDAsync(dq, q, (size_t)n * SYSMON_DIMS * sizeof(u16), stream);
	if (!r)
		r = d->cuLaunchKernel(fdist, (threads + BLOCK - 1) / BLOCK, 1, 1, BLOCK, 1, 1, 0,
				      stream, pd, NULL);
	if (!r)
		r = d->cuLaunchKernel(ftopk, (n + 63) / 64, 1, 1, 64, 1, 1, 0, stream, pt, NULL);
	if (!r)
		r = d->cuMemcpyDtoHAsync(out, dscore, n * sizeof(u32), stream);
	return r ? r : d->cuStreamSynchronize(stream);
}

static void *read_file(const char *path, size_t *len)
{
	size_t cap = SYSMON_REF_HDR + (size_t)SYSMON_REF_MAX * SYSMON_DIMS * 2 + 1;
	FILE *f = fopen(path, "rb");
	void *buf = malloc(cap);

	*len = f && buf ? fread(buf, 1, cap, f) : 0;
	if (f)
		fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	static u16 q[MAXV * SYSMON_DIMS];
	static u32 cpu[MAXV], gpu[MAXV];
	bool host = argc > 1 && !strcmp(argv[1], "--host");
	const char *why = "?";
	struct sysmon_ref *rf;
	char path[4096];
	u64 t, best_c, best_g;
	u32 n, i, j, cross = 0, *d2;
	int r, k, bad = 0;
	size_t len;
	CUcontext ctx;
	CUmodule mod;
	void *buf;

	if (argc != 3 + host) {
		fprintf(stderr, "usage: sysmon_knn [--host] KERNELDIR REFERENCE\n");
		return 2;
	}
	buf = read_file(argv[2 + host], &len);
	if (sysmon_ref_parse(buf, len, &rf, &why)) {
		fprintf(stderr, "sysmon_knn: %s: %s\n", argv[2 + host], why);
		return 2;
	}
	free(buf);
	if (host ? lake_driver_open_host(&d, NULL) : lake_driver_open_cuda(&d)) {
		fprintf(stderr, "sysmon_knn: %s\n", lake_driver_last_error());
		return 2;
	}
	snprintf(path, sizeof(path), "%s/sysmon_knn.%s", argv[1 + host], host ? "so" : "fatbin");
	len = (size_t)rf->count * SYSMON_DIMS * sizeof(u16);
	r = d->cuInit(0) || d->cuCtxCreate(&ctx, 0, 0) || d->cuModuleLoad(&mod, path) ||
	    d->cuModuleGetFunction(&fdist, mod, "sysmon_dist") ||
	    d->cuModuleGetFunction(&ftopk, mod, "sysmon_topk") ||
	    d->cuStreamCreate(&stream, 0) || d->cuMemAlloc(&drefs, len) ||
	    d->cuMemcpyHtoD(drefs, rf->rows, len) || d->cuMemAlloc(&dq, sizeof(q)) ||
	    d->cuMemAlloc(&dd2, (size_t)MAXV * rf->count * sizeof(u32)) ||
	    d->cuMemAlloc(&dscore, sizeof(gpu));
	if (r) {
		fprintf(stderr, "sysmon_knn: setup failed (%s)\n", path);
		return 2;
	}
	/* Reference windows, shifted (the module's calibration batch): no score is 0. */
	for (i = 0; i < MAXV; i++)
		for (j = 0; j < SYSMON_DIMS; j++) {
			u32 v = rf->rows[(size_t)((i * 7u) % rf->count) * SYSMON_DIMS + j] +
				((i + j) % 5) * 37;

			q[i * SYSMON_DIMS + j] = v > SYSMON_FEAT_MAX ? SYSMON_FEAT_MAX : v;
		}
	d2 = malloc(rf->count * sizeof(u32));
	printf("# sysmon refs %u k %u dims %u\n", rf->count, rf->k, SYSMON_DIMS);
	for (n = 1; n <= MAXV; n *= 2) {
		best_c = best_g = ~0ull;
		for (k = -1; k < ROUNDS; k++) {
			t = now_ns();
			sysmon_score_batch(rf, q, n, d2, cpu);
			t = now_ns() - t;
			if (k >= 0 && t < best_c)
				best_c = t;
			memset(gpu, 0xff, sizeof(gpu));
			t = now_ns();
			if (gpu_batch(rf, q, n, gpu)) {
				printf("not ok - gpu.sysmon_batch: batch %u failed\n", n);
				return 1;
			}
			t = now_ns() - t;
			if (k >= 0 && t < best_g)
				best_g = t;
			bad += memcmp(cpu, gpu, n * sizeof(u32)) != 0;
		}
		printf("# sysmon batch %u cpu_ns %llu gpu_ns %llu\n", n,
		       (unsigned long long)best_c, (unsigned long long)best_g);
		if (!cross && best_g < best_c)
			cross = n;
	}
	if (cross)
		printf("# sysmon crossover %u\n", cross);
	else
		printf("# sysmon crossover never\n");
	printf("%s - gpu.sysmon_scores%s\n", bad ? "not ok" : "ok",
	       bad ? ": GPU and CPU scores differ" : "");
	free(d2);
	d->cuCtxDestroy(ctx);
	lake_driver_close(d);
	sysmon_ref_free(rf);
	return bad ? 1 : 0;
}
