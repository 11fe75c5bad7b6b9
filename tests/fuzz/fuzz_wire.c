// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the wire codec: every input is walked both as a
 * LAKE_CMD_CALL blob (requests, as laked sees it) and as a LAKE_CMD_REPLY
 * blob (replies, as lakelib sees it). Beyond "no crash, no out-of-bounds
 * access", it checks that the format is canonical: each accepted record
 * re-encodes to exactly the bytes it came from, so the iterator and the
 * encoders can never disagree about what is valid. Since both share the
 * codec's checks, a check weakened in both would still re-encode: so each
 * accepted request is also judged by a reference reading of its raw bytes
 * (spec_req), written from wire.h's rules without the codec's code.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lake/wire.h>

static u8 out[LAKE_WIRE_RECORD_MAX];
static u8 param_src[LAKE_WIRE_MAX_PARAM_BYTES];

static void check(int cond)
{
	if (!cond)
		abort();
}

static void check_error(const struct lake_wire_iter *it, int ret)
{
	check(ret == -EINVAL || ret == -EMSGSIZE || ret == -EPROTO);
	check(it->why != NULL);
	check(it->pos < it->size);
}

static void reencode_matches(const u8 *rec, u32 len, int put_ret, u32 put_len)
{
	check(put_ret == 0);
	check(put_len == len);
	check(memcmp(out, rec, len) == 0);
}

static u64 raw(const u8 *p, u32 off, u32 size)
{
	u64 v = 0;

	memcpy(&v, p + off, size);
	return v;
}

#define HDR(field)	raw(rec, offsetof(struct lake_wire_req_hdr, field), \
			    sizeof(((struct lake_wire_req_hdr *)0)->field))
#define ARG(type, field) raw(rec + sizeof(struct lake_wire_req_hdr), \
			     offsetof(type, field), sizeof(((type *)0)->field))

/* wire.h's rules for one accepted request, read from its bytes alone. */
static void spec_req(const u8 *rec, u32 len)
{
	u64 api = HDR(api), flags = HDR(flags), tail = HDR(tail_len);
	u64 bytes, where, off;
	bool htod, async = api == LAKE_API_LAUNCH_KERNEL || api == LAKE_API_EVENT_RECORD ||
		api == LAKE_API_MEMCPY_HTOD_ASYNC || api == LAKE_API_MEMCPY_DTOH_ASYNC ||
		api == LAKE_API_MEMSET_D8_ASYNC || api == LAKE_API_MEMSET_D32_ASYNC;

	check(HDR(len) == len && len % 8 == 0);
	check(api > LAKE_API_NONE && api < LAKE_API_COUNT);
	check(!(flags & ~(u64)(LAKE_WIRE_REQ_F_NOREPLY | LAKE_WIRE_REQ_F_STAGED)));
	check(async || !(flags & LAKE_WIRE_REQ_F_NOREPLY));
	check(!(flags & LAKE_WIRE_REQ_F_STAGED) ||
	      (api >= LAKE_API_MEMCPY_HTOD && api <= LAKE_API_MEMCPY_DTOH_ASYNC));
	check(!HDR(pad));
	if (api == LAKE_API_MEMSET_D8 || api == LAKE_API_MEMSET_D8_ASYNC)
		check(ARG(struct lake_wire_memset_args, value) <= 0xff);
	if (api < LAKE_API_MEMCPY_HTOD || api > LAKE_API_MEMCPY_DTOH_ASYNC)
		return;
	htod = api == LAKE_API_MEMCPY_HTOD || api == LAKE_API_MEMCPY_HTOD_ASYNC;
	bytes = ARG(struct lake_wire_memcpy_args, bytes);
	where = ARG(struct lake_wire_memcpy_args, where);
	off = ARG(struct lake_wire_memcpy_args, shm_off);
	check(!ARG(struct lake_wire_memcpy_args, pad));
	if (where == LAKE_WIRE_SHM) {
		check(tail == 0 && off + bytes >= off);
		/* A bounce chunk is reused on the reply: there must be one. */
		check(!(flags & LAKE_WIRE_REQ_F_STAGED) || !(flags & LAKE_WIRE_REQ_F_NOREPLY));
		return;
	}
	check(where == LAKE_WIRE_INLINE && !(flags & LAKE_WIRE_REQ_F_STAGED));
	check(bytes <= LAKE_WIRE_INLINE_MAX && off == 0);
	/* The data rides in the request, exactly; or comes back in a reply. */
	check(tail == (htod ? bytes : 0));
	check(htod || !(flags & LAKE_WIRE_REQ_F_NOREPLY));
	check(len == LAKE_ALIGN_UP(sizeof(struct lake_wire_req_hdr) +
				   sizeof(struct lake_wire_memcpy_args) + tail, 8));
}

static void walk_requests(const u8 *data, u32 size)
{
	struct lake_wire_req req;
	struct lake_wire_iter it;
	const char *why = NULL;
	u32 start = 0;
	int ret;

	lake_wire_iter_init(&it, data, size);
	while ((ret = lake_wire_next_req(&it, &req)) == 1) {
		struct lake_wire_buf b = { .data = out, .size = it.pos - start };

		check(it.pos - start <= LAKE_WIRE_RECORD_MAX);
		reencode_matches(data + start, it.pos - start,
				 lake_wire_put_req(&b, &req, &why), b.len);
		spec_req(data + start, it.pos - start);
		start = it.pos;
	}
	if (ret)
		check_error(&it, ret);
	else
		check(it.pos == size);
	/* Errors are sticky. */
	check(lake_wire_next_req(&it, &req) == ret);
}

/* A validated layout must pack within the parameter buffer. */
static void pack(const struct lake_wire_get_function_res *res)
{
	void *params[LAKE_WIRE_MAX_PARAMS];
	u32 i;
	int n;

	for (i = 0; i < LAKE_WIRE_MAX_PARAMS; i++)
		params[i] = param_src;
	n = lake_wire_pack_params(res, params, out, LAKE_WIRE_MAX_PARAM_BYTES);
	check(n >= 0 && n <= LAKE_WIRE_MAX_PARAM_BYTES);
	check(!res->count || n > 0);
}

static void walk_replies(const u8 *data, u32 size)
{
	struct lake_wire_rep rep;
	struct lake_wire_iter it;
	const char *why = NULL;
	u32 start = 0;
	int ret;

	lake_wire_iter_init(&it, data, size);
	while ((ret = lake_wire_next_rep(&it, &rep)) == 1) {
		struct lake_wire_buf b = { .data = out, .size = it.pos - start };

		check(it.pos - start <= LAKE_WIRE_RECORD_MAX);
		reencode_matches(data + start, it.pos - start,
				 lake_wire_put_rep(&b, &rep, &why), b.len);
		if (rep.api == LAKE_API_MODULE_GET_FUNCTION && !rep.result)
			pack(&rep.res.get_function);
		start = it.pos;
	}
	if (ret)
		check_error(&it, ret);
	else
		check(it.pos == size);
	check(lake_wire_next_rep(&it, &rep) == ret);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = NULL;

	if (size > LAKE_GENL_RECORDS_MAX)
		return -1;
	walk_requests(data, size);
	walk_replies(data, size);
	if (size == sizeof(struct lake_genl_load)) {
		struct lake_genl_load load;

		memcpy(&load, data, sizeof(load));
		if (lake_wire_check_load(&load, &why))
			check(why != NULL);
	}
	return 0;
}
