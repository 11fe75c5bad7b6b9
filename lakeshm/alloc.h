/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Best-fit allocator over an abstract range [0, size). It hands out offsets,
 * never pointers, and keeps all of its bookkeeping outside the range: the
 * range is shared with a user-space daemon, and nothing the daemon writes
 * there can corrupt the allocator.
 *
 * Every block, free or used, is a node in an address-ordered list that tiles
 * the range. Free blocks sit in a tree keyed by (size, offset), so the
 * smallest block that fits is found in O(log n); used blocks sit in a tree
 * keyed by offset, so free() and lookups are O(log n) too. Neighbours in the
 * list coalesce on free, so no two free blocks are ever adjacent.
 *
 * Not thread safe: the caller serialises (lakeshm holds a mutex).
 */
#ifndef LAKE_SHM_ALLOC_H
#define LAKE_SHM_ALLOC_H

#include <lake/port.h>
#include "avl.h"

#define LAKE_ALLOC_MIN_ALIGN	64ULL

struct lake_alloc_stats {
	u64 size;		/* bytes managed */
	u64 used;		/* bytes in live allocations (rounded sizes) */
	u64 free;		/* size - used */
	u64 largest_free;	/* biggest single free block */
	u64 free_blocks;
	u64 live_allocs;
	u64 failed_allocs;	/* requests refused: bad arguments or no block */
	u64 bad_frees;		/* double frees and foreign offsets */
	u64 total_allocs;
	u64 total_frees;
};

struct lake_alloc_blk;

struct lake_alloc {
	u64 size;
	struct lake_alloc_blk *head;	/* block at offset 0 */
	struct lake_avl_root free_tree;	/* free blocks by (size, off) */
	struct lake_avl_root used_tree;	/* used blocks by off */
	struct lake_alloc_blk *spare;	/* recycled nodes, so steady state never mallocs */
	unsigned int nspare;
	struct lake_alloc_stats st;
};

int lake_alloc_init(struct lake_alloc *a, u64 size);
void lake_alloc_destroy(struct lake_alloc *a);

/* @align: 0 or a power of two; below 64 it is raised to 64. */
int lake_alloc_alloc(struct lake_alloc *a, u64 size, u64 align, u64 *off);
int lake_alloc_free(struct lake_alloc *a, u64 off);

/*
 * Is [off, off + len) inside one live allocation? On success the
 * allocation's start and (rounded) size are returned.
 */
int lake_alloc_find(const struct lake_alloc *a, u64 off, u64 len,
		    u64 *blk_off, u64 *blk_size);

void lake_alloc_get_stats(const struct lake_alloc *a, struct lake_alloc_stats *st);

/* Full O(n) consistency check of every invariant; 0 or -EFAULT. For tests. */
int lake_alloc_check(const struct lake_alloc *a);

#endif /* LAKE_SHM_ALLOC_H */
