// SPDX-License-Identifier: GPL-2.0
/*
 * laked's own bounds checks, with nothing behind them. The CUDA driver does
 * not check a device range against allocations: on a GPU, laked's checks
 * are the only protection. The host device re-checks everything, so here
 * laked runs on a shim of it that keeps its own list of the allocations it
 * handed out and fails the test as soon as a copy, memset or free outside
 * them reaches it, before the host device sees the call. Each case sends
 * ranges out by one byte, wrapping, or naming no allocation, and expects
 * laked's refusal with no device call at all; in-range calls are the
 * control: they must reach the device.
 */
#include "tests/unit/dispatch_util.h"

#define SHIM_ALLOCS	64

static struct lake_driver *host;
static struct lake_driver shim;
static struct {
	CUdeviceptr p;
	size_t bytes;
} live[SHIM_ALLOCS];
static unsigned int reached;	/* memory calls that got to the device */

static void shim_track(CUdeviceptr p, size_t bytes)
{
	unsigned int i;

	for (i = 0; i < SHIM_ALLOCS; i++) {
		if (!live[i].bytes) {
			live[i].p = p;
			live[i].bytes = bytes;
			return;
		}
	}
	fail_msg("shim: more than %d live allocations", SHIM_ALLOCS);
}

/* [p, p + bytes) must lie inside one live allocation; bytes may be 0. */
static void shim_range(const char *op, CUdeviceptr p, size_t bytes)
{
	unsigned int i;

	reached++;
	for (i = 0; i < SHIM_ALLOCS; i++) {
		if (live[i].bytes && p >= live[i].p && p - live[i].p <= live[i].bytes &&
		    bytes <= live[i].bytes - (p - live[i].p))
			return;
	}
	fail_msg("%s reached the device with %#llx+%zu, outside every allocation", op,
		 (unsigned long long)p, bytes);
}

static void shim_count(const char *op, CUdeviceptr p, size_t count, size_t unit)
{
	size_t bytes;

	if (__builtin_mul_overflow(count, unit, &bytes))
		fail_msg("%s reached the device with a count of %zu x %zu bytes", op, count, unit);
	shim_range(op, p, bytes);
}

static CUresult shim_mem_alloc(CUdeviceptr *p, size_t bytes)
{
	CUresult r = host->cuMemAlloc(p, bytes);

	if (!r)
		shim_track(*p, bytes);
	return r;
}

static CUresult shim_mem_alloc_pitch(CUdeviceptr *p, size_t *pitch, size_t width,
				     size_t height, unsigned int elem)
{
	CUresult r = host->cuMemAllocPitch(p, pitch, width, height, elem);

	if (!r)
		shim_track(*p, *pitch * height);
	return r;
}

static CUresult shim_mem_free(CUdeviceptr p)
{
	unsigned int i;

	reached++;
	for (i = 0; i < SHIM_ALLOCS; i++) {
		if (live[i].bytes && live[i].p == p) {
			live[i].bytes = 0;
			return host->cuMemFree(p);
		}
	}
	fail_msg("cuMemFree reached the device with %#llx, not the start of an allocation",
		 (unsigned long long)p);
	return CUDA_ERROR_UNKNOWN;
}

static CUresult shim_htod(CUdeviceptr dst, const void *src, size_t bytes)
{
	shim_range("cuMemcpyHtoD", dst, bytes);
	return host->cuMemcpyHtoD(dst, src, bytes);
}

static CUresult shim_dtoh(void *dst, CUdeviceptr src, size_t bytes)
{
	shim_range("cuMemcpyDtoH", src, bytes);
	return host->cuMemcpyDtoH(dst, src, bytes);
}

static CUresult shim_htod_async(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
	shim_range("cuMemcpyHtoDAsync", dst, bytes);
	return host->cuMemcpyHtoDAsync(dst, src, bytes, s);
}

