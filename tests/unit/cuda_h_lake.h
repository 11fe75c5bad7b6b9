/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What cuda_h_lake.c exports: lake/cuda.h's constants and type sizes, so that
 * test_cuda_h.c can compare them with NVIDIA's without including both headers.
 */
#ifndef LAKE_TEST_CUDA_H_LAKE_H
#define LAKE_TEST_CUDA_H_LAKE_H

#include <stddef.h>

struct cuda_h_entry {
	const char *name;
	unsigned long long value;	/* constant value, or sizeof for a type */
};

extern const struct cuda_h_entry lake_cuda_h_consts[];
extern const size_t lake_cuda_h_nconsts;
extern const struct cuda_h_entry lake_cuda_h_types[];
extern const size_t lake_cuda_h_ntypes;
/* (CUdevice)-1 < 0 and (CUdeviceptr)-1 > 0 under lake/cuda.h */
extern const int lake_cuda_h_device_signed;
extern const int lake_cuda_h_deviceptr_unsigned;

#endif /* LAKE_TEST_CUDA_H_LAKE_H */
