/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Best-fit allocator over an abstract range [0, size). It hands out offsets,
 * never pointers, and keeps all of its bookkeeping outside the range: the
 * range is shared with a user-space daemon, and nothing the daemon writes
 * there can corrupt the allocator.
 *
 * Every block, free or used, is a 16-byte node in one array, named by a u32
 * index, in an address-ordered circular list that tiles the range; neighbours
 * in the list coalesce on free, so no two free blocks are ever adjacent. A
 * bitmap with one bit per node says which are free, so free() reads a
 * neighbour's node only to merge it. Free blocks up to LAKE_ALLOC_SMALL_MAX
 * sit in exact-size classes (one list per multiple of 64 bytes, linked
 * through a side table of entries) with a two-level bitmap over the
 * non-empty classes: the smallest block that fits is found with a few word
 * operations. Larger free blocks, which are few, sit in an AVL tree by
 * (size, offset). Live allocations are found by offset through index.h.
 * Among equal-sized candidates in a class the most recently freed wins.
 *
 * Cost: alloc and free are O(1) for class-sized blocks and O(log n) when
 * the tree is involved, plus, rarely, an O(n) doubling of the node array or
 * the hash. With many live blocks the cost is cache misses, so the layout
 * is built to touch few lines: the hash bucket and the node for a free,
 * the class entry and the node for an alloc, neighbours only when free.
 * An aligned request also scans the free blocks below size + align - 64
 * bytes that cannot hold it at that alignment (any block of that size can):
 * O(free blocks in those classes) at worst, O(1) for the default alignment.
 *
 * Memory outside the range: per block, a node and half an entry (16 + 8
 * bytes, up to twice that while the arrays have headroom); per live
 * allocation, 8 to 16 bytes of hash; per 64 KiB of range, 4 bytes of page
 * map; per 256 KiB, a 48-byte tree entry; 16 KiB of class heads. For a
 * 4 GiB range that is 1 MiB fixed, plus 32 to 64 bytes per allocation. The
 * range is at most LAKE_ALLOC_MAX_SIZE and holds at most 2^26 blocks.
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
#define LAKE_ALLOC_MAX_SIZE	(1ULL << 37)	/* offsets fit u32 granules */

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

struct lake_alloc_ent;
struct lake_alloc_big;

struct lake_alloc {
	u64 size;
	struct lake_alloc_blk *blks;	/* nodes; 0 is the list's sentinel */
	u64 *free_bits;			/* one bit per node: a free block */
	struct lake_alloc_ent *ents;	/* class-list entries, cap / 2 + 1 */
	u32 cap;			/* nodes in blks */
	u32 spare;			/* unused nodes, linked by next */
	u32 ent_spare;			/* unused entries */
	u32 *classes;			/* LAKE_ALLOC_CLASSES list heads (entries) */
	u64 class_bits[LAKE_ALLOC_CLASSES / 64];	/* non-empty classes */
	u64 class_summary;		/* non-zero words of class_bits */
	struct lake_avl_root big_tree;	/* free blocks > SMALL_MAX by (size, off) */
	struct lake_alloc_big *bigs;	/* their tree entries, one per 256 KiB */
	struct lake_index ix;
	struct lake_alloc_stats st;
};

int lake_alloc_init(struct lake_alloc *a, u64 size);
void lake_alloc_destroy(struct lake_alloc *a);

/* @align: 0 or a power of two; below 64 it is raised to 64. */
int lake_alloc_alloc(struct lake_alloc *a, u64 size, u64 align, u64 *off);
int lake_alloc_free(struct lake_alloc *a, u64 off);

/*
 * Is [off, off + len) inside one live allocation? On success the
 * allocation's start and (rounded) size are returned. O(1) for the start of
 * an allocation; for any other byte, a floor query on the page bitmap and
 * a walk back over at most the blocks that start in one 64 KiB page.
 */
int lake_alloc_find(const struct lake_alloc *a, u64 off, u64 len,
		    u64 *blk_off, u64 *blk_size);

void lake_alloc_get_stats(const struct lake_alloc *a, struct lake_alloc_stats *st);

/* Full O(n + classes) check of every invariant; 0 or -EFAULT. Host tests only. */
int lake_alloc_check(const struct lake_alloc *a);

#endif /* LAKE_SHM_ALLOC_H */
