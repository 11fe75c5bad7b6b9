// SPDX-License-Identifier: GPL-2.0
/*
 * The CUDA Driver API, exported to other modules under its real names
 * (include/lake/cuda.h). Each function checks what it can locally, fills a
 * wire request and hands it to rpc.c: synchronously, or queued without a
 * wait for the calls CUDA defines as asynchronous.
 *
 * Host buffers inside lakeshm travel as (offset, length) and are never
 * copied by lake; others are copied inline up to LAKE_WIRE_INLINE_MAX bytes,
 * and staged through bounce chunks in lakeshm beyond (stage.c). Either way
 * a cuMemcpyDtoHAsync to such memory completes before it returns, and a
 * cuMemcpyHtoDAsync from it has taken the data (CUDA's rules for pageable
 * memory): the data must land somewhere the caller still owns. A range in
 * the region but not inside one live allocation is refused.
 */
#define pr_fmt(fmt) "lakelib: " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <lake/cu_errors.h>
#include <lake/lakelib.h>
#include <lake/shm.h>
#include "lakelib.h"

#define H(x)		((u64)(uintptr_t)(x))
#define PARAMS_ON_STACK	256

/* A request bound to the caller's current context, or INVALID_CONTEXT. */
static CUresult req_in_ctx(struct lake_wire_req *req, u16 api, CUstream stream)
{
	memset(req, 0, sizeof(*req));
	req->api = api;
	req->ctx = lake_ctx_current();
	req->stream = H(stream);
	if (!req->ctx) {
		pr_debug("%s: no current context\n", lake_wire_api(api)->name);
		return CUDA_ERROR_INVALID_CONTEXT;
	}
	return CUDA_SUCCESS;
}

static CUresult sync_call(struct lake_wire_req *req, struct lake_call *call)
{
	call->tail = NULL;
	call->tail_cap = 0;
	return lake_rpc_sync(req, call);
}

/* Synchronizing calls also return errors latched by earlier async calls. */
static CUresult synchronizing(CUresult own, u64 ctx, u64 stream, bool whole_ctx)
{
	CUresult latched = lake_rpc_take_latched(ctx, stream, whole_ctx);

	return own != CUDA_SUCCESS ? own : latched;
}

CUresult cuInit(unsigned int Flags)
{
	struct lake_wire_req req = { .api = LAKE_API_INIT };
	struct lake_call call;

	req.args.flags.flags = Flags;
	return sync_call(&req, &call);
}
EXPORT_SYMBOL_GPL(cuInit);

/* The calls that return one int. */
static CUresult get_value(struct lake_wire_req *req, int *out)
{
	struct lake_call call;
	CUresult ret;

	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	ret = sync_call(req, &call);
	if (!ret)
		*out = call.res.value.value;
	return ret;
}

CUresult cuDriverGetVersion(int *driverVersion)
{
	struct lake_wire_req req = { .api = LAKE_API_DRIVER_GET_VERSION };

	return get_value(&req, driverVersion);
}
EXPORT_SYMBOL_GPL(cuDriverGetVersion);

CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
	struct lake_wire_req req = { .api = LAKE_API_DEVICE_GET };

	req.args.device.dev = ordinal;
	return get_value(&req, device);
}
EXPORT_SYMBOL_GPL(cuDeviceGet);

CUresult cuDeviceGetCount(int *count)
{
	struct lake_wire_req req = { .api = LAKE_API_DEVICE_GET_COUNT };

	return get_value(&req, count);
}
EXPORT_SYMBOL_GPL(cuDeviceGetCount);

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
	struct lake_wire_req req = { .api = LAKE_API_DEVICE_GET_ATTRIBUTE };

	req.args.attribute.attrib = attrib;
	req.args.attribute.dev = dev;
	return get_value(&req, pi);
}
EXPORT_SYMBOL_GPL(cuDeviceGetAttribute);

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
	struct lake_wire_req req = { .api = LAKE_API_DEVICE_GET_NAME };
	char buf[LAKE_WIRE_DEVICE_NAME_MAX];
	struct lake_call call;
	CUresult ret;

	if (!name || len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	req.args.device.dev = dev;
	call.tail = buf;
	call.tail_cap = sizeof(buf);
	ret = lake_rpc_sync(&req, &call);
	if (!ret)
		strscpy(name, call.tail_len ? buf : "", len);
	return ret;
}
EXPORT_SYMBOL_GPL(cuDeviceGetName);

CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev)
{
	struct lake_wire_req req = { .api = LAKE_API_DEVICE_TOTAL_MEM };
	struct lake_call call;
	CUresult ret;

	if (!bytes)
		return CUDA_ERROR_INVALID_VALUE;
	req.args.device.dev = dev;
	ret = sync_call(&req, &call);
	if (!ret)
		*bytes = call.res.size.bytes;
	return ret;
}
EXPORT_SYMBOL_GPL(cuDeviceTotalMem);

CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	struct lake_wire_req req = { .api = LAKE_API_CTX_CREATE };
	struct lake_call call;
	CUresult ret;

	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	req.args.ctx_create.flags = flags;
	req.args.ctx_create.dev = dev;
	ret = sync_call(&req, &call);
	if (ret)
		return ret;
	if (lake_ctx_set_current(call.res.handle.handle))
		return CUDA_ERROR_OUT_OF_MEMORY;
	*pctx = (CUcontext)(uintptr_t)call.res.handle.handle;
	return CUDA_SUCCESS;
}
EXPORT_SYMBOL_GPL(cuCtxCreate);

CUresult cuCtxDestroy(CUcontext ctx)
{
	struct lake_wire_req req = { .api = LAKE_API_CTX_DESTROY };
	struct lake_call call;
	CUresult ret;

	if (!ctx)
		return CUDA_ERROR_INVALID_VALUE;
	req.args.handle.handle = H(ctx);
	ret = sync_call(&req, &call);
	if (!ret) {
		lake_ctx_forget(H(ctx));
		lake_rpc_take_latched(H(ctx), 0, true);	/* nobody can take them now */
		lake_funcs_forget_ctx(H(ctx));
	}
	return ret;
}
EXPORT_SYMBOL_GPL(cuCtxDestroy);

CUresult cuCtxGetCurrent(CUcontext *pctx)
{
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	*pctx = (CUcontext)(uintptr_t)lake_ctx_current();
	return CUDA_SUCCESS;
}
EXPORT_SYMBOL_GPL(cuCtxGetCurrent);

/* Local, as in CUDA; laked checks the handle when a call uses it. */
CUresult cuCtxSetCurrent(CUcontext ctx)
{
	return lake_ctx_set_current(H(ctx)) ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
}
EXPORT_SYMBOL_GPL(cuCtxSetCurrent);

CUresult cuCtxSynchronize(void)
{
	struct lake_wire_req req;
	struct lake_call call;
	CUresult ret = req_in_ctx(&req, LAKE_API_CTX_SYNCHRONIZE, NULL);

	if (ret)
		return ret;
	return synchronizing(sync_call(&req, &call), req.ctx, 0, true);
}
EXPORT_SYMBOL_GPL(cuCtxSynchronize);

/* A call on one handle in the current context, with no result but its own. */
static CUresult on_handle(u16 api, u64 handle, CUstream stream)
{
	struct lake_wire_req req;
	struct lake_call call;
	CUresult ret = req_in_ctx(&req, api, stream);

	if (ret)
		return ret;
	req.args.handle.handle = handle;
	return sync_call(&req, &call);
}

/* A call that creates a handle in the current context. */
static CUresult new_handle(struct lake_wire_req *req, u64 *out)
{
	struct lake_call call;
	CUresult ret;

	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	ret = sync_call(req, &call);
	if (!ret)
		*out = call.res.handle.handle;
	return ret;
}

static CUresult cstring_tail(struct lake_wire_req *req, const char *s, size_t max)
{
	size_t len = s ? strnlen(s, max) : max;

	if (!len || len >= max)
		return CUDA_ERROR_INVALID_VALUE;
	req->tail = s;
	req->tail_len = len + 1;
	return CUDA_SUCCESS;
}

CUresult cuModuleLoad(CUmodule *module, const char *fname)
{
	struct lake_wire_req req;
	CUresult ret = req_in_ctx(&req, LAKE_API_MODULE_LOAD, NULL);

	if (!ret)
		ret = cstring_tail(&req, fname, LAKE_WIRE_PATH_MAX);
	if (ret)
		return ret;
	return new_handle(&req, (u64 *)module);
}
EXPORT_SYMBOL_GPL(cuModuleLoad);

