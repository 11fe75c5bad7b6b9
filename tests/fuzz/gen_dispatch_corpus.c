// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the seed corpus of fuzz_dispatch: CALL blobs as lakelib would send
 * them, each a short session. fuzz_dispatch runs every input in a fresh
 * dispatcher with a fixed handle tag, so the handles a session creates are
 * known in advance: objects take slots 1, 2, ... in creation order. Device
 * pointers too: the harness shifts them so that an input's first
 * allocation is FUZZ_DEV_BASE. See tests/fuzz/dispatch.mk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lake/wire.h>
#include "laked/handles.h"

#define FUZZ_TAG	0x00f022U	/* as in fuzz_dispatch.c */
#define FUZZ_DEV_BASE	0x100000000ULL

static u8 blob[LAKE_GENL_RECORDS_MAX];
static struct lake_wire_buf buf = { .data = blob, .size = sizeof(blob) };
static const char *dir;
static u64 next_id;
static u8 data[256];

static u64 h(u32 type, u32 slot)
{
	return laked_handle_make(FUZZ_TAG, type, 1, slot);
}

static struct lake_wire_req req(u16 api, u64 ctx)
{
	struct lake_wire_req r = { .api = api, .req_id = ++next_id, .ctx = ctx };

	return r;
}

static void put(const struct lake_wire_req *r)
{
	const char *why = "";

	if (lake_wire_put_req(&buf, r, &why)) {
		fprintf(stderr, "gen_dispatch_corpus: %s: %s\n", lake_wire_api(r->api)->name, why);
		exit(1);
	}
}

static void put_simple(u16 api, u64 ctx, u64 stream, u64 handle)
{
	struct lake_wire_req r = req(api, ctx);

	r.stream = stream;
	r.args.handle.handle = handle;
	put(&r);
}

static void save(const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(blob, 1, buf.len, f) != buf.len || fclose(f)) {
		perror(path);
		exit(1);
	}
	buf.len = 0;
}

/* cuInit and cuCtxCreate: the context is h(LAKED_CTX, 1). */
static void session_start(void)
{
	struct lake_wire_req r = req(LAKE_API_INIT, 0);

	put(&r);
	r = req(LAKE_API_CTX_CREATE, 0);
	put(&r);
}

static void devices(void)
{
	static const u16 apis[] = {
		LAKE_API_INIT, LAKE_API_DRIVER_GET_VERSION, LAKE_API_DEVICE_GET,
		LAKE_API_DEVICE_GET_COUNT, LAKE_API_DEVICE_GET_NAME, LAKE_API_DEVICE_TOTAL_MEM,
	};
	struct lake_wire_req r;
	unsigned int i;

	for (i = 0; i < sizeof(apis) / sizeof(apis[0]); i++) {
		r = req(apis[i], 0);
		put(&r);
	}
	r = req(LAKE_API_DEVICE_GET_ATTRIBUTE, 0);
	r.args.attribute.attrib = 10;
	put(&r);
	save("devices");
}

static void contexts(void)
{
	u64 ctx = h(LAKED_CTX, 1);

	session_start();
	put_simple(LAKE_API_CTX_SYNCHRONIZE, ctx, 0, 0);
	put_simple(LAKE_API_MEM_GET_INFO, ctx, 0, 0);
	put_simple(LAKE_API_CTX_DESTROY, 0, 0, ctx);
	put_simple(LAKE_API_CTX_SYNCHRONIZE, ctx, 0, 0);
	save("contexts");
}

static void streams_and_events(void)
{
	u64 ctx = h(LAKED_CTX, 1), s = h(LAKED_STREAM, 2);
	u64 e1 = h(LAKED_EVENT, 3), e2 = h(LAKED_EVENT, 4);
	struct lake_wire_req r;

	session_start();
	put_simple(LAKE_API_STREAM_CREATE, ctx, 0, 0);
	put_simple(LAKE_API_EVENT_CREATE, ctx, 0, 0);
	put_simple(LAKE_API_EVENT_CREATE, ctx, 0, 0);
	put_simple(LAKE_API_EVENT_RECORD, ctx, s, e1);
	r = req(LAKE_API_EVENT_RECORD, ctx);
	r.flags = LAKE_WIRE_REQ_F_NOREPLY;
	r.stream = s;
	r.args.handle.handle = e2;
	put(&r);
	put_simple(LAKE_API_EVENT_SYNCHRONIZE, ctx, 0, e2);
	r = req(LAKE_API_EVENT_ELAPSED_TIME, ctx);
	r.args.elapsed.start = e1;
	r.args.elapsed.end = e2;
	put(&r);
	put_simple(LAKE_API_STREAM_QUERY, ctx, s, 0);
	put_simple(LAKE_API_STREAM_SYNCHRONIZE, ctx, s, 0);
	put_simple(LAKE_API_STREAM_DESTROY, ctx, s, 0);
	put_simple(LAKE_API_EVENT_DESTROY, ctx, 0, e1);
	save("streams-events");
}

static void copy(u16 api, u64 ctx, u64 stream, u32 where, u64 bytes, u16 flags)
{
	struct lake_wire_req r = req(api, ctx);

	r.flags = flags;
	r.stream = stream;
	r.args.memcpy.dptr = FUZZ_DEV_BASE;
	r.args.memcpy.bytes = bytes;
	r.args.memcpy.where = where;
	if (where == LAKE_WIRE_INLINE && (api == LAKE_API_MEMCPY_HTOD ||
					  api == LAKE_API_MEMCPY_HTOD_ASYNC)) {
		r.tail = data;
		r.tail_len = (u32)bytes;
	}
	put(&r);
}

