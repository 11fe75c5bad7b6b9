/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a host-device kernel module (.so) exports and laked's host device
 * reads: an ABI marker and one descriptor per kernel, named
 * LAKE_KERNEL_SYMBOL_PREFIX + name.
 * Kernel sources do not use this header directly; lake/kernel.h generates
 * the descriptors. C++ kernels (lake/cuda_host.h) export no descriptor:
 * laked reads their parameters from the mangled name and runs each CUDA
 * thread as a fiber that reads its indices from a struct lake_cxx_thread.
 */
#ifndef LAKE_KERNEL_ABI_H
#define LAKE_KERNEL_ABI_H

#include <stddef.h>
#include <lake/kernel_sig.h>	/* LAKE_KERNEL_MAX_PARAMS */

#define LAKE_KERNEL_ABI			1
#define LAKE_KERNEL_SYMBOL_PREFIX	"lake_kfunc_"
#define LAKE_KERNEL_MAX_PARAM_BYTES	4096	/* CUDA's parameter space */

/*
 * Every module exports `const unsigned int lake_kmodule_abi` equal to
 * LAKE_KERNEL_ABI: cuModuleLoad refuses any other shared object.
 */
#define LAKE_KERNEL_MODULE_SYMBOL	"lake_kmodule_abi"

struct lake_dim3 {
	unsigned int x, y, z;
};

/* Where a parameter sits in the packed argument buffer (cuFuncGetParamInfo). */
struct lake_kernel_param {
	size_t offset;
	size_t size;
};

struct lake_kernel_launch {
	struct lake_dim3 grid;		/* gridDim */
	struct lake_dim3 block;		/* blockDim */
	struct lake_dim3 block_idx;	/* the block to run */
};

/*
 * run_block runs every thread of one block, one after another, with
 * args[i] pointing at parameter i. It returns 0, or LAKE_KERNEL_TRAPPED when
 * a thread executed LAKE_TRAP(); the block stops there.
 */
#define LAKE_KERNEL_TRAPPED	1

struct lake_kernel_desc {
	unsigned int abi;		/* LAKE_KERNEL_ABI */
	unsigned int nparams;		/* <= LAKE_KERNEL_MAX_PARAMS */
	const char *name;
	const struct lake_kernel_param *params;
	int (*run_block)(const struct lake_kernel_launch *launch, void **args);
};

/*
 * The CUDA thread a C++ kernel runs as. A C++ module exports
 * `struct lake_cxx_thread **lake_cxx_slot(void)`, the address of its
 * thread-local pointer to the running thread's struct on the calling OS
 * thread; laked points it at each fiber it switches to. sync is
 * __syncthreads(): it returns once every thread of the block reached it.
 * trap is __trap(): it does not return, and the launch fails. A change to
 * this struct is a change of LAKE_KERNEL_ABI, which C++ modules export too.
 */
#define LAKE_CXX_SLOT_SYMBOL	"lake_cxx_slot"

struct lake_cxx_thread {
	struct lake_dim3 thread_idx, block_idx, block_dim, grid_dim;
	void (*sync)(struct lake_cxx_thread *t);
	void (*trap)(struct lake_cxx_thread *t);
};

#endif /* LAKE_KERNEL_ABI_H */