CUresult cuModuleUnload(CUmodule hmod)
{
	CUresult ret = on_handle(LAKE_API_MODULE_UNLOAD, H(hmod), NULL);

	if (!ret)
		lake_funcs_forget_module(H(hmod));
	return ret;
}
EXPORT_SYMBOL_GPL(cuModuleUnload);

/* Look a function up; with @sig, adopt laked's layout only if it is @sig's. */
static CUresult get_function(CUfunction *hfunc, CUmodule hmod, const char *name,
			     const struct lake_kernel_sig *sig)
{
	const struct lake_wire_get_function_res *layout;
	struct lake_wire_req req;
	struct lake_call call;
	const char *why;
	int err;
	CUresult ret = req_in_ctx(&req, LAKE_API_MODULE_GET_FUNCTION, NULL);

	if (!ret)
		ret = cstring_tail(&req, name, LAKE_WIRE_FUNC_NAME_MAX);
	if (!ret && !hfunc)
		ret = CUDA_ERROR_INVALID_VALUE;
	if (ret)
		return ret;
	req.args.handle.handle = H(hmod);
	ret = sync_call(&req, &call);
	if (ret)
		return ret;
	layout = &call.res.get_function;
	err = sig ? lake_wire_check_layout(layout, sig, &why) : 0;
	if (err) {
		pr_warn_ratelimited("cuModuleGetFunction(%s): laked's layout of %u parameters refused: %s\n",
				    name, layout->count, why);
		/* -EINVAL: the caller's declaration itself is malformed. */
		return err == -EINVAL ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_IMAGE;
	}
	if (lake_funcs_add(req.ctx, H(hmod), layout, sig != NULL))
		return CUDA_ERROR_OUT_OF_MEMORY;
	*hfunc = (CUfunction)(uintptr_t)layout->func;
	return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
	return get_function(hfunc, hmod, name, NULL);
}
EXPORT_SYMBOL_GPL(cuModuleGetFunction);

CUresult lake_module_get_function(CUfunction *hfunc, CUmodule hmod,
				  const struct lake_kernel_sig *sig)
{
	if (!sig || !sig->name)
		return CUDA_ERROR_INVALID_VALUE;
	return get_function(hfunc, hmod, sig->name, sig);
}
EXPORT_SYMBOL_GPL(lake_module_get_function);

CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset,
			    size_t *paramSize)
{
	struct lake_wire_get_function_res layout;

	if (!lake_funcs_layout(H(func), &layout))
		return CUDA_ERROR_INVALID_HANDLE;
	if (paramIndex >= layout.count)
		return CUDA_ERROR_INVALID_VALUE;
	if (paramOffset)
		*paramOffset = layout.param[paramIndex].offset;
	if (paramSize)
		*paramSize = layout.param[paramIndex].size;
	return CUDA_SUCCESS;
}
EXPORT_SYMBOL_GPL(cuFuncGetParamInfo);

