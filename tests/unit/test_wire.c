// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests for the wire codec's framing: the table, the byte layout, round
 * trips of every API, and what the iterators make of truncated, oversized,
 * misaligned or mislabelled records. Inputs handed to the iterators are
 * copied into heap buffers of their exact size, so ASan turns any read past a
 * blob into a failure. Per-API argument checks are in test_wire_checks.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/wire_examples.h"

#define BUF_SIZE	(2 * LAKE_WIRE_RECORD_MAX)

static u32 rd32(const u8 *p, size_t off)
{
	u32 v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static void wr16(u8 *p, size_t off, u16 v)
{
	memcpy(p + off, &v, sizeof(v));
}

static void wr32(u8 *p, size_t off, u32 v)
{
	memcpy(p + off, &v, sizeof(v));
}

static void wr64(u8 *p, size_t off, u64 v)
{
	memcpy(p + off, &v, sizeof(v));
}

static u32 encode_req(const struct lake_wire_req *r, u8 *buf, u32 size)
{
	struct lake_wire_buf b = { .data = buf, .size = size };
	const char *why = NULL;

	assert_int_equal(lake_wire_put_req(&b, r, &why), 0);
	return b.len;
}

static u32 encode_rep(const struct lake_wire_rep *r, u8 *buf, u32 size)
{
	struct lake_wire_buf b = { .data = buf, .size = size };
	const char *why = NULL;

	assert_int_equal(lake_wire_put_rep(&b, r, &why), 0);
	return b.len;
}

/* Decode the first record of @len bytes held in an exact-size heap copy. */
static int decode_req(const u8 *data, u32 len, struct lake_wire_req *r, const char **why)
{
	struct lake_wire_iter it;
	u8 *copy = malloc(len ? len : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, data, len);
	lake_wire_iter_init(&it, copy, len);
	ret = lake_wire_next_req(&it, r);
	*why = it.why;
	if (ret < 0)
		assert_non_null(it.why);
	free(copy);
	return ret;
}

static int decode_rep(const u8 *data, u32 len, struct lake_wire_rep *r, const char **why)
{
	struct lake_wire_iter it;
	u8 *copy = malloc(len ? len : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, data, len);
	lake_wire_iter_init(&it, copy, len);
	ret = lake_wire_next_rep(&it, r);
	*why = it.why;
	if (ret < 0)
		assert_non_null(it.why);
	free(copy);
	return ret;
}

static void assert_same_req(const struct lake_wire_req *a, const struct lake_wire_req *b)
{
	u32 size = lake_wire_api(a->api)->req_size;

	assert_int_equal(a->api, b->api);
	assert_int_equal(a->flags, b->flags);
	assert_true(a->req_id == b->req_id);
	assert_true(a->ctx == b->ctx);
	assert_true(a->stream == b->stream);
	assert_memory_equal(&a->args, &b->args, size ? size : 1);
	assert_int_equal(a->tail_len, b->tail_len);
	if (a->tail_len)
		assert_memory_equal(a->tail, b->tail, a->tail_len);
	else
		assert_null(b->tail);
}

static void assert_same_rep(const struct lake_wire_rep *a, const struct lake_wire_rep *b)
{
	u32 size = a->result ? 0 : lake_wire_api(a->api)->rep_size;

	assert_int_equal(a->api, b->api);
	assert_int_equal(a->result, b->result);
	assert_true(a->req_id == b->req_id);
	assert_memory_equal(&a->res, &b->res, size ? size : 1);
	assert_int_equal(a->tail_len, b->tail_len);
	if (a->tail_len)
		assert_memory_equal(a->tail, b->tail, a->tail_len);
}

#define SYNC(api, name)		{ api, name, false }
#define ASYNC(api, name)	{ api, name, true }

/* Ids, CUDA names and async flags, written out independently of the table. */
static void test_table(void **state)
{
	static const struct { u16 api; const char *name; bool async; } want[] = {
		SYNC(LAKE_API_INIT, "cuInit"),
		SYNC(LAKE_API_DRIVER_GET_VERSION, "cuDriverGetVersion"),
		SYNC(LAKE_API_DEVICE_GET, "cuDeviceGet"),
		SYNC(LAKE_API_DEVICE_GET_COUNT, "cuDeviceGetCount"),
		SYNC(LAKE_API_DEVICE_GET_NAME, "cuDeviceGetName"),
		SYNC(LAKE_API_DEVICE_GET_ATTRIBUTE, "cuDeviceGetAttribute"),
		SYNC(LAKE_API_DEVICE_TOTAL_MEM, "cuDeviceTotalMem"),
		SYNC(LAKE_API_CTX_CREATE, "cuCtxCreate"),
		SYNC(LAKE_API_CTX_DESTROY, "cuCtxDestroy"),
		SYNC(LAKE_API_CTX_SYNCHRONIZE, "cuCtxSynchronize"),
		SYNC(LAKE_API_MODULE_LOAD, "cuModuleLoad"),
		SYNC(LAKE_API_MODULE_UNLOAD, "cuModuleUnload"),
		SYNC(LAKE_API_MODULE_GET_FUNCTION, "cuModuleGetFunction"),
		ASYNC(LAKE_API_LAUNCH_KERNEL, "cuLaunchKernel"),
		SYNC(LAKE_API_MEM_ALLOC, "cuMemAlloc"),
		SYNC(LAKE_API_MEM_ALLOC_PITCH, "cuMemAllocPitch"),
		SYNC(LAKE_API_MEM_FREE, "cuMemFree"),
		SYNC(LAKE_API_MEMCPY_HTOD, "cuMemcpyHtoD"),
		SYNC(LAKE_API_MEMCPY_DTOH, "cuMemcpyDtoH"),
		ASYNC(LAKE_API_MEMCPY_HTOD_ASYNC, "cuMemcpyHtoDAsync"),
		ASYNC(LAKE_API_MEMCPY_DTOH_ASYNC, "cuMemcpyDtoHAsync"),
		SYNC(LAKE_API_MEMSET_D8, "cuMemsetD8"),
		SYNC(LAKE_API_MEMSET_D32, "cuMemsetD32"),
		ASYNC(LAKE_API_MEMSET_D8_ASYNC, "cuMemsetD8Async"),
		ASYNC(LAKE_API_MEMSET_D32_ASYNC, "cuMemsetD32Async"),
		SYNC(LAKE_API_MEM_GET_INFO, "cuMemGetInfo"),
		SYNC(LAKE_API_STREAM_CREATE, "cuStreamCreate"),
		SYNC(LAKE_API_STREAM_SYNCHRONIZE, "cuStreamSynchronize"),
		SYNC(LAKE_API_STREAM_DESTROY, "cuStreamDestroy"),
		SYNC(LAKE_API_STREAM_QUERY, "cuStreamQuery"),
		SYNC(LAKE_API_EVENT_CREATE, "cuEventCreate"),
		ASYNC(LAKE_API_EVENT_RECORD, "cuEventRecord"),
		SYNC(LAKE_API_EVENT_SYNCHRONIZE, "cuEventSynchronize"),
		SYNC(LAKE_API_EVENT_ELAPSED_TIME, "cuEventElapsedTime"),
		SYNC(LAKE_API_EVENT_DESTROY, "cuEventDestroy"),
	};
	u32 i;

	(void)state;
	assert_int_equal(ARRAY_SIZE(want), LAKE_API_COUNT - 1);
	assert_null(lake_wire_api(LAKE_API_NONE));
	assert_null(lake_wire_api(LAKE_API_COUNT));
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		const struct lake_wire_api_desc *d = lake_wire_api(want[i].api);
		u32 req_max, rep_max;

		assert_non_null(d);
		assert_string_equal(d->name, want[i].name);
		assert_int_equal(!!(d->flags & LAKE_WIRE_ASYNC), want[i].async);
		/* Every async call is issued on a stream. */
		if (want[i].async)
			assert_true(d->flags & LAKE_WIRE_STREAM);
		if (d->flags & LAKE_WIRE_STREAM)
			assert_true(d->flags & LAKE_WIRE_CTX);
		assert_int_equal(d->req_size % LAKE_WIRE_ALIGN, 0);
		assert_int_equal(d->rep_size % LAKE_WIRE_ALIGN, 0);
		if (d->req_pad)
			assert_int_equal(d->req_pad, d->req_size - 4);
		if (d->rep_pad)
			assert_int_equal(d->rep_pad, d->rep_size - 4);
		assert_int_equal(d->req_tail == LAKE_WIRE_TAIL_NONE, d->req_tail_max == 0);
		assert_int_equal(d->rep_tail == LAKE_WIRE_TAIL_NONE, d->rep_tail_max == 0);
		req_max = sizeof(struct lake_wire_req_hdr) + d->req_size + d->req_tail_max;
		rep_max = sizeof(struct lake_wire_rep_hdr) + d->rep_size + d->rep_tail_max;
		assert_true(req_max <= LAKE_WIRE_RECORD_MAX);
		assert_true(rep_max <= LAKE_WIRE_RECORD_MAX);
	}
	assert_true(LAKE_GENL_RECORDS_MAX >= 2 * LAKE_WIRE_RECORD_MAX);
}

