// SPDX-License-Identifier: GPL-2.0
/*
 * Device memory: allocation, copies and memsets. Every device range must lie
 * inside one live allocation made through laked in the caller's current
 * context, every region range inside the shared region, before the driver
 * sees either. Kept strict: a pointer of another context is refused even
 * where unified addressing would let the driver reach it, so one module's
 * context cannot copy to, memset or free another's memory.
 *
 * Copies name their host side as a region offset (LAKE_WIRE_SHM), or carry
 * it in the record (LAKE_WIRE_INLINE): host-to-device data in the request,
 * device-to-host data in the reply. Async host-to-device data is staged
 * (staging.h). An inline async device-to-host copy waits for its stream,
 * since the data must be in the reply; an error of earlier work on that
 * stream is then its result.
 *
 * A region range flagged LAKE_WIRE_REQ_F_STAGED is a lakelib bounce chunk,
 * reused once the reply is out: an async host-to-device copy from one is
 * staged like inline data (or, past the staging cap, waits for its stream),
 * and an async device-to-host copy into one waits for its stream, as the
 * inline form does.
 */
#include "dispatch.h"

/* An allocation found for @c that belongs to another context is refused. d->lock held. */
static CUresult check_owner(struct laked_call *c, const struct laked_alloc *a)
{
	if (a->ctx == c->ctx->handle)
		return CUDA_SUCCESS;
	return laked_refuse(c, CUDA_ERROR_INVALID_VALUE,
			    "device range at %#llx belongs to context %#llx, not the caller's %#llx",
			    (unsigned long long)a->dptr, (unsigned long long)a->ctx,
			    (unsigned long long)c->ctx->handle);
}

/*
 * Once checked, the range stays the caller's: only the thread serving its
 * context frees its allocations.
 */
static CUresult check_range(struct laked *d, struct laked_call *c, u64 dptr, u64 bytes)
{
	struct laked_alloc *a;
	CUresult r;

	laked_lock(d);
	a = laked_alloc_find(&d->allocs, dptr, bytes);
	r = a ? check_owner(c, a) :
		laked_refuse(c, CUDA_ERROR_INVALID_VALUE,
			     "device range %#llx+%llu is not inside a live allocation",
			     (unsigned long long)dptr, (unsigned long long)bytes);
	laked_unlock(d);
	return r;
}

static struct laked_alloc *new_record(struct laked *d)
{
	struct laked_alloc *a;

	laked_lock(d);
	a = laked_alloc_new(&d->allocs);
	laked_unlock(d);
	return a;
}

static void track(struct laked *d, struct laked_call *c, struct laked_alloc *a, u64 dptr,
		  u64 bytes)
{
	unsigned int stale;

	a->dptr = dptr;
	a->bytes = bytes;
	a->ctx = c->ctx->handle;
	laked_lock(d);
	stale = laked_alloc_insert(&d->allocs, a);
	laked_unlock(d);
	if (stale)
		laked_log(LOG_WARNING, "%s: %u stale allocation records overlapped %#llx+%llu",
			  c->name, stale, (unsigned long long)dptr, (unsigned long long)bytes);
}

CUresult laked_call_mem_alloc(struct laked *d, struct laked_call *c)
{
	u64 bytes = c->req->args.size.bytes;
	struct laked_alloc *a = new_record(d);
	CUdeviceptr p;
	CUresult r;

	if (!a)
		return laked_refuse(c, CUDA_ERROR_OUT_OF_MEMORY, "allocation table full");
	r = d->drv->cuMemAlloc(&p, bytes);
	if (r) {
		free(a);
		return r;
	}
	track(d, c, a, p, bytes);
	c->rep.res.handle.handle = p;
	return CUDA_SUCCESS;
}

CUresult laked_call_mem_alloc_pitch(struct laked *d, struct laked_call *c)
{
	const struct lake_wire_mem_alloc_pitch_args *args = &c->req->args.mem_alloc_pitch;
	struct laked_alloc *a = new_record(d);
	size_t pitch;
	CUdeviceptr p;
	u64 bytes;
	CUresult r;

	if (!a)
		return laked_refuse(c, CUDA_ERROR_OUT_OF_MEMORY, "allocation table full");
	r = d->drv->cuMemAllocPitch(&p, &pitch, args->width, args->height, args->elem_size);
	if (r) {
		free(a);
		return r;
	}
	if (__builtin_mul_overflow((u64)pitch, args->height, &bytes)) {
		d->drv->cuMemFree(p);
		free(a);
		return laked_refuse(c, CUDA_ERROR_OUT_OF_MEMORY, "pitch %zu x %llu overflows",
				    pitch, (unsigned long long)args->height);
	}
	track(d, c, a, p, bytes);
	c->rep.res.pair.first = p;
	c->rep.res.pair.second = pitch;
	return CUDA_SUCCESS;
}

/*
 * The record leaves the table before the driver frees the range: once
 * freed, another context's cuMemAlloc may get it back and insert its own.
 */
CUresult laked_call_mem_free(struct laked *d, struct laked_call *c)
{
	u64 dptr = c->req->args.handle.handle;
	struct laked_alloc *a;
	CUresult r;

	laked_lock(d);
	a = laked_alloc_exact(&d->allocs, dptr);
	r = a ? check_owner(c, a) :
		laked_refuse(c, CUDA_ERROR_INVALID_VALUE,
			     "%#llx is not the start of a live allocation",
			     (unsigned long long)dptr);
	if (!r)
		laked_alloc_unlink(&d->allocs, a);
	laked_unlock(d);
	if (r)
		return r;
	r = d->drv->cuMemFree(dptr);
	if (!r) {
		free(a);
		return r;
	}
	laked_lock(d);
	laked_alloc_insert(&d->allocs, a);
	laked_unlock(d);
	return r;
}

