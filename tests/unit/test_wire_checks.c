// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests for the wire codec's argument checks: each case starts from a
 * valid example record, breaks one rule and expects the exact errno from the
 * encoder (which runs the same checks as the peer's iterator; the framing
 * tests in test_wire.c cover that the two agree byte for byte).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/wire_examples.h"

#define BUF_SIZE	(2 * LAKE_WIRE_RECORD_MAX)

/* A one-parameter kernel, declared as a kernel module declares one. */
LAKE_KERNEL_SIG(one, (unsigned int *, out));

/* Header fields the API's row forbids, and pad fields in the fixed part. */
static void test_flags_ctx_stream(void **state)
{
	struct lake_wire_req req;
	struct lake_wire_rep rep;

	(void)state;
	wire_example_req(LAKE_API_MEM_ALLOC, &req);
	req.flags = LAKE_WIRE_REQ_F_NOREPLY;	/* a synchronous call always replies */
	assert_int_equal(wire_put_req(&req), -EINVAL);
	wire_example_req(LAKE_API_DEVICE_GET, &req);
	req.ctx = 1;
	assert_int_equal(wire_put_req(&req), -EINVAL);
	wire_example_req(LAKE_API_MEM_ALLOC, &req);
	req.stream = 1;
	assert_int_equal(wire_put_req(&req), -EINVAL);
	wire_example_req(LAKE_API_LAUNCH_KERNEL, &req);
	req.flags = LAKE_WIRE_REQ_F_NOREPLY;
	assert_int_equal(wire_put_req(&req), 0);
	req.flags = 0x8000;
	assert_int_equal(wire_put_req(&req), -EPROTO);
	req.flags = 0;
	req.tail = NULL;			/* a length without data */
	assert_int_equal(wire_put_req(&req), -EINVAL);
	wire_example_req(LAKE_API_INIT, &req);
	req.args.flags.pad = 1;
	assert_int_equal(wire_put_req(&req), -EPROTO);
	wire_example_rep(LAKE_API_DEVICE_GET, &rep);
	rep.res.value.pad = 1;
	assert_int_equal(wire_put_rep(&rep), -EPROTO);
	rep.result = 100;			/* a failure's body is not sent */
	assert_int_equal(wire_put_rep(&rep), 0);
	rep.tail = wire_device_name;
	rep.tail_len = strlen(wire_device_name) + 1;
	assert_int_equal(wire_put_rep(&rep), -EPROTO);
}

static void test_cstring_tails(void **state)
{
	static const char no_nul[] = { 'a', 'b', 'c' };
	static const char inner_nul[] = { 'a', 0, 'c', 0 };
	static const char only_nul[] = { 0 };
	struct lake_wire_req req;
	struct lake_wire_rep rep;
	char long_path[LAKE_WIRE_PATH_MAX + 1];

	(void)state;
	wire_example_req(LAKE_API_MODULE_LOAD, &req);
	req.tail = no_nul;
	req.tail_len = sizeof(no_nul);
	assert_int_equal(wire_put_req(&req), -EINVAL);
	req.tail = inner_nul;
	req.tail_len = sizeof(inner_nul);
	assert_int_equal(wire_put_req(&req), -EINVAL);
	req.tail = only_nul;
	req.tail_len = sizeof(only_nul);
	assert_int_equal(wire_put_req(&req), -EINVAL);
	req.tail_len = 0;
	assert_int_equal(wire_put_req(&req), -EINVAL);

	memset(long_path, 'p', sizeof(long_path));
	long_path[LAKE_WIRE_PATH_MAX - 1] = 0;
	req.tail = long_path;
	req.tail_len = LAKE_WIRE_PATH_MAX;
	assert_int_equal(wire_put_req(&req), 0);
	long_path[LAKE_WIRE_PATH_MAX - 1] = 'p';
	long_path[LAKE_WIRE_PATH_MAX] = 0;
	req.tail_len = LAKE_WIRE_PATH_MAX + 1;
	assert_int_equal(wire_put_req(&req), -EMSGSIZE);

	wire_example_req(LAKE_API_MODULE_GET_FUNCTION, &req);
	req.tail_len--;				/* drop the NUL */
	assert_int_equal(wire_put_req(&req), -EINVAL);

	wire_example_rep(LAKE_API_DEVICE_GET_NAME, &rep);
	rep.tail = no_nul;
	rep.tail_len = sizeof(no_nul);
	assert_int_equal(wire_put_rep(&rep), -EINVAL);
	rep.tail_len = 0;
	assert_int_equal(wire_put_rep(&rep), -EINVAL);
}

