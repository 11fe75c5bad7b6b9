// SPDX-License-Identifier: GPL-2.0
/*
 * laked's dispatcher on the host device: each API's success path, and what
 * every kind of bad input from the kernel gets back. Forged, stale and
 * previous-daemon handles, device ranges outside live allocations, region
 * offsets outside the region, module paths that leave --module-dir, short
 * launch parameters, malformed records in the middle of a message. The
 * memory cases are in dispatch_mem.c, the helpers in dispatch_util.c.
 * Kernels come from $LAKE_KERNEL_DIR (default build/kernels).
 */
#include "tests/unit/dispatch_util.h"
#include "tests/kernels/selftest.h"
#include "tests/kernels/vadd.h"

/* The signatures modules declare, from the lists the kernels are built with. */
LAKE_KERNEL_SIG(vadd, VADD_PARAMS);
LAKE_KERNEL_SIG(index3d, INDEX3D_PARAMS);
LAKE_KERNEL_SIG(mixed, MIXED_PARAMS);
LAKE_KERNEL_SIG(wait_flag, WAIT_FLAG_PARAMS);

static void test_device_queries(void **state)
{
	struct lake_wire_req r = req_new(LAKE_API_DRIVER_GET_VERSION, 0);
	struct lake_wire_rep *rep;

	(void)state;
	rep = call(&r);
	assert_int_equal(rep->result, CUDA_SUCCESS);
	assert_int_equal(rep->res.value.value, LAKE_CUDA_API_VERSION);

	r = req_new(LAKE_API_DEVICE_GET_COUNT, 0);
	assert_int_equal(result_of(&r), CUDA_ERROR_NOT_INITIALIZED);
	r = req_new(LAKE_API_INIT, 0);
	r.args.flags.flags = 1;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
	r.args.flags.flags = 0;
	assert_int_equal(result_of(&r), CUDA_SUCCESS);

	r = req_new(LAKE_API_DEVICE_GET_COUNT, 0);
	rep = call(&r);
	assert_int_equal(rep->result, CUDA_SUCCESS);
	assert_int_equal(rep->res.value.value, 1);

	r = req_new(LAKE_API_DEVICE_GET, 0);
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	r.args.device.dev = 3;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_DEVICE);

	r = req_new(LAKE_API_DEVICE_GET_NAME, 0);
	rep = call(&r);
	assert_int_equal(rep->result, CUDA_SUCCESS);
	assert_string_equal((const char *)rep->tail, "lake host device");
	assert_int_equal(rep->tail_len, strlen("lake host device") + 1);
	r.args.device.dev = -1;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_DEVICE);

	r = req_new(LAKE_API_DEVICE_GET_ATTRIBUTE, 0);
	r.args.attribute.attrib = CU_DEVICE_ATTRIBUTE_WARP_SIZE;
	rep = call(&r);
	assert_int_equal(rep->result, CUDA_SUCCESS);
	assert_int_equal(rep->res.value.value, 32);
	r.args.attribute.attrib = 12345;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);

	r = req_new(LAKE_API_DEVICE_TOTAL_MEM, 0);
	rep = call(&r);
	assert_int_equal(rep->result, CUDA_SUCCESS);
	assert_int_equal(rep->res.size.bytes, TEST_MEM);
}

static void test_handle_encoding(void **state)
{
	u64 ctx = new_ctx(), stream = new_handle(LAKE_API_STREAM_CREATE, ctx, 0);

	(void)state;
	assert_int_equal(ctx >> LAKED_TAG_SHIFT, TAG_A);
	assert_int_equal((ctx >> LAKED_TYPE_SHIFT) & LAKED_TYPE_MASK, LAKED_CTX);
	assert_int_equal((stream >> LAKED_TYPE_SHIFT) & LAKED_TYPE_MASK, LAKED_STREAM);
	assert_true(stream != ctx);
}

