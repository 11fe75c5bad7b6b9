// SPDX-License-Identifier: GPL-2.0
/*
 * Contexts. As in CUDA, the current context is per thread and every object
 * (memory, module, stream, event) belongs to the context that was current
 * when it was made; destroying a context destroys them all. Each context owns
 * a NULL stream with legacy semantics (stream.c).
 */
#include "host.h"

static __thread void *current;

CUresult hd_initialized(void)
{
	return hd.initialized ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult hd_current(struct hd_ctx **ctx)
{
	struct hd_obj *obj;

	if (!hd.initialized)
		return CUDA_ERROR_NOT_INITIALIZED;
	obj = hd_handle_get(current, HD_CTX);
	if (!obj)
		return CUDA_ERROR_INVALID_CONTEXT;
	*ctx = container_of(obj, struct hd_ctx, obj);
	return CUDA_SUCCESS;
}

CUresult hd_cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	struct hd_ctx *ctx;
	CUresult ret;

	hd_lock();
	ret = hd_initialized();
	if (ret)
		goto out;
	ret = CUDA_ERROR_INVALID_VALUE;
	if (!pctx || (flags & ~CU_CTX_FLAGS_MASK))
		goto out;
	/* One scheduling policy at most: the three bits are exclusive. */
	if (__builtin_popcount(flags & CU_CTX_SCHED_MASK) > 1)
		goto out;
	ret = CUDA_ERROR_INVALID_DEVICE;
	if (dev != 0)
		goto out;

	ret = CUDA_ERROR_OUT_OF_MEMORY;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		goto out;
	ctx->obj.type = HD_CTX;
	ctx->flags = flags;
	if (hd_handle_add(&ctx->obj))
		goto err_free;
	ctx->obj.ctx = ctx->obj.handle;
	ret = hd_stream_new(ctx, CU_STREAM_DEFAULT, true, &ctx->null_stream);
	if (ret)
		goto err_handle;
	current = ctx->obj.handle;
	*pctx = ctx->obj.handle;
	goto out;

err_handle:
	hd_handle_del(&ctx->obj);
err_free:
	free(ctx);
out:
	hd_unlock();
	return ret;
}

/*
 * Everything the context owns, the NULL stream last: until the others are
 * gone, work on them may still wait for it.
 */
static void ctx_release(struct hd_ctx *ctx, void *handle)
{
	unsigned int cursor = 0;
	struct hd_obj *obj;

	while ((obj = hd_handle_next(&cursor))) {
		if (obj->ctx != handle || obj->type == HD_CTX)
			continue;
		switch (obj->type) {
		case HD_STREAM:
			hd_stream_release(container_of(obj, struct hd_stream, obj));
			break;
		case HD_EVENT:
			hd_event_release(container_of(obj, struct hd_event, obj));
			break;
		case HD_MODULE:
			hd_module_release(container_of(obj, struct hd_module, obj));
			break;
		default:	/* functions go with their module */
			break;
		}
	}
	hd_stream_release(ctx->null_stream);
	hd_mem_release_ctx(handle);
}

static void ctx_destroy(struct hd_ctx *ctx)
{
	void *handle = ctx->obj.handle;

	/* Unreachable from now on: no new object or work can refer to it. */
	hd_handle_del(&ctx->obj);
	if (current == handle)
		current = NULL;
	/* Other contexts' queued copies may touch this context's memory. */
	hd_drain(NULL);
	ctx_release(ctx, handle);
	free(ctx);
}

CUresult hd_cuCtxDestroy(CUcontext handle)
{
	struct hd_obj *obj;
	CUresult ret;

	hd_lock();
	ret = hd_initialized();
	if (ret)
		goto out;
	obj = hd_handle_get(handle, HD_CTX);
	if (obj)
		ctx_destroy(container_of(obj, struct hd_ctx, obj));
	else
		ret = CUDA_ERROR_INVALID_CONTEXT;
out:
	hd_unlock();
	return ret;
}

void hd_ctx_fini(void)
{
	unsigned int cursor = 0;
	struct hd_obj *obj;

	while ((obj = hd_handle_next(&cursor)))
		if (obj->type == HD_CTX)
			ctx_destroy(container_of(obj, struct hd_ctx, obj));
}

CUresult hd_cuCtxGetCurrent(CUcontext *pctx)
{
	CUresult ret;

	hd_lock();
	ret = hd_initialized();
	if (!ret && !pctx)
		ret = CUDA_ERROR_INVALID_VALUE;
	if (!ret)
		*pctx = hd_handle_get(current, HD_CTX) ? current : NULL;
	hd_unlock();
	return ret;
}

CUresult hd_cuCtxSetCurrent(CUcontext handle)
{
	CUresult ret;

	hd_lock();
	ret = hd_initialized();
	if (!ret && handle && !hd_handle_get(handle, HD_CTX))
		ret = CUDA_ERROR_INVALID_CONTEXT;
	if (!ret)
		current = handle;
	hd_unlock();
	return ret;
}

/*
 * Wait for all work queued so far in the current context; report, and clear,
 * the first failure of any of its streams.
 */
CUresult hd_cuCtxSynchronize(void)
{
	struct hd_list *pos;
	struct hd_obj *obj;
	struct hd_ctx *ctx;
	void *handle;
	CUresult ret;

	hd_lock();
	ret = hd_current(&ctx);
	if (ret)
		goto out;
	handle = ctx->obj.handle;
	hd_drain(handle);
	/* The context may have been destroyed while we waited. */
	obj = hd_handle_get(handle, HD_CTX);
	if (!obj) {
		ret = CUDA_ERROR_CONTEXT_IS_DESTROYED;
		goto out;
	}
	ctx = container_of(obj, struct hd_ctx, obj);
	ret = ctx->err;
	ctx->err = CUDA_SUCCESS;
	hd_list_for_each(pos, &hd.streams) {
		struct hd_stream *s = container_of(pos, struct hd_stream, node);

		if (s->obj.ctx != handle)
			continue;
		if (!ret)
			ret = s->err;
		s->err = CUDA_SUCCESS;
	}
out:
	hd_unlock();
	return ret;
}