static void test_copies(void **state)
{
	static const u16 htod[] = { LAKE_API_MEMCPY_HTOD, LAKE_API_MEMCPY_HTOD_ASYNC };
	static const u16 dtoh[] = { LAKE_API_MEMCPY_DTOH, LAKE_API_MEMCPY_DTOH_ASYNC };
	struct lake_wire_memcpy_args *a;
	struct lake_wire_req req;
	u32 i;

	(void)state;
	for (i = 0; i < 2; i++) {
		wire_example_req(htod[i], &req);
		a = &req.args.memcpy;
		req.tail_len = a->bytes - 1;
		assert_int_equal(wire_put_req(&req), -EINVAL);
		req.tail_len = a->bytes;
		a->shm_off = 64;
		assert_int_equal(wire_put_req(&req), -EINVAL);
		a->shm_off = 0;
		a->bytes = req.tail_len = LAKE_WIRE_INLINE_MAX;
		assert_int_equal(wire_put_req(&req), 0);
		a->bytes = LAKE_WIRE_INLINE_MAX + 1;
		assert_int_equal(wire_put_req(&req), -EMSGSIZE);
		req.tail_len = LAKE_WIRE_INLINE_MAX + 1;
		assert_int_equal(wire_put_req(&req), -EMSGSIZE);
		a->where = LAKE_WIRE_SHM;		/* shared region: no inline data */
		a->bytes = 1 << 20;
		req.tail_len = 16;
		assert_int_equal(wire_put_req(&req), -EINVAL);
		req.tail_len = 0;
		req.tail = NULL;
		assert_int_equal(wire_put_req(&req), 0);
		a->shm_off = ~0ULL - 16;
		assert_int_equal(wire_put_req(&req), -EINVAL);
		a->shm_off = 0;
		a->where = 0;
		assert_int_equal(wire_put_req(&req), -EINVAL);
		a->where = 3;
		assert_int_equal(wire_put_req(&req), -EINVAL);

		wire_example_req(dtoh[i], &req);
		a = &req.args.memcpy;
		a->where = LAKE_WIRE_INLINE;
		a->shm_off = 0;
		a->bytes = LAKE_WIRE_INLINE_MAX + 1;
		assert_int_equal(wire_put_req(&req), -EMSGSIZE);
		a->bytes = 8;
		req.tail = wire_pattern;		/* DtoH data travels in the reply */
		req.tail_len = 8;
		assert_int_equal(wire_put_req(&req), -EMSGSIZE);
	}
	wire_example_req(LAKE_API_MEMCPY_DTOH_ASYNC, &req);
	req.flags = LAKE_WIRE_REQ_F_NOREPLY;	/* inline data would be lost */
	assert_int_equal(wire_put_req(&req), -EINVAL);
	req.args.memcpy.where = LAKE_WIRE_SHM;
	assert_int_equal(wire_put_req(&req), 0);
	wire_example_req(LAKE_API_MEMCPY_HTOD_ASYNC, &req);
	req.flags = LAKE_WIRE_REQ_F_NOREPLY;
	assert_int_equal(wire_put_req(&req), 0);

	/* A bounce chunk: copies through the region only, always answered. */
	wire_example_req(LAKE_API_MEMCPY_DTOH_ASYNC, &req);
	req.args.memcpy.where = LAKE_WIRE_SHM;
	req.flags = LAKE_WIRE_REQ_F_STAGED;
	assert_int_equal(wire_put_req(&req), 0);
	req.flags |= LAKE_WIRE_REQ_F_NOREPLY;
	assert_int_equal(wire_put_req(&req), -EINVAL);
	wire_example_req(LAKE_API_MEMCPY_HTOD, &req);
	req.flags = LAKE_WIRE_REQ_F_STAGED;
	assert_int_equal(wire_put_req(&req), -EINVAL);
	wire_example_req(LAKE_API_MEMSET_D8, &req);
	req.flags = LAKE_WIRE_REQ_F_STAGED;
	assert_int_equal(wire_put_req(&req), -EINVAL);
}