/* The `extra` form: BUFFER_POINTER and BUFFER_SIZE pairs ended by END. */
static CUresult parse_extra(void **extra, const void **buf, u32 *len)
{
	size_t *size = NULL;
	unsigned int i;

	*buf = NULL;
	for (i = 0; i < 8 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
		if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
			*buf = extra[i + 1];
		else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
			size = extra[i + 1];
		else
			return CUDA_ERROR_INVALID_VALUE;
	}
	if (i >= 8 || !*buf || !size || *size > LAKE_WIRE_MAX_PARAM_BYTES)
		return CUDA_ERROR_INVALID_VALUE;
	*len = *size;
	return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f,
			unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
			unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
			unsigned int sharedMemBytes, CUstream hStream,
			void **kernelParams, void **extra)
{
	struct lake_wire_get_function_res layout;
	struct lake_wire_launch_args *l;
	struct lake_wire_req req;
	u8 small[PARAMS_ON_STACK], *packed = small;
	CUresult ret = req_in_ctx(&req, LAKE_API_LAUNCH_KERNEL, hStream);
	int len;

	if (ret)
		return ret;
	if (!lake_funcs_layout(H(f), &layout))
		return CUDA_ERROR_INVALID_HANDLE;
	if (kernelParams && extra)
		return CUDA_ERROR_INVALID_VALUE;
	l = &req.args.launch;
	l->func = H(f);
	l->grid[0] = gridDimX;
	l->grid[1] = gridDimY;
	l->grid[2] = gridDimZ;
	l->block[0] = blockDimX;
	l->block[1] = blockDimY;
	l->block[2] = blockDimZ;
	l->shared_mem_bytes = sharedMemBytes;

	if (extra)
		return parse_extra(extra, &req.tail, &req.tail_len) ?: lake_rpc_async(&req);
	if (!kernelParams)
		return layout.count ? CUDA_ERROR_INVALID_VALUE : lake_rpc_async(&req);
	len = layout.count ? layout.param[layout.count - 1].offset +
			     layout.param[layout.count - 1].size : 0;
	if (len > PARAMS_ON_STACK) {
		packed = kmalloc(len, GFP_KERNEL);
		if (!packed)
			return CUDA_ERROR_OUT_OF_MEMORY;
	}
	len = lake_wire_pack_params(&layout, kernelParams, packed, len);
	if (len < 0) {
		ret = CUDA_ERROR_INVALID_VALUE;
	} else {
		req.tail = packed;
		req.tail_len = len;
		ret = lake_rpc_async(&req);
	}
	if (packed != small)
		kfree(packed);
	return ret;
}
EXPORT_SYMBOL_GPL(cuLaunchKernel);

CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)
{
	struct lake_wire_req req;
	CUresult ret = req_in_ctx(&req, LAKE_API_MEM_ALLOC, NULL);

	if (ret)
		return ret;
	req.args.size.bytes = bytesize;
	return new_handle(&req, (u64 *)dptr);
}
EXPORT_SYMBOL_GPL(cuMemAlloc);

/* The calls that return two sizes. */
static CUresult get_pair(struct lake_wire_req *req, u64 *first, size_t *second)
{
	struct lake_call call;
	CUresult ret;

	if (!first || !second)
		return CUDA_ERROR_INVALID_VALUE;
	ret = sync_call(req, &call);
	if (!ret) {
		*first = call.res.pair.first;
		*second = call.res.pair.second;
	}
	return ret;
}

CUresult cuMemAllocPitch(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
			 size_t Height, unsigned int ElementSizeBytes)
{
	struct lake_wire_req req;
	CUresult ret = req_in_ctx(&req, LAKE_API_MEM_ALLOC_PITCH, NULL);

	if (ret)
		return ret;
	req.args.mem_alloc_pitch.width = WidthInBytes;
	req.args.mem_alloc_pitch.height = Height;
	req.args.mem_alloc_pitch.elem_size = ElementSizeBytes;
	return get_pair(&req, (u64 *)dptr, pPitch);
}
EXPORT_SYMBOL_GPL(cuMemAllocPitch);

CUresult cuMemFree(CUdeviceptr dptr)
{
	return on_handle(LAKE_API_MEM_FREE, dptr, NULL);
}
EXPORT_SYMBOL_GPL(cuMemFree);

CUresult cuMemGetInfo(size_t *free, size_t *total)
{
	struct lake_wire_req req;
	CUresult ret = req_in_ctx(&req, LAKE_API_MEM_GET_INFO, NULL);
	u64 f = 0;

	if (ret)
		return ret;
	if (!free)
		return CUDA_ERROR_INVALID_VALUE;
	ret = get_pair(&req, &f, total);
	if (!ret)
		*free = f;
	return ret;
}
EXPORT_SYMBOL_GPL(cuMemGetInfo);

/*
 * Describe a host buffer: by offset when it lies in a live lakeshm
 * allocation, inline when it is outside the region and small enough. One
 * outside and bigger is staged: *staged set, @req left for lake_stage_copy().
 */
