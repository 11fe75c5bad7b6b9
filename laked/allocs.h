/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device allocations the kernel holds. CUdeviceptr values cross the
 * boundary raw (kernels compute with them), so before any copy, memset or
 * free laked checks that the range lies inside one live allocation made
 * through it, in the caller's current context (calls_mem.c): a forged or
 * freed pointer, or another context's, never reaches the driver. Not
 * thread-safe: laked's callers hold d->lock.
 */
#ifndef LAKED_ALLOCS_H
#define LAKED_ALLOCS_H

#include <lake/port.h>
#include "lakeshm/avl.h"

#define LAKED_ALLOCS_MAX	(1U << 18)

struct laked_alloc {
	struct lake_avl_node node;	/* by dptr */
	u64 dptr;
	u64 bytes;
	u64 ctx;			/* handle of the context it was made in */
};

struct laked_allocs {
	struct lake_avl_root root;
	u32 count;
};

/* A record to fill and insert, or NULL when the table is full or memory short. */
struct laked_alloc *laked_alloc_new(struct laked_allocs *t);
/*
 * Insert @a. The driver just handed out its range, so any record that
 * overlaps it is stale (the memory went with a context laked did not see
 * die): those are dropped, and their number returned.
 */
unsigned int laked_alloc_insert(struct laked_allocs *t, struct laked_alloc *a);
void laked_alloc_del(struct laked_allocs *t, struct laked_alloc *a);
/* Out of the table but not freed: to insert again, or free(). */
void laked_alloc_unlink(struct laked_allocs *t, struct laked_alloc *a);

/* The allocation holding all of [dptr, dptr + bytes), or NULL; bytes may be 0. */
struct laked_alloc *laked_alloc_find(const struct laked_allocs *t, u64 dptr, u64 bytes);
/* The allocation that starts exactly at @dptr, or NULL. */
struct laked_alloc *laked_alloc_exact(const struct laked_allocs *t, u64 dptr);

void laked_allocs_drop_ctx(struct laked_allocs *t, u64 ctx);
void laked_allocs_fini(struct laked_allocs *t);

#endif /* LAKED_ALLOCS_H */
