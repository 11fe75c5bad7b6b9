// SPDX-License-Identifier: GPL-2.0
/*
 * The dispatcher (laked.h): walks a CALL blob with the wire iterator, runs
 * each request through the handler its API id selects, and gathers the
 * replies into as few sink flushes as LAKE_GENL_RECORDS_MAX allows.
 *
 * A request flagged LAKE_WIRE_REQ_F_NOREPLY gets a reply only when it
 * fails; lakelib latches that error for the next synchronizing call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include "dispatch.h"

static const laked_handler handlers[LAKE_API_COUNT] = {
	[LAKE_API_INIT]			= laked_call_init,
	[LAKE_API_DRIVER_GET_VERSION]	= laked_call_driver_get_version,
	[LAKE_API_DEVICE_GET]		= laked_call_device_get,
	[LAKE_API_DEVICE_GET_COUNT]	= laked_call_device_get_count,
	[LAKE_API_DEVICE_GET_NAME]	= laked_call_device_get_name,
	[LAKE_API_DEVICE_GET_ATTRIBUTE]	= laked_call_device_get_attribute,
	[LAKE_API_DEVICE_TOTAL_MEM]	= laked_call_device_total_mem,
	[LAKE_API_CTX_CREATE]		= laked_call_ctx_create,
	[LAKE_API_CTX_DESTROY]		= laked_call_ctx_destroy,
	[LAKE_API_CTX_SYNCHRONIZE]	= laked_call_ctx_synchronize,
	[LAKE_API_MODULE_LOAD]		= laked_call_module_load,
	[LAKE_API_MODULE_UNLOAD]	= laked_call_module_unload,
	[LAKE_API_MODULE_GET_FUNCTION]	= laked_call_module_get_function,
	[LAKE_API_LAUNCH_KERNEL]	= laked_call_launch_kernel,
	[LAKE_API_MEM_ALLOC]		= laked_call_mem_alloc,
	[LAKE_API_MEM_ALLOC_PITCH]	= laked_call_mem_alloc_pitch,
	[LAKE_API_MEM_FREE]		= laked_call_mem_free,
	[LAKE_API_MEMCPY_HTOD]		= laked_call_memcpy,
	[LAKE_API_MEMCPY_DTOH]		= laked_call_memcpy,
	[LAKE_API_MEMCPY_HTOD_ASYNC]	= laked_call_memcpy,
	[LAKE_API_MEMCPY_DTOH_ASYNC]	= laked_call_memcpy,
	[LAKE_API_MEMSET_D8]		= laked_call_memset,
	[LAKE_API_MEMSET_D32]		= laked_call_memset,
	[LAKE_API_MEMSET_D8_ASYNC]	= laked_call_memset,
	[LAKE_API_MEMSET_D32_ASYNC]	= laked_call_memset,
	[LAKE_API_MEM_GET_INFO]		= laked_call_mem_get_info,
	[LAKE_API_STREAM_CREATE]	= laked_call_stream_create,
	[LAKE_API_STREAM_SYNCHRONIZE]	= laked_call_stream_synchronize,
	[LAKE_API_STREAM_DESTROY]	= laked_call_stream_destroy,
	[LAKE_API_STREAM_QUERY]		= laked_call_stream_query,
	[LAKE_API_EVENT_CREATE]		= laked_call_event_create,
	[LAKE_API_EVENT_RECORD]		= laked_call_event_record,
	[LAKE_API_EVENT_SYNCHRONIZE]	= laked_call_event_synchronize,
	[LAKE_API_EVENT_ELAPSED_TIME]	= laked_call_event_elapsed_time,
	[LAKE_API_EVENT_DESTROY]	= laked_call_event_destroy,
};

int laked_init(struct laked **out, const struct laked_config *cfg)
{
	u32 tag = cfg->tag;
	struct laked *d;

	if (!cfg->drv || !cfg->module_dir || tag > LAKED_TAG_MASK ||
	    !cfg->region != !cfg->region_size)
		return -EINVAL;
	while (!tag) {
		if (getrandom(&tag, sizeof(tag), 0) != sizeof(tag))
			return -errno;
		tag &= LAKED_TAG_MASK;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->drv = cfg->drv;
	d->module_dir = cfg->module_dir;
	d->module_dir_fd = open(cfg->module_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (d->module_dir_fd < 0)
		laked_log(LOG_WARNING, "module directory %s: %s: cuModuleLoad will fail",
			  cfg->module_dir, strerrorname_np(errno));
	d->region = cfg->region;
	d->region_size = cfg->region_size;
	laked_mutex_init(&d->lock);
	laked_handles_init(&d->handles, tag);
	laked_exec_init(&d->self, NULL);
	*out = d;
	return 0;
}

void laked_exec_init(struct laked_exec *x, void *owner)
{
	x->owner = owner;
	x->staged = (struct laked_stagings){};
	x->out.data = x->out_data;
	x->out.size = sizeof(x->out_data);
	x->out.len = 0;
}

int laked_module_dir_fd(const struct laked *d)
{
	return d->module_dir_fd;
}

void laked_fini(struct laked *d)
{
	struct laked_obj *o;
	u32 cursor = 0;
	CUresult r;

	if (!d)
		return;
	while ((o = laked_obj_next(&d->handles, &cursor))) {
		if (o->type != LAKED_CTX)
			continue;
		r = d->drv->cuCtxDestroy(o->drv);
		if (r)
			laked_log(LOG_WARNING, "cuCtxDestroy of context %#llx at exit: %s",
				  (unsigned long long)o->handle, laked_cu_name(r));
	}
	if (d->module_dir_fd >= 0)
		close(d->module_dir_fd);
	laked_stagings_fini(&d->self.staged);
	laked_allocs_fini(&d->allocs);
	laked_handles_fini(&d->handles);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

CUresult laked_refuse(struct laked_call *c, CUresult result, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	laked_log(LOG_WARNING, "%s (req %llu) refused: %s: %s", c->name,
		  (unsigned long long)c->req->req_id, why, laked_cu_name(result));
	return result;
}

struct laked_obj *laked_ctx_obj(struct laked *d, struct laked_call *c, u64 handle,
				enum laked_type type)
{
	struct laked_obj *o;

	laked_lock(d);
	o = laked_obj_get(&d->handles, handle, type);
	if (o && (!c->ctx || o->ctx != c->ctx->handle))
		o = NULL;
	laked_unlock(d);
	return o;
}

struct laked_obj *laked_obj_new(struct laked *d)
{
	struct laked_obj *o;

	laked_lock(d);
	o = laked_obj_alloc(&d->handles);
	laked_unlock(d);
	return o;
}

void laked_obj_drop(struct laked *d, struct laked_obj *o)
{
	laked_lock(d);
	laked_obj_free(&d->handles, o);
	laked_unlock(d);
}

/*
 * The handle is read under the lock: once published, a message that names
 * it (a context's, from any worker) may free @o as soon as the lock drops.
 */
