// SPDX-License-Identifier: GPL-2.0
/*
 * The real CUDA driver, loaded at run time with dlopen("libcuda.so.1"), so
 * laked has no link-time dependency on it (DESIGN.md, decision 8).
 *
 * The driver exports each entry point under every ABI version it ever had;
 * the plain name is the oldest (cuMemAlloc takes a 32-bit size). Each op is
 * resolved under the versioned name that cuda.h maps the plain name to
 * (#define cuMemAlloc cuMemAlloc_v2) without CUDA_API_PER_THREAD_DEFAULT_STREAM:
 * lake's NULL stream is the legacy default stream, not the per-thread one of
 * the _ptds/_ptsz names. The ops table points straight at the driver's
 * functions. Two exceptions:
 *
 * - cuCtxCreate: lake keeps the classic signature, exported as
 *   cuCtxCreate_v2. Should a driver drop it, cuCtxCreate_v4 (what CUDA 13's
 *   header binds) is called with no creation parameters instead.
 * - cuFuncGetParamInfo appeared in 12.4; an older driver loads, and the op
 *   returns CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER.
 *
 * Any other missing symbol fails the open with -ENOSYS and its name.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include "driver.h"
#include "nvml.h"

#define CUDA_LIB	"libcuda.so.1"

struct cuda_sym {
	size_t member;		/* offset in struct lake_driver */
	const char *name;	/* the ABI cuda.h binds the plain name to */
	const char *older;	/* the same signature under an older name, or NULL */
};

#define SYM(op, name, older) { offsetof(struct lake_driver, op), name, older }

