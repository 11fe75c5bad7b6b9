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
 * run one after another, so there is no __syncthreads(), no __shared__
 * memory and no warp intrinsics. LAKE_TRAP() aborts the kernel (CUDA's
 * __trap(): the launch fails with CUDA_ERROR_LAUNCH_FAILED); on the host it
 * may be used only in a kernel body, not in a helper function. Helpers are
 * declared LAKE_DEVICE.
 */
#ifndef LAKE_KERNEL_H
#define LAKE_KERNEL_H

/* Parameter lists: MAP applies m(ctx, index, (type, name)) to each pair. */
#define LAKE__CAT_(a, b)	a##b
#define LAKE__CAT(a, b)		LAKE__CAT_(a, b)
#define LAKE__NARGS(...)	LAKE__NARGS_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, \
					     9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define LAKE__NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, \
		     _14, _15, _16, n, ...) n
#define LAKE__MAP(m, sep, x, ...) \
	LAKE__CAT(LAKE__M, LAKE__NARGS(__VA_ARGS__))(m, sep, x, 0, __VA_ARGS__)
#define LAKE__M1(m, s, x, i, p)		m(x, i, p)
#define LAKE__M2(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M1(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M3(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M2(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M4(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M3(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M5(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M4(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M6(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M5(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M7(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M6(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M8(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M7(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M9(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M8(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M10(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M9(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M11(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M10(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M12(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M11(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M13(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M12(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M14(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M13(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M15(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M14(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M16(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M15(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__COMMA()			,
#define LAKE__NOSEP()

#define LAKE__TYPE_(t, n)		t
#define LAKE__NAME_(t, n)		n
#define LAKE__DECL(x, i, p)		LAKE__TYPE_ p LAKE__NAME_ p

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

#define LAKE__MEMBER(x, i, p)	LAKE__DECL(x, i, p);
#define LAKE__PARAM(x, i, p) \
	{ offsetof(struct lake__layout_##x, LAKE__NAME_ p), \
	  sizeof(((struct lake__layout_##x *)0)->LAKE__NAME_ p) }
#define LAKE__UNPACK(x, i, p) \
	LAKE__TYPE_ p LAKE__NAME_ p = *(LAKE__TYPE_ p *)lake__args[i];
#define LAKE__ARG(x, i, p)	LAKE__NAME_ p

/*
 * The layout struct gives each parameter its natural alignment, which is
 * how CUDA packs a kernel's parameter buffer.
 */
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
