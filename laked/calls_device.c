// SPDX-License-Identifier: GPL-2.0
/*
 * cuInit, the device queries and contexts. Device ordinals and attribute ids
 * are plain integers the driver validates itself; contexts are handles from
 * laked's table, and destroying one forgets everything made in it.
 */
#include "dispatch.h"

CUresult laked_call_init(struct laked *d, struct laked_call *c)
{
	return d->drv->cuInit(c->req->args.flags.flags);
}

CUresult laked_call_driver_get_version(struct laked *d, struct laked_call *c)
{
	int v = 0;
	CUresult r = d->drv->cuDriverGetVersion(&v);

	c->rep.res.value.value = v;
	return r;
}

CUresult laked_call_device_get(struct laked *d, struct laked_call *c)
{
	CUdevice dev = 0;
	CUresult r = d->drv->cuDeviceGet(&dev, c->req->args.device.dev);

	c->rep.res.value.value = dev;
	return r;
}

CUresult laked_call_device_get_count(struct laked *d, struct laked_call *c)
{
	int n = 0;
	CUresult r = d->drv->cuDeviceGetCount(&n);

	c->rep.res.value.value = n;
	return r;
}

CUresult laked_call_device_get_name(struct laked *d, struct laked_call *c)
{
	char *name = (char *)c->x->tail;
	CUresult r;
	size_t len;

	memset(name, 0, LAKE_WIRE_DEVICE_NAME_MAX);
	r = d->drv->cuDeviceGetName(name, LAKE_WIRE_DEVICE_NAME_MAX - 1, c->req->args.device.dev);
	if (r)
		return r;
	len = strlen(name);
	if (!len)
		return laked_refuse(c, CUDA_ERROR_UNKNOWN, "the driver gave an empty name");
	c->rep.tail = name;
	c->rep.tail_len = (u32)len + 1;
	return CUDA_SUCCESS;
}

CUresult laked_call_device_get_attribute(struct laked *d, struct laked_call *c)
{
	const struct lake_wire_attribute_args *a = &c->req->args.attribute;
	int v = 0;
	CUresult r = d->drv->cuDeviceGetAttribute(&v, (CUdevice_attribute)a->attrib, a->dev);

	c->rep.res.value.value = v;
	return r;
}

CUresult laked_call_device_total_mem(struct laked *d, struct laked_call *c)
{
	size_t bytes = 0;
	CUresult r = d->drv->cuDeviceTotalMem(&bytes, c->req->args.device.dev);

	c->rep.res.size.bytes = bytes;
	return r;
}

CUresult laked_call_ctx_create(struct laked *d, struct laked_call *c)
{
	const struct lake_wire_ctx_create_args *a = &c->req->args.ctx_create;
	struct laked_obj *o = laked_obj_new(d);
	CUcontext ctx;
	CUresult r;

	if (!o)
		return laked_refuse(c, CUDA_ERROR_OUT_OF_MEMORY, "handle table full");
	r = d->drv->cuCtxCreate(&ctx, a->flags, a->dev);
	if (r) {
		laked_obj_drop(d, o);
		return r;
	}
	c->rep.res.handle.handle = laked_obj_set(d, o, LAKED_CTX, 0, ctx);
	return CUDA_SUCCESS;
}

/*
 * The pool routes a cuCtxDestroy to the worker serving that context, so
 * only this thread uses its objects; it is marked dying first, so the load
 * sampler (laked_mem_info) no longer makes it current.
 */
CUresult laked_call_ctx_destroy(struct laked *d, struct laked_call *c)
{
	u64 handle = c->req->args.handle.handle;
	struct laked_obj *o;
	CUresult r;

	laked_lock(d);
	o = laked_obj_get(&d->handles, handle, LAKED_CTX);
	if (o && !laked_serves(c->x, o))
		o = NULL;
	if (o)
		o->dying = true;
	laked_unlock(d);
	if (!o)
		return laked_refuse(c, CUDA_ERROR_INVALID_CONTEXT, "context %#llx is not live",
				    (unsigned long long)handle);
	r = d->drv->cuCtxDestroy(o->drv);
	if (!r) {
		laked_forget_ctx(d, c, o);
		return r;
	}
	laked_lock(d);
	o->dying = false;
	laked_unlock(d);
	return r;
}

CUresult laked_call_ctx_synchronize(struct laked *d, struct laked_call *c)
{
	CUresult r = d->drv->cuCtxSynchronize();

	/* Failed or not, nothing queued in the context still reads staged data. */
	laked_unstage(&c->x->staged, c->ctx->handle, LAKED_ALL_STREAMS);
	return r;
}
