/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For g++ builds of LAKE's kernel sources, which #include <cuda_runtime.h>
 * as nvcc allows: with this folder on the include path, that include brings
 * lake/cuda_host.h, which already stands in for what nvcc's runtime header
 * gives kernels. Never on nvcc's include path: there the real one is meant.
 */
#ifndef LAKE_KAPI_HOST_CUDA_RUNTIME_H
#define LAKE_KAPI_HOST_CUDA_RUNTIME_H

#ifdef __CUDACC__
#error "include/kapi/host is for g++ builds for the host device, not for nvcc"
#endif

#include <lake/cuda_host.h>

#endif /* LAKE_KAPI_HOST_CUDA_RUNTIME_H */