static void memory(void)
{
	u64 ctx = h(LAKED_CTX, 1);
	struct lake_wire_req r;

	session_start();
	r = req(LAKE_API_MEM_ALLOC, ctx);
	r.args.size.bytes = 4096;
	put(&r);
	r = req(LAKE_API_MEM_ALLOC_PITCH, ctx);
	r.args.mem_alloc_pitch.width = 100;
	r.args.mem_alloc_pitch.height = 8;
	r.args.mem_alloc_pitch.elem_size = 4;
	put(&r);
	copy(LAKE_API_MEMCPY_HTOD, ctx, 0, LAKE_WIRE_INLINE, sizeof(data), 0);
	copy(LAKE_API_MEMCPY_DTOH, ctx, 0, LAKE_WIRE_INLINE, sizeof(data), 0);
	copy(LAKE_API_MEMCPY_HTOD, ctx, 0, LAKE_WIRE_SHM, 4096, 0);
	copy(LAKE_API_MEMCPY_DTOH, ctx, 0, LAKE_WIRE_SHM, 4096, 0);
	r = req(LAKE_API_MEMSET_D32, ctx);
	r.args.memset.dptr = FUZZ_DEV_BASE;
	r.args.memset.count = 64;
	r.args.memset.value = 7;
	put(&r);
	put_simple(LAKE_API_MEM_FREE, ctx, 0, FUZZ_DEV_BASE);
	save("memory");
}

/* Async work as lakelib coalesces it, then one synchronizing call. */
static void async_batch(void)
{
	u64 ctx = h(LAKED_CTX, 1), s = h(LAKED_STREAM, 2);
	struct lake_wire_req r;

	session_start();
	put_simple(LAKE_API_STREAM_CREATE, ctx, 0, 0);
	r = req(LAKE_API_MEM_ALLOC, ctx);
	r.args.size.bytes = 1024;
	put(&r);
	copy(LAKE_API_MEMCPY_HTOD_ASYNC, ctx, s, LAKE_WIRE_INLINE, sizeof(data),
	     LAKE_WIRE_REQ_F_NOREPLY);
	copy(LAKE_API_MEMCPY_HTOD_ASYNC, ctx, 0, LAKE_WIRE_SHM, 1024, LAKE_WIRE_REQ_F_NOREPLY);
	r = req(LAKE_API_MEMSET_D8_ASYNC, ctx);
	r.flags = LAKE_WIRE_REQ_F_NOREPLY;
	r.args.memset.dptr = FUZZ_DEV_BASE;
	r.args.memset.count = 16;
	put(&r);
	copy(LAKE_API_MEMCPY_DTOH_ASYNC, ctx, s, LAKE_WIRE_INLINE, 64, 0);
	copy(LAKE_API_MEMCPY_DTOH_ASYNC, ctx, s, LAKE_WIRE_SHM, 64, LAKE_WIRE_REQ_F_NOREPLY);
	put_simple(LAKE_API_STREAM_SYNCHRONIZE, ctx, s, 0);
	save("async-batch");
}

static void modules(void)
{
	static const char path[] = "vadd.cubin", name[] = "vadd";
	u64 ctx = h(LAKED_CTX, 1), mod = h(LAKED_MODULE, 2), fn = h(LAKED_FUNCTION, 3);
	struct lake_wire_req r;

	session_start();
	r = req(LAKE_API_MODULE_LOAD, ctx);
	r.tail = path;
	r.tail_len = sizeof(path);
	put(&r);
	r = req(LAKE_API_MODULE_GET_FUNCTION, ctx);
	r.args.handle.handle = mod;
	r.tail = name;
	r.tail_len = sizeof(name);
	put(&r);
	r = req(LAKE_API_LAUNCH_KERNEL, ctx);
	r.flags = LAKE_WIRE_REQ_F_NOREPLY;
	r.args.launch.func = fn;
	r.args.launch.grid[0] = r.args.launch.grid[1] = r.args.launch.grid[2] = 1;
	r.args.launch.block[0] = r.args.launch.block[1] = r.args.launch.block[2] = 1;
	r.tail = data;
	r.tail_len = 28;
	put(&r);
	put_simple(LAKE_API_MODULE_UNLOAD, ctx, 0, mod);
	save("modules");
}

/* A record whose pad is not zero between two good ones. */
static void malformed_middle(void)
{
	struct lake_wire_req r = req(LAKE_API_DRIVER_GET_VERSION, 0);
	u32 at, one = 1;

	put(&r);
	at = buf.len;
	r = req(LAKE_API_INIT, 0);
	put(&r);
	memcpy(blob + at + sizeof(struct lake_wire_req_hdr) + 4, &one, sizeof(one));
	r = req(LAKE_API_DEVICE_GET_COUNT, 0);
	put(&r);
	save("malformed-middle");
}

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	for (i = 0; i < sizeof(data); i++)
		data[i] = (u8)(i * 13);
	devices();
	contexts();
	streams_and_events();
	memory();
	async_batch();
	modules();
	malformed_middle();
	return 0;
}