static CUresult shim_dtoh_async(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
	shim_range("cuMemcpyDtoHAsync", src, bytes);
	return host->cuMemcpyDtoHAsync(dst, src, bytes, s);
}

static CUresult shim_d8(CUdeviceptr dst, unsigned char v, size_t count)
{
	shim_count("cuMemsetD8", dst, count, 1);
	return host->cuMemsetD8(dst, v, count);
}

static CUresult shim_d32(CUdeviceptr dst, unsigned int v, size_t count)
{
	shim_count("cuMemsetD32", dst, count, 4);
	return host->cuMemsetD32(dst, v, count);
}

static CUresult shim_d8_async(CUdeviceptr dst, unsigned char v, size_t count, CUstream s)
{
	shim_count("cuMemsetD8Async", dst, count, 1);
	return host->cuMemsetD8Async(dst, v, count, s);
}

static CUresult shim_d32_async(CUdeviceptr dst, unsigned int v, size_t count, CUstream s)
{
	shim_count("cuMemsetD32Async", dst, count, 4);
	return host->cuMemsetD32Async(dst, v, count, s);
}

static int shim_setup(void **state)
{
	struct lake_host_opts opts = { .mem_bytes = TEST_MEM, .workers = 2 };

	(void)state;
	if (!getenv("LAKE_VERBOSE"))
		laked_log_set_level(LOG_EMERG - 1);
	memset(live, 0, sizeof(live));
	reached = 0;
	region = calloc(1, REGION_SIZE);
	if (!region || lake_driver_open_host(&host, &opts))
		return -1;
	shim = *host;
	shim.cuMemAlloc = shim_mem_alloc;
	shim.cuMemAllocPitch = shim_mem_alloc_pitch;
	shim.cuMemFree = shim_mem_free;
	shim.cuMemcpyHtoD = shim_htod;
	shim.cuMemcpyDtoH = shim_dtoh;
	shim.cuMemcpyHtoDAsync = shim_htod_async;
	shim.cuMemcpyDtoHAsync = shim_dtoh_async;
	shim.cuMemsetD8 = shim_d8;
	shim.cuMemsetD32 = shim_d32;
	shim.cuMemsetD8Async = shim_d8_async;
	shim.cuMemsetD32Async = shim_d32_async;
	drv = &shim;
	return open_laked(&dd, TAG_A, true);
}

static int shim_teardown(void **state)
{
	(void)state;
	laked_fini(dd);
	dd = NULL;
	drv = NULL;
	lake_driver_close(host);
	host = NULL;
	free(region);
	region = NULL;
	return 0;
}

