/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the dispatcher: its state, and the per-API handlers that
 * dispatch.c calls through a table indexed by API id. A handler runs after
 * the record was validated by the wire iterator and, for LAKE_WIRE_CTX and
 * LAKE_WIRE_STREAM APIs, after the header's context was checked and made
 * current and its stream checked. It validates its own handles, pointers
 * and lengths, calls the driver, and on success fills the reply's fixed
 * part and tail. It returns the call's CUresult.
 */
#ifndef LAKED_DISPATCH_H
#define LAKED_DISPATCH_H

#include "laked/laked.h"
#include "laked/handles.h"
#include "laked/allocs.h"
#include "laked/staging.h"
#include "laked/log.h"

struct laked {
	struct lake_driver *drv;
	const char *module_dir;
	int module_dir_fd;			/* O_PATH; -1: could not be opened */
	u8 *region;
	u64 region_size;
	struct laked_handles handles;
	struct laked_allocs allocs;
	struct laked_stagings staged;
	struct lake_wire_buf out;		/* replies not yet flushed */
	u8 out_data[LAKE_GENL_RECORDS_MAX];
	/* Reply tails: inline device-to-host data, device names. */
	u8 tail[LAKE_WIRE_INLINE_MAX] __attribute__((aligned(16)));
	/* Launch parameters, copied out of the record so they are aligned. */
	u8 params[LAKE_WIRE_MAX_PARAM_BYTES] __attribute__((aligned(16)));
};

/* One record being run. */
struct laked_call {
	const struct lake_wire_req *req;
	const char *name;		/* the API's CUDA name, for logs */
	struct laked_obj *ctx;		/* LAKE_WIRE_CTX APIs */
	struct laked_obj *stream;	/* LAKE_WIRE_STREAM APIs; NULL: default stream */
	CUstream cu_stream;		/* the driver's stream; NULL: default */
	struct lake_wire_rep rep;	/* handlers fill res, tail, tail_len */
};

typedef CUresult (*laked_handler)(struct laked *d, struct laked_call *c);

/* Log a refused record: what was wrong with it, and the answer it gets. */
CUresult laked_refuse(struct laked_call *c, CUresult result, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* dispatch.c: the object @handle names in the call's context, or NULL. */
struct laked_obj *laked_ctx_obj(struct laked *d, struct laked_call *c, u64 handle,
				enum laked_type type);
/* @ctx and everything made in it, gone from laked's tables once the driver destroyed them. */
void laked_forget_ctx(struct laked *d, struct laked_obj *ctx);

/* calls_device.c */
CUresult laked_call_init(struct laked *d, struct laked_call *c);
CUresult laked_call_driver_get_version(struct laked *d, struct laked_call *c);
CUresult laked_call_device_get(struct laked *d, struct laked_call *c);
CUresult laked_call_device_get_count(struct laked *d, struct laked_call *c);
CUresult laked_call_device_get_name(struct laked *d, struct laked_call *c);
CUresult laked_call_device_get_attribute(struct laked *d, struct laked_call *c);
CUresult laked_call_device_total_mem(struct laked *d, struct laked_call *c);
CUresult laked_call_ctx_create(struct laked *d, struct laked_call *c);
CUresult laked_call_ctx_destroy(struct laked *d, struct laked_call *c);
CUresult laked_call_ctx_synchronize(struct laked *d, struct laked_call *c);

/* calls_module.c */
CUresult laked_call_module_load(struct laked *d, struct laked_call *c);
CUresult laked_call_module_unload(struct laked *d, struct laked_call *c);
CUresult laked_call_module_get_function(struct laked *d, struct laked_call *c);
CUresult laked_call_launch_kernel(struct laked *d, struct laked_call *c);

/* calls_mem.c */
CUresult laked_call_mem_alloc(struct laked *d, struct laked_call *c);
CUresult laked_call_mem_alloc_pitch(struct laked *d, struct laked_call *c);
CUresult laked_call_mem_free(struct laked *d, struct laked_call *c);
CUresult laked_call_mem_get_info(struct laked *d, struct laked_call *c);
CUresult laked_call_memcpy(struct laked *d, struct laked_call *c);
CUresult laked_call_memset(struct laked *d, struct laked_call *c);

/* calls_stream.c */
CUresult laked_call_stream_create(struct laked *d, struct laked_call *c);
CUresult laked_call_stream_synchronize(struct laked *d, struct laked_call *c);
CUresult laked_call_stream_destroy(struct laked *d, struct laked_call *c);
CUresult laked_call_stream_query(struct laked *d, struct laked_call *c);
CUresult laked_call_event_create(struct laked *d, struct laked_call *c);
CUresult laked_call_event_record(struct laked *d, struct laked_call *c);
CUresult laked_call_event_synchronize(struct laked *d, struct laked_call *c);
CUresult laked_call_event_elapsed_time(struct laked *d, struct laked_call *c);
CUresult laked_call_event_destroy(struct laked *d, struct laked_call *c);

#endif /* LAKED_DISPATCH_H */
