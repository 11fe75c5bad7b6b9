// SPDX-License-Identifier: GPL-2.0
/*
 * The memory cases of test_dispatch: allocations, copies through the
 * request, the reply and the shared region, memsets, async copies and their
 * staged data, a kernel end to end, and how replies are gathered. Device
 * ranges must lie inside one live allocation, region ranges inside the
 * region, to the byte.
 */
#include "tests/unit/dispatch_util.h"
#include "laked/staging.h"

#define VADD_N		1000

static void fill(u8 *p, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed + i * 7);
}

void test_mem_alloc_free(void **state)
{
	u64 ctx = new_ctx(), p = mem_alloc(ctx, 4096), q;
	struct lake_wire_req r = req_new(LAKE_API_MEM_ALLOC, ctx);
	struct lake_wire_rep *rep;

	(void)state;
	r.args.size.bytes = 0;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
	r.args.size.bytes = 1ULL << 62;
	assert_int_equal(result_of(&r), CUDA_ERROR_OUT_OF_MEMORY);

	r = req_new(LAKE_API_MEM_GET_INFO, ctx);
	rep = call(&r);
	assert_int_equal(rep->result, CUDA_SUCCESS);
	assert_int_equal(rep->res.pair.second, TEST_MEM);
	assert_true(rep->res.pair.first < TEST_MEM);

	r = req_new(LAKE_API_MEM_FREE, ctx);
	r.args.handle.handle = p + 8;		/* inside, but not the start */
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
	r.args.handle.handle = 0x1000;		/* never allocated */
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
	r.args.handle.handle = p;
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);

	r = req_new(LAKE_API_MEM_ALLOC_PITCH, ctx);
	r.args.mem_alloc_pitch.width = 100;
	r.args.mem_alloc_pitch.height = 4;
	r.args.mem_alloc_pitch.elem_size = 4;
	rep = call(&r);
	assert_int_equal(rep->result, CUDA_SUCCESS);
	q = rep->res.pair.first;
	assert_true(rep->res.pair.second >= 100);
	/* The whole pitch x height block is live, and nothing past it. */
	assert_int_equal(put_inline(ctx, q + 3 * rep->res.pair.second, region, 100),
			 CUDA_SUCCESS);
	assert_int_equal(put_inline(ctx, q + 4 * rep->res.pair.second - 1, region, 2),
			 CUDA_ERROR_INVALID_VALUE);
	r.args.mem_alloc_pitch.elem_size = 3;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
}