static CUresult host_buffer(struct lake_wire_req *req, const void *host, size_t bytes,
			    bool htod, bool *staged)
{
	struct lake_wire_memcpy_args *m = &req->args.memcpy;
	u64 off;
	int ret;

	if (!host)
		return CUDA_ERROR_INVALID_VALUE;
	m->bytes = bytes;
	ret = lake_shm_ptr_to_off(host, bytes, &off);
	if (!ret) {
		m->where = LAKE_WIRE_SHM;
		m->shm_off = off;
		atomic64_add(bytes, &lake_stats.bytes_shm);
		return CUDA_SUCCESS;
	}
	if (ret == -ERANGE && bytes <= LAKE_WIRE_INLINE_MAX) {
		m->where = LAKE_WIRE_INLINE;
		if (htod) {
			req->tail = host;
			req->tail_len = bytes;
		}
		atomic64_add(bytes, &lake_stats.bytes_inline);
		return CUDA_SUCCESS;
	}
	if (ret == -ERANGE) {
		*staged = true;
		return CUDA_SUCCESS;
	}
	pr_warn_ratelimited("%s: host buffer %p+%zu is in lakeshm but not inside one live allocation\n",
			    lake_wire_api(req->api)->name, host, bytes);
	return CUDA_ERROR_INVALID_VALUE;
}

static CUresult memcpy_call(u16 api, CUdeviceptr dptr, void *host, size_t bytes,
			    bool htod, CUstream stream)
{
	struct lake_wire_req req;
	struct lake_call call;
	CUresult ret = req_in_ctx(&req, api, stream);
	bool staged = false;

	if (ret || !bytes)
		return ret;
	req.args.memcpy.dptr = dptr;
	ret = host_buffer(&req, host, bytes, htod, &staged);
	if (ret)
		return ret;
	if (staged)
		ret = lake_stage_copy(&req, host, bytes, htod);
	else if (lake_wire_api(api)->flags & LAKE_WIRE_ASYNC &&
		 (htod || req.args.memcpy.where == LAKE_WIRE_SHM))
		return lake_rpc_async(&req);
	if (!staged) {
		call.tail = htod ? NULL : host;
		call.tail_cap = htod ? 0 : bytes;
		ret = lake_rpc_sync(&req, &call);
	}
	if (lake_wire_api(api)->flags & LAKE_WIRE_ASYNC)
		return ret;
	return synchronizing(ret, req.ctx, 0, true);
}

CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
	return memcpy_call(LAKE_API_MEMCPY_HTOD, dstDevice, (void *)srcHost, ByteCount,
			   true, NULL);
}
EXPORT_SYMBOL_GPL(cuMemcpyHtoD);

CUresult cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
	return memcpy_call(LAKE_API_MEMCPY_DTOH, srcDevice, dstHost, ByteCount, false, NULL);
}
EXPORT_SYMBOL_GPL(cuMemcpyDtoH);

CUresult cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
			   CUstream hStream)
{
	return memcpy_call(LAKE_API_MEMCPY_HTOD_ASYNC, dstDevice, (void *)srcHost, ByteCount,
			   true, hStream);
}
EXPORT_SYMBOL_GPL(cuMemcpyHtoDAsync);

CUresult cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
			   CUstream hStream)
{
	return memcpy_call(LAKE_API_MEMCPY_DTOH_ASYNC, srcDevice, dstHost, ByteCount, false,
			   hStream);
}
EXPORT_SYMBOL_GPL(cuMemcpyDtoHAsync);

static CUresult memset_call(u16 api, CUdeviceptr dst, u32 value, size_t n, CUstream stream)
{
	struct lake_wire_req req;
	struct lake_call call;
	CUresult ret = req_in_ctx(&req, api, stream);

	if (ret)
		return ret;
	req.args.memset.dptr = dst;
	req.args.memset.count = n;
	req.args.memset.value = value;
	if (lake_wire_api(api)->flags & LAKE_WIRE_ASYNC)
		return lake_rpc_async(&req);
	return sync_call(&req, &call);
}

CUresult cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
	return memset_call(LAKE_API_MEMSET_D8, dstDevice, uc, N, NULL);
}
EXPORT_SYMBOL_GPL(cuMemsetD8);

CUresult cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
	return memset_call(LAKE_API_MEMSET_D32, dstDevice, ui, N, NULL);
}
EXPORT_SYMBOL_GPL(cuMemsetD32);

CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)
{
	return memset_call(LAKE_API_MEMSET_D8_ASYNC, dstDevice, uc, N, hStream);
}
EXPORT_SYMBOL_GPL(cuMemsetD8Async);

CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)
{
	return memset_call(LAKE_API_MEMSET_D32_ASYNC, dstDevice, ui, N, hStream);
}
EXPORT_SYMBOL_GPL(cuMemsetD32Async);

/* cuStreamCreate and cuEventCreate: flags in, a handle out. */
static CUresult create_with_flags(u16 api, unsigned int flags, u64 *out)
{
	struct lake_wire_req req;
	CUresult ret = req_in_ctx(&req, api, NULL);

	if (ret)
		return ret;
	req.args.flags.flags = flags;
	return new_handle(&req, out);
}

CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
	return create_with_flags(LAKE_API_STREAM_CREATE, Flags, (u64 *)phStream);
}
EXPORT_SYMBOL_GPL(cuStreamCreate);

CUresult cuStreamDestroy(CUstream hStream)
{
	struct lake_wire_req req;
	struct lake_call call;
	CUresult ret = req_in_ctx(&req, LAKE_API_STREAM_DESTROY, hStream);

	if (ret)
		return ret;
	ret = sync_call(&req, &call);
	if (!ret)
		lake_rpc_take_latched(req.ctx, req.stream, false);
	return ret;
}
EXPORT_SYMBOL_GPL(cuStreamDestroy);

static CUresult stream_sync_call(u16 api, CUstream hStream)
{
	struct lake_wire_req req;
	struct lake_call call;
	CUresult ret = req_in_ctx(&req, api, hStream);

	if (ret)
		return ret;
	ret = sync_call(&req, &call);
	if (ret == CUDA_ERROR_NOT_READY)
		return ret;	/* nothing has finished: nothing to report yet */
	return synchronizing(ret, req.ctx, req.stream, false);
}

CUresult cuStreamSynchronize(CUstream hStream)
{
	return stream_sync_call(LAKE_API_STREAM_SYNCHRONIZE, hStream);
}
EXPORT_SYMBOL_GPL(cuStreamSynchronize);

CUresult cuStreamQuery(CUstream hStream)
{
	return stream_sync_call(LAKE_API_STREAM_QUERY, hStream);
}
EXPORT_SYMBOL_GPL(cuStreamQuery);

CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
	return create_with_flags(LAKE_API_EVENT_CREATE, Flags, (u64 *)phEvent);
}
EXPORT_SYMBOL_GPL(cuEventCreate);

CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
{
	struct lake_wire_req req;
	CUresult ret = req_in_ctx(&req, LAKE_API_EVENT_RECORD, hStream);

	if (ret)
		return ret;
	req.args.handle.handle = H(hEvent);
	return lake_rpc_async(&req);
}
EXPORT_SYMBOL_GPL(cuEventRecord);

CUresult cuEventSynchronize(CUevent hEvent)
{
	CUresult ret = on_handle(LAKE_API_EVENT_SYNCHRONIZE, H(hEvent), NULL);

	return synchronizing(ret, lake_ctx_current(), 0, true);
}
EXPORT_SYMBOL_GPL(cuEventSynchronize);

CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
	struct lake_wire_req req;
	struct lake_call call;
	CUresult ret = req_in_ctx(&req, LAKE_API_EVENT_ELAPSED_TIME, NULL);

	if (ret)
		return ret;
	if (!pMilliseconds)
		return CUDA_ERROR_INVALID_VALUE;
	req.args.elapsed.start = H(hStart);
	req.args.elapsed.end = H(hEnd);
	ret = sync_call(&req, &call);
	/* The bits of an IEEE float, moved without floating-point code. */
	if (!ret)
		memcpy(pMilliseconds, &call.res.elapsed.ms_bits, sizeof(u32));
	return ret;
}
EXPORT_SYMBOL_GPL(cuEventElapsedTime);

CUresult cuEventDestroy(CUevent hEvent)
{
	return on_handle(LAKE_API_EVENT_DESTROY, H(hEvent), NULL);
}
EXPORT_SYMBOL_GPL(cuEventDestroy);

CUresult cuGetErrorName(CUresult error, const char **pStr)
{
	return lake_cu_error_str(error, pStr, true);
}
EXPORT_SYMBOL_GPL(cuGetErrorName);

CUresult cuGetErrorString(CUresult error, const char **pStr)
{
	return lake_cu_error_str(error, pStr, false);
}
EXPORT_SYMBOL_GPL(cuGetErrorString);