/* The byte layout is ABI: pin one record of each kind. */
static void test_layout(void **state)
{
	struct lake_wire_req req = { .api = LAKE_API_MEM_ALLOC, .req_id = 7, .ctx = 9 };
	struct lake_wire_rep rep = { .api = LAKE_API_MEM_ALLOC, .req_id = 7 };
	u8 buf[BUF_SIZE];
	u64 v;

	(void)state;
	req.args.size.bytes = 4096;
	assert_int_equal(encode_req(&req, buf, sizeof(buf)), 48);
	assert_int_equal(rd32(buf, 0), LAKE_API_MEM_ALLOC);	/* api, flags 0 */
	assert_int_equal(rd32(buf, 4), 48);
	assert_int_equal(rd32(buf, 8), 0);
	memcpy(&v, buf + 16, 8);
	assert_true(v == 7);
	memcpy(&v, buf + 24, 8);
	assert_true(v == 9);
	memcpy(&v, buf + 40, 8);
	assert_true(v == 4096);

	rep.res.handle.handle = 0xd000;
	assert_int_equal(encode_rep(&rep, buf, sizeof(buf)), 32);
	assert_int_equal(rd32(buf, 4), 32);
	assert_int_equal(rd32(buf, 12), 0);
	memcpy(&v, buf + 24, 8);
	assert_true(v == 0xd000);

	rep.result = 2;		/* CUDA_ERROR_OUT_OF_MEMORY: header only */
	assert_int_equal(encode_rep(&rep, buf, sizeof(buf)), 24);
	assert_int_equal(rd32(buf, 12), 2);
}

