// SPDX-License-Identifier: GPL-2.0
/* lake/cuda.h's side of test_cuda_h.c: its constants evaluated in their own unit. */
#include <stdint.h>

#include <lake/cuda.h>
#include "cuda_h_lake.h"

#define CUDA_H_CONST(n)	{ #n, (unsigned long long)(uintptr_t)(n) },
#define CUDA_H_TYPE(t)
const struct cuda_h_entry lake_cuda_h_consts[] = {
#include "cuda_h_names.h"
};
#undef CUDA_H_CONST
#undef CUDA_H_TYPE
const size_t lake_cuda_h_nconsts = sizeof(lake_cuda_h_consts) / sizeof(lake_cuda_h_consts[0]);

#define CUDA_H_CONST(n)
#define CUDA_H_TYPE(t)	{ #t, sizeof(t) },
const struct cuda_h_entry lake_cuda_h_types[] = {
#include "cuda_h_names.h"
};
const size_t lake_cuda_h_ntypes = sizeof(lake_cuda_h_types) / sizeof(lake_cuda_h_types[0]);

const int lake_cuda_h_device_signed = (CUdevice)-1 < 0;
const int lake_cuda_h_deviceptr_unsigned = (CUdeviceptr)-1 > 0;