u64 laked_obj_set(struct laked *d, struct laked_obj *o, enum laked_type type, u64 ctx,
		  void *drv)
{
	u64 handle;

	laked_lock(d);
	laked_obj_publish(&d->handles, o, type, ctx, drv);
	handle = o->handle;
	laked_unlock(d);
	return handle;
}

void laked_forget_ctx(struct laked *d, struct laked_call *c, struct laked_obj *ctx)
{
	u64 handle = ctx->handle;
	struct laked_obj *o;
	u32 cursor = 0;

	laked_lock(d);
	while ((o = laked_obj_next(&d->handles, &cursor)))
		if (o->ctx == handle && o != ctx)
			laked_obj_free(&d->handles, o);
	laked_allocs_drop_ctx(&d->allocs, handle);
	laked_obj_free(&d->handles, ctx);
	laked_unlock(d);
	laked_unstage(&c->x->staged, handle, LAKED_ALL_STREAMS);
}

/*
 * On the receiving thread, while workers run calls: d->lock is held across
 * the driver calls, so a context found live is not destroyed meanwhile
 * (cuCtxDestroy marks it dying under the lock first).
 */
int laked_mem_info(struct laked *d, u64 *used, u64 *total)
{
	size_t free_bytes, total_bytes;
	struct laked_obj *o;
	u32 cursor = 0;
	int ret = -EIO;

	laked_lock(d);
	do {
		o = laked_obj_next(&d->handles, &cursor);
	} while (o && (o->type != LAKED_CTX || o->dying));
	if (!o) {
		ret = -ENOENT;
	} else if (!d->drv->cuCtxSetCurrent(o->drv) &&
		   !d->drv->cuMemGetInfo(&free_bytes, &total_bytes)) {
		*total = total_bytes;
		*used = free_bytes < total_bytes ? total_bytes - free_bytes : 0;
		ret = 0;
	}
	laked_unlock(d);
	return ret;
}

