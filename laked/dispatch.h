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

#include <pthread.h>
#include "laked/laked.h"
#include "laked/handles.h"
#include "laked/allocs.h"
#include "laked/staging.h"
#include "laked/log.h"
#include "laked/lockcheck.h"

/*
 * What one thread needs to run records: its replies, scratch space, and
 * the staged sources of the async copies it queued (only the thread that
 * serves a context queues or releases them). laked_dispatch_blob() runs on
 * the dispatcher's own; each worker of the pool (workers.c) has one.
 */
struct laked_exec {
	void *owner;				/* the worker; NULL: laked_dispatch_blob */
	struct laked_stagings staged;
	struct lake_wire_buf out;		/* replies not yet flushed */
	u8 out_data[LAKE_GENL_RECORDS_MAX];
	/* Reply tails: inline device-to-host data, device names. */
	u8 tail[LAKE_WIRE_INLINE_MAX] __attribute__((aligned(16)));
	/* Launch parameters, copied out of the record so they are aligned. */
	u8 params[LAKE_WIRE_MAX_PARAM_BYTES] __attribute__((aligned(16)));
};

/*
 * Shared by every thread. @lock guards the handle and allocation tables,
 * and each object's fields. An object pointer may be kept without it only
 * by the thread serving the object's context, which alone frees it; any
 * other thread looks objects up, and checks their context, under it.
 */
struct laked {
	struct lake_driver *drv;
	const char *module_dir;
	int module_dir_fd;			/* O_PATH; -1: could not be opened */
	u8 *region;
	u64 region_size;
	pthread_mutex_t lock;
	struct laked_handles handles;
	struct laked_allocs allocs;
	struct laked_exec self;			/* laked_dispatch_blob's */
};

/*
 * May @x run records of context @ctx? A pool worker runs only the contexts
 * bound to it; laked_dispatch_blob's exec runs any. d->lock held.
 */
static inline bool laked_serves(const struct laked_exec *x, const struct laked_obj *ctx)
{
	return !x->owner || ctx->serve == x->owner;
}

static inline void laked_lock(struct laked *d)
{
	pthread_mutex_lock(&d->lock);
}

static inline void laked_unlock(struct laked *d)
{
	pthread_mutex_unlock(&d->lock);
}

/* One record being run. */
struct laked_call {
	const struct lake_wire_req *req;
	struct laked_exec *x;		/* the running thread's */
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

/* dispatch.c: the object @handle names in the call's context, or NULL. Takes d->lock. */
struct laked_obj *laked_ctx_obj(struct laked *d, struct laked_call *c, u64 handle,
				enum laked_type type);
/*
 * @ctx and everything made in it, gone from laked's tables and the call's
 * staged copies once the driver destroyed them. Takes d->lock.
 */
void laked_forget_ctx(struct laked *d, struct laked_call *c, struct laked_obj *ctx);
/* Table helpers that take d->lock. */
struct laked_obj *laked_obj_new(struct laked *d);
void laked_obj_drop(struct laked *d, struct laked_obj *o);
u64 laked_obj_set(struct laked *d, struct laked_obj *o, enum laked_type type, u64 ctx,
		  void *drv);

/*
 * Run the records of @blob in order on @x and flush their replies to
 * @sink; laked_dispatch_blob() is this on d->self. Records whose
 * @route answers true instead go to @route (with their raw bytes, which
 * the iterator already validated once), which takes them over: the pool
 * queues them on a worker. Returns the first sink error.
 */
typedef bool (*laked_route_fn)(void *arg, const struct lake_wire_req *req, const void *raw,
			       u32 raw_len);
int laked_walk_blob(struct laked *d, struct laked_exec *x, const void *blob, u32 len,
		    struct laked_reply_sink *sink, laked_route_fn route, void *arg);
void laked_exec_init(struct laked_exec *x, void *owner);
/* Run one validated record on @x, its reply (if any) queued on @x; its CUresult. */
CUresult laked_run_record(struct laked *d, struct laked_exec *x, const struct lake_wire_req *req,
			  struct laked_reply_sink *sink, int *sink_err);
/* Answer @req with @result on @x, as if a handler had failed it (pool overflow). */
void laked_answer(struct laked_exec *x, const struct lake_wire_req *req, CUresult result,
		  struct laked_reply_sink *sink, int *sink_err);
/* Flush @x's replies to @sink; the first error is kept in *sink_err. */
void laked_exec_flush(struct laked_exec *x, struct laked_reply_sink *sink, int *sink_err);

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