static void test_round_trip(void **state)
{
	struct lake_wire_req req, got_req;
	struct lake_wire_rep rep, got_rep;
	u8 buf[BUF_SIZE];
	const char *why;
	u16 api;
	u32 len;

	(void)state;
	for (api = 1; api < LAKE_API_COUNT; api++) {
		wire_example_req(api, &req);
		len = encode_req(&req, buf, sizeof(buf));
		assert_int_equal(len % LAKE_WIRE_ALIGN, 0);
		assert_int_equal(decode_req(buf, len, &got_req, &why), 1);
		assert_same_req(&req, &got_req);

		wire_example_rep(api, &rep);
		len = encode_rep(&rep, buf, sizeof(buf));
		assert_int_equal(decode_rep(buf, len, &got_rep, &why), 1);
		assert_same_rep(&rep, &got_rep);
		assert_int_equal(lake_wire_rep_matches(&req, &rep, &why), 0);

		memset(&rep.res, 0, sizeof(rep.res));
		rep.tail = NULL;
		rep.tail_len = 0;
		rep.result = 999;
		len = encode_rep(&rep, buf, sizeof(buf));
		assert_int_equal(len, sizeof(struct lake_wire_rep_hdr));
		assert_int_equal(decode_rep(buf, len, &got_rep, &why), 1);
		assert_same_rep(&rep, &got_rep);
	}
}

static void test_truncated(void **state)
{
	struct lake_wire_req req;
	struct lake_wire_rep rep;
	u8 buf[BUF_SIZE];
	const char *why;
	u32 len, cut;
	u16 api;

	(void)state;
	for (api = 1; api < LAKE_API_COUNT; api++) {
		wire_example_req(api, &req);
		len = encode_req(&req, buf, sizeof(buf));
		assert_int_equal(decode_req(buf, 0, &req, &why), 0);
		for (cut = 1; cut < len; cut++)
			assert_int_equal(decode_req(buf, cut, &req, &why), -EMSGSIZE);

		wire_example_rep(api, &rep);
		len = encode_rep(&rep, buf, sizeof(buf));
		for (cut = 1; cut < len; cut++)
			assert_int_equal(decode_rep(buf, cut, &rep, &why), -EMSGSIZE);
	}
}

