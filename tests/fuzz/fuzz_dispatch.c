// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for laked's dispatcher: every input is a LAKE_CMD_CALL
 * blob, run on the host device with a fake shared region, in a fresh
 * dispatcher each time (its handle tag fixed, so the seeds' handles mean
 * something). Beyond "no crash, no leak, no hang", every reply laked sends
 * must pass the kernel's iterator: the kernel drops a whole REPLY message
 * for one bad record.
 *
 * --module-dir names a directory that does not exist: a host-device kernel
 * runs in laked's address space and trusts its pointer arguments as a GPU
 * would, so fuzzed launches of real kernels would only find that out.
 *
 * Device pointers are shifted to start at FUZZ_DEV_BASE: the host device's
 * arena moves with ASLR, and this way the first allocation of an input is
 * always FUZZ_DEV_BASE, which seeds (gen_dispatch_corpus.c) can name.
 */
#include <stdint.h>
#include <stdlib.h>

#include "laked/laked.h"
#include "laked/log.h"

#define FUZZ_TAG	0x00f022U
#define FUZZ_MEM	(16 << 20)
#define FUZZ_REGION	(64 << 10)
#define FUZZ_MODULE_DIR	"/nonexistent/lake-fuzz-kernels"
#define FUZZ_DEV_BASE	0x100000000ULL	/* as in gen_dispatch_corpus.c */

static struct lake_driver *host, drv;
static CUdeviceptr shift;
static u8 *region;

static void check(int cond)
{
	if (!cond)
		abort();
}

static CUresult mem_alloc(CUdeviceptr *dptr, size_t bytes)
{
	CUresult r = host->cuMemAlloc(dptr, bytes);

	if (!r)
		*dptr -= shift;
	return r;
}

static CUresult mem_alloc_pitch(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height,
				unsigned int elem_bytes)
{
	CUresult r = host->cuMemAllocPitch(dptr, pitch, width, height, elem_bytes);

	if (!r)
		*dptr -= shift;
	return r;
}

static CUresult mem_free(CUdeviceptr dptr)
{
	return host->cuMemFree(dptr + shift);
}

static CUresult memcpy_htod(CUdeviceptr dst, const void *src, size_t bytes)
{
	return host->cuMemcpyHtoD(dst + shift, src, bytes);
}

static CUresult memcpy_dtoh(void *dst, CUdeviceptr src, size_t bytes)
{
	return host->cuMemcpyDtoH(dst, src + shift, bytes);
}

static CUresult memcpy_htod_async(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
	return host->cuMemcpyHtoDAsync(dst + shift, src, bytes, s);
}

static CUresult memcpy_dtoh_async(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
	return host->cuMemcpyDtoHAsync(dst, src + shift, bytes, s);
}

static CUresult memset_d8(CUdeviceptr dst, unsigned char value, size_t count)
{
	return host->cuMemsetD8(dst + shift, value, count);
}

static CUresult memset_d32(CUdeviceptr dst, unsigned int value, size_t count)
{
	return host->cuMemsetD32(dst + shift, value, count);
}

static CUresult memset_d8_async(CUdeviceptr dst, unsigned char value, size_t count, CUstream s)
{
	return host->cuMemsetD8Async(dst + shift, value, count, s);
}

static CUresult memset_d32_async(CUdeviceptr dst, unsigned int value, size_t count, CUstream s)
{
	return host->cuMemsetD32Async(dst + shift, value, count, s);
}

/* Where the arena's first allocation lands, in a context of our own. */
static void find_shift(void)
{
	CUcontext ctx = NULL;
	CUdeviceptr p = 0;

	check(!host->cuInit(0) && !host->cuCtxCreate(&ctx, 0, 0) && !host->cuMemAlloc(&p, 1));
	check(!host->cuCtxDestroy(ctx));
	shift = p - FUZZ_DEV_BASE;
}

static int check_replies(struct laked_reply_sink *sink, const void *blob, u32 len)
{
	struct lake_wire_iter it;
	struct lake_wire_rep rep;
	int ret;

	(void)sink;
	check(len > 0 && len <= LAKE_GENL_RECORDS_MAX);
	lake_wire_iter_init(&it, blob, len);
	while ((ret = lake_wire_next_rep(&it, &rep)) == 1)
		;
	check(ret == 0);
	return 0;
}

static struct laked_reply_sink sink = { .flush = check_replies };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct lake_host_opts opts = { .mem_bytes = FUZZ_MEM, .workers = 2 };

	(void)argc;
	(void)argv;
	laked_log_set_level(getenv("LAKE_VERBOSE") ? LOG_DEBUG : -1);
	region = calloc(1, FUZZ_REGION);
	check(region && !lake_driver_open_host(&host, &opts));
	find_shift();
	drv = *host;
	drv.cuMemAlloc = mem_alloc;
	drv.cuMemAllocPitch = mem_alloc_pitch;
	drv.cuMemFree = mem_free;
	drv.cuMemcpyHtoD = memcpy_htod;
	drv.cuMemcpyDtoH = memcpy_dtoh;
	drv.cuMemcpyHtoDAsync = memcpy_htod_async;
	drv.cuMemcpyDtoHAsync = memcpy_dtoh_async;
	drv.cuMemsetD8 = memset_d8;
	drv.cuMemsetD32 = memset_d32;
	drv.cuMemsetD8Async = memset_d8_async;
	drv.cuMemsetD32Async = memset_d32_async;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct laked_config cfg = {
		.drv = &drv,
		.module_dir = FUZZ_MODULE_DIR,
		.region = region,
		.region_size = FUZZ_REGION,
		.tag = FUZZ_TAG,
	};
	struct laked *d;

	if (size > LAKE_GENL_RECORDS_MAX)
		return -1;
	check(!laked_init(&d, &cfg));
	check(!laked_dispatch_blob(d, data, (u32)size, &sink));
	laked_fini(d);
	return 0;
}