void laked_exec_flush(struct laked_exec *x, struct laked_reply_sink *sink, int *sink_err)
{
	int ret;

	if (!x->out.len)
		return;
	ret = sink->flush(sink, x->out.data, x->out.len);
	x->out.len = 0;
	if (ret && !*sink_err)
		*sink_err = ret;
}

static void put_reply(struct laked_exec *x, struct lake_wire_rep *rep,
		      struct laked_reply_sink *sink, int *sink_err)
{
	const char *why = "";
	int ret;

	ret = lake_wire_put_rep(&x->out, rep, &why);
	if (ret == -EMSGSIZE && x->out.len) {
		laked_exec_flush(x, sink, sink_err);
		ret = lake_wire_put_rep(&x->out, rep, &why);
	}
	if (!ret)
		return;
	/* What the driver gave back breaks the wire rules: answer with a bare failure. */
	laked_log(LOG_ERR, "%s (req %llu): cannot encode reply: %s (%s)",
		  lake_wire_api(rep->api)->name, (unsigned long long)rep->req_id, why,
		  strerrorname_np(-ret));
	memset(&rep->res, 0, sizeof(rep->res));
	rep->tail = NULL;
	rep->tail_len = 0;
	rep->result = CUDA_ERROR_UNKNOWN;
	if (lake_wire_put_rep(&x->out, rep, &why) == -EMSGSIZE) {
		laked_exec_flush(x, sink, sink_err);
		lake_wire_put_rep(&x->out, rep, &why);
	}
}

void laked_answer(struct laked_exec *x, const struct lake_wire_req *req, CUresult result,
		  struct laked_reply_sink *sink, int *sink_err)
{
	struct lake_wire_rep rep = {
		.api = req->api,
		.req_id = req->req_id,
		.result = result,
	};

	put_reply(x, &rep, sink, sink_err);
}

/*
 * Check the header's context and stream, and make the context current. A
 * pool worker runs only the contexts routed to it: a context served by
 * another thread is refused like a dead one, so no two threads use one
 * context's objects.
 */
static CUresult bind_call(struct laked *d, struct laked_call *c, u16 flags)
{
	const struct lake_wire_req *req = c->req;
	struct laked_obj *ctx;
	CUresult r;

	if (!(flags & LAKE_WIRE_CTX))
		return CUDA_SUCCESS;
	laked_lock(d);
	ctx = laked_obj_get(&d->handles, req->ctx, LAKED_CTX);
	if (ctx && !laked_serves(c->x, ctx))
		ctx = NULL;
	laked_unlock(d);
	c->ctx = ctx;
	if (!c->ctx)
		return laked_refuse(c, CUDA_ERROR_INVALID_CONTEXT, "context %#llx is not live",
				    (unsigned long long)req->ctx);
	r = d->drv->cuCtxSetCurrent(c->ctx->drv);
	if (r) {
		laked_log(LOG_ERR, "%s (req %llu): cuCtxSetCurrent: %s", c->name,
			  (unsigned long long)req->req_id, laked_cu_name(r));
		return r;
	}
	if (!(flags & LAKE_WIRE_STREAM) || !req->stream)
		return CUDA_SUCCESS;
	c->stream = laked_ctx_obj(d, c, req->stream, LAKED_STREAM);
	if (!c->stream)
		return laked_refuse(c, CUDA_ERROR_INVALID_HANDLE,
				    "stream %#llx is not live in context %#llx",
				    (unsigned long long)req->stream, (unsigned long long)req->ctx);
	c->cu_stream = c->stream->drv;
	return CUDA_SUCCESS;
}

