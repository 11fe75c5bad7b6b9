/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The subset of the CUDA Driver API that lake carries, with the names, types
 * and values of NVIDIA's cuda.h (DESIGN.md, decision 1). Kernel modules call
 * these functions through lakelib.ko; laked implements them with the real
 * driver or the host device. tests/unit/test_cuda_h.c checks every constant
 * here against the toolkit's cuda.h.
 *
 * The functions carry their plain names (cuMemAlloc, not cuMemAlloc_v2):
 * these are the names lakelib exports. Their signatures are those of the
 * current ABI, i.e. what cuda.h maps the plain name to (size_t sizes, 64-bit
 * CUdeviceptr), except cuCtxCreate, which keeps the classic three-argument
 * form (cuCtxCreate_v2).
 *
 * Include this header or NVIDIA's, never both in one translation unit.
 */
#ifndef LAKE_CUDA_H
#define LAKE_CUDA_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stddef.h>
#endif

/*
 * API level the project implements: 12.4 is the first with
 * cuFuncGetParamInfo, which kernel-argument marshalling relies on. The host
 * device reports it from cuDriverGetVersion.
 */
#define LAKE_CUDA_API_VERSION	12040

typedef enum cudaError_enum {
	CUDA_SUCCESS				= 0,
	CUDA_ERROR_INVALID_VALUE		= 1,
	CUDA_ERROR_OUT_OF_MEMORY		= 2,
	CUDA_ERROR_NOT_INITIALIZED		= 3,
	CUDA_ERROR_DEINITIALIZED		= 4,
	CUDA_ERROR_STUB_LIBRARY			= 34,
	CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER	= 36,
	CUDA_ERROR_DEVICE_UNAVAILABLE		= 46,
	CUDA_ERROR_NO_DEVICE			= 100,
	CUDA_ERROR_INVALID_DEVICE		= 101,
	CUDA_ERROR_INVALID_IMAGE		= 200,
	CUDA_ERROR_INVALID_CONTEXT		= 201,
	CUDA_ERROR_NO_BINARY_FOR_GPU		= 209,
	CUDA_ERROR_INVALID_PTX			= 218,
	CUDA_ERROR_UNSUPPORTED_PTX_VERSION	= 222,
	CUDA_ERROR_INVALID_SOURCE		= 300,
	CUDA_ERROR_FILE_NOT_FOUND		= 301,
	CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND = 302,
	CUDA_ERROR_SHARED_OBJECT_INIT_FAILED	= 303,
	CUDA_ERROR_OPERATING_SYSTEM		= 304,
	CUDA_ERROR_INVALID_HANDLE		= 400,
	CUDA_ERROR_ILLEGAL_STATE		= 401,
	CUDA_ERROR_NOT_FOUND			= 500,
	CUDA_ERROR_NOT_READY			= 600,
	CUDA_ERROR_ILLEGAL_ADDRESS		= 700,
	CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES	= 701,
	CUDA_ERROR_LAUNCH_TIMEOUT		= 702,
	CUDA_ERROR_CONTEXT_IS_DESTROYED		= 709,
	CUDA_ERROR_ASSERT			= 710,
	CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
	CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED	= 713,
	CUDA_ERROR_MISALIGNED_ADDRESS		= 716,
	CUDA_ERROR_LAUNCH_FAILED		= 719,
	CUDA_ERROR_NOT_PERMITTED		= 800,
	CUDA_ERROR_NOT_SUPPORTED		= 801,
	CUDA_ERROR_SYSTEM_NOT_READY		= 802,
	CUDA_ERROR_SYSTEM_DRIVER_MISMATCH	= 803,
	CUDA_ERROR_TIMEOUT			= 909,
	CUDA_ERROR_UNKNOWN			= 999,
} CUresult;

typedef int CUdevice;
/* 64-bit on every target lake supports (x86-64, arm64), as cuda.h's _v2. */
typedef unsigned long long CUdeviceptr;

typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