void test_memcpy_inline(void **state)
{
	u64 ctx = new_ctx(), p = mem_alloc(ctx, 2048), q = mem_alloc(ctx, 64);
	struct lake_wire_rep *rep;
	u8 data[2048];

	(void)state;
	fill(data, sizeof(data), 3);
	assert_int_equal(put_inline(ctx, p, data, sizeof(data)), CUDA_SUCCESS);
	rep = get_inline(ctx, p, sizeof(data));
	assert_int_equal(rep->result, CUDA_SUCCESS);
	assert_int_equal(rep->tail_len, sizeof(data));
	assert_memory_equal(rep->tail, data, sizeof(data));
	rep = get_inline(ctx, p + 2000, 48);
	assert_int_equal(rep->result, CUDA_SUCCESS);
	assert_memory_equal(rep->tail, data + 2000, 48);

	/* One byte over the end, a gap between allocations, nothing at all. */
	assert_int_equal(put_inline(ctx, p + 1, data, sizeof(data)), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(get_inline(ctx, p + 2047, 2)->result, CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(get_inline(ctx, q + 64, 1)->result, CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(get_inline(ctx, 0x10000, 4)->result, CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(get_inline(ctx, UINT64_MAX - 2, 4)->result, CUDA_ERROR_INVALID_VALUE);
}

void test_memcpy_shm(void **state)
{
	u64 ctx = new_ctx(), p = mem_alloc(ctx, 8192), wrap = UINT64_MAX - 15;
	struct lake_wire_req r;
	struct batch b;

	(void)state;
	fill(region + 4096, 8192, 9);
	r = copy_req(LAKE_API_MEMCPY_HTOD, ctx, p, 8192, LAKE_WIRE_SHM, 4096, NULL);
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	r = copy_req(LAKE_API_MEMCPY_DTOH, ctx, p, 8192, LAKE_WIRE_SHM, REGION_SIZE - 8192, NULL);
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	assert_memory_equal(region + REGION_SIZE - 8192, region + 4096, 8192);

	/* Offsets and lengths that leave the region, even by one byte. */
	r = copy_req(LAKE_API_MEMCPY_DTOH, ctx, p, 8192, LAKE_WIRE_SHM, REGION_SIZE - 8191, NULL);
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
	r = copy_req(LAKE_API_MEMCPY_HTOD, ctx, p, 1, LAKE_WIRE_SHM, REGION_SIZE, NULL);
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
	r = copy_req(LAKE_API_MEMCPY_HTOD, ctx, p, 16, LAKE_WIRE_SHM, 0, NULL);
	batch_init(&b);
	batch_add(&b, &r);
	memcpy(b.data + sizeof(struct lake_wire_req_hdr) +
	       offsetof(struct lake_wire_memcpy_args, shm_off), &wrap, sizeof(wrap));
	run_batch(&b);
	assert_int_equal(ngot, 1);
	assert_int_equal(got[0].rep.result, CUDA_ERROR_INVALID_VALUE);
	r = copy_req(LAKE_API_MEMCPY_HTOD, ctx, p, 16, LAKE_WIRE_SHM, UINT64_MAX - 16, NULL);
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);

	/* Without a region, only the region path fails. */
	laked_fini(dd);
	assert_int_equal(open_laked(&dd, TAG_A, false), 0);
	ctx = new_ctx();
	p = mem_alloc(ctx, 64);
	r = copy_req(LAKE_API_MEMCPY_HTOD, ctx, p, 64, LAKE_WIRE_SHM, 0, NULL);
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(put_inline(ctx, p, region, 64), CUDA_SUCCESS);
}

/*
 * Async calls flagged NOREPLY are answered only when they fail. Their inline
 * data outlives the message: run_bytes scribbles over and frees each blob.
 */
void test_async_noreply(void **state)
{
	u64 ctx = new_ctx(), stream = new_handle(LAKE_API_STREAM_CREATE, ctx, 0);
	u64 p = mem_alloc(ctx, 4096);
	struct lake_wire_req r;
	struct lake_wire_rep *rep;
	u8 data[4096];

	(void)state;
	fill(data, sizeof(data), 5);
	r = copy_req(LAKE_API_MEMCPY_HTOD_ASYNC, ctx, p, sizeof(data), LAKE_WIRE_INLINE, 0, data);
	r.stream = stream;
	r.flags = LAKE_WIRE_REQ_F_NOREPLY;
	noreply(&r);
	r.args.memcpy.dptr = p + 1;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
	r.args.memcpy.dptr = p;
	r.stream = stream + 1;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_HANDLE);

	r = req_new(LAKE_API_STREAM_SYNCHRONIZE, ctx);
	r.stream = stream;
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	rep = get_inline(ctx, p, sizeof(data));
	assert_int_equal(rep->result, CUDA_SUCCESS);
	assert_memory_equal(rep->tail, data, sizeof(data));

	/* An async inline read waits for its stream: the data is in the reply. */
	r = copy_req(LAKE_API_MEMCPY_DTOH_ASYNC, ctx, p + 100, 200, LAKE_WIRE_INLINE, 0, NULL);
	r.stream = stream;
	rep = call(&r);
	assert_int_equal(rep->result, CUDA_SUCCESS);
	assert_memory_equal(rep->tail, data + 100, 200);

	/* Through the region, on the default stream. */
	r = copy_req(LAKE_API_MEMCPY_DTOH_ASYNC, ctx, p, 4096, LAKE_WIRE_SHM, 0, NULL);
	r.flags = LAKE_WIRE_REQ_F_NOREPLY;
	noreply(&r);
	r = req_new(LAKE_API_CTX_SYNCHRONIZE, ctx);
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	assert_memory_equal(region, data, sizeof(data));
}

/*
 * Device pointers are valid in their own context only: from context B, A's
 * allocation can be neither copied to or from, set, nor freed, and stays
 * intact and usable from A.
 */
void test_mem_other_context(void **state)
{
	u64 a = new_ctx(), b = new_ctx(), p = mem_alloc(a, 256), q = mem_alloc(b, 64);
	static const u16 memsets[] = { LAKE_API_MEMSET_D8, LAKE_API_MEMSET_D32,
				       LAKE_API_MEMSET_D8_ASYNC, LAKE_API_MEMSET_D32_ASYNC };
	struct lake_wire_req r;
	struct lake_wire_rep *rep;
	u8 data[256], evil[256];
	unsigned int i;

	(void)state;
	fill(data, sizeof(data), 5);
	memset(evil, 0xee, sizeof(evil));
	assert_int_equal(put_inline(a, p, data, sizeof(data)), CUDA_SUCCESS);

	assert_int_equal(put_inline(b, p, evil, sizeof(evil)), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(put_inline(b, p + 16, evil, 16), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(get_inline(b, p, sizeof(data))->result, CUDA_ERROR_INVALID_VALUE);
	r = copy_req(LAKE_API_MEMCPY_HTOD_ASYNC, b, p, 64, LAKE_WIRE_SHM, 0, NULL);
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
	r = copy_req(LAKE_API_MEMCPY_DTOH, b, p, 64, LAKE_WIRE_SHM, 0, NULL);
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
	for (i = 0; i < ARRAY_SIZE(memsets); i++) {
		r = req_new(memsets[i], b);
		r.args.memset.dptr = p;
		r.args.memset.count = 16;
		r.args.memset.value = 0xee;
		assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
	}
	r = req_new(LAKE_API_MEM_FREE, b);
	r.args.handle.handle = p;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
	r.args.handle.handle = q;
	assert_int_equal(result_of(&r), CUDA_SUCCESS);

	rep = get_inline(a, p, sizeof(data));
	assert_int_equal(rep->result, CUDA_SUCCESS);
	assert_memory_equal(rep->tail, data, sizeof(data));
	r = req_new(LAKE_API_MEM_FREE, a);
	r.args.handle.handle = p;
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
}

void test_memset(void **state)
{
	u64 ctx = new_ctx();
	u64 p = mem_alloc(ctx, 256);
	struct lake_wire_req r = req_new(LAKE_API_MEMSET_D8, ctx);
	struct lake_wire_rep *rep;
	u32 words[64], i;

	(void)state;
	r.args.memset.dptr = p;
	r.args.memset.count = 256;
	r.args.memset.value = 0xab;
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	r.args.memset.count = 257;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);

	r = req_new(LAKE_API_MEMSET_D32, ctx);
	r.args.memset.dptr = p + 128;
	r.args.memset.count = 32;
	r.args.memset.value = 0x01020304;
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	r.args.memset.count = 33;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
	r.args.memset.count = (UINT64_MAX / 4) + 1;	/* wraps to a small size */
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);

	rep = get_inline(ctx, p, 256);
	assert_int_equal(rep->result, CUDA_SUCCESS);
	memcpy(words, rep->tail, sizeof(words));
	for (i = 0; i < 32; i++)
		assert_int_equal(words[i], 0xabababab);
	for (; i < 64; i++)
		assert_int_equal(words[i], 0x01020304);

	r = req_new(LAKE_API_MEMSET_D32_ASYNC, ctx);
	r.flags = LAKE_WIRE_REQ_F_NOREPLY;
	r.args.memset.dptr = p;
	r.args.memset.count = 64;
	r.args.memset.value = 7;
	noreply(&r);
	r = req_new(LAKE_API_MEMSET_D8_ASYNC, ctx);
	r.flags = LAKE_WIRE_REQ_F_NOREPLY;
	r.args.memset.dptr = p + 255;
	r.args.memset.count = 1;
	r.args.memset.value = 9;
	noreply(&r);
	rep = get_inline(ctx, p, 256);
	memcpy(words, rep->tail, sizeof(words));
	assert_int_equal(words[0], 7);
	assert_int_equal(words[63], 0x09000007);
	r.args.memset.count = 2;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
}

/*
 * On a stream of its own, memsets run in order and take no staging memory:
 * as many as would overflow the staging cap at 1 MiB each stay queued
 * without a synchronize.
 */
void test_memset_on_stream(void **state)
{
	const u64 bytes = 3 * MIB + 4096;
	u64 ctx = new_ctx(), stream = new_handle(LAKE_API_STREAM_CREATE, ctx, 0);
	u64 p = mem_alloc(ctx, bytes), at[] = { 0, MIB - 8, 2 * MIB, bytes - 4096 };
	struct lake_wire_req r = req_new(LAKE_API_MEMSET_D32_ASYNC, ctx);
	struct lake_wire_rep *rep;
	unsigned int i;
	u32 words[1024], j;

	(void)state;
	r.flags = LAKE_WIRE_REQ_F_NOREPLY;
	r.stream = stream;
	r.args.memset.dptr = p;
	r.args.memset.count = bytes / 4;
	r.args.memset.value = 0xc0ffee11;
	for (i = 0; i <= LAKED_STAGING_MAX / MIB; i++)
		noreply(&r);
	r.args.memset.dptr = p + 2;
	r.args.memset.count = 1;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
	r = req_new(LAKE_API_MEMSET_D8_ASYNC, ctx);
	r.flags = LAKE_WIRE_REQ_F_NOREPLY;
	r.stream = stream;
	r.args.memset.dptr = p + bytes - 3;
	r.args.memset.count = 3;
	r.args.memset.value = 0x5a;
	noreply(&r);
	r.args.memset.count = 4;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);

	r = req_new(LAKE_API_STREAM_SYNCHRONIZE, ctx);
	r.stream = stream;
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	for (i = 0; i < ARRAY_SIZE(at); i++) {
		rep = get_inline(ctx, p + at[i], sizeof(words));
		assert_int_equal(rep->result, CUDA_SUCCESS);
		memcpy(words, rep->tail, sizeof(words));
		for (j = 0; j + 1 < ARRAY_SIZE(words); j++)
			assert_int_equal(words[j], 0xc0ffee11);
	}
	assert_int_equal(words[ARRAY_SIZE(words) - 1], 0x5a5a5a11);
}

/* c = a + b on the host device, arguments packed as lakelib packs them. */
void test_vadd_end_to_end(void **state)
{
	u64 ctx = new_ctx(), mod = module_load(ctx, "vadd.cubin", CUDA_SUCCESS), dp[3], fn;
	float a[VADD_N], b[VADD_N], c[VADD_N];
	u32 bytes = VADD_N * sizeof(float), i;
	struct lake_wire_get_function_res layout;
	struct lake_wire_rep *rep;
	struct lake_wire_req r;
	void *args[4];
	u8 packed[64];
	int n = VADD_N, len;

	(void)state;
	rep = get_function(ctx, mod, "vadd");
	assert_int_equal(rep->result, CUDA_SUCCESS);
	layout = rep->res.get_function;
	fn = layout.func;
	for (i = 0; i < VADD_N; i++) {
		a[i] = (float)i;
		b[i] = 0.5f * (float)i;
	}
	for (i = 0; i < 3; i++)
		dp[i] = mem_alloc(ctx, bytes);
	assert_int_equal(put_inline(ctx, dp[0], a, bytes), CUDA_SUCCESS);
	memcpy(region, b, bytes);
	r = copy_req(LAKE_API_MEMCPY_HTOD, ctx, dp[1], bytes, LAKE_WIRE_SHM, 0, NULL);
	assert_int_equal(result_of(&r), CUDA_SUCCESS);

	args[0] = &dp[0];
	args[1] = &dp[1];
	args[2] = &dp[2];
	args[3] = &n;
	len = lake_wire_pack_params(&layout, args, packed, sizeof(packed));
	assert_int_equal(len, 28);
	r = launch_req(ctx, fn, packed, (u32)len - 1, n);
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
	r = launch_req(ctx, fn, packed, (u32)len, n);
	r.stream = new_handle(LAKE_API_STREAM_CREATE, ctx, 0) + 1;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_HANDLE);
	r.stream = 0;
	r.args.launch.block[0] = 4096;		/* over the device's limit */
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
	r.args.launch.block[0] = 128;
	noreply(&r);

	r = req_new(LAKE_API_CTX_SYNCHRONIZE, ctx);
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	rep = get_inline(ctx, dp[2], bytes);
	assert_int_equal(rep->result, CUDA_SUCCESS);
	memcpy(c, rep->tail, bytes);
	for (i = 0; i < VADD_N; i++)
		assert_true(c[i] == 1.5f * (float)i);
}

/* Replies fill each flush before the next one starts. */
void test_replies_are_gathered(void **state)
{
	u64 ctx = new_ctx(), p = mem_alloc(ctx, LAKE_WIRE_INLINE_MAX);
	struct lake_wire_req r;
	struct batch b;
	unsigned int i;

	(void)state;
	batch_init(&b);
	for (i = 0; i < 8; i++) {
		r = copy_req(LAKE_API_MEMCPY_DTOH, ctx, p, LAKE_WIRE_INLINE_MAX, LAKE_WIRE_INLINE,
			     0, NULL);
		batch_add(&b, &r);
	}
	run_batch(&b);
	assert_int_equal(ngot, 8);
	/* 24 + 4096 bytes each: three per LAKE_GENL_RECORDS_MAX. */
	assert_int_equal(sink.flushes, 3);

	batch_init(&b);
	for (i = 0; i < 200; i++) {
		r = req_new(LAKE_API_DEVICE_GET_NAME, 0);
		batch_add(&b, &r);
	}
	run_batch(&b);
	assert_int_equal(ngot, 200);
	assert_int_equal(sink.flushes, 1);
}