static void test_launch_and_memset(void **state)
{
	struct lake_wire_req req;
	int i;

	(void)state;
	for (i = 0; i < 6; i++) {
		wire_example_req(LAKE_API_LAUNCH_KERNEL, &req);
		if (i < 3)
			req.args.launch.grid[i] = 0;
		else
			req.args.launch.block[i - 3] = 0;
		assert_int_equal(wire_put_req(&req), -EINVAL);
	}
	wire_example_req(LAKE_API_LAUNCH_KERNEL, &req);
	req.tail_len = LAKE_WIRE_MAX_PARAM_BYTES;
	assert_int_equal(wire_put_req(&req), 0);
	req.tail_len = LAKE_WIRE_MAX_PARAM_BYTES + 1;
	assert_int_equal(wire_put_req(&req), -EMSGSIZE);
	req.tail_len = 0;
	req.tail = NULL;
	assert_int_equal(wire_put_req(&req), 0);

	wire_example_req(LAKE_API_MEMSET_D8, &req);
	req.args.memset.value = 0x100;
	assert_int_equal(wire_put_req(&req), -EINVAL);
	wire_example_req(LAKE_API_MEMSET_D8_ASYNC, &req);
	req.args.memset.value = 0xff;
	assert_int_equal(wire_put_req(&req), 0);
}

static void test_param_layout(void **state)
{
	struct lake_wire_get_function_res *f;
	struct lake_wire_rep rep;

	(void)state;
	wire_example_rep(LAKE_API_MODULE_GET_FUNCTION, &rep);
	f = &rep.res.get_function;
	f->param[1].offset = 4;			/* overlaps param 0 */
	assert_int_equal(wire_put_rep(&rep), -EINVAL);
	f->param[1] = (struct lake_wire_param){ 20, 4 };	/* out of order */
	f->param[2] = (struct lake_wire_param){ 8, 4 };
	assert_int_equal(wire_put_rep(&rep), -EINVAL);
	f->param[1] = (struct lake_wire_param){ 8, 0 };
	f->param[2] = (struct lake_wire_param){ 16, 4 };
	assert_int_equal(wire_put_rep(&rep), -EINVAL);
	f->param[1] = (struct lake_wire_param){ 8, LAKE_WIRE_MAX_PARAM_BYTES };
	assert_int_equal(wire_put_rep(&rep), -EMSGSIZE);
	f->param[1] = (struct lake_wire_param){ 0xfffffff0, 0x20 };
	assert_int_equal(wire_put_rep(&rep), -EMSGSIZE);
	f->param[1] = (struct lake_wire_param){ 8, 4 };
	f->param[3] = (struct lake_wire_param){ 24, 4 };	/* past count */
	assert_int_equal(wire_put_rep(&rep), -EPROTO);
	f->param[3] = (struct lake_wire_param){ 0, 0 };
	f->count = LAKE_WIRE_MAX_PARAMS + 1;
	assert_int_equal(wire_put_rep(&rep), -EMSGSIZE);
	f->count = 0;
	memset(f->param, 0, sizeof(f->param));
	assert_int_equal(wire_put_rep(&rep), 0);

	/* The largest layout: one parameter filling the buffer, then 32 of 128. */
	f->count = 1;
	f->param[0] = (struct lake_wire_param){ 0, LAKE_WIRE_MAX_PARAM_BYTES };
	assert_int_equal(wire_put_rep(&rep), 0);
	for (f->count = 0; f->count < LAKE_WIRE_MAX_PARAMS; f->count++)
		f->param[f->count] = (struct lake_wire_param){ f->count * 128, 128 };
	assert_int_equal(wire_put_rep(&rep), 0);
	f->pad = 1;
	assert_int_equal(wire_put_rep(&rep), -EPROTO);
}