typedef enum CUdevice_attribute_enum {
	CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK		= 1,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X			= 2,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y			= 3,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z			= 4,
	CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X			= 5,
	CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y			= 6,
	CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z			= 7,
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK		= 8,
	CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY		= 9,
	CU_DEVICE_ATTRIBUTE_WARP_SIZE				= 10,
	CU_DEVICE_ATTRIBUTE_MAX_PITCH				= 11,
	CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK		= 12,
	CU_DEVICE_ATTRIBUTE_CLOCK_RATE				= 13,
	CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT			= 14,
	CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT		= 16,
	CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT			= 17,
	CU_DEVICE_ATTRIBUTE_INTEGRATED				= 18,
	CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY			= 19,
	CU_DEVICE_ATTRIBUTE_COMPUTE_MODE			= 20,
	CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS			= 31,
	CU_DEVICE_ATTRIBUTE_ECC_ENABLED				= 32,
	CU_DEVICE_ATTRIBUTE_PCI_BUS_ID				= 33,
	CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID			= 34,
	CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE			= 36,
	CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH		= 37,
	CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE			= 38,
	CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR	= 39,
	CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT			= 40,
	CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING			= 41,
	CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID			= 50,
	CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT		= 51,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR		= 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR		= 76,
	CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED		= 78,
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
	CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR	= 82,
	CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY			= 83,
	CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED		= 99,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR	= 106,
} CUdevice_attribute;

typedef enum CUctx_flags_enum {
	CU_CTX_SCHED_AUTO		= 0x00,
	CU_CTX_SCHED_SPIN		= 0x01,
	CU_CTX_SCHED_YIELD		= 0x02,
	CU_CTX_SCHED_BLOCKING_SYNC	= 0x04,
	CU_CTX_SCHED_MASK		= 0x07,
	CU_CTX_MAP_HOST			= 0x08,
	CU_CTX_LMEM_RESIZE_TO_MAX	= 0x10,
	CU_CTX_COREDUMP_ENABLE		= 0x20,
	CU_CTX_USER_COREDUMP_ENABLE	= 0x40,
	CU_CTX_SYNC_MEMOPS		= 0x80,
	CU_CTX_FLAGS_MASK		= 0xff,
} CUctx_flags;

typedef enum CUstream_flags_enum {
	CU_STREAM_DEFAULT	= 0x0,
	CU_STREAM_NON_BLOCKING	= 0x1,
} CUstream_flags;

typedef enum CUevent_flags_enum {
	CU_EVENT_DEFAULT	= 0x0,
	CU_EVENT_BLOCKING_SYNC	= 0x1,
	CU_EVENT_DISABLE_TIMING	= 0x2,
	CU_EVENT_INTERPROCESS	= 0x4,
} CUevent_flags;

#define CU_MEMHOSTREGISTER_PORTABLE	0x01
#define CU_MEMHOSTREGISTER_DEVICEMAP	0x02
#define CU_MEMHOSTREGISTER_IOMEMORY	0x04
#define CU_MEMHOSTREGISTER_READ_ONLY	0x08

/* Keys of cuLaunchKernel's @extra array. */
#define CU_LAUNCH_PARAM_END_AS_INT		0x00
#define CU_LAUNCH_PARAM_END			((void *)CU_LAUNCH_PARAM_END_AS_INT)
#define CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT	0x01
#define CU_LAUNCH_PARAM_BUFFER_POINTER		((void *)CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT)
#define CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT	0x02
#define CU_LAUNCH_PARAM_BUFFER_SIZE		((void *)CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT)

CUresult cuGetErrorName(CUresult error, const char **pStr);
CUresult cuGetErrorString(CUresult error, const char **pStr);

CUresult cuInit(unsigned int Flags);
CUresult cuDriverGetVersion(int *driverVersion);

CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev);
CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev);

CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuCtxDestroy(CUcontext ctx);
CUresult cuCtxGetCurrent(CUcontext *pctx);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuCtxSynchronize(void);

CUresult cuModuleLoad(CUmodule *module, const char *fname);
CUresult cuModuleUnload(CUmodule hmod);
CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name);
CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex,
			    size_t *paramOffset, size_t *paramSize);
CUresult cuLaunchKernel(CUfunction f,
			unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
			unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
			unsigned int sharedMemBytes, CUstream hStream,
			void **kernelParams, void **extra);

CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemAllocPitch(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
			 size_t Height, unsigned int ElementSizeBytes);
CUresult cuMemFree(CUdeviceptr dptr);
CUresult cuMemGetInfo(size_t *free, size_t *total);
CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount);
CUresult cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount);
CUresult cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
			   CUstream hStream);
CUresult cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
			   CUstream hStream);
CUresult cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N);
CUresult cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui, size_t N);
CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream);
CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream);
CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags);
CUresult cuMemHostUnregister(void *p);

CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags);
CUresult cuStreamDestroy(CUstream hStream);
CUresult cuStreamQuery(CUstream hStream);
CUresult cuStreamSynchronize(CUstream hStream);

CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags);
CUresult cuEventDestroy(CUevent hEvent);
CUresult cuEventRecord(CUevent hEvent, CUstream hStream);
CUresult cuEventSynchronize(CUevent hEvent);
CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd);

#endif /* LAKE_CUDA_H */