CUresult laked_call_mem_get_info(struct laked *d, struct laked_call *c)
{
	size_t free_bytes = 0, total = 0;
	CUresult r = d->drv->cuMemGetInfo(&free_bytes, &total);

	c->rep.res.pair.first = free_bytes;
	c->rep.res.pair.second = total;
	return r;
}

static CUresult staging_full(struct laked_call *c)
{
	return laked_refuse(c, CUDA_ERROR_OUT_OF_MEMORY,
			    "over %llu bytes staged for async calls: synchronize",
			    LAKED_STAGING_MAX);
}

/*
 * The host side of a copy: the region, the request's tail or the reply
 * buffer. *wait: the stream must be done before the reply (a bounce chunk).
 */
static CUresult host_side(struct laked *d, struct laked_call *c, bool htod, bool async,
			  void **host, bool *wait)
{
	const struct lake_wire_memcpy_args *a = &c->req->args.memcpy;
	u64 stream = c->stream ? c->stream->handle : 0;
	bool bounce = async && (c->req->flags & LAKE_WIRE_REQ_F_STAGED);
	void *copy;

	*wait = false;
	if (a->where == LAKE_WIRE_SHM) {
		if (!d->region)
			return laked_refuse(c, CUDA_ERROR_INVALID_VALUE, "no shared region");
		if (a->shm_off > d->region_size || a->bytes > d->region_size - a->shm_off)
			return laked_refuse(c, CUDA_ERROR_INVALID_VALUE,
					    "region range %#llx+%llu is outside the region",
					    (unsigned long long)a->shm_off,
					    (unsigned long long)a->bytes);
		*host = d->region + a->shm_off;
		if (!bounce || !a->bytes)
			return CUDA_SUCCESS;
		copy = htod && a->bytes <= UINT32_MAX ?
		       laked_stage(&c->x->staged, c->ctx->handle, stream, (u32)a->bytes) : NULL;
		if (copy) {
			memcpy(copy, *host, a->bytes);
			*host = copy;
		} else {
			*wait = true;
		}
		return CUDA_SUCCESS;
	}
	*host = c->x->tail;
	if (!htod || !a->bytes)
		return CUDA_SUCCESS;
	*host = (void *)c->req->tail;
	if (!async)
		return CUDA_SUCCESS;
	*host = laked_stage(&c->x->staged, c->ctx->handle, stream, (u32)a->bytes);
	if (!*host)
		return staging_full(c);
	memcpy(*host, c->req->tail, a->bytes);
	return CUDA_SUCCESS;
}

CUresult laked_call_memcpy(struct laked *d, struct laked_call *c)
{
	const struct lake_wire_memcpy_args *a = &c->req->args.memcpy;
	struct lake_driver *drv = d->drv;
	u16 api = c->req->api;
	bool htod = api == LAKE_API_MEMCPY_HTOD || api == LAKE_API_MEMCPY_HTOD_ASYNC;
	bool async = api == LAKE_API_MEMCPY_HTOD_ASYNC || api == LAKE_API_MEMCPY_DTOH_ASYNC;
	void *host = NULL;
	bool wait;
	CUresult r;

	r = check_range(d, c, a->dptr, a->bytes);
	if (!r)
		r = host_side(d, c, htod, async, &host, &wait);
	if (r)
		return r;
	switch (api) {
	case LAKE_API_MEMCPY_HTOD:
		return drv->cuMemcpyHtoD(a->dptr, host, a->bytes);
	case LAKE_API_MEMCPY_HTOD_ASYNC:
		r = drv->cuMemcpyHtoDAsync(a->dptr, host, a->bytes, c->cu_stream);
		return r || !wait ? r : drv->cuStreamSynchronize(c->cu_stream);
	case LAKE_API_MEMCPY_DTOH:
		r = drv->cuMemcpyDtoH(host, a->dptr, a->bytes);
		break;
	default:
		r = drv->cuMemcpyDtoHAsync(host, a->dptr, a->bytes, c->cu_stream);
		if (r || (a->where != LAKE_WIRE_INLINE && !wait))
			return r;
		r = drv->cuStreamSynchronize(c->cu_stream);
		laked_unstage(&c->x->staged, c->ctx->handle, c->stream ? c->stream->handle : 0);
		break;
	}
	if (!r && a->where == LAKE_WIRE_INLINE) {
		c->rep.tail = c->x->tail;
		c->rep.tail_len = (u32)a->bytes;
	}
	return r;
}

CUresult laked_call_memset(struct laked *d, struct laked_call *c)
{
	const struct lake_wire_memset_args *a = &c->req->args.memset;
	struct lake_driver *drv = d->drv;
	u16 api = c->req->api;
	bool d32 = api == LAKE_API_MEMSET_D32 || api == LAKE_API_MEMSET_D32_ASYNC;
	CUresult r;

	if (d32 && a->count > UINT64_MAX / 4)
		return laked_refuse(c, CUDA_ERROR_INVALID_VALUE, "count %llu overflows",
				    (unsigned long long)a->count);
	r = check_range(d, c, a->dptr, d32 ? a->count * 4 : a->count);
	if (r)
		return r;
	switch (api) {
	case LAKE_API_MEMSET_D8:
		return drv->cuMemsetD8(a->dptr, (unsigned char)a->value, a->count);
	case LAKE_API_MEMSET_D32:
		return drv->cuMemsetD32(a->dptr, a->value, a->count);
	case LAKE_API_MEMSET_D8_ASYNC:
		return drv->cuMemsetD8Async(a->dptr, (unsigned char)a->value, a->count,
					    c->cu_stream);
	default:
		return drv->cuMemsetD32Async(a->dptr, a->value, a->count, c->cu_stream);
	}
}
