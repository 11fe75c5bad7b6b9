/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Best-fit allocator over an abstract range [0, size). It hands out offsets,
 * never pointers, and keeps all of its bookkeeping outside the range: the
 * range is shared with a user-space daemon, and nothing the daemon writes
 * there can corrupt the allocator.
 *
 * Every block, free or used, is a node in an address-ordered list that tiles
 * the range; neighbours in the list coalesce on free, so no two free blocks
 * are ever adjacent. Free blocks up to LAKE_ALLOC_SMALL_MAX sit in exact-size
 * classes (one list per multiple of 64 bytes) with a two-level bitmap over
 * the non-empty classes: the smallest block that fits is found with a few
 * word operations. Larger free blocks, which are few, sit in an AVL tree by
 * (size, offset). Used blocks are indexed by offset (index.h), which answers
 * free() and "which allocation holds this byte" in a few cache lines.
 * Alloc and free are O(1) for class-sized blocks and O(log n) otherwise.
 * Among equal-sized candidates the most recently freed wins (cache-warm).
 *
 * Not thread safe: the caller serialises (lakeshm holds a mutex).
 */
#ifndef LAKE_SHM_ALLOC_H
#define LAKE_SHM_ALLOC_H

#include <lake/port.h>
#include "avl.h"
#include "index.h"

#define LAKE_ALLOC_MIN_ALIGN	64ULL
#define LAKE_ALLOC_CLASSES	4096	/* exact sizes 64 B .. 256 KiB */
#define LAKE_ALLOC_SMALL_MAX	(LAKE_ALLOC_CLASSES * LAKE_ALLOC_MIN_ALIGN)

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
struct lake_alloc_chunk;

struct lake_alloc {
	u64 size;
	struct lake_alloc_blk *head;	/* block at offset 0 */
	struct lake_alloc_blk **classes;	/* LAKE_ALLOC_CLASSES list heads */
	u64 class_bits[LAKE_ALLOC_CLASSES / 64];	/* non-empty classes */
	u64 class_summary;		/* non-zero words of class_bits */
	struct lake_avl_root big_tree;	/* free blocks > SMALL_MAX by (size, off) */
	struct lake_index used;		/* used blocks by off / 64 */
	struct lake_alloc_chunk *chunks;	/* where block nodes live */
	struct lake_alloc_blk *spare;	/* unused block nodes */
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

/* Full O(n + classes) check of every invariant; 0 or -EFAULT. For tests. */
int lake_alloc_check(const struct lake_alloc *a);

#endif /* LAKE_SHM_ALLOC_H */