static void test_lengths(void **state)
{
	struct lake_wire_req req;
	struct lake_wire_rep rep;
	u8 buf[BUF_SIZE];
	const char *why;
	u32 len;
	size_t len_off = offsetof(struct lake_wire_req_hdr, len);
	size_t tail_off = offsetof(struct lake_wire_req_hdr, tail_len);

	(void)state;
	wire_example_req(LAKE_API_MODULE_LOAD, &req);
	len = encode_req(&req, buf, sizeof(buf));
	memset(buf + len, 0, 64);

	wr32(buf, len_off, len + 8);		/* runs past the blob */
	assert_int_equal(decode_req(buf, len, &req, &why), -EMSGSIZE);
	wr32(buf, len_off, 0xfffffff8);
	assert_int_equal(decode_req(buf, len, &req, &why), -EMSGSIZE);
	wr32(buf, len_off, len + 8);		/* fits the blob, not the API */
	assert_int_equal(decode_req(buf, len + 8, &req, &why), -EPROTO);
	wr32(buf, len_off, len - 8);
	assert_int_equal(decode_req(buf, len, &req, &why), -EPROTO);
	wr32(buf, len_off, len + 4);		/* misaligned */
	assert_int_equal(decode_req(buf, len + 8, &req, &why), -EPROTO);
	assert_non_null(strstr(why, "multiple of 8"));
	wr32(buf, len_off, 16);			/* shorter than a header */
	assert_int_equal(decode_req(buf, len, &req, &why), -EPROTO);
	wr32(buf, len_off, 0);
	assert_int_equal(decode_req(buf, len, &req, &why), -EPROTO);
	wr32(buf, len_off, len);

	wr32(buf, tail_off, LAKE_WIRE_PATH_MAX + 1);	/* tail over its bound */
	assert_int_equal(decode_req(buf, len, &req, &why), -EMSGSIZE);
	wr32(buf, tail_off, 0xffffffff);
	assert_int_equal(decode_req(buf, len, &req, &why), -EMSGSIZE);
	wr32(buf, tail_off, strlen(wire_module_path) + 1 - 8);	/* shorter record */
	assert_int_equal(decode_req(buf, len, &req, &why), -EPROTO);
	/* Same padded length: the string's last bytes become non-zero padding. */
	wr32(buf, tail_off, strlen(wire_module_path) + 1 - 2);
	assert_int_equal(decode_req(buf, len, &req, &why), -EPROTO);

	/* A tail on a tail-less reply and a failed reply with a body. */
	wire_example_rep(LAKE_API_MEM_ALLOC, &rep);
	len = encode_rep(&rep, buf, sizeof(buf));
	wr32(buf, offsetof(struct lake_wire_rep_hdr, tail_len), 8);
	wr32(buf, offsetof(struct lake_wire_rep_hdr, len), len + 8);
	assert_int_equal(decode_rep(buf, len + 8, &rep, &why), -EMSGSIZE);
	wire_example_rep(LAKE_API_MEM_ALLOC, &rep);
	len = encode_rep(&rep, buf, sizeof(buf));
	wr32(buf, offsetof(struct lake_wire_rep_hdr, result), 1);
	assert_int_equal(decode_rep(buf, len, &rep, &why), -EPROTO);
}

