// SPDX-License-Identifier: GPL-2.0
/*
 * readahead_gpu: examples/readahead's kernel (readahead.cu) on a real GPU,
 * as the module launches it (gpu.c: the weights as the file has them, one
 * thread per input vector): the shipped model's check vectors
 * (weights/check.txt, the classes train.py computed) and random inputs in
 * range, each batch's classes against model.c's ra_infer_batch() on the
 * CPU, bit for bit; and the time of one batch (copy in, launch, copy back,
 * synchronize) per batch size.
 *
 * usage: readahead_gpu [--host] KERNELDIR WEIGHTDIR
 * KERNELDIR holds readahead.cubin (tests/gpu/run builds it with nvcc);
 * --host runs laked's host device on readahead.so instead, so the program
 * itself is tested where there is no GPU. WEIGHTDIR holds readahead.lkra
 * and check.txt (examples/readahead/weights).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "laked/driver.h"
#include "examples/readahead/model.h"

#define MAX_N	4096

static struct lake_driver *d;
static CUfunction fn;
static CUstream stream;
static CUdeviceptr dw, dx, dc;
static struct ra_model *m;
static int bad;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void result(int ok, const char *name, const char *why)
{
	printf("%s - gpu.%s%s%s\n", ok ? "ok" : "not ok", name, ok ? "" : ": ", ok ? "" : why);
	bad += !ok;
}

/* One batch as gpu.c sends it: inputs in, one launch, classes out. */
static CUresult batch(const u16 *in, int n, u8 *cls)
{
	int hidden = (int)m->hidden, classes = (int)m->classes;
	void *args[] = { &dw, &hidden, &classes, &dx, &dc, &n };
	CUresult r;

	r = d->cuMemcpyHtoDAsync(dx, in, (size_t)n * RA_INPUTS * sizeof(u16), stream);
	if (!r)
		r = d->cuLaunchKernel(fn, (n + 63) / 64, 1, 1, 64, 1, 1, 0, stream, args, NULL);
	if (!r)
		r = d->cuMemcpyDtoHAsync(cls, dc, (size_t)n, stream);
	return r ? r : d->cuStreamSynchronize(stream);
}

/* n vectors on both sides; the number that differ, or -1 when the GPU failed. */
static int compare(const u16 *in, int n)
{
	static u8 gpu[MAX_N], cpu[MAX_N];
	int i, diff = 0;

	memset(gpu, 0xff, sizeof(gpu));
	if (batch(in, n, gpu))
		return -1;
	ra_infer_batch(m, in, (u32)n, cpu);
	for (i = 0; i < n; i++)
		diff += gpu[i] != cpu[i];
	return diff;
}

static void *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	void *buf = malloc(RA_FILE_MAX + 1);

	if (!fp || !buf) {
		if (fp)
			fclose(fp);
		free(buf);
		return NULL;
	}
	*len = fread(buf, 1, RA_FILE_MAX + 1, fp);
	fclose(fp);
	return buf;
}

/* check.txt: RA_INPUTS inputs and the class, a line each; the rows read. */
static int check_rows(const char *path, u16 *in, u8 *cls)
{
	FILE *fp = fopen(path, "r");
	char line[512];
	int n = 0;

	if (!fp)
		return -1;
	while (n < MAX_N && fgets(line, sizeof(line), fp)) {
		char *p = line, *end;
		unsigned long v;
		int k;

		if (line[0] == '#')
			continue;
		for (k = 0; k <= RA_INPUTS; k++, p = end) {
			v = strtoul(p, &end, 10);
			if (end == p)
				break;
			if (k < RA_INPUTS)
				in[n * RA_INPUTS + k] = (u16)v;
			else
				cls[n] = (u8)v;
		}
		if (k <= RA_INPUTS) {
			fclose(fp);
			return -1;
		}
		n++;
	}
	fclose(fp);
	return n;
}

