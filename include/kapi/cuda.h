/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LAKE's cuda.h, for modules written against LAKE's kernel API (README,
 * "Running a LAKE module on lake"). Such a module says #include "cuda.h"
 * with this folder on its include path and builds unchanged.
 *
 * As LAKE's header (and NVIDIA's, at this version) does, the API names map
 * to their _v2 entry points, so the module links to cuMemAlloc_v2 and the
 * rest; lakelib exports those beside the plain names. cuCtxDestroy and
 * cuStreamDestroy keep their plain names here, as in LAKE's header; lakelib
 * also exports their _v2 forms, which NVIDIA's header would ask for.
 * include/kapi/symbols lists every name of this surface; scripts/check-kapi
 * holds the built modules to it.
 */
#ifndef LAKE_KAPI_CUDA_H
#define LAKE_KAPI_CUDA_H

#define CUDA_VERSION	10000

#define cuDeviceTotalMem	cuDeviceTotalMem_v2
#define cuCtxCreate		cuCtxCreate_v2
#define cuMemGetInfo		cuMemGetInfo_v2
#define cuMemAlloc		cuMemAlloc_v2
#define cuMemAllocPitch		cuMemAllocPitch_v2
#define cuMemFree		cuMemFree_v2
#define cuMemcpyHtoD		cuMemcpyHtoD_v2
#define cuMemcpyDtoH		cuMemcpyDtoH_v2
#define cuMemcpyHtoDAsync	cuMemcpyHtoDAsync_v2
#define cuMemcpyDtoHAsync	cuMemcpyDtoHAsync_v2
#define cuMemsetD8		cuMemsetD8_v2
#define cuMemsetD32		cuMemsetD32_v2
#define cuEventDestroy		cuEventDestroy_v2

#include <lake/cuda.h>

/*
 * LAKE's contention checks, from laked's latest load report (NVML's figures
 * on a GPU): the compute processes on the device and its utilisation in
 * percent. CUDA_ERROR_NOT_INITIALIZED while no laked reports, and
 * CUDA_ERROR_NOT_SUPPORTED when its device cannot measure the figure.
 */
CUresult nvmlRunningProcs(int *nproc);
CUresult nvmlUtilRate(int *pct);

#endif /* LAKE_KAPI_CUDA_H */