/* @r must be refused by laked itself: INVALID_VALUE, and no device call. */
static void refused(const struct lake_wire_req *r)
{
	unsigned int before = reached;

	assert_int_equal(result_of(r), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(reached, before);
}

static void served(const struct lake_wire_req *r)
{
	unsigned int before = reached;

	assert_int_equal(result_of(r), CUDA_SUCCESS);
	assert_int_equal(reached, before + 1);
}

static const u16 copy_apis[] = {
	LAKE_API_MEMCPY_HTOD, LAKE_API_MEMCPY_DTOH,
	LAKE_API_MEMCPY_HTOD_ASYNC, LAKE_API_MEMCPY_DTOH_ASYNC,
};

static void test_copies(void **state)
{
	u64 ctx = new_ctx(), p = mem_alloc(ctx, 4096), q = mem_alloc(ctx, 64);
	const struct {
		u64 dptr, bytes;
	} bad[] = {
		{ p + 1, 4096 }, { p + 4095, 2 }, { p - 1, 2 }, { q + 64, 1 },
		{ q, 65 }, { 0x10000, 4 }, { UINT64_MAX - 2, 4 }, { p + 8, UINT64_MAX - 7 },
	};
	struct lake_wire_req r;
	unsigned int a, i;
	u32 where;

	(void)state;
	for (a = 0; a < ARRAY_SIZE(copy_apis); a++) {
		for (where = LAKE_WIRE_INLINE; ; where = LAKE_WIRE_SHM) {
			bool htod = copy_apis[a] == LAKE_API_MEMCPY_HTOD ||
				    copy_apis[a] == LAKE_API_MEMCPY_HTOD_ASYNC;
			bool inl = where == LAKE_WIRE_INLINE;

			r = copy_req(copy_apis[a], ctx, p, 4096, where, 0,
				     inl && htod ? region : NULL);
			served(&r);
			for (i = 0; i < ARRAY_SIZE(bad); i++) {
				u64 n = bad[i].bytes;

				/* Inline data is at most one page and rides in the record. */
				if (inl && n > LAKE_WIRE_INLINE_MAX)
					continue;
				if (!inl && n > REGION_SIZE)
					n = REGION_SIZE;
				r = copy_req(copy_apis[a], ctx, bad[i].dptr, n, where, 0,
					     inl && htod ? region : NULL);
				refused(&r);
			}
			if (!inl)
				break;
		}
	}
}

static void test_memsets(void **state)
{
	static const u16 apis[] = {
		LAKE_API_MEMSET_D8, LAKE_API_MEMSET_D32,
		LAKE_API_MEMSET_D8_ASYNC, LAKE_API_MEMSET_D32_ASYNC,
	};
	u64 ctx = new_ctx(), p = mem_alloc(ctx, 256);
	struct lake_wire_req r;
	unsigned int a;

	(void)state;
	for (a = 0; a < ARRAY_SIZE(apis); a++) {
		bool d32 = apis[a] == LAKE_API_MEMSET_D32 || apis[a] == LAKE_API_MEMSET_D32_ASYNC;
		u64 fit = d32 ? 64 : 256;

		r = req_new(apis[a], ctx);
		r.args.memset.dptr = p;
		r.args.memset.count = fit;
		served(&r);
		r.args.memset.count = fit + 1;
		refused(&r);
		r.args.memset.dptr = p + (d32 ? 4 : 1);
		r.args.memset.count = fit;
		refused(&r);
		r.args.memset.dptr = p + 256;
		r.args.memset.count = 1;
		refused(&r);
		r.args.memset.dptr = 0x10000;
		refused(&r);
		/* Counts whose byte size wraps to 0 and to one word. */
		r.args.memset.dptr = p;
		r.args.memset.count = (UINT64_MAX / 4) + 1;
		refused(&r);
		r.args.memset.count = (1ULL << 62) + 1;
		refused(&r);
		r.args.memset.count = UINT64_MAX;
		refused(&r);
	}
}

static void test_mem_free(void **state)
{
	u64 ctx = new_ctx(), p = mem_alloc(ctx, 4096), q;
	struct lake_wire_req r = req_new(LAKE_API_MEM_FREE, ctx), pitch;
	struct lake_wire_rep *rep;

	(void)state;
	r.args.handle.handle = p + 8;		/* inside, but not the start */
	refused(&r);
	r.args.handle.handle = p + 4095;
	refused(&r);
	r.args.handle.handle = p + 4096;	/* one past the end */
	refused(&r);
	r.args.handle.handle = 0x1000;
	refused(&r);
	r.args.handle.handle = p;
	served(&r);
	refused(&r);				/* freed already */

	pitch = req_new(LAKE_API_MEM_ALLOC_PITCH, ctx);
	pitch.args.mem_alloc_pitch.width = 100;
	pitch.args.mem_alloc_pitch.height = 4;
	pitch.args.mem_alloc_pitch.elem_size = 4;
	rep = call(&pitch);
	assert_int_equal(rep->result, CUDA_SUCCESS);
	q = rep->res.pair.first;
	r.args.handle.handle = q + rep->res.pair.second;	/* the second row */
	refused(&r);
	r.args.handle.handle = q;
	served(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, shim_setup, shim_teardown)
		T(test_copies),
		T(test_memsets),
		T(test_mem_free),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
