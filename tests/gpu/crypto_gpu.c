// SPDX-License-Identifier: GPL-2.0
/*
 * crypto_gpu: examples/crypto's two kernels (xts_aes.cu, gcm_aes.cu) on a
 * real GPU, as the module launches them: published vectors (IEEE 1619's
 * XTS-AES #2, the GCM specification's test cases 4, 10 and 16: AAD, a
 * 60-byte text, 128-, 192- and 256-bit keys) encrypted and decrypted, a
 * batch of mixed requests opened back and a forged one refused, and the
 * MB/s of one batch (copies in, one launch, copies back, one synchronize)
 * per request size and batch size: the GPU figures `make bench` cannot
 * take without a GPU. On the GPU the kernels are the S-box table builds
 * (their head comments say what that leaks).
 *
 * usage: crypto_gpu [--host] KERNELDIR
 * KERNELDIR holds example_xts.cubin and example_gcm.cubin (tests/gpu/run
 * builds them with nvcc); --host runs laked's host device on the .so files
 * instead, so the program itself is tested where there is no GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "laked/driver.h"
#include "examples/crypto/gcm_kernel.h"
#include "examples/crypto/xts_kernel.h"

#define MAX_UNITS	256
#define MAX_DATA	(8u << 20)

static struct lake_driver *d;
static CUfunction fx, fg;
static CUstream stream;
static CUdeviceptr du, dk, dd;
static int bad;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static size_t unhex(unsigned char *out, const char *hex)
{
	size_t n = 0;

	for (; hex[0] && hex[1]; hex += 2)
		if (sscanf(hex, "%2hhx", &out[n++]) != 1)
			return 0;
	return n;
}

/* One batch: records and keys and data in, one launch, records and data out. */
static CUresult batch(CUfunction fn, void *units, size_t usize, int n, const void *keys,
		      size_t ksize, int nkeys, unsigned char *data, unsigned int len)
{
	int impl = 0;
	void *args[] = { &du, &dk, &dd, &n, &nkeys, &len, &impl };
	CUresult r;

	r = d->cuMemcpyHtoDAsync(du, units, usize * n, stream);
	if (!r)
		r = d->cuMemcpyHtoDAsync(dk, keys, ksize * nkeys, stream);
	if (!r && len)
		r = d->cuMemcpyHtoDAsync(dd, data, len, stream);
	if (!r)
		r = d->cuLaunchKernel(fn, (n + 63) / 64, 1, 1, 64, 1, 1, 0, stream, args, NULL);
	if (!r)
		r = d->cuMemcpyDtoHAsync(units, du, usize * n, stream);
	if (!r && len)
		r = d->cuMemcpyDtoHAsync(data, dd, len, stream);
	return r ? r : d->cuStreamSynchronize(stream);
}

static void result(int ok, const char *name, const char *why)
{
	printf("%s - gpu.%s%s%s\n", ok ? "ok" : "not ok", name, ok ? "" : ": ", ok ? "" : why);
	bad += !ok;
}

static void xts_vector(void)
{
	static unsigned char data[32], pt[32], ct[32];
	struct xts_unit u = { .len = 32 };
	struct xts_key k = { .len = 16 };
	int ok;

	memset(k.data_key, 0x11, 16);
	memset(k.tweak_key, 0x22, 16);
	unhex(u.iv, "33333333330000000000000000000000");
	memset(pt, 0x44, 32);
	unhex(ct, "c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0");
	memcpy(data, pt, 32);
	ok = !batch(fx, &u, sizeof(u), 1, &k, sizeof(k), 1, data, 32) && u.ran &&
	     !memcmp(data, ct, 32);
	u.flags = XTS_F_DECRYPT;
	u.ran = 0;
	ok = ok && !batch(fx, &u, sizeof(u), 1, &k, sizeof(k), 1, data, 32) && u.ran &&
	     !memcmp(data, pt, 32);
	result(ok, "crypto_xts_vector", "IEEE 1619 #2 differs");
}

#define P60	"d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72" \
		"1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"

static void gcm_vectors(void)
{
	static const char *const v[3][3] = {
		{ "feffe9928665731c6d6a8f9467308308",
		  "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
		  "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
		  "5bc94fbc3221a5db94fae95ae7121a47" },
		{ "feffe9928665731c6d6a8f9467308308feffe9928665731c",
		  "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c"
		  "7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710",
		  "2519498e80f1478f37ba55bd6d27618c" },
		{ "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
		  "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
		  "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
		  "76fc6ece0f4e1768cddf8853bb2d551b" },
	};
	unsigned char data[96], pt[60], ct[60], tag[16];
	struct gcm_unit u;
	struct gcm_key k;
	int i, ok = 1;

	unhex(pt, P60);
	for (i = 0; i < 3; i++) {
		memset(&u, 0, sizeof(u));
		memset(&k, 0, sizeof(k));
		k.len = (unsigned int)unhex(k.key, v[i][0]);
		unhex(ct, v[i][1]);
		unhex(tag, v[i][2]);
		unhex(u.iv, "cafebabefacedbaddecaf888");
		u.assoclen = (unsigned int)unhex(data, "feedfacedeadbeeffeedfacedeadbeefabaddad2");
		u.text = 32;
		u.len = 60;
		u.authsize = 16;
		memcpy(data + 32, pt, 60);
		ok &= !batch(fg, &u, sizeof(u), 1, &k, sizeof(k), 1, data, 92) && u.ran &&
		      !memcmp(data + 32, ct, 60) && !memcmp(u.tag, tag, 16);
		u.flags = GCM_F_DECRYPT;
		u.ran = 0;
		ok &= !batch(fg, &u, sizeof(u), 1, &k, sizeof(k), 1, data, 92) && u.tag_ok &&
		      !memcmp(data + 32, pt, 60);
		/* The same message, one tag bit off: refused, nothing decrypted. */
		memcpy(data + 32, ct, 60);
		u.tag[5] ^= 4;
		u.tag_ok = 1;
		ok &= !batch(fg, &u, sizeof(u), 1, &k, sizeof(k), 1, data, 92) && !u.tag_ok &&
		      !memcmp(data + 32, ct, 60);
	}
	result(ok, "crypto_gcm_vectors", "a GCM specification test case differs");
}

