// SPDX-License-Identifier: GPL-2.0
/*
 * LAKE's kernel API, for modules built against include/kapi (README,
 * "Running a LAKE module on lake"): the _v2 entry points its cuda.h maps
 * the API names to, and its two NVML helpers. The _v2 functions are the
 * plain ones under a second name: lake's plain names already have the _v2
 * signatures (lake/cuda.h). include/kapi/symbols lists them.
 */
#define pr_fmt(fmt) "lakelib: " fmt

#include <linux/module.h>
#include <lake/cuda.h>
#include "lakelib.h"

#define LAKE_V2(name, params, args)		\
	CUresult name##_v2 params;		\
	CUresult name##_v2 params		\
	{					\
		return name args;		\
	}					\
	EXPORT_SYMBOL_GPL(name##_v2)

LAKE_V2(cuDeviceTotalMem, (size_t *bytes, CUdevice dev), (bytes, dev));
LAKE_V2(cuCtxCreate, (CUcontext *pctx, unsigned int flags, CUdevice dev), (pctx, flags, dev));
LAKE_V2(cuCtxDestroy, (CUcontext ctx), (ctx));
LAKE_V2(cuMemGetInfo, (size_t *free, size_t *total), (free, total));
LAKE_V2(cuMemAlloc, (CUdeviceptr *dptr, size_t bytesize), (dptr, bytesize));
LAKE_V2(cuMemAllocPitch, (CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height,
			  unsigned int elem), (dptr, pitch, width, height, elem));
LAKE_V2(cuMemFree, (CUdeviceptr dptr), (dptr));
LAKE_V2(cuMemcpyHtoD, (CUdeviceptr dst, const void *src, size_t n), (dst, src, n));
LAKE_V2(cuMemcpyDtoH, (void *dst, CUdeviceptr src, size_t n), (dst, src, n));
LAKE_V2(cuMemcpyHtoDAsync, (CUdeviceptr dst, const void *src, size_t n, CUstream s),
	(dst, src, n, s));
LAKE_V2(cuMemcpyDtoHAsync, (void *dst, CUdeviceptr src, size_t n, CUstream s), (dst, src, n, s));
LAKE_V2(cuMemsetD8, (CUdeviceptr dst, unsigned char uc, size_t n), (dst, uc, n));
LAKE_V2(cuMemsetD32, (CUdeviceptr dst, unsigned int ui, size_t n), (dst, ui, n));
LAKE_V2(cuStreamDestroy, (CUstream s), (s));
LAKE_V2(cuEventDestroy, (CUevent e), (e));

/* @flag's figure from laked's last load report, or why there is none. */
static CUresult load_figure(u32 flag, int *out)
{
	struct lake_genl_load load;
	u64 age;

	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	if (!lake_nl_load(&load, &age))
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!(load.flags & flag))
		return CUDA_ERROR_NOT_SUPPORTED;
	*out = flag == LAKE_LOAD_F_PROCS ? min_t(u32, load.procs, INT_MAX) :
					   min_t(u32, load.util_pct, 100);
	return CUDA_SUCCESS;
}

CUresult nvmlRunningProcs(int *nproc);
CUresult nvmlRunningProcs(int *nproc)
{
	return load_figure(LAKE_LOAD_F_PROCS, nproc);
}
EXPORT_SYMBOL_GPL(nvmlRunningProcs);

CUresult nvmlUtilRate(int *pct);
CUresult nvmlUtilRate(int *pct)
{
	return load_figure(LAKE_LOAD_F_UTIL, pct);
}
EXPORT_SYMBOL_GPL(nvmlUtilRate);