int main(int argc, char **argv)
{
	static const int sizes[] = { 1, 16, 256, 4096 };
	static u16 in[MAX_N * RA_INPUTS];
	static u8 want[MAX_N], got[MAX_N];
	int host = argc > 1 && !strcmp(argv[1], "--host"), i, n, s, k, diff;
	unsigned long long t, best;
	const char *why;
	char path[4096];
	CUcontext ctx;
	CUmodule mod;
	size_t len;
	void *buf;

	if (argc != 3 + host) {
		fprintf(stderr, "usage: readahead_gpu [--host] KERNELDIR WEIGHTDIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/readahead.lkra", argv[2 + host]);
	buf = slurp(path, &len);
	if (!buf || ra_model_parse(buf, len, &m, &why)) {
		fprintf(stderr, "readahead_gpu: %s: %s\n", path, buf ? why : "cannot read");
		return 2;
	}
	free(buf);
	if (host ? lake_driver_open_host(&d, NULL) : lake_driver_open_cuda(&d)) {
		fprintf(stderr, "readahead_gpu: %s\n", lake_driver_last_error());
		return 2;
	}
	if (d->cuInit(0) || d->cuCtxCreate(&ctx, 0, 0) || d->cuStreamCreate(&stream, 0) ||
	    d->cuMemAlloc(&dw, m->nr_params * sizeof(s32)) ||
	    d->cuMemAlloc(&dx, sizeof(in)) || d->cuMemAlloc(&dc, MAX_N) ||
	    d->cuMemcpyHtoD(dw, m->params, m->nr_params * sizeof(s32))) {
		fprintf(stderr, "readahead_gpu: setup failed\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/readahead.%s", argv[1 + host], host ? "so" : "cubin");
	if (d->cuModuleLoad(&mod, path) || d->cuModuleGetFunction(&fn, mod, "readahead_infer")) {
		fprintf(stderr, "readahead_gpu: cannot load %s\n", path);
		return 2;
	}

	snprintf(path, sizeof(path), "%s/check.txt", argv[2 + host]);
	n = check_rows(path, in, want);
	memset(got, 0xff, sizeof(got));
	diff = n > 0 && !batch(in, n, got) ? 0 : -1;
	for (i = 0; diff >= 0 && i < n; i++)
		diff += got[i] != want[i];
	printf("# readahead: %d check vectors, %d classes differ from train.py's\n", n, diff);
	result(n >= 10 && diff == 0, "readahead_check_vectors",
	       "a check vector's class differs (or the batch failed)");
	diff = n > 0 ? compare(in, n) : -1;
	result(diff == 0, "readahead_check_cpu", "GPU and CPU differ on the check vectors");

	/* Random inputs in range, and the extremes (every input 0, every one RA_ONE). */
	srand(1);
	for (i = 0; i < MAX_N * RA_INPUTS; i++)
		in[i] = (u16)(rand() % (RA_ONE + 1));
	for (k = 0; k < RA_INPUTS; k++) {
		in[k] = 0;
		in[RA_INPUTS + k] = RA_ONE;
	}
	diff = compare(in, MAX_N);
	printf("# readahead: %d random vectors, %d differ\n", MAX_N, diff);
	result(diff == 0, "readahead_random_cpu", "GPU and CPU differ on random inputs");

	for (s = 0; s < 4; s++) {
		best = ~0ull;
		for (k = 0; k < 6; k++) {
			t = now_ns();
			if (batch(in, sizes[s], got))
				break;
			t = now_ns() - t;
			if (k && t < best)
				best = t;
		}
		printf("# readahead batch %d: %.1f us (copy in, launch, copy back, synchronize)\n",
		       sizes[s], best == ~0ull ? -1.0 : best / 1e3);
	}
	d->cuCtxDestroy(ctx);
	lake_driver_close(d);
	ra_model_free(m);
	return bad ? 1 : 0;
}