CUresult laked_run_record(struct laked *d, struct laked_exec *x, const struct lake_wire_req *req,
			  struct laked_reply_sink *sink, int *sink_err)
{
	const struct lake_wire_api_desc *desc = lake_wire_api(req->api);
	struct laked_call c = { .req = req, .x = x, .name = desc->name };
	CUresult r;

	r = bind_call(d, &c, desc->flags);
	if (!r)
		r = handlers[req->api](d, &c);
	if (r)
		laked_log(LOG_DEBUG, "%s (req %llu): %s", c.name,
			  (unsigned long long)req->req_id, laked_cu_name(r));
	if (!r && (req->flags & LAKE_WIRE_REQ_F_NOREPLY))
		return r;
	c.rep.api = req->api;
	c.rep.req_id = req->req_id;
	c.rep.result = r;
	if (r) {
		memset(&c.rep.res, 0, sizeof(c.rep.res));
		c.rep.tail = NULL;
		c.rep.tail_len = 0;
	}
	put_reply(x, &c.rep, sink, sink_err);
	return r;
}

/*
 * The iterator refused the record at @rec (@at bytes into the blob).
 * Answer it when its header names an API. Returns its length when its
 * framing is sound, so the records after it still run; 0 drops the rest.
 */
static u32 malformed(struct laked_exec *x, const u8 *rec, u32 left, u32 at,
		     const struct lake_wire_iter *it, int err,
		     struct laked_reply_sink *sink, int *sink_err)
{
	const struct lake_wire_api_desc *desc;
	struct lake_wire_req_hdr h;
	struct lake_wire_rep rep = {};
	bool framed;

	if (left < sizeof(h)) {
		laked_log(LOG_WARNING, "malformed record at byte %u: %s (%s); %u bytes dropped",
			  at, it->why, strerrorname_np(-err), left);
		return 0;
	}
	memcpy(&h, rec, sizeof(h));
	desc = lake_wire_api(h.api);
	framed = h.len >= sizeof(h) && h.len % LAKE_WIRE_ALIGN == 0 && h.len <= left;
	laked_log(LOG_WARNING, "malformed %s record (req %llu) at byte %u: %s (%s)%s",
		  desc ? desc->name : "unknown-api", (unsigned long long)h.req_id, at, it->why,
		  strerrorname_np(-err), framed ? "" : "; the rest of the message is dropped");
	if (desc) {
		rep.api = h.api;
		rep.req_id = h.req_id;
		rep.result = CUDA_ERROR_INVALID_VALUE;
		put_reply(x, &rep, sink, sink_err);
	}
	return framed ? h.len : 0;
}

int laked_walk_blob(struct laked *d, struct laked_exec *x, const void *blob, u32 len,
		    struct laked_reply_sink *sink, laked_route_fn route, void *arg)
{
	struct lake_wire_iter it;
	struct lake_wire_req req;
	const u8 *p = blob;
	int ret, sink_err = 0;
	u32 off = 0, skip, at;

	x->out.len = 0;
	/* One message run here is one batch: its async work starts together. */
	if (!route && d->drv->batch_begin)
		d->drv->batch_begin(d->drv);
	while (off < len) {
		lake_wire_iter_init(&it, p + off, len - off);
		for (;;) {
			at = it.pos;
			ret = lake_wire_next_req(&it, &req);
			if (ret != 1)
				break;
			if (!route || !route(arg, &req, p + off + at, it.pos - at))
				laked_run_record(d, x, &req, sink, &sink_err);
		}
		if (!ret)
			break;
		off += it.pos;
		skip = malformed(x, p + off, len - off, off, &it, ret, sink, &sink_err);
		if (!skip)
			break;
		off += skip;
	}
	if (!route && d->drv->batch_end)
		d->drv->batch_end(d->drv);
	laked_exec_flush(x, sink, &sink_err);
	return sink_err;
}

int laked_dispatch_blob(struct laked *d, const void *blob, u32 len,
			struct laked_reply_sink *sink)
{
	return laked_walk_blob(d, &d->self, blob, len, sink, NULL, NULL);
}
