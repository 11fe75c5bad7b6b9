// SPDX-License-Identifier: GPL-2.0
/*
 * Streams and events. The header's stream was checked by the dispatcher
 * (0 is the context's default stream); events are handles checked here.
 * Both are usable only in the context they were made in.
 */
#include "dispatch.h"

static CUresult new_object(struct laked *d, struct laked_call *c, enum laked_type type)
{
	unsigned int flags = c->req->args.flags.flags;
	struct laked_obj *o = laked_obj_new(d);
	CUstream stream = NULL;
	CUevent ev = NULL;
	void *made;
	CUresult r;

	if (!o)
		return laked_refuse(c, CUDA_ERROR_OUT_OF_MEMORY, "handle table full");
	if (type == LAKED_STREAM) {
		r = d->drv->cuStreamCreate(&stream, flags);
		made = stream;
	} else {
		r = d->drv->cuEventCreate(&ev, flags);
		made = ev;
	}
	if (r) {
		laked_obj_drop(d, o);
		return r;
	}
	c->rep.res.handle.handle = laked_obj_set(d, o, type, c->ctx->handle, made);
	return CUDA_SUCCESS;
}

static u64 stream_handle(const struct laked_call *c)
{
	return c->stream ? c->stream->handle : 0;
}

CUresult laked_call_stream_create(struct laked *d, struct laked_call *c)
{
	return new_object(d, c, LAKED_STREAM);
}

CUresult laked_call_stream_synchronize(struct laked *d, struct laked_call *c)
{
	CUresult r = d->drv->cuStreamSynchronize(c->cu_stream);

	laked_unstage(&c->x->staged, c->ctx->handle, stream_handle(c));
	return r;
}

CUresult laked_call_stream_destroy(struct laked *d, struct laked_call *c)
{
	CUresult r;

	if (!c->stream)
		return laked_refuse(c, CUDA_ERROR_INVALID_HANDLE,
				    "the default stream cannot be destroyed");
	r = d->drv->cuStreamDestroy(c->cu_stream);
	if (r)
		return r;
	laked_unstage(&c->x->staged, c->ctx->handle, c->stream->handle);
	laked_obj_drop(d, c->stream);
	c->stream = NULL;
	return CUDA_SUCCESS;
}

CUresult laked_call_stream_query(struct laked *d, struct laked_call *c)
{
	return d->drv->cuStreamQuery(c->cu_stream);
}

static struct laked_obj *event(struct laked *d, struct laked_call *c, u64 handle)
{
	struct laked_obj *ev = laked_ctx_obj(d, c, handle, LAKED_EVENT);

	if (!ev)
		laked_refuse(c, CUDA_ERROR_INVALID_HANDLE, "event %#llx is not live here",
			     (unsigned long long)handle);
	return ev;
}

CUresult laked_call_event_create(struct laked *d, struct laked_call *c)
{
	return new_object(d, c, LAKED_EVENT);
}

CUresult laked_call_event_record(struct laked *d, struct laked_call *c)
{
	struct laked_obj *ev = event(d, c, c->req->args.handle.handle);

	if (!ev)
		return CUDA_ERROR_INVALID_HANDLE;
	return d->drv->cuEventRecord(ev->drv, c->cu_stream);
}

CUresult laked_call_event_synchronize(struct laked *d, struct laked_call *c)
{
	struct laked_obj *ev = event(d, c, c->req->args.handle.handle);

	if (!ev)
		return CUDA_ERROR_INVALID_HANDLE;
	return d->drv->cuEventSynchronize(ev->drv);
}

CUresult laked_call_event_elapsed_time(struct laked *d, struct laked_call *c)
{
	const struct lake_wire_event_elapsed_args *a = &c->req->args.elapsed;
	struct laked_obj *start, *end;
	float ms = 0;
	CUresult r;

	start = event(d, c, a->start);
	end = start ? event(d, c, a->end) : NULL;
	if (!end)
		return CUDA_ERROR_INVALID_HANDLE;
	r = d->drv->cuEventElapsedTime(&ms, start->drv, end->drv);
	/* The codec carries no floats: the reply holds the binary32 bits. */
	memcpy(&c->rep.res.elapsed.ms_bits, &ms, sizeof(ms));
	return r;
}

CUresult laked_call_event_destroy(struct laked *d, struct laked_call *c)
{
	struct laked_obj *ev = event(d, c, c->req->args.handle.handle);
	CUresult r;

	if (!ev)
		return CUDA_ERROR_INVALID_HANDLE;
	r = d->drv->cuEventDestroy(ev->drv);
	if (!r)
		laked_obj_drop(d, ev);
	return r;
}