/* Every way a context handle can be wrong. */
static void test_ctx_validation(void **state)
{
	u64 ctx = new_ctx(), other = new_ctx(), stream, bad[6];
	struct lake_wire_req r;
	unsigned int i;

	(void)state;
	stream = new_handle(LAKE_API_STREAM_CREATE, ctx, 0);
	bad[0] = 0;
	bad[1] = ctx ^ 1;					/* another slot */
	bad[2] = ctx ^ (1ULL << LAKED_GEN_SHIFT);		/* another generation */
	bad[3] = ctx ^ (1ULL << LAKED_TAG_SHIFT);		/* another daemon */
	bad[4] = stream;					/* another type */
	bad[5] = 0xdeadbeefcafef00dULL;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		r = req_new(LAKE_API_CTX_SYNCHRONIZE, bad[i]);
		assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_CONTEXT);
		r = req_new(LAKE_API_CTX_DESTROY, 0);
		r.args.handle.handle = bad[i];
		assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_CONTEXT);
	}

	r = req_new(LAKE_API_CTX_SYNCHRONIZE, ctx);
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	r = req_new(LAKE_API_CTX_DESTROY, 0);
	r.args.handle.handle = ctx;
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	/* Stale now, and stays so when its slot is reused. */
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_CONTEXT);
	r = req_new(LAKE_API_CTX_SYNCHRONIZE, ctx);
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_CONTEXT);
	for (i = 0; i < 70; i++) {
		u64 c = new_ctx();

		assert_true(c != ctx);
		r = req_new(LAKE_API_CTX_DESTROY, 0);
		r.args.handle.handle = c;
		assert_int_equal(result_of(&r), CUDA_SUCCESS);
	}
	r = req_new(LAKE_API_MEM_GET_INFO, ctx);
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_CONTEXT);
	r = req_new(LAKE_API_MEM_GET_INFO, other);
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
}

/* The header's context is the driver's current one while the call runs. */
static void test_ctx_made_current(void **state)
{
	u64 a = new_ctx(), b = new_ctx();
	struct lake_wire_req r;
	CUcontext cur_a, cur_b, cur;

	(void)state;
	r = req_new(LAKE_API_MEM_GET_INFO, a);
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	assert_int_equal(drv->cuCtxGetCurrent(&cur_a), CUDA_SUCCESS);
	r = req_new(LAKE_API_MEM_GET_INFO, b);
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	assert_int_equal(drv->cuCtxGetCurrent(&cur_b), CUDA_SUCCESS);
	assert_ptr_not_equal(cur_a, cur_b);
	r = req_new(LAKE_API_CTX_SYNCHRONIZE, a);
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	assert_int_equal(drv->cuCtxGetCurrent(&cur), CUDA_SUCCESS);
	assert_ptr_equal(cur, cur_a);
}

/* A handle from a daemon that went away means nothing to the next one. */
static void test_previous_daemon_handles(void **state)
{
	const u64 tag_bits = (u64)LAKED_TAG_MASK << LAKED_TAG_SHIFT;
	u64 ctx = new_ctx(), ctx2;
	struct lake_wire_req r;

	(void)state;
	laked_fini(dd);
	assert_int_equal(open_laked(&dd, TAG_B, true), 0);
	r = req_new(LAKE_API_CTX_SYNCHRONIZE, ctx);
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_CONTEXT);
	ctx2 = new_ctx();
	assert_int_equal(ctx2 >> LAKED_TAG_SHIFT, TAG_B);
	/* Same slot and generation as the old one: only the tag tells them apart. */
	assert_int_equal(ctx2 & ~tag_bits, ctx & ~tag_bits);
	r = req_new(LAKE_API_CTX_SYNCHRONIZE, ctx2);
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
}