static void test_api_ids(void **state)
{
	static const u16 bad[] = { LAKE_API_NONE, LAKE_API_COUNT, LAKE_API_COUNT + 1, 0xffff };
	struct lake_wire_req req;
	struct lake_wire_rep rep;
	u8 buf[BUF_SIZE];
	const char *why;
	u32 len, i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		wire_example_req(LAKE_API_CTX_SYNCHRONIZE, &req);
		len = encode_req(&req, buf, sizeof(buf));
		wr16(buf, offsetof(struct lake_wire_req_hdr, api), bad[i]);
		assert_int_equal(decode_req(buf, len, &req, &why), -EPROTO);
		req.api = bad[i];
		assert_int_equal(wire_put_req(&req), -EPROTO);

		wire_example_rep(LAKE_API_CTX_SYNCHRONIZE, &rep);
		len = encode_rep(&rep, buf, sizeof(buf));
		wr16(buf, offsetof(struct lake_wire_rep_hdr, api), bad[i]);
		assert_int_equal(decode_rep(buf, len, &rep, &why), -EPROTO);
		rep.api = bad[i];
		assert_int_equal(wire_put_rep(&rep), -EPROTO);
	}
	/* A valid id whose fixed size differs: the length no longer matches. */
	wire_example_req(LAKE_API_MEM_ALLOC, &req);
	len = encode_req(&req, buf, sizeof(buf));
	wr16(buf, 0, LAKE_API_MEMCPY_HTOD);
	assert_int_equal(decode_req(buf, len, &req, &why), -EPROTO);
}

/* Header fields, pads and padding: the codec accepts one encoding only. */
static void test_header_fields(void **state)
{
	struct lake_wire_req req;
	u8 buf[BUF_SIZE];
	const char *why;
	u32 len;

	(void)state;
	wire_example_req(LAKE_API_LAUNCH_KERNEL, &req);
	len = encode_req(&req, buf, sizeof(buf));
	buf[len - 1] = 1;			/* padding after the 20-byte tail */
	assert_int_equal(decode_req(buf, len, &req, &why), -EPROTO);
	buf[len - 1] = 0;
	wr32(buf, offsetof(struct lake_wire_req_hdr, pad), 1);
	assert_int_equal(decode_req(buf, len, &req, &why), -EPROTO);
	wr32(buf, offsetof(struct lake_wire_req_hdr, pad), 0);
	wr32(buf, sizeof(struct lake_wire_req_hdr) +
	     offsetof(struct lake_wire_launch_args, pad), 1);
	assert_int_equal(decode_req(buf, len, &req, &why), -EPROTO);
	wr32(buf, sizeof(struct lake_wire_req_hdr) +
	     offsetof(struct lake_wire_launch_args, pad), 0);
	wr16(buf, offsetof(struct lake_wire_req_hdr, flags), LAKE_WIRE_REQ_F_ALL + 1);
	assert_int_equal(decode_req(buf, len, &req, &why), -EPROTO);
	/* A known flag on the wrong record: staged means a copy through lakeshm. */
	wr16(buf, offsetof(struct lake_wire_req_hdr, flags), LAKE_WIRE_REQ_F_STAGED);
	assert_int_equal(decode_req(buf, len, &req, &why), -EINVAL);
	wr16(buf, offsetof(struct lake_wire_req_hdr, flags), LAKE_WIRE_REQ_F_NOREPLY);
	assert_int_equal(decode_req(buf, len, &req, &why), 1);

	len = encode_req(&(struct lake_wire_req){ .api = LAKE_API_DEVICE_GET_COUNT }, buf,
			 sizeof(buf));
	wr64(buf, offsetof(struct lake_wire_req_hdr, stream), 3);
	assert_int_equal(decode_req(buf, len, &req, &why), -EINVAL);
	wr64(buf, offsetof(struct lake_wire_req_hdr, stream), 0);
	wr64(buf, offsetof(struct lake_wire_req_hdr, ctx), 3);
	assert_int_equal(decode_req(buf, len, &req, &why), -EINVAL);
	wr64(buf, offsetof(struct lake_wire_req_hdr, ctx), 0);
	assert_int_equal(decode_req(buf, len, &req, &why), 1);
}