static void test_rep_matches(void **state)
{
	struct lake_wire_req req;
	struct lake_wire_rep rep;
	const char *why;

	(void)state;
	wire_example_req(LAKE_API_MEM_ALLOC, &req);
	wire_example_rep(LAKE_API_MEM_ALLOC, &rep);
	rep.req_id++;
	assert_int_equal(lake_wire_rep_matches(&req, &rep, &why), -EPROTO);
	wire_example_rep(LAKE_API_MEM_FREE, &rep);
	rep.req_id = req.req_id;
	assert_int_equal(lake_wire_rep_matches(&req, &rep, &why), -EPROTO);

	wire_example_req(LAKE_API_MEMCPY_DTOH_ASYNC, &req);	/* inline, 128 bytes */
	wire_example_rep(LAKE_API_MEMCPY_DTOH_ASYNC, &rep);
	rep.tail_len = 64;
	assert_int_equal(lake_wire_rep_matches(&req, &rep, &why), -EPROTO);
	rep.tail_len = 0;
	rep.result = 1;				/* a failure carries no data */
	assert_int_equal(lake_wire_rep_matches(&req, &rep, &why), 0);
	wire_example_req(LAKE_API_MEMCPY_DTOH, &req);		/* shared region */
	wire_example_rep(LAKE_API_MEMCPY_DTOH, &rep);
	assert_int_equal(lake_wire_rep_matches(&req, &rep, &why), 0);
	rep.tail = wire_pattern;
	rep.tail_len = 8;
	assert_int_equal(lake_wire_rep_matches(&req, &rep, &why), -EPROTO);
}

static void test_pack_params(void **state)
{
	struct lake_wire_rep rep;
	u64 a = 0x1122334455667788ULL;
	u32 b = 0xa1b2c3d4, c = 7, gap;
	void *params[] = { &a, &b, &c };
	u8 out[64];

	(void)state;
	wire_example_rep(LAKE_API_MODULE_GET_FUNCTION, &rep);	/* {0,8} {8,4} {16,4} */
	memset(out, 0xee, sizeof(out));
	assert_int_equal(lake_wire_pack_params(&rep.res.get_function, params, out,
					       sizeof(out)), 20);
	assert_memory_equal(out, &a, 8);
	assert_memory_equal(out + 8, &b, 4);
	memcpy(&gap, out + 12, sizeof(gap));
	assert_int_equal(gap, 0);		/* the gap is zeroed */
	assert_memory_equal(out + 16, &c, 4);
	assert_int_equal(out[20], 0xee);	/* nothing past the end */

	assert_int_equal(lake_wire_pack_params(&rep.res.get_function, params, out, 19),
			 -EMSGSIZE);
	params[1] = NULL;
	assert_int_equal(lake_wire_pack_params(&rep.res.get_function, params, out,
					       sizeof(out)), -EINVAL);
	rep.res.get_function.count = 0;
	assert_int_equal(lake_wire_pack_params(&rep.res.get_function, NULL, out, 0), 0);
}

/*
 * What lakelib does with a cuModuleGetFunction reply and then the launch
 * (lakelib/api.c, get_function and cuLaunchKernel): adopt the layout only if
 * it matches the declared signature, then pack kernelParams with it.
 */
static int lookup_then_pack(const struct lake_wire_get_function_res *res,
			    const struct lake_kernel_sig *sig, void *const *params, u8 *out)
{
	const char *why = NULL;
	int err = lake_wire_check_layout(res, sig, &why);

	if (err) {
		assert_non_null(why);
		return err;
	}
	return lake_wire_pack_params(res, params, out, LAKE_WIRE_MAX_PARAM_BYTES);
}

/*
 * A laked that reports 32 eight-byte parameters for a kernel whose caller
 * passes one: the reply passes every codec check, and only the declared
 * signature keeps lakelib from following 31 pointers past the caller's
 * kernelParams (ASan reports a stack-buffer-overflow if it does).
 */