static void test_streams_and_events(void **state)
{
	u64 ctx = new_ctx(), other = new_ctx(), s, e1, e2, foreign;
	struct lake_wire_req r;
	struct lake_wire_rep *rep;
	float ms;

	(void)state;
	s = new_handle(LAKE_API_STREAM_CREATE, ctx, CU_STREAM_NON_BLOCKING);
	e1 = new_handle(LAKE_API_EVENT_CREATE, ctx, 0);
	e2 = new_handle(LAKE_API_EVENT_CREATE, ctx, 0);
	foreign = new_handle(LAKE_API_EVENT_CREATE, other, 0);
	r = req_new(LAKE_API_STREAM_CREATE, ctx);
	r.args.flags.flags = 0x80;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);

	r = req_new(LAKE_API_EVENT_RECORD, ctx);
	r.flags = LAKE_WIRE_REQ_F_NOREPLY;
	r.stream = s;
	r.args.handle.handle = e1;
	noreply(&r);
	r.args.handle.handle = e2;
	noreply(&r);
	r.args.handle.handle = foreign;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_HANDLE);
	r.args.handle.handle = s;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_HANDLE);

	r = req_new(LAKE_API_EVENT_SYNCHRONIZE, ctx);
	r.args.handle.handle = e2;
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	r = req_new(LAKE_API_STREAM_QUERY, ctx);
	r.stream = s;
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	r = req_new(LAKE_API_STREAM_SYNCHRONIZE, ctx);
	assert_int_equal(result_of(&r), CUDA_SUCCESS);

	r = req_new(LAKE_API_EVENT_ELAPSED_TIME, ctx);
	r.args.elapsed.start = e1;
	r.args.elapsed.end = e2;
	rep = call(&r);
	assert_int_equal(rep->result, CUDA_SUCCESS);
	memcpy(&ms, &rep->res.elapsed.ms_bits, sizeof(ms));
	assert_true(ms >= 0.0f && ms < 10000.0f);
	r.args.elapsed.end = foreign;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_HANDLE);

	/* Destroyed objects are stale; the default stream cannot be destroyed. */
	r = req_new(LAKE_API_STREAM_DESTROY, ctx);
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_HANDLE);
	r.stream = s;
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_HANDLE);
	r = req_new(LAKE_API_STREAM_SYNCHRONIZE, ctx);
	r.stream = s;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_HANDLE);
	r = req_new(LAKE_API_EVENT_DESTROY, ctx);
	r.args.handle.handle = e1;
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_HANDLE);
	r = req_new(LAKE_API_EVENT_SYNCHRONIZE, ctx);
	r.args.handle.handle = e1;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_HANDLE);
}

/* Each refused path names a module that exists: only the rules keep it out. */
static void test_module_paths(void **state)
{
	char dir[PATH_MAX], refused[5][PATH_MAX + 32];
	u64 ctx = new_ctx();
	unsigned int i;
	char *base;

	(void)state;
	assert_non_null(realpath(getenv("LAKE_KERNEL_DIR") ?: "build/kernels", dir));
	base = strrchr(dir, '/') + 1;
	snprintf(refused[0], sizeof(refused[0]), "%s/vadd.so", dir);
	snprintf(refused[1], sizeof(refused[1]), "../%s/vadd.so", base);
	snprintf(refused[2], sizeof(refused[2]), "./../%s/vadd.cubin", base);
	snprintf(refused[3], sizeof(refused[3]), "../%s/../%s/vadd.so", base, base);
	snprintf(refused[4], sizeof(refused[4]), "..");
	for (i = 0; i < ARRAY_SIZE(refused); i++)
		module_load(ctx, refused[i], CUDA_ERROR_FILE_NOT_FOUND);
	module_load(ctx, "missing.so", CUDA_ERROR_FILE_NOT_FOUND);
	module_load(ctx, "..vadd.so", CUDA_ERROR_FILE_NOT_FOUND);
	module_load(ctx, "./vadd.so", CUDA_SUCCESS);
	module_load(ctx, "vadd.cubin", CUDA_SUCCESS);
	module_load(0, "vadd.so", CUDA_ERROR_INVALID_CONTEXT);
}

