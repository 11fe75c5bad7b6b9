// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the wire codec: every input is walked both as a
 * LAKE_CMD_CALL blob (requests, as laked sees it) and as a LAKE_CMD_REPLY
 * blob (replies, as lakelib sees it). Beyond "no crash, no out-of-bounds
 * access", it checks that the format is canonical: each accepted record
 * re-encodes to exactly the bytes it came from, so the iterator and the
 * encoders can never disagree about what is valid.
 */
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
