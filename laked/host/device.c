// SPDX-License-Identifier: GPL-2.0
/*
 * The host device as a struct lake_driver: open and close, cuInit, the
 * device queries, the load hook. There is one device, ordinal 0.
 */
#include <stdarg.h>
#include <unistd.h>
#include "host.h"

#define HOST_DEVICE_NAME	"lake host device"
/*
 * The architecture the project's cubins are built for (sm_90), so code that
 * sizes work by compute capability behaves as on the reference GPU.
 */
#define HOST_CC_MAJOR		9
#define HOST_CC_MINOR		0

struct hd_device hd = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

void hd_warn(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (hd.warn)
		hd.warn(line);
	else
		lake_port_warn("host device: %s", line);
}

CUresult hd_cuInit(unsigned int flags)
{
	if (flags)
		return CUDA_ERROR_INVALID_VALUE;
	hd_lock();
	hd.initialized = true;
	hd_unlock();
	return CUDA_SUCCESS;
}

/* Like the real driver's, usable before cuInit. */
CUresult hd_cuDriverGetVersion(int *version)
{
	if (!version)
		return CUDA_ERROR_INVALID_VALUE;
	*version = LAKE_CUDA_API_VERSION;
	return CUDA_SUCCESS;
}

static CUresult check_device(const void *out, CUdevice dev)
{
	CUresult ret;

	hd_lock();
	ret = hd_initialized();
	hd_unlock();
	if (ret)
		return ret;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult hd_cuDeviceGet(CUdevice *dev, int ordinal)
{
	CUresult ret = check_device(dev, ordinal);

	if (!ret)
		*dev = 0;
	return ret;
}

CUresult hd_cuDeviceGetCount(int *count)
{
	CUresult ret = check_device(count, 0);

	if (!ret)
		*count = 1;
	return ret;
}

CUresult hd_cuDeviceGetName(char *name, int len, CUdevice dev)
{
	CUresult ret = check_device(name, dev);

	if (!ret && len <= 0)
		ret = CUDA_ERROR_INVALID_VALUE;
	if (!ret)
		snprintf(name, (size_t)len, "%s", HOST_DEVICE_NAME);
	return ret;
}

CUresult hd_cuDeviceTotalMem(size_t *bytes, CUdevice dev)
{
	CUresult ret = check_device(bytes, dev);

	if (!ret)
		*bytes = hd.mem_bytes;
	return ret;
}

/* The attributes a launch or a policy plausibly asks about; others are refused. */
CUresult hd_cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
	CUresult ret = check_device(pi, dev);
	int v;

	if (ret)
		return ret;
	switch (attrib) {
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
		v = 1024;
		break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
		v = 64;
		break;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
	case CU_DEVICE_ATTRIBUTE_MAX_PITCH:
		v = 0x7fffffff;
		break;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
		v = 65535;
		break;
	case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
		v = 32;
		break;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
		v = (int)hd.workers;
		break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
		v = HOST_CC_MAJOR;
		break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
		v = HOST_CC_MINOR;
		break;
	case CU_DEVICE_ATTRIBUTE_INTEGRATED:		/* device memory is host memory */
	case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS:
	case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED:
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR:
		v = 1;
		break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:	/* none to launch with */
	case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT:
	case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE:			/* CU_COMPUTEMODE_DEFAULT */
	case CU_DEVICE_ATTRIBUTE_ECC_ENABLED:
	case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY:
		v = 0;
		break;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	*pi = v;
	return CUDA_SUCCESS;
}

static int host_load(struct lake_driver *drv, struct lake_device_load *out)
{
	(void)drv;
	out->flags = LAKE_DEVICE_LOAD_UTIL | LAKE_DEVICE_LOAD_QUEUE;
	out->util_percent = hd_pool_utilization();
	out->foreign_procs = 0;
	hd_lock();
	out->queued = hd.pending;
	hd_unlock();
	return 0;
}

static void host_close(struct lake_driver *drv)
{
	(void)drv;
	hd_lock();
	hd_ctx_fini();
	hd.initialized = false;
	hd_unlock();
	hd_pool_destroy();
	hd_mem_fini();
	hd_handles_fini();
	hd_lock();
	hd.open = false;
	hd_unlock();
}

static void host_batch_begin(struct lake_driver *drv)
{
	(void)drv;
	hd_batch_begin();
}

static void host_batch_end(struct lake_driver *drv)
{
	(void)drv;
	hd_batch_end();
}

static struct lake_driver host_driver = {
	.name = "host",
	.load = host_load,
	.close = host_close,
	.batch_begin = host_batch_begin,
	.batch_end = host_batch_end,
	.module_file = hd_module_file,
#define OP(op) .op = hd_##op
	OP(cuInit),
	OP(cuDriverGetVersion),
	OP(cuDeviceGet),
	OP(cuDeviceGetCount),
	OP(cuDeviceGetName),
	OP(cuDeviceGetAttribute),
	OP(cuDeviceTotalMem),
	OP(cuCtxCreate),
	OP(cuCtxDestroy),
	OP(cuCtxGetCurrent),
	OP(cuCtxSetCurrent),
	OP(cuCtxSynchronize),
	OP(cuModuleLoad),
	OP(cuModuleUnload),
	OP(cuModuleGetFunction),
	OP(cuFuncGetParamInfo),
	OP(cuLaunchKernel),
	OP(cuMemAlloc),
	OP(cuMemAllocPitch),
	OP(cuMemFree),
	OP(cuMemcpyHtoD),
	OP(cuMemcpyDtoH),
	OP(cuMemcpyHtoDAsync),
	OP(cuMemcpyDtoHAsync),
	OP(cuMemsetD8),
	OP(cuMemsetD32),
	OP(cuMemsetD8Async),
	OP(cuMemsetD32Async),
	OP(cuMemGetInfo),
	OP(cuStreamCreate),
	OP(cuStreamSynchronize),
	OP(cuStreamDestroy),
	OP(cuStreamQuery),
	OP(cuEventCreate),
	OP(cuEventRecord),
	OP(cuEventSynchronize),
	OP(cuEventElapsedTime),
	OP(cuEventDestroy),
	OP(cuMemHostRegister),
	OP(cuMemHostUnregister),
	OP(cuGetErrorName),
	OP(cuGetErrorString),
#undef OP
};

int lake_driver_open_host(struct lake_driver **out, const struct lake_host_opts *opts)
{
	size_t mem = opts && opts->mem_bytes ? opts->mem_bytes : LAKE_HOST_MEM_DEFAULT;
	unsigned int workers = opts && opts->workers ? opts->workers : 0;
	int ret;

	if (!workers) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		workers = n > 0 ? (unsigned int)n : 1;
	}
	hd_lock();
	ret = -EBUSY;
	if (hd.open) {
		lake_driver_set_error("host device: already open");
		goto out;
	}
	hd_list_init(&hd.streams);
	hd.seq = 0;
	hd.pending = 0;
	hd.initialized = false;
	hd.workers = workers;
	hd.copy_ms = opts ? opts->copy_ms : 0;
	hd.warn = opts ? opts->warn : NULL;
	ret = hd_mem_init(mem);
	if (ret) {
		lake_driver_set_error("host device: cannot reserve %zu bytes of device memory: %s",
				      mem, strerror(-ret));
		goto out;
	}
	ret = hd_pool_create(workers);
	if (ret) {
		lake_driver_set_error("host device: cannot start %u workers: %s", workers,
				      strerror(-ret));
		hd_mem_fini();
		goto out;
	}
	/*
	 * A kernel's printf: each line out as it is printed (a GPU's come out
	 * at the next synchronize), on laked's stdout, which the sandbox lets
	 * it write.
	 */
	setvbuf(stdout, NULL, _IOLBF, 0);
	hd.open = true;
	lake_driver_set_error("%s", "");
	*out = &host_driver;
out:
	hd_unlock();
	return ret;
}