/* Two modules loaded side by side are each themselves (no name the driver could mix up). */
static void test_modules_side_by_side(void **state)
{
	u64 ctx = new_ctx(), a, b;

	(void)state;
	a = module_load(ctx, "vadd.so", CUDA_SUCCESS);
	b = module_load(ctx, "selftest.cubin", CUDA_SUCCESS);
	assert_int_equal(get_function(ctx, a, "vadd")->result, CUDA_SUCCESS);
	assert_int_equal(get_function(ctx, a, "index3d")->result, CUDA_ERROR_NOT_FOUND);
	assert_int_equal(get_function(ctx, b, "index3d")->result, CUDA_SUCCESS);
	assert_int_equal(get_function(ctx, b, "vadd")->result, CUDA_ERROR_NOT_FOUND);
}

static void test_get_function(void **state)
{
	static const struct lake_wire_param vadd[] = { { 0, 8 }, { 8, 8 }, { 16, 8 }, { 24, 4 } };
	u64 ctx = new_ctx(), mod = module_load(ctx, "vadd.so", CUDA_SUCCESS), fn, other;
	struct lake_wire_rep *rep;
	struct lake_wire_req r;
	const char *why;

	(void)state;
	rep = get_function(ctx, mod, "vadd");
	assert_int_equal(rep->result, CUDA_SUCCESS);
	assert_int_equal(lake_wire_check_layout(&rep->res.get_function, &lake_sig_vadd, &why), 0);
	assert_int_equal(lake_wire_check_layout(&rep->res.get_function, &lake_sig_mixed, &why),
			 -EPROTO);
	fn = rep->res.get_function.func;
	assert_int_equal((fn >> LAKED_TYPE_SHIFT) & LAKED_TYPE_MASK, LAKED_FUNCTION);
	assert_int_equal(rep->res.get_function.count, 4);
	assert_memory_equal(rep->res.get_function.param, vadd, sizeof(vadd));
	assert_int_equal(get_function(ctx, mod, "vadd")->res.get_function.func, fn);
	/* What the host device reports is what LAKE_KERNEL_SIG computes. */
	other = module_load(ctx, "selftest.so", CUDA_SUCCESS);
	rep = get_function(ctx, other, "index3d");
	assert_int_equal(lake_wire_check_layout(&rep->res.get_function, &lake_sig_index3d, &why), 0);
	rep = get_function(ctx, other, "mixed");
	assert_int_equal(lake_wire_check_layout(&rep->res.get_function, &lake_sig_mixed, &why), 0);
	rep = get_function(ctx, other, "wait_flag");
	assert_int_equal(lake_wire_check_layout(&rep->res.get_function, &lake_sig_wait_flag, &why),
			 0);
	assert_int_equal(get_function(ctx, mod, "nope")->result, CUDA_ERROR_NOT_FOUND);
	assert_int_equal(get_function(ctx, mod ^ 2, "vadd")->result, CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(get_function(ctx, fn, "vadd")->result, CUDA_ERROR_INVALID_HANDLE);
	other = new_ctx();
	assert_int_equal(get_function(other, mod, "vadd")->result, CUDA_ERROR_INVALID_HANDLE);

	r = req_new(LAKE_API_MODULE_UNLOAD, ctx);
	r.args.handle.handle = mod;
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(get_function(ctx, mod, "vadd")->result, CUDA_ERROR_INVALID_HANDLE);
	r = req_new(LAKE_API_LAUNCH_KERNEL, ctx);
	r.args.launch.func = fn;
	r.args.launch.grid[0] = r.args.launch.grid[1] = r.args.launch.grid[2] = 1;
	r.args.launch.block[0] = r.args.launch.block[1] = r.args.launch.block[2] = 1;
	r.tail = region;
	r.tail_len = 28;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_HANDLE);
}