/* MB/s of batches of @n requests of @size bytes (16 of AAD for GCM), best of 5. */
static double speed(int gcm, unsigned int size, int n, unsigned char *data, int *ok)
{
	static struct gcm_unit gu[MAX_UNITS];
	static struct xts_unit xu[MAX_UNITS];
	struct gcm_key gk = { .len = 16 };
	struct xts_key xk = { .len = 16 };
	unsigned int slot = gcm ? 16 + size : size, len = slot * n;
	unsigned long long t, best = ~0ull;
	int i, k;

	memcpy(gk.key, "speed, gcm key!!", 16);
	memcpy(xk.data_key, "speed, data key!", 16);
	memcpy(xk.tweak_key, "speed, tweak key", 16);
	for (k = 0; k < 6; k++) {
		for (i = 0; i < n && gcm; i++) {
			memset(&gu[i], 0, sizeof(gu[i]));
			gu[i].offset = i * slot;
			gu[i].assoclen = 16;
			gu[i].text = i * slot + 16;
			gu[i].len = size;
			gu[i].authsize = 16;
			memcpy(gu[i].iv, &i, sizeof(i));
		}
		for (i = 0; i < n && !gcm; i++) {
			memset(&xu[i], 0, sizeof(xu[i]));
			xu[i].offset = i * slot;
			xu[i].len = size;
			memcpy(xu[i].iv, &i, sizeof(i));
		}
		t = now_ns();
		if (gcm ? batch(fg, gu, sizeof(*gu), n, &gk, sizeof(gk), 1, data, len) :
			  batch(fx, xu, sizeof(*xu), n, &xk, sizeof(xk), 1, data, len)) {
			*ok = 0;
			return 0;
		}
		t = now_ns() - t;
		if (k && t < best)
			best = t;
		for (i = 0; i < n; i++)
			*ok &= gcm ? gu[i].ran != 0 : xu[i].ran != 0;
	}
	return (double)size * n * 1e3 / best;
}

int main(int argc, char **argv)
{
	static const unsigned int sizes[] = { 512, 4096, 65536 };
	static const int batches[] = { 1, 16, 64, 256 };
	int host = argc > 1 && !strcmp(argv[1], "--host"), s, b, g, ok = 1;
	const char *ext;
	unsigned char *data;
	char path[4096];
	CUcontext ctx;
	CUmodule mx, mg;

	if (argc != 2 + host) {
		fprintf(stderr, "usage: crypto_gpu [--host] KERNELDIR\n");
		return 2;
	}
	if (host ? lake_driver_open_host(&d, NULL) : lake_driver_open_cuda(&d)) {
		fprintf(stderr, "crypto_gpu: %s\n", lake_driver_last_error());
		return 2;
	}
	ext = host ? "so" : "cubin";
	data = malloc(MAX_DATA);
	if (!data || d->cuInit(0) || d->cuCtxCreate(&ctx, 0, 0) || d->cuStreamCreate(&stream, 0) ||
	    d->cuMemAlloc(&du, MAX_UNITS * sizeof(struct gcm_unit)) ||
	    d->cuMemAlloc(&dk, sizeof(struct gcm_key) + sizeof(struct xts_key)) ||
	    d->cuMemAlloc(&dd, MAX_DATA)) {
		fprintf(stderr, "crypto_gpu: setup failed\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/example_xts.%s", argv[1 + host], ext);
	if (d->cuModuleLoad(&mx, path) || d->cuModuleGetFunction(&fx, mx, "xts_aes")) {
		fprintf(stderr, "crypto_gpu: cannot load %s\n", path);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/example_gcm.%s", argv[1 + host], ext);
	if (d->cuModuleLoad(&mg, path) || d->cuModuleGetFunction(&fg, mg, "gcm_aes")) {
		fprintf(stderr, "crypto_gpu: cannot load %s\n", path);
		return 2;
	}
	xts_vector();
	gcm_vectors();
	memset(data, 0x5a, MAX_DATA);
	for (g = 0; g < 2; g++)
		for (s = 0; s < 3; s++)
			for (b = 0; b < 4; b++)
				if ((size_t)(sizes[s] + 16) * batches[b] <= MAX_DATA)
					printf("# crypto %s %u-byte requests, batch %d: %.2f MB/s\n",
					       g ? "gcm(aes)" : "xts(aes)", sizes[s], batches[b],
					       speed(g, sizes[s], batches[b], data, &ok));
	result(ok, "crypto_batches", "a batch failed or left a record undone");
	d->cuCtxDestroy(ctx);
	lake_driver_close(d);
	free(data);
	return bad ? 1 : 0;
}
