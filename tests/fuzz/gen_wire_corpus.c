// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the seed corpus of fuzz_wire: each example request and reply of
 * tests/unit/wire_examples.c, a failed reply, coalesced batches and a load
 * report, all produced by the encoder; and hostile requests, an example
 * with one field changed so the codec must refuse it: a check weakened to
 * accept one is then seen at the first run, not by chance.
 * See tests/fuzz/wire.mk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/wire_examples.h"

static u8 blob[LAKE_GENL_RECORDS_MAX];
static const char *dir;

static void put_file(const char *name, const void *data, u32 len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void must(int ret, const char *why, const char *what)
{
	if (ret) {
		fprintf(stderr, "gen_wire_corpus: %s: %d (%s)\n", what, ret, why);
		exit(1);
	}
}

/* @api's example request with @size bytes at @off set to @val. */
static void put_hostile(const char *name, u16 api, u32 off, u64 val, u32 size)
{
	struct lake_wire_buf b = { .data = blob, .size = sizeof(blob) };
	struct lake_wire_req req;
	const char *why = NULL;

	wire_example_req(api, &req);
	must(lake_wire_put_req(&b, &req, &why), why, name);
	memcpy(blob + off, &val, size);
	put_file(name, blob, b.len);
}

#define ARGS_OFF	sizeof(struct lake_wire_req_hdr)

int main(int argc, char **argv)
{
	static const u16 batch[] = {
		LAKE_API_MEMCPY_HTOD_ASYNC, LAKE_API_LAUNCH_KERNEL, LAKE_API_LAUNCH_KERNEL,
		LAKE_API_MEMCPY_DTOH_ASYNC, LAKE_API_STREAM_SYNCHRONIZE,
	};
	const struct lake_genl_load load = {
		.flags = LAKE_LOAD_F_ALL, .util_pct = 42, .procs = 1, .period_ms = 20,
		.mem_used = 1ULL << 30, .mem_total = 141ULL << 30,
	};
	struct lake_wire_buf b = { .data = blob, .size = sizeof(blob) };
	const char *why = NULL;
	struct lake_wire_req req;
	struct lake_wire_rep rep;
	char name[64];
	u16 api;
	u32 i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	wire_examples_init();
	for (api = 1; api < LAKE_API_COUNT; api++) {
		const char *cuda = lake_wire_api(api)->name;

		wire_example_req(api, &req);
		b.len = 0;
		must(lake_wire_put_req(&b, &req, &why), why, cuda);
		snprintf(name, sizeof(name), "req-%s", cuda);
		put_file(name, blob, b.len);

		wire_example_rep(api, &rep);
		b.len = 0;
		must(lake_wire_put_rep(&b, &rep, &why), why, cuda);
		snprintf(name, sizeof(name), "rep-%s", cuda);
		put_file(name, blob, b.len);
	}

	b.len = 0;
	for (i = 0; i < ARRAY_SIZE(batch); i++) {
		wire_example_req(batch[i], &req);
		req.req_id = i;
		must(lake_wire_put_req(&b, &req, &why), why, "batch");
	}
	put_file("batch-calls", blob, b.len);

	b.len = 0;
	for (i = 0; i < ARRAY_SIZE(batch); i++) {
		wire_example_rep(batch[i], &rep);
		rep.req_id = i;
		if (batch[i] == LAKE_API_LAUNCH_KERNEL) {
			rep.result = 701;	/* CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES */
			rep.tail_len = 0;
		}
		must(lake_wire_put_rep(&b, &rep, &why), why, "batch");
	}
	put_file("batch-replies", blob, b.len);

	put_file("load", &load, sizeof(load));

	/* Inline data longer than the count; an inline read nobody answers; D8 over a byte. */
	put_hostile("bad-inline-count", LAKE_API_MEMCPY_HTOD,
		    ARGS_OFF + offsetof(struct lake_wire_memcpy_args, bytes), 53,
		    sizeof(u64));
	put_hostile("bad-inline-dtoh-noreply", LAKE_API_MEMCPY_DTOH_ASYNC,
		    offsetof(struct lake_wire_req_hdr, flags), LAKE_WIRE_REQ_F_NOREPLY,
		    sizeof(u16));
	put_hostile("bad-memset-d8-value", LAKE_API_MEMSET_D8,
		    ARGS_OFF + offsetof(struct lake_wire_memset_args, value), 0x100,
		    sizeof(u32));
	return 0;
}
