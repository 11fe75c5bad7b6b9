/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One kernel source, two devices (DESIGN.md, decision 8). A file such as
 * tests/kernels/vadd.cu builds with
 *
 *	nvcc -cubin -arch=sm_90 -Iinclude vadd.cu		(the GPU module)
 *	cc -x c -shared -fPIC -O2 -Iinclude vadd.cu -o vadd.so	(the host device's)
 *
 * and declares each kernel with one (type, name) pair per parameter:
 *
 *	LAKE_KERNEL(vadd, (const float *, a), (const float *, b),
 *		    (float *, c), (int, n))
 *	{
 *		int i = blockIdx.x * blockDim.x + threadIdx.x;
 *
 *		if (i < n)
 *			c[i] = a[i] + b[i];
 *	}
 *
 * Callers load either build under the same name: asked for vadd.cubin (or
 * .fatbin, .ptx), laked's host device loads vadd.so next to it.
 *
 * The kernel module that launches it declares the same signature, so that
 * lakelib packs kernelParams with a layout it knows rather than laked's
 * word (examples/vadd/vadd_kernel.h shows the form): the list lives once in
 * a header both include,
 *
 *	#define VADD_PARAMS (const float *, a), (const float *, b), \
 *			    (float *, c), (int, n)
 *
 * the .cu says LAKE_KERNEL(vadd, VADD_PARAMS), and the module says
 * LAKE_KERNEL_SIG(vadd, VADD_PARAMS) at file scope, which defines
 * `static const struct lake_kernel_sig lake_sig_vadd` (lake/kernel_sig.h)
 * for lake_module_get_function(); modules include lake/kernel_sig.h, which
 * holds it and the list macros, rather than this header.
 *
 * Under nvcc this is `extern "C" __global__ void vadd(...)`. Under cc it is a
 * static function plus, per kernel, an exported struct lake_kernel_desc
 * (lake/kernel_abi.h) named lake_kfunc_<name> holding the parameter layout
 * (offset and size of each parameter packed with natural alignment, what
 * cuFuncGetParamInfo reports) and a trampoline that unpacks void **args and
 * runs the threads of one block in a loop. blockIdx, threadIdx, blockDim and
 * gridDim are thread-local variables there, set by the trampoline.
 *
 * The body must be in the common subset of C and C++. Limits on the host:
 * 1 to LAKE_KERNEL_MAX_PARAMS parameters whose type T makes `T *` a valid
 * declarator (give function-pointer types a typedef); threads of a block
 * run one after another in a loop, so a C kernel has no __syncthreads(), no
 * __shared__ memory and no warp intrinsics. A kernel that needs barriers or
 * shared memory is plain CUDA C++ instead, built for the host device with
 * g++ -include lake/cuda_host.h (whose threads are fibers that wait at
 * __syncthreads(); README: "CUDA C++ kernels on the host device").
 * LAKE_TRAP() aborts the kernel (CUDA's __trap(): the launch fails with
 * CUDA_ERROR_LAUNCH_FAILED); on the host it may be used only in a kernel
 * body, not in a helper function. Helpers are declared LAKE_DEVICE.
 */
#ifndef LAKE_KERNEL_H
#define LAKE_KERNEL_H

#include <lake/kernel_sig.h>	/* the parameter-list macros */

#ifdef __CUDACC__

#define LAKE_DEVICE	static __device__ inline
#define LAKE_TRAP()	__trap()

#define LAKE_KERNEL(fn, ...) \
	extern "C" __global__ void fn(LAKE__MAP(LAKE__DECL, LAKE__COMMA, _, __VA_ARGS__))

#else /* host device */

#include <lake/kernel_abi.h>

#define LAKE_DEVICE	static inline

static __thread struct lake_dim3 gridDim, blockDim, blockIdx, threadIdx;
static __thread int lake__trapped;

/* Weak: a module built from several sources still has exactly one. */
__attribute__((weak, visibility("default")))
const unsigned int lake_kmodule_abi = LAKE_KERNEL_ABI;

#define LAKE_TRAP()	do { lake__trapped = 1; return; } while (0)

#define LAKE__PARAM(x, i, p) \
	{ offsetof(struct lake__layout_##x, LAKE__NAME_ p), \
	  sizeof(((struct lake__layout_##x *)0)->LAKE__NAME_ p) }
#define LAKE__UNPACK(x, i, p) \
	LAKE__TYPE_ p LAKE__NAME_ p = *(LAKE__TYPE_ p *)lake__args[i];
#define LAKE__ARG(x, i, p)	LAKE__NAME_ p

/* The layout struct is built as LAKE_KERNEL_SIG's, so module and .so agree. */
#define LAKE_KERNEL(fn, ...)								\
static void lake__body_##fn(LAKE__MAP(LAKE__DECL, LAKE__COMMA, _, __VA_ARGS__));	\
struct lake__layout_##fn {								\
	LAKE__MAP(LAKE__MEMBER, LAKE__NOSEP, _, __VA_ARGS__)				\
};											\
static const struct lake_kernel_param lake__params_##fn[] = {				\
	LAKE__MAP(LAKE__PARAM, LAKE__COMMA, fn, __VA_ARGS__)				\
};											\
static int lake__run_##fn(const struct lake_kernel_launch *lake__l,			\
			    void **lake__args)						\
{											\
	LAKE__MAP(LAKE__UNPACK, LAKE__NOSEP, _, __VA_ARGS__)				\
	unsigned int lake__x, lake__y, lake__z;						\
											\
	gridDim = lake__l->grid;							\
	blockDim = lake__l->block;							\
	blockIdx = lake__l->block_idx;							\
	for (lake__z = 0; lake__z < blockDim.z; lake__z++)				\
		for (lake__y = 0; lake__y < blockDim.y; lake__y++)			\
			for (lake__x = 0; lake__x < blockDim.x; lake__x++) {		\
				threadIdx.x = lake__x;					\
				threadIdx.y = lake__y;					\
				threadIdx.z = lake__z;					\
				lake__body_##fn(LAKE__MAP(LAKE__ARG, LAKE__COMMA, _,	\
							    __VA_ARGS__));		\
				if (lake__trapped) {					\
					lake__trapped = 0;				\
					return LAKE_KERNEL_TRAPPED;			\
				}							\
			}								\
	return 0;									\
}											\
__attribute__((visibility("default")))							\
const struct lake_kernel_desc lake_kfunc_##fn = {					\
	.abi = LAKE_KERNEL_ABI,								\
	.nparams = LAKE__NARGS(__VA_ARGS__),						\
	.name = #fn,									\
	.params = lake__params_##fn,							\
	.run_block = lake__run_##fn,							\
};											\
static void lake__body_##fn(LAKE__MAP(LAKE__DECL, LAKE__COMMA, _, __VA_ARGS__))

#endif /* __CUDACC__ */

#endif /* LAKE_KERNEL_H */
