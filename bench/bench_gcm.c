// SPDX-License-Identifier: GPL-2.0
/*
 * examples/crypto's GCM kernel on the host device, natively: MB/s of one
 * launch over a batch of requests (512 B, 4 KiB, 64 KiB of text, 16 bytes
 * of associated data each; 4 MiB of text in all), with the table-free AES
 * and GHASH and with AES-NI + PCLMULQDQ, as laked runs it (cuModuleLoad of
 * example_gcm.cubin, served by example_gcm.so; the copies to and from the
 * device are outside the timing). bench_xts.c does the same for XTS.
 */
#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "laked/driver.h"
#include "examples/crypto/gcm_kernel.h"

#define TOTAL	(4u << 20)

static struct lake_driver *D;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int run(CUfunction fn, unsigned int size, int impl, double *mbps)
{
	unsigned int count = TOTAL / size, i, slot = 16 + size, data_len = count * slot;
	struct gcm_unit *units = calloc(count, sizeof(*units));
	struct gcm_key key = { .len = 16 };
	CUdeviceptr du, dk, dd;
	int nkeys = 1, n = (int)count, rounds = 0;
	void *args[] = { &du, &dk, &dd, &n, &nkeys, &data_len, &impl };
	double t0, t;

	if (!units)
		return -1;
	memcpy(key.key, "bench: gcm key!!", 16);
	for (i = 0; i < count; i++) {
		units[i].offset = i * slot;
		units[i].assoclen = 16;
		units[i].text = i * slot + 16;
		units[i].len = size;
		units[i].authsize = 16;
		memcpy(units[i].iv, &i, sizeof(i));
	}
	if (D->cuMemAlloc(&du, count * sizeof(*units)) || D->cuMemAlloc(&dk, sizeof(key)) ||
	    D->cuMemAlloc(&dd, data_len) || D->cuMemsetD8(dd, 0x5a, data_len) ||
	    D->cuMemcpyHtoD(du, units, count * sizeof(*units)) ||
	    D->cuMemcpyHtoD(dk, &key, sizeof(key)))
		return -1;
	t0 = now_s();
	do {
		if (D->cuLaunchKernel(fn, (count + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, args, NULL) ||
		    D->cuCtxSynchronize())
			return -1;
		rounds++;
		t = now_s() - t0;
	} while (t < 0.5);
	*mbps = (double)TOTAL * rounds / t / 1e6;
	D->cuMemFree(du);
	D->cuMemFree(dk);
	D->cuMemFree(dd);
	free(units);
	return 0;
}

int main(void)
{
	static const unsigned int sizes[] = { 512, 4096, 65536 };
	struct lake_host_opts opts = { .mem_bytes = 64u << 20, .workers = 1 };
	const char *dir = getenv("LAKE_KERNEL_DIR");
	unsigned int a, b, c, d, i;
	char path[512];
	double tf, ni;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	int aesni = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_AES) && (c & bit_PCLMUL) &&
		    (c & bit_SSSE3);

	snprintf(path, sizeof(path), "%s/example_gcm.cubin", dir ? dir : "build/kernels");
	if (lake_driver_open_host(&D, &opts) || D->cuInit(0) || D->cuCtxCreate(&ctx, 0, 0) ||
	    D->cuModuleLoad(&mod, path) || D->cuModuleGetFunction(&fn, mod, "gcm_aes")) {
		fprintf(stderr, "bench_gcm: cannot load %s\n", path);
		return 1;
	}
	for (i = 0; i < 3; i++) {
		if (run(fn, sizes[i], GCM_IMPL_TABLE_FREE, &tf) ||
		    (aesni && run(fn, sizes[i], GCM_IMPL_CLMUL, &ni))) {
			fprintf(stderr, "bench_gcm: launch failed\n");
			return 1;
		}
		if (aesni)
			printf("bench: crypto gcm kernel on the host device, %u-byte requests, 1 thread: "
			       "table-free %.1f MB/s, AES-NI+PCLMUL %.1f MB/s, table-free/AES-NI+PCLMUL %.3fx\n",
			       sizes[i], tf, ni, tf / ni);
		else
			printf("bench: crypto gcm kernel on the host device, %u-byte requests, 1 thread: "
			       "table-free %.1f MB/s (no AES-NI + PCLMULQDQ here)\n", sizes[i], tf);
	}
	D->cuModuleUnload(mod);
	D->cuCtxDestroy(ctx);
	lake_driver_close(D);
	return 0;
}