/* A driver that reports the layouts the host device cannot have. */
static u32 fake_params;
static CUresult fake_param_info(CUfunction fn, size_t index, size_t *offset, size_t *size)
{
	(void)fn;
	if (fake_params == UINT32_MAX)
		return CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER;
	if (index >= fake_params)
		return CUDA_ERROR_INVALID_VALUE;
	*offset = index * 4;
	*size = index == 1 ? 8 : 4;	/* the second overlaps the third */
	return CUDA_SUCCESS;
}

static void test_layouts_laked_cannot_carry(void **state)
{
	struct lake_driver *real = drv, fake = *drv;
	u64 ctx, mod;

	(void)state;
	fake.cuFuncGetParamInfo = fake_param_info;
	laked_fini(dd);
	drv = &fake;
	assert_int_equal(open_laked(&dd, TAG_A, true), 0);
	ctx = new_ctx();
	mod = module_load(ctx, "selftest.so", CUDA_SUCCESS);
	fake_params = LAKE_WIRE_MAX_PARAMS + 1;
	assert_int_equal(get_function(ctx, mod, "index3d")->result, CUDA_ERROR_NOT_SUPPORTED);
	fake_params = 3;
	assert_int_equal(get_function(ctx, mod, "mixed")->result, CUDA_ERROR_NOT_SUPPORTED);
	fake_params = UINT32_MAX;
	assert_int_equal(get_function(ctx, mod, "mixed")->result,
			 CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER);
	fake_params = 1;
	assert_int_equal(get_function(ctx, mod, "mixed")->res.get_function.count, 1);
	laked_fini(dd);
	drv = real;
	assert_int_equal(open_laked(&dd, TAG_A, true), 0);
}

/* Objects made in a context die with it, and its memory with them. */
static void test_ctx_destroy_forgets_children(void **state)
{
	u64 ctx = new_ctx(), mod = module_load(ctx, "vadd.so", CUDA_SUCCESS), p = mem_alloc(ctx, 64);
	u64 s = new_handle(LAKE_API_STREAM_CREATE, ctx, 0);
	u64 e = new_handle(LAKE_API_EVENT_CREATE, ctx, 0);
	u64 fn = get_function(ctx, mod, "vadd")->res.get_function.func, next;
	struct lake_wire_req r = req_new(LAKE_API_CTX_DESTROY, 0);

	(void)state;
	r.args.handle.handle = ctx;
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	next = new_ctx();
	assert_int_equal(get_function(next, mod, "vadd")->result, CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(get_inline(next, p, 4)->result, CUDA_ERROR_INVALID_VALUE);
	r = req_new(LAKE_API_STREAM_QUERY, next);
	r.stream = s;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_HANDLE);
	r = req_new(LAKE_API_EVENT_SYNCHRONIZE, next);
	r.args.handle.handle = e;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_HANDLE);
	r = launch_req(next, fn, region, 28, 1);
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_HANDLE);
	r = req_new(LAKE_API_MEM_FREE, next);
	r.args.handle.handle = p;
	assert_int_equal(result_of(&r), CUDA_ERROR_INVALID_VALUE);
}

static void set16(struct batch *b, u32 at, u16 v)
{
	memcpy(b->data + at, &v, sizeof(v));
}

static void set32(struct batch *b, u32 at, u32 v)
{
	memcpy(b->data + at, &v, sizeof(v));
}

/* Three requests; the middle one is then damaged by @damage. */
static void three_with_bad_middle(void (*damage)(struct batch *b, u32 at))
{
	struct lake_wire_req r1 = req_new(LAKE_API_DRIVER_GET_VERSION, 0);
	struct lake_wire_req r2 = req_new(LAKE_API_INIT, 0);
	struct lake_wire_req r3 = req_new(LAKE_API_DRIVER_GET_VERSION, 0);
	struct batch b;
	u32 at;

	batch_init(&b);
	batch_add(&b, &r1);
	at = b.buf.len;
	batch_add(&b, &r2);
	batch_add(&b, &r3);
	damage(&b, at);
	run_batch(&b);
}

