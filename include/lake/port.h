/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few definitions that let one C file build both as kernel code and as
 * host (user-space) code: the allocator, the wire codec, the policy and
 * registry cores. Files that include this header use nothing else from the
 * kernel or libc directly, so the exact object that runs in the module is
 * what the host tests, fuzzers and benchmarks exercise.
 */
#ifndef LAKE_PORT_H
#define LAKE_PORT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/printk.h>
#include <linux/refcount.h>
#include <asm/barrier.h>

#define lake_port_malloc(sz)	kmalloc(sz, GFP_KERNEL)
/* For callers under a spinlock: may fail where GFP_KERNEL would wait. */
#define lake_port_malloc_atomic(sz)	kmalloc(sz, GFP_ATOMIC)
#define lake_port_free(p)	kfree(p)
/* Zeroed, possibly vmalloc'ed: for rings too large for kmalloc. */
#define lake_port_kvzalloc(sz)	kvzalloc(sz, GFP_KERNEL)
#define lake_port_kvfree(p)	kvfree(p)
#define lake_port_warn(fmt, ...) pr_warn_ratelimited("lake: " fmt "\n", ##__VA_ARGS__)

/* A reference count: init sets 1, put says whether that was the last. */
typedef refcount_t lake_port_ref;
#define lake_port_ref_init(r)	refcount_set(r, 1)
#define lake_port_ref_get(r)	refcount_inc(r)
#define lake_port_ref_put(r)	refcount_dec_and_test(r)

/* Memory ordering for memory shared with the peer (the command ring). */
#define lake_load_acquire(p)		smp_load_acquire(p)
#define lake_store_release(p, v)	smp_store_release(p, v)
#define lake_mb()			smp_mb()
#define lake_read_once(x)		READ_ONCE(x)
#define lake_write_once(x, v)		WRITE_ONCE(x, v)

#else /* host build */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#define lake_port_malloc(sz)	malloc(sz)
/* A test may name its own (-Dlake_port_malloc_atomic=fn) to make it fail. */
#ifndef lake_port_malloc_atomic
#define lake_port_malloc_atomic(sz)	malloc(sz)
#else
void *lake_port_malloc_atomic(size_t sz);
#endif
#define lake_port_free(p)	free(p)
#define lake_port_kvfree(p)	free(p)

/* Zeroed and cache-line aligned, as kvzalloc() of a power-of-two size is. */
static inline void *lake_port_kvzalloc(size_t sz)
{
	void *p = aligned_alloc(64, (sz + 63) & ~(size_t)63);

	if (p)
		memset(p, 0, sz);
	return p;
}

/* Host builds are tests and tools: warnings stay quiet unless LAKE_VERBOSE is set. */
#define lake_port_warn(fmt, ...) do {					\
	if (getenv("LAKE_VERBOSE"))					\
		fprintf(stderr, "lake: " fmt "\n", ##__VA_ARGS__);	\
} while (0)

typedef struct {
	int n;
} lake_port_ref;

static inline void lake_port_ref_init(lake_port_ref *r)
{
	__atomic_store_n(&r->n, 1, __ATOMIC_RELAXED);
}

static inline void lake_port_ref_get(lake_port_ref *r)
{
	__atomic_add_fetch(&r->n, 1, __ATOMIC_RELAXED);
}

static inline bool lake_port_ref_put(lake_port_ref *r)
{
	return __atomic_sub_fetch(&r->n, 1, __ATOMIC_ACQ_REL) == 0;
}

/* The kernel's smp_* barriers as C11 atomics, so host tests run the same ordering. */
#define lake_load_acquire(p)		__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define lake_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define lake_mb()			__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define lake_read_once(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define lake_write_once(x, v)		__atomic_store_n(&(x), v, __ATOMIC_RELAXED)

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif
#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif
#endif /* __KERNEL__ */

#define LAKE_IS_POW2(x)		((x) != 0 && ((x) & ((x) - 1)) == 0)
#define LAKE_ALIGN_UP(x, a)	(((x) + ((a) - 1)) & ~((u64)(a) - 1))

#endif /* LAKE_PORT_H */