static const struct cuda_sym cuda_syms[] = {
	SYM(cuInit, "cuInit", NULL),
	SYM(cuDriverGetVersion, "cuDriverGetVersion", NULL),
	SYM(cuDeviceGet, "cuDeviceGet", NULL),
	SYM(cuDeviceGetCount, "cuDeviceGetCount", NULL),
	SYM(cuDeviceGetName, "cuDeviceGetName", NULL),
	SYM(cuDeviceGetAttribute, "cuDeviceGetAttribute", NULL),
	SYM(cuDeviceTotalMem, "cuDeviceTotalMem_v2", NULL),
	SYM(cuCtxDestroy, "cuCtxDestroy_v2", NULL),
	SYM(cuCtxGetCurrent, "cuCtxGetCurrent", NULL),
	SYM(cuCtxSetCurrent, "cuCtxSetCurrent", NULL),
	SYM(cuCtxSynchronize, "cuCtxSynchronize", NULL),
	SYM(cuModuleLoad, "cuModuleLoad", NULL),
	SYM(cuModuleUnload, "cuModuleUnload", NULL),
	SYM(cuModuleGetFunction, "cuModuleGetFunction", NULL),
	SYM(cuLaunchKernel, "cuLaunchKernel", NULL),
	SYM(cuMemAlloc, "cuMemAlloc_v2", NULL),
	SYM(cuMemAllocPitch, "cuMemAllocPitch_v2", NULL),
	SYM(cuMemFree, "cuMemFree_v2", NULL),
	SYM(cuMemcpyHtoD, "cuMemcpyHtoD_v2", NULL),
	SYM(cuMemcpyDtoH, "cuMemcpyDtoH_v2", NULL),
	SYM(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", NULL),
	SYM(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", NULL),
	SYM(cuMemsetD8, "cuMemsetD8_v2", NULL),
	SYM(cuMemsetD32, "cuMemsetD32_v2", NULL),
	SYM(cuMemsetD8Async, "cuMemsetD8Async", NULL),
	SYM(cuMemsetD32Async, "cuMemsetD32Async", NULL),
	SYM(cuMemGetInfo, "cuMemGetInfo_v2", NULL),
	SYM(cuStreamCreate, "cuStreamCreate", NULL),
	SYM(cuStreamSynchronize, "cuStreamSynchronize", NULL),
	SYM(cuStreamDestroy, "cuStreamDestroy_v2", NULL),
	SYM(cuStreamQuery, "cuStreamQuery", NULL),
	SYM(cuEventCreate, "cuEventCreate", NULL),
	SYM(cuEventRecord, "cuEventRecord", NULL),
	SYM(cuEventSynchronize, "cuEventSynchronize", NULL),
	/* _v2 (12.8) keeps the signature; drivers before it have only the plain name. */
	SYM(cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
	SYM(cuEventDestroy, "cuEventDestroy_v2", NULL),
	SYM(cuMemHostRegister, "cuMemHostRegister_v2", NULL),
	SYM(cuMemHostUnregister, "cuMemHostUnregister", NULL),
	SYM(cuGetErrorName, "cuGetErrorName", NULL),
	SYM(cuGetErrorString, "cuGetErrorString", NULL),
};

struct cuda_ctx_create_params;

/* The ABI has no instance pointer, so the wrappers' targets are file state. */
static struct {
	bool open;
	void *lib;
	struct lake_nvml *nvml;
	CUresult (*ctx_create_v4)(CUcontext *pctx, struct cuda_ctx_create_params *params,
				  unsigned int flags, CUdevice dev);
} cuda;

static struct lake_driver cuda_driver;

static CUresult ctx_create_v4(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	return cuda.ctx_create_v4(pctx, NULL, flags, dev);
}

static CUresult func_get_param_info_missing(CUfunction fn, size_t index, size_t *offset,
					    size_t *size)
{
	(void)fn;
	(void)index;
	(void)offset;
	(void)size;
	return CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER;
}

static int cuda_load(struct lake_driver *drv, struct lake_device_load *out)
{
	(void)drv;
	memset(out, 0, sizeof(*out));
	if (cuda.nvml)
		lake_nvml_sample(cuda.nvml, out);
	return 0;
}

static void cuda_close(struct lake_driver *drv)
{
	(void)drv;
	lake_nvml_close(cuda.nvml);
	dlclose(cuda.lib);
	memset(&cuda, 0, sizeof(cuda));
	memset(&cuda_driver, 0, sizeof(cuda_driver));
}

static int resolve(const char *lib)
{
	void *ctx_v2, *fn;
	size_t i;

	for (i = 0; i < sizeof(cuda_syms) / sizeof(cuda_syms[0]); i++) {
		const struct cuda_sym *s = &cuda_syms[i];

		fn = dlsym(cuda.lib, s->name);
		if (!fn && s->older)
			fn = dlsym(cuda.lib, s->older);
		if (!fn) {
			lake_driver_set_error("cuda: %s has no %s", lib, s->name);
			return -ENOSYS;
		}
		memcpy((char *)&cuda_driver + s->member, &fn, sizeof(fn));
	}

	ctx_v2 = dlsym(cuda.lib, "cuCtxCreate_v2");
	cuda.ctx_create_v4 = (CUresult (*)(CUcontext *, struct cuda_ctx_create_params *,
					   unsigned int, CUdevice))
		dlsym(cuda.lib, "cuCtxCreate_v4");
	if (ctx_v2) {
		cuda_driver.cuCtxCreate = (CUresult (*)(CUcontext *, unsigned int, CUdevice))ctx_v2;
	} else if (cuda.ctx_create_v4) {
		cuda_driver.cuCtxCreate = ctx_create_v4;
	} else {
		lake_driver_set_error("cuda: %s has no cuCtxCreate_v2 or cuCtxCreate_v4", lib);
		return -ENOSYS;
	}

	cuda_driver.cuFuncGetParamInfo =
		(CUresult (*)(CUfunction, size_t, size_t *, size_t *))
		dlsym(cuda.lib, "cuFuncGetParamInfo");
	if (!cuda_driver.cuFuncGetParamInfo)
		cuda_driver.cuFuncGetParamInfo = func_get_param_info_missing;
	return 0;
}

int lake_driver_open_cuda_lib(struct lake_driver **out, const char *lib)
{
	int ret;

	if (cuda.open) {
		lake_driver_set_error("cuda: already open");
		return -EBUSY;
	}
	cuda.lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!cuda.lib) {
		lake_driver_set_error("cuda: cannot load %s: %s", lib, dlerror());
		return -ENOENT;
	}
	ret = resolve(lib);
	if (ret) {
		dlclose(cuda.lib);
		memset(&cuda, 0, sizeof(cuda));
		memset(&cuda_driver, 0, sizeof(cuda_driver));
		return ret;
	}
	/* Contention figures are optional: without NVML the load hook says less. */
	if (lake_nvml_open(&cuda.nvml, NULL, 0))
		cuda.nvml = NULL;
	cuda_driver.name = "cuda";
	cuda_driver.load = cuda_load;
	cuda_driver.close = cuda_close;
	cuda.open = true;
	lake_driver_set_error("%s", "");
	*out = &cuda_driver;
	return 0;
}

int lake_driver_open_cuda(struct lake_driver **out)
{
	return lake_driver_open_cuda_lib(out, CUDA_LIB);
}