static void bad_pad(struct batch *b, u32 at)
{
	set32(b, at + sizeof(struct lake_wire_req_hdr) + 4, 1);
}

static void bad_api(struct batch *b, u32 at)
{
	set16(b, at, 999);
}

static void bad_len(struct batch *b, u32 at)
{
	set32(b, at + offsetof(struct lake_wire_req_hdr, len), 44);
}

static void bad_flags(struct batch *b, u32 at)
{
	set16(b, at + offsetof(struct lake_wire_req_hdr, flags), LAKE_WIRE_REQ_F_NOREPLY);
}

static void test_malformed_in_the_middle(void **state)
{
	(void)state;
	/* Framing sound, contents not: answered, and the next record runs. */
	three_with_bad_middle(bad_pad);
	assert_int_equal(ngot, 3);
	assert_int_equal(got[0].rep.result, CUDA_SUCCESS);
	assert_int_equal(got[1].rep.api, LAKE_API_INIT);
	assert_int_equal(got[1].rep.result, CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(got[1].rep.req_id, got[0].rep.req_id + 1);
	assert_int_equal(got[2].rep.result, CUDA_SUCCESS);
	assert_int_equal(got[2].rep.req_id, got[0].rep.req_id + 2);

	three_with_bad_middle(bad_flags);
	assert_int_equal(ngot, 3);
	assert_int_equal(got[1].rep.result, CUDA_ERROR_INVALID_VALUE);

	/* No API to answer for: skipped silently, the rest still runs. */
	three_with_bad_middle(bad_api);
	assert_int_equal(ngot, 2);
	assert_int_equal(got[1].rep.req_id, got[0].rep.req_id + 2);

	/* Broken framing: answered, the rest of the message dropped. */
	three_with_bad_middle(bad_len);
	assert_int_equal(ngot, 2);
	assert_int_equal(got[1].rep.api, LAKE_API_INIT);
	assert_int_equal(got[1].rep.result, CUDA_ERROR_INVALID_VALUE);
}

static void test_truncated_and_junk(void **state)
{
	struct lake_wire_req r = req_new(LAKE_API_DEVICE_GET, 0);
	struct batch b;
	u8 junk[512];
	u32 i;

	(void)state;
	batch_init(&b);
	batch_add(&b, &r);
	memset(b.data + b.buf.len, 0xff, 20);
	run_bytes(dd, b.data, b.buf.len + 20);
	assert_int_equal(ngot, 1);
	assert_int_equal(got[0].rep.result, CUDA_ERROR_NOT_INITIALIZED);
	/* The header is there, the record is not: answered, nothing else. */
	run_bytes(dd, b.data, b.buf.len - 8);
	assert_int_equal(ngot, 1);
	assert_int_equal(got[0].rep.result, CUDA_ERROR_INVALID_VALUE);
	run_bytes(dd, b.data, 0);
	assert_int_equal(ngot, 0);
	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (u8)(i * 31 + 7);
	run_bytes(dd, junk, sizeof(junk));
	assert_true(ngot <= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_device_queries),
		T(test_handle_encoding),
		T(test_ctx_validation),
		T(test_ctx_made_current),
		T(test_previous_daemon_handles),
		T(test_mem_alloc_free),
		T(test_memcpy_inline),
		T(test_memcpy_shm),
		T(test_async_noreply),
		T(test_mem_other_context),
		T(test_memset),
		T(test_memset_on_stream),
		T(test_streams_and_events),
		T(test_module_paths),
		T(test_modules_side_by_side),
		T(test_get_function),
		T(test_layouts_laked_cannot_carry),
		T(test_vadd_end_to_end),
		T(test_ctx_destroy_forgets_children),
		T(test_malformed_in_the_middle),
		T(test_truncated_and_junk),
		T(test_replies_are_gathered),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