static void test_several_records(void **state)
{
	static const u16 apis[] = {
		LAKE_API_MEMCPY_HTOD_ASYNC, LAKE_API_LAUNCH_KERNEL, LAKE_API_LAUNCH_KERNEL,
		LAKE_API_MEMCPY_DTOH_ASYNC, LAKE_API_EVENT_RECORD, LAKE_API_STREAM_SYNCHRONIZE,
	};
	struct lake_wire_req req, got;
	struct lake_wire_rep rep, got_rep;
	u8 buf[LAKE_GENL_RECORDS_MAX];
	struct lake_wire_buf b = { .data = buf, .size = sizeof(buf) };
	struct lake_wire_iter it;
	const char *why;
	u32 i, good_len;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(apis); i++) {
		wire_example_req(apis[i], &req);
		req.req_id = i;
		assert_int_equal(lake_wire_put_req(&b, &req, &why), 0);
	}
	lake_wire_iter_init(&it, buf, b.len);
	for (i = 0; i < ARRAY_SIZE(apis); i++) {
		wire_example_req(apis[i], &req);
		req.req_id = i;
		assert_int_equal(lake_wire_next_req(&it, &got), 1);
		assert_same_req(&req, &got);
	}
	assert_int_equal(lake_wire_next_req(&it, &got), 0);
	assert_int_equal(it.pos, b.len);

	/* A bad third record: two records come out, then a sticky error. */
	good_len = b.len;
	b.len = 0;
	for (i = 0; i < 3; i++) {
		wire_example_req(apis[i], &req);
		assert_int_equal(lake_wire_put_req(&b, &req, &why), 0);
	}
	buf[b.len - 1] = 0xff;			/* launch padding */
	lake_wire_iter_init(&it, buf, good_len);
	assert_int_equal(lake_wire_next_req(&it, &got), 1);
	assert_int_equal(lake_wire_next_req(&it, &got), 1);
	assert_int_equal(lake_wire_next_req(&it, &got), -EPROTO);
	assert_non_null(it.why);
	assert_int_equal(lake_wire_next_req(&it, &got), -EPROTO);

	/* Replies, including failures, in one blob. */
	b.len = 0;
	for (i = 1; i < LAKE_API_COUNT; i++) {
		wire_example_rep(i, &rep);
		if (i % 3 == 0) {
			memset(&rep.res, 0, sizeof(rep.res));
			rep.tail = NULL;
			rep.tail_len = 0;
			rep.result = i;
		}
		assert_int_equal(lake_wire_put_rep(&b, &rep, &why), 0);
	}
	lake_wire_iter_init(&it, buf, b.len);
	for (i = 1; i < LAKE_API_COUNT; i++) {
		assert_int_equal(lake_wire_next_rep(&it, &got_rep), 1);
		assert_int_equal(got_rep.api, i);
		assert_int_equal(got_rep.result, i % 3 == 0 ? i : 0);
	}
	assert_int_equal(lake_wire_next_rep(&it, &got_rep), 0);
}

/* Fill exact-size heap buffers: ASan catches any write past the end. */
static void test_full_buffer(void **state)
{
	struct lake_wire_buf b;
	struct lake_wire_req req;
	struct lake_wire_rep rep;
	const char *why;
	u32 rec, n;
	u8 *mem;

	(void)state;
	wire_example_req(LAKE_API_LAUNCH_KERNEL, &req);
	rec = encode_req(&req, (u8[BUF_SIZE]){ 0 }, BUF_SIZE);
	for (n = 0; n < 4; n++) {
		u32 size = n * rec + rec - 1;

		mem = malloc(size);
		assert_non_null(mem);
		b = (struct lake_wire_buf){ .data = mem, .size = size };
		while (lake_wire_put_req(&b, &req, &why) == 0)
			;
		assert_int_equal(b.len, n * rec);
		assert_int_equal(lake_wire_put_req(&b, &req, &why), -EMSGSIZE);
		assert_int_equal(b.len, n * rec);
		free(mem);
	}

	wire_example_rep(LAKE_API_MEMCPY_DTOH_ASYNC, &rep);
	rep.tail_len = LAKE_WIRE_INLINE_MAX;
	mem = malloc(LAKE_WIRE_INLINE_MAX);
	assert_non_null(mem);
	b = (struct lake_wire_buf){ .data = mem, .size = LAKE_WIRE_INLINE_MAX };
	assert_int_equal(lake_wire_put_rep(&b, &rep, &why), -EMSGSIZE);
	assert_int_equal(b.len, 0);
	b.len = b.size + 1;			/* a corrupt cursor must not write either */
	assert_int_equal(lake_wire_put_rep(&b, &rep, &why), -EMSGSIZE);
	free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_api_ids),
		cmocka_unit_test(test_header_fields),
		cmocka_unit_test(test_several_records),
		cmocka_unit_test(test_full_buffer),
	};

	wire_examples_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
