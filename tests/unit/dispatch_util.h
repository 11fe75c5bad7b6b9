/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Driving laked's dispatcher without netlink, for test_dispatch.c: requests
 * are encoded with the wire encoder into a heap blob of exact size (so ASan
 * sees any read past it, and any use of it after the dispatch), run on the
 * host device, and the replies a sink collected are decoded with the wire
 * iterator, their tails copied out. Helpers assert with cmocka.
 */
#ifndef LAKE_TEST_DISPATCH_UTIL_H
#define LAKE_TEST_DISPATCH_UTIL_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "laked/laked.h"
#include "laked/handles.h"
#include "laked/log.h"

#define MIB		(1024ULL * 1024)
#define TEST_MEM	(64 * MIB)
#define REGION_SIZE	(1 * MIB)
#define TAG_A		0x1a2b3cU
#define TAG_B		0x4d5e6fU
#define MAX_REPLIES	256
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct collect {
	struct laked_reply_sink sink;
	u8 data[8 * LAKE_GENL_RECORDS_MAX];
	u32 len;
	unsigned int flushes;
};

struct got {
	struct lake_wire_rep rep;
	u8 tail[LAKE_WIRE_INLINE_MAX];
};

struct batch {
	u8 data[LAKE_GENL_RECORDS_MAX];
	struct lake_wire_buf buf;
};

extern struct lake_driver *drv;	/* the host device, or a test's wrapper of it */
extern struct laked *dd;		/* the dispatcher under test */
extern u8 *region;			/* stands in for the mapped /dev/lake_shm */
extern struct collect sink;
extern struct got got[MAX_REPLIES];	/* the replies of the last run */
extern unsigned int ngot;

/* A dispatcher on drv with @tag, the kernels' directory, and the region or none. */
int open_laked(struct laked **out, u32 tag, bool with_region);
/* Host device, region and dispatcher (TAG_A); cmocka setup and teardown. */
int setup(void **state);
int teardown(void **state);

void batch_init(struct batch *b);
/* A request with a fresh id and @ctx in its header. */
struct lake_wire_req req_new(u16 api, u64 ctx);
void batch_add(struct batch *b, const struct lake_wire_req *r);
/* Dispatch @len bytes from an exact-size heap copy; decode the replies into got. */
void run_bytes(struct laked *d, const void *data, u32 len);
void run_batch(struct batch *b);

/* One request in its own message, and the one reply it must get. */
struct lake_wire_rep *call(const struct lake_wire_req *r);
CUresult result_of(const struct lake_wire_req *r);
/* One request that must get no reply. */
void noreply(const struct lake_wire_req *r);

/* Each asserts success and returns the new handle or device pointer. */
u64 new_ctx(void);
u64 new_handle(u16 api, u64 ctx, u32 flags);
u64 mem_alloc(u64 ctx, u64 bytes);

struct lake_wire_req copy_req(u16 api, u64 ctx, u64 dptr, u64 bytes, u32 where,
			      u64 shm_off, const void *tail);
CUresult put_inline(u64 ctx, u64 dptr, const void *data, u64 bytes);
/* Inline device-to-host copy; the data is in the reply's tail. */
struct lake_wire_rep *get_inline(u64 ctx, u64 dptr, u64 bytes);
/* 0 unless the result is CUDA_SUCCESS, which @want must be. */
u64 module_load(u64 ctx, const char *path, CUresult want);
struct lake_wire_rep *get_function(u64 ctx, u64 mod, const char *name);
/* An async launch of @fn over @n threads, parameters @params. */
struct lake_wire_req launch_req(u64 ctx, u64 fn, const void *params, u32 len, u32 n);

/* dispatch_mem.c: the memory cases of test_dispatch. */
void test_mem_alloc_free(void **state);
void test_memcpy_inline(void **state);
void test_memcpy_shm(void **state);
void test_async_noreply(void **state);
void test_mem_other_context(void **state);
void test_memset(void **state);
void test_memset_on_stream(void **state);
void test_vadd_end_to_end(void **state);
void test_replies_are_gathered(void **state);

#endif /* LAKE_TEST_DISPATCH_UTIL_H */
