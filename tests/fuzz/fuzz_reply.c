// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for lakelib's acceptance of laked's replies (what
 * lake_rpc_deliver() does with each record): the input is one request, as
 * lakelib encoded it, followed by a REPLY blob from a laked that may be
 * compromised. Each record the codec accepts is paired with the request by
 * lake_wire_rep_matches() and the caller's tail capacity, as in rpc.c, and
 * an accepted tail is copied into a buffer of exactly that capacity (ASan
 * bounds the copy). The decision is also judged by a reference reading of
 * wire.h's pairing rule, so a weakened check fails here, not in a guest.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lake/wire.h>

static void check(int cond)
{
	if (!cond)
		abort();
}

/* The tail buffer each API's caller hands lake_rpc_sync() (lakelib/api.c). */
static u32 tail_cap(const struct lake_wire_req *req)
{
	switch (req->api) {
	case LAKE_API_DEVICE_GET_NAME:
		return LAKE_WIRE_DEVICE_NAME_MAX;
	case LAKE_API_MEMCPY_DTOH:
	case LAKE_API_MEMCPY_DTOH_ASYNC:
		return (u32)req->args.memcpy.bytes;
	default:
		return 0;
	}
}

/* wire.h: a reply answers its request's id and API; a copy's data is exactly what was asked. */
static bool spec_accepts(const struct lake_wire_req *req, const struct lake_wire_rep *rep)
{
	bool dtoh = req->api == LAKE_API_MEMCPY_DTOH || req->api == LAKE_API_MEMCPY_DTOH_ASYNC;
	u64 want;

	if (rep->api != req->api || rep->req_id != req->req_id)
		return false;
	if (!dtoh || rep->result)
		return true;
	want = req->args.memcpy.where == LAKE_WIRE_INLINE ? req->args.memcpy.bytes : 0;
	return rep->tail_len == want;
}

static void deliver(const struct lake_wire_req *req, const struct lake_wire_rep *rep)
{
	const char *why = NULL;
	u32 cap = tail_cap(req);
	bool ok = !lake_wire_rep_matches(req, rep, &why);
	u8 *tail;

	check(ok == spec_accepts(req, rep));
	check(ok || why != NULL);
	if (!ok || rep->tail_len > cap)
		return;
	/* Exactly the caller's buffer: a copy past it is an ASan report. */
	tail = malloc(cap ? cap : 1);
	check(tail != NULL);
	if (rep->tail_len)
		memcpy(tail, rep->tail, rep->tail_len);
	free(tail);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lake_wire_req req;
	struct lake_wire_rep rep;
	struct lake_wire_iter it;
	const char *why = NULL;
	u32 start;
	int ret;

	if (size > LAKE_GENL_RECORDS_MAX)
		return -1;
	lake_wire_iter_init(&it, data, (u32)size);
	if (lake_wire_next_req(&it, &req) != 1)
		return -1;
	/* lakelib sends only requests its own encoder accepts. */
	check(!lake_wire_check_req(&req, &why));
	start = it.pos;
	lake_wire_iter_init(&it, data + start, (u32)size - start);
	while ((ret = lake_wire_next_rep(&it, &rep)) == 1)
		deliver(&req, &rep);
	check(ret <= 0);
	return 0;
}
