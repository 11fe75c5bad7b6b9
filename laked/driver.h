/* SPDX-License-Identifier: GPL-2.0 */
/*
 * laked's device layer: one ops table with the CUDA driver's signatures,
 * filled either from libcuda.so.1 (loaded with dlopen, so laked has no
 * link-time dependency on it) or by the host device, a CPU implementation of
 * the same subset (DESIGN.md, decision 8). The dispatcher calls
 * drv->cuMemAlloc(...) and never needs to know which one it has.
 *
 * The ops carry no instance pointer because the CUDA API has none: a driver
 * is process-wide state, so at most one host device and one CUDA driver can
 * be open at a time (a second open gets -EBUSY).
 */
#ifndef LAKED_DRIVER_H
#define LAKED_DRIVER_H

#include <stddef.h>
#include <lake/cuda.h>

/* Which fields of struct lake_device_load the device could measure. */
#define LAKE_DEVICE_LOAD_UTIL	(1U << 0)
#define LAKE_DEVICE_LOAD_PROCS	(1U << 1)
#define LAKE_DEVICE_LOAD_QUEUE	(1U << 2)

/* Input for the CPU-fallback policy (DESIGN.md, decision 9). */
struct lake_device_load {
	unsigned int flags;		/* LAKE_DEVICE_LOAD_* */
	unsigned int util_percent;	/* busy time since the previous call, 0..100 */
	unsigned int foreign_procs;	/* compute processes on the device other than laked */
	unsigned int queued;		/* host device: async operations not yet finished */
};

struct lake_driver {
	const char *name;		/* "cuda" or "host" */
	/* 0 or -errno; fields the device cannot measure have their flag clear */
	int (*load)(struct lake_driver *drv, struct lake_device_load *out);
	void (*close)(struct lake_driver *drv);
	/*
	 * Around the calls of one batch, made by one thread: until batch_end,
	 * the device may hold back the async work they queue (never past a
	 * call that waits), so a batch wakes its executors once. NULL: none.
	 */
	void (*batch_begin)(struct lake_driver *drv);
	void (*batch_end)(struct lake_driver *drv);
	/*
	 * The file cuModuleLoad reads for a module @name (relative): the host
	 * device's .so for a .cubin, .fatbin or .ptx name. 0, or -ENAMETOOLONG.
	 * NULL: @name itself.
	 */
	int (*module_file)(const char *name, char *out, size_t size);

	CUresult (*cuInit)(unsigned int flags);
	CUresult (*cuDriverGetVersion)(int *version);
	CUresult (*cuDeviceGet)(CUdevice *dev, int ordinal);
	CUresult (*cuDeviceGetCount)(int *count);
	CUresult (*cuDeviceGetName)(char *name, int len, CUdevice dev);
	CUresult (*cuDeviceGetAttribute)(int *pi, CUdevice_attribute attrib, CUdevice dev);
	CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice dev);

	CUresult (*cuCtxCreate)(CUcontext *pctx, unsigned int flags, CUdevice dev);
	CUresult (*cuCtxDestroy)(CUcontext ctx);
	CUresult (*cuCtxGetCurrent)(CUcontext *pctx);
	CUresult (*cuCtxSetCurrent)(CUcontext ctx);
	CUresult (*cuCtxSynchronize)(void);

	CUresult (*cuModuleLoad)(CUmodule *mod, const char *fname);
	CUresult (*cuModuleUnload)(CUmodule mod);
	CUresult (*cuModuleGetFunction)(CUfunction *fn, CUmodule mod, const char *name);
	CUresult (*cuFuncGetParamInfo)(CUfunction fn, size_t index, size_t *offset,
				       size_t *size);
	CUresult (*cuLaunchKernel)(CUfunction fn,
				   unsigned int gx, unsigned int gy, unsigned int gz,
				   unsigned int bx, unsigned int by, unsigned int bz,
				   unsigned int shared_bytes, CUstream stream,
				   void **params, void **extra);

	CUresult (*cuMemAlloc)(CUdeviceptr *dptr, size_t bytes);
	CUresult (*cuMemAllocPitch)(CUdeviceptr *dptr, size_t *pitch, size_t width,
				    size_t height, unsigned int elem_bytes);
	CUresult (*cuMemFree)(CUdeviceptr dptr);
	CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
	CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
	CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t bytes,
				      CUstream stream);
	CUresult (*cuMemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes,
				      CUstream stream);
	CUresult (*cuMemsetD8)(CUdeviceptr dst, unsigned char value, size_t count);
	CUresult (*cuMemsetD32)(CUdeviceptr dst, unsigned int value, size_t count);
	CUresult (*cuMemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t count,
				    CUstream stream);
	CUresult (*cuMemsetD32Async)(CUdeviceptr dst, unsigned int value, size_t count,
				     CUstream stream);
	CUresult (*cuMemGetInfo)(size_t *free, size_t *total);

	CUresult (*cuStreamCreate)(CUstream *stream, unsigned int flags);
	CUresult (*cuStreamSynchronize)(CUstream stream);
	CUresult (*cuStreamDestroy)(CUstream stream);
	CUresult (*cuStreamQuery)(CUstream stream);

	CUresult (*cuEventCreate)(CUevent *event, unsigned int flags);
	CUresult (*cuEventRecord)(CUevent event, CUstream stream);
	CUresult (*cuEventSynchronize)(CUevent event);
	CUresult (*cuEventElapsedTime)(float *ms, CUevent start, CUevent end);
	CUresult (*cuEventDestroy)(CUevent event);

	CUresult (*cuMemHostRegister)(void *p, size_t bytes, unsigned int flags);
	CUresult (*cuMemHostUnregister)(void *p);

	CUresult (*cuGetErrorName)(CUresult error, const char **str);
	CUresult (*cuGetErrorString)(CUresult error, const char **str);
};

/* Host device configuration; a NULL opts or a zero field selects the default. */
struct lake_host_opts {
	size_t mem_bytes;	/* device memory size; default LAKE_HOST_MEM_DEFAULT */
	unsigned int workers;	/* kernel thread pool size; default: online CPUs */
	/* Tests: cuMemcpyDtoH lands twice, copy_ms apart (a DMA still running). */
	unsigned int copy_ms;
	/*
	 * Where the device's warnings go (a kernel it cannot call, a launch
	 * that failed and why), from any thread; NULL: stderr, and only with
	 * LAKE_VERBOSE set.
	 */
	void (*warn)(const char *line);
};

#define LAKE_HOST_MEM_DEFAULT	(1ULL << 30)

/* Each returns 0 or -errno; lake_driver_last_error() then says why. */
int lake_driver_open_host(struct lake_driver **out, const struct lake_host_opts *opts);
int lake_driver_open_cuda(struct lake_driver **out);
/* As lake_driver_open_cuda, from another library file (tests, compat drivers). */
int lake_driver_open_cuda_lib(struct lake_driver **out, const char *lib);
/*
 * The CUDA driver when it is usable (loads, cuInit(0) succeeds, at least one
 * device), else the host device; (*out)->name says which, and
 * lake_driver_last_error() why CUDA was passed over.
 */
int lake_driver_open_auto(struct lake_driver **out, const struct lake_host_opts *opts);
void lake_driver_close(struct lake_driver *drv);

/* Why the calling thread's last open failed or fell back; "" if it did not. */
const char *lake_driver_last_error(void);
/* For the backends: set the calling thread's message. */
void lake_driver_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* LAKED_DRIVER_H */
