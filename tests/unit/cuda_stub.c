// SPDX-License-Identifier: GPL-2.0
/*
 * A fake libcuda.so.1 for test_cuda_drv.c. Every entry point records its own
 * symbol name and succeeds, and the driver's other ABI names (older
 * versions, per-thread default stream) are exported too, as decoys: a test
 * can then tell which symbol each op of laked's CUDA backend reached. (The
 * decoys take lake/cuda.h's signatures, not the other ABIs'; they are never
 * meant to be called.) Build variants drop symbols the way real drivers
 * differ:
 *
 *	STUB_OLD_DRIVER		a 12.0-era driver: no cuFuncGetParamInfo (12.4),
 *				cuEventElapsedTime_v2 (12.8) or cuCtxCreate_v4 (12.5)
 *	STUB_NO_CTX_CREATE_V2	a driver that dropped cuCtxCreate_v2
 */
#include <lake/cuda.h>

static const char *last;
static void *v4_params = (void *)1;
static unsigned int v4_flags;
static CUdevice v4_dev = -1;

const char *cuda_stub_last(void)
{
	return last;
}

void cuda_stub_v4_args(void **params, unsigned int *flags, CUdevice *dev)
{
	*params = v4_params;
	*flags = v4_flags;
	*dev = v4_dev;
}

#define STUB(fn, params) \
	CUresult fn params; \
	CUresult fn params { last = #fn; return CUDA_SUCCESS; }

STUB(cuInit, (unsigned int flags))
STUB(cuDriverGetVersion, (int *v))
STUB(cuDeviceGet, (CUdevice *d, int ordinal))
STUB(cuDeviceGetName, (char *name, int len, CUdevice dev))
STUB(cuDeviceGetAttribute, (int *pi, CUdevice_attribute a, CUdevice dev))
STUB(cuDeviceTotalMem, (size_t *bytes, CUdevice dev))
STUB(cuDeviceTotalMem_v2, (size_t *bytes, CUdevice dev))
STUB(cuCtxCreate, (CUcontext *pctx, unsigned int flags, CUdevice dev))
STUB(cuCtxDestroy, (CUcontext ctx))
STUB(cuCtxDestroy_v2, (CUcontext ctx))
STUB(cuCtxGetCurrent, (CUcontext *pctx))
STUB(cuCtxSetCurrent, (CUcontext ctx))
STUB(cuCtxSynchronize, (void))
STUB(cuModuleLoad, (CUmodule *m, const char *fname))
STUB(cuModuleUnload, (CUmodule m))
STUB(cuModuleGetFunction, (CUfunction *f, CUmodule m, const char *name))
STUB(cuLaunchKernel, (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
		      unsigned int bx, unsigned int by, unsigned int bz, unsigned int sh,
		      CUstream s, void **params, void **extra))
STUB(cuMemAlloc, (CUdeviceptr *dptr, size_t bytes))
STUB(cuMemAlloc_v2, (CUdeviceptr *dptr, size_t bytes))
STUB(cuMemAllocPitch, (CUdeviceptr *dptr, size_t *pitch, size_t w, size_t h,
		       unsigned int elem))
STUB(cuMemAllocPitch_v2, (CUdeviceptr *dptr, size_t *pitch, size_t w, size_t h,
			  unsigned int elem))
STUB(cuMemFree, (CUdeviceptr dptr))
STUB(cuMemFree_v2, (CUdeviceptr dptr))
STUB(cuMemcpyHtoD, (CUdeviceptr dst, const void *src, size_t n))
STUB(cuMemcpyHtoD_v2, (CUdeviceptr dst, const void *src, size_t n))
STUB(cuMemcpyDtoH, (void *dst, CUdeviceptr src, size_t n))
STUB(cuMemcpyDtoH_v2, (void *dst, CUdeviceptr src, size_t n))
STUB(cuMemcpyHtoDAsync, (CUdeviceptr dst, const void *src, size_t n, CUstream s))
STUB(cuMemcpyHtoDAsync_v2, (CUdeviceptr dst, const void *src, size_t n, CUstream s))
STUB(cuMemcpyDtoHAsync, (void *dst, CUdeviceptr src, size_t n, CUstream s))
STUB(cuMemcpyDtoHAsync_v2, (void *dst, CUdeviceptr src, size_t n, CUstream s))
STUB(cuMemsetD8, (CUdeviceptr dst, unsigned char v, size_t n))
STUB(cuMemsetD8_v2, (CUdeviceptr dst, unsigned char v, size_t n))
STUB(cuMemsetD32, (CUdeviceptr dst, unsigned int v, size_t n))
STUB(cuMemsetD32_v2, (CUdeviceptr dst, unsigned int v, size_t n))
STUB(cuMemsetD8Async, (CUdeviceptr dst, unsigned char v, size_t n, CUstream s))
STUB(cuMemsetD8Async_ptsz, (CUdeviceptr dst, unsigned char v, size_t n, CUstream s))
STUB(cuMemsetD32Async, (CUdeviceptr dst, unsigned int v, size_t n, CUstream s))
STUB(cuMemsetD32Async_ptsz, (CUdeviceptr dst, unsigned int v, size_t n, CUstream s))
STUB(cuMemGetInfo, (size_t *free, size_t *total))
STUB(cuMemGetInfo_v2, (size_t *free, size_t *total))
STUB(cuStreamCreate, (CUstream *s, unsigned int flags))
STUB(cuStreamSynchronize, (CUstream s))
STUB(cuStreamDestroy, (CUstream s))
STUB(cuStreamDestroy_v2, (CUstream s))
STUB(cuStreamQuery, (CUstream s))
STUB(cuEventCreate, (CUevent *e, unsigned int flags))
STUB(cuEventRecord, (CUevent e, CUstream s))
STUB(cuEventSynchronize, (CUevent e))
STUB(cuEventElapsedTime, (float *ms, CUevent a, CUevent b))
STUB(cuEventDestroy, (CUevent e))
STUB(cuEventDestroy_v2, (CUevent e))
STUB(cuMemHostRegister, (void *p, size_t bytes, unsigned int flags))
STUB(cuMemHostRegister_v2, (void *p, size_t bytes, unsigned int flags))
STUB(cuMemHostUnregister, (void *p))
STUB(cuGetErrorName, (CUresult e, const char **s))
STUB(cuGetErrorString, (CUresult e, const char **s))

CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGetCount(int *count)
{
	last = "cuDeviceGetCount";
	*count = 1;
	return CUDA_SUCCESS;
}

#ifndef STUB_NO_CTX_CREATE_V2
STUB(cuCtxCreate_v2, (CUcontext *pctx, unsigned int flags, CUdevice dev))
#endif

#ifndef STUB_OLD_DRIVER
STUB(cuFuncGetParamInfo, (CUfunction f, size_t i, size_t *off, size_t *size))
STUB(cuEventElapsedTime_v2, (float *ms, CUevent a, CUevent b))

CUresult cuCtxCreate_v4(CUcontext *pctx, void *params, unsigned int flags, CUdevice dev);
CUresult cuCtxCreate_v4(CUcontext *pctx, void *params, unsigned int flags, CUdevice dev)
{
	(void)pctx;
	last = "cuCtxCreate_v4";
	v4_params = params;
	v4_flags = flags;
	v4_dev = dev;
	return CUDA_SUCCESS;
}
#endif
