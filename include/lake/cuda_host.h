/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CUDA C++ kernels for laked's host device. An ordinary .cu file, as written
 * for nvcc and with no lake macros, builds into the module the host device
 * loads with
 *
 *	g++ -x c++ -std=gnu++17 -O2 -fPIC -shared -I"$LAKE/include" \
 *		-include lake/cuda_host.h hello.cu -o hello.so
 *
 * A __global__ function is exported under the name nvcc gives it, the
 * Itanium-mangled one (`__global__ void hello(int *p, int n)` is
 * _Z5helloPii) or its plain name under extern "C". cuModuleGetFunction
 * reads the parameters from the mangled name (laked/host/cxx.c) and calls
 * the kernel once per CUDA thread; extern "C" kernels carry no parameter
 * types, so the host device cannot call them.
 *
 * Each CUDA thread of a block is a fiber on one OS thread (laked/host/
 * fiber.c), switched at __syncthreads(), so __shared__ storage is a
 * thread-local static: the fibers of a block share it, blocks running at
 * once on other OS threads have their own. threadIdx, blockIdx, blockDim and
 * gridDim read the running fiber's lake_cxx_thread, which laked keeps in
 * lake_cxx_current. Blocks run in parallel: atomics are real atomics.
 *
 * Not here: warp intrinsics and warpSize (threads of a block do not run in
 * lockstep), dynamic shared memory (extern __shared__ does not compile),
 * texture and surface objects, cooperative groups, __constant__ memory
 * written by the host, vector types other than uint3 and dim3.
 */
#ifndef LAKE_CUDA_HOST_H
#define LAKE_CUDA_HOST_H

#ifndef __cplusplus
#error "lake/cuda_host.h is for CUDA C++ sources built with g++; C kernels use lake/kernel.h"
#endif

/* What nvcc's implicit cuda_runtime.h brings that kernels use unannounced. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <lake/kernel_abi.h>

#define __global__		__attribute__((visibility("default"), used))
#define __device__
#define __host__
#define __constant__
#define __forceinline__		inline __attribute__((always_inline))
#define __launch_bounds__(...)
#define __shared__		static __thread

extern "C" {
/* Weak: a module built from several sources still has one of each. */
__attribute__((weak, visibility("default")))
extern const unsigned int lake_kmodule_abi = LAKE_KERNEL_ABI;

__attribute__((weak, visibility("hidden")))
__thread struct lake_cxx_thread *lake_cxx_current;

/* laked's way to lake_cxx_current on the OS thread that runs a block. */
__attribute__((weak, visibility("default")))
struct lake_cxx_thread **lake_cxx_slot(void)
{
	return &lake_cxx_current;
}
}

struct uint3 {
	unsigned int x, y, z;
};

struct dim3 {
	unsigned int x, y, z;

	constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
		: x(vx), y(vy), z(vz) {}
	constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
	constexpr operator uint3() const { return uint3{ x, y, z }; }
};

namespace lake_cxx {
static inline uint3 u3(const struct lake_dim3 &d)
{
	return uint3{ d.x, d.y, d.z };
}

static inline dim3 d3(const struct lake_dim3 &d)
{
	return dim3(d.x, d.y, d.z);
}

/* The previous value, after storing f(previous). */
template <class T, class F>
static inline T update(T *p, F f)
{
	T old, val;

	__atomic_load(p, &old, __ATOMIC_RELAXED);
	do
		val = f(old);
	while (!__atomic_compare_exchange(p, &old, &val, true, __ATOMIC_RELAXED,
					  __ATOMIC_RELAXED));
	return old;
}
} /* namespace lake_cxx */

#define threadIdx	(::lake_cxx::u3(lake_cxx_current->thread_idx))
#define blockIdx	(::lake_cxx::u3(lake_cxx_current->block_idx))
#define blockDim	(::lake_cxx::d3(lake_cxx_current->block_dim))
#define gridDim		(::lake_cxx::d3(lake_cxx_current->grid_dim))

static inline void __syncthreads(void)
{
	lake_cxx_current->sync(lake_cxx_current);
}

[[noreturn]] static inline void __trap(void)
{
	lake_cxx_current->trap(lake_cxx_current);
	__builtin_unreachable();
}

static inline void __threadfence(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static inline void __threadfence_block(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

#define LAKE__ATOMIC_INT(T)								\
static inline T atomicAdd(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); } \
static inline T atomicSub(T *p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); } \
static inline T atomicAnd(T *p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); } \
static inline T atomicOr(T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }  \
static inline T atomicXor(T *p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); } \
static inline T atomicExch(T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); } \
static inline T atomicMin(T *p, T v)							\
{ return ::lake_cxx::update(p, [v](T o) { return v < o ? v : o; }); }		\
static inline T atomicMax(T *p, T v)							\
{ return ::lake_cxx::update(p, [v](T o) { return v > o ? v : o; }); }		\
static inline T atomicCAS(T *p, T expect, T v)						\
{											\
	__atomic_compare_exchange_n(p, &expect, v, false, __ATOMIC_RELAXED,		\
				    __ATOMIC_RELAXED);					\
	return expect;									\
}

LAKE__ATOMIC_INT(int)
LAKE__ATOMIC_INT(unsigned int)
LAKE__ATOMIC_INT(long long)
LAKE__ATOMIC_INT(unsigned long long)

static inline float atomicAdd(float *p, float v)
{
	return ::lake_cxx::update(p, [v](float o) { return o + v; });
}

static inline double atomicAdd(double *p, double v)
{
	return ::lake_cxx::update(p, [v](double o) { return o + v; });
}

static inline float atomicExch(float *p, float v)
{
	float old;

	__atomic_exchange(p, &v, &old, __ATOMIC_RELAXED);
	return old;
}

#define LAKE__MINMAX(T)									\
static inline T min(T a, T b) { return a < b ? a : b; }				\
static inline T max(T a, T b) { return a > b ? a : b; }

LAKE__MINMAX(int)
LAKE__MINMAX(unsigned int)
LAKE__MINMAX(long)
LAKE__MINMAX(unsigned long)
LAKE__MINMAX(long long)
LAKE__MINMAX(unsigned long long)
LAKE__MINMAX(float)
LAKE__MINMAX(double)

#endif /* LAKE_CUDA_HOST_H */