static void test_hostile_layout_refused(void **state)
{
	struct lake_wire_rep rep = { .api = LAKE_API_MODULE_GET_FUNCTION, .req_id = 9 }, got;
	struct lake_wire_buf buf;
	struct lake_wire_iter it;
	u64 dptr = 0x123456789aULL;
	void *params[] = { &dptr };
	const char *why = NULL;
	u8 blob[BUF_SIZE], out[LAKE_WIRE_MAX_PARAM_BYTES];
	struct lake_kernel_sig bad = lake_sig_one;
	u32 i;

	(void)state;
	rep.res.get_function.func = 0x42;
	rep.res.get_function.count = LAKE_WIRE_MAX_PARAMS;
	for (i = 0; i < LAKE_WIRE_MAX_PARAMS; i++)
		rep.res.get_function.param[i] = (struct lake_wire_param){ i * 128, 128 };
	buf = (struct lake_wire_buf){ .data = blob, .size = sizeof(blob) };
	assert_int_equal(lake_wire_put_rep(&buf, &rep, &why), 0);
	lake_wire_iter_init(&it, blob, buf.len);
	assert_int_equal(lake_wire_next_rep(&it, &got), 1);	/* the codec accepts it */

	assert_int_equal(lake_sig_one.count, 1);
	assert_int_equal(lookup_then_pack(&got.res.get_function, &lake_sig_one, params, out),
			 -EPROTO);
	/* Same count, other sizes: refused too. */
	got.res.get_function.count = 1;
	assert_int_equal(lookup_then_pack(&got.res.get_function, &lake_sig_one, params, out),
			 -EPROTO);
	/* Laked's report equal to the declaration: packed, 8 bytes. */
	got.res.get_function.param[0] = (struct lake_wire_param){ 0, sizeof(void *) };
	memset(out, 0xee, sizeof(out));
	assert_int_equal(lookup_then_pack(&got.res.get_function, &lake_sig_one, params, out),
			 (int)sizeof(void *));
	assert_memory_equal(out, &dptr, sizeof(dptr));
	assert_int_equal(out[sizeof(void *)], 0xee);
	/* A malformed declaration is the caller's bug: -EINVAL, nothing adopted. */
	bad.count = 0;
	assert_int_equal(lookup_then_pack(&got.res.get_function, &bad, params, out), -EINVAL);
	bad.count = LAKE_KERNEL_MAX_PARAMS + 1;
	assert_int_equal(lookup_then_pack(&got.res.get_function, &bad, params, out), -EINVAL);
}

static void test_load(void **state)
{
	struct lake_genl_load l = {
		.flags = LAKE_LOAD_F_ALL, .util_pct = 71, .procs = 2, .period_ms = 20,
		.mem_used = 1 << 20, .mem_total = 1 << 30, .queued = 3,
	};
	struct lake_genl_load bad;
	const char *why = NULL;

	(void)state;
	assert_int_equal(lake_wire_check_load(&l, &why), 0);
	bad = l;
	bad.flags |= 1U << 4;
	assert_int_equal(lake_wire_check_load(&bad, &why), -EPROTO);
	assert_non_null(why);
	bad = l;
	bad.pad = 1;
	assert_int_equal(lake_wire_check_load(&bad, &why), -EPROTO);
	assert_non_null(why);
	bad = l;
	bad.util_pct = 101;
	assert_int_equal(lake_wire_check_load(&bad, &why), -EINVAL);
	bad = l;
	bad.period_ms = 0;
	assert_int_equal(lake_wire_check_load(&bad, &why), -EINVAL);
	bad = l;
	bad.mem_used = bad.mem_total + 1;
	assert_int_equal(lake_wire_check_load(&bad, &why), -EINVAL);
	bad = l;
	bad.flags = LAKE_LOAD_F_UTIL;	/* procs, memory and queue without their flags */
	assert_int_equal(lake_wire_check_load(&bad, &why), -EINVAL);
	bad.procs = 0;
	assert_int_equal(lake_wire_check_load(&bad, &why), -EINVAL);
	bad.mem_used = bad.mem_total = 0;
	assert_int_equal(lake_wire_check_load(&bad, &why), -EINVAL);
	bad.queued = 0;
	assert_int_equal(lake_wire_check_load(&bad, &why), 0);
	bad.flags = 0;
	assert_int_equal(lake_wire_check_load(&bad, &why), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flags_ctx_stream),
		cmocka_unit_test(test_cstring_tails),
		cmocka_unit_test(test_copies),
		cmocka_unit_test(test_launch_and_memset),
		cmocka_unit_test(test_param_layout),
		cmocka_unit_test(test_rep_matches),
		cmocka_unit_test(test_pack_params),
		cmocka_unit_test(test_hostile_layout_refused),
		cmocka_unit_test(test_load),
	};

	wire_examples_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
