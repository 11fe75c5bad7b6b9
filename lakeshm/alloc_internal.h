/* SPDX-License-Identifier: GPL-2.0 */
/* The allocator's records, shared by alloc.c and alloc_check.c. */
#ifndef LAKE_SHM_ALLOC_INTERNAL_H
#define LAKE_SHM_ALLOC_INTERNAL_H

#include "alloc.h"

#define GRAN_SHIFT	6		/* log2(LAKE_ALLOC_MIN_ALIGN) */
#define SMALL_G		LAKE_ALLOC_CLASSES	/* largest class, in granules */
#define BIG_SHIFT	12		/* log2(SMALL_G) */

/*
 * A small free block's place in its class list. Entries live in a table of
 * their own: at most half the blocks are free (no two are adjacent), so the
 * nodes stay at 16 bytes, four per cache line, and list updates touch this
 * small table instead of random nodes. While a block is listed its node's
 * prev names the entry, and the entry keeps prev. Entry 0 absorbs the link
 * stores aimed at "no entry", which saves a branch on each.
 */
struct lake_alloc_ent {
	u32 blk, prev;
	u32 cprev, cnext;		/* class list; spare entries: cnext */
};

/*
 * Tree entry of a free block > SMALL_G. Two such blocks never start in the
 * same SMALL_G window, so the window indexes a preallocated table: a merge
 * or split never has to allocate, and free() cannot fail.
 */
struct lake_alloc_big {
	struct lake_avl_node node;
	u64 key;			/* size << 32 | off: the tree order */
	u32 blk;
};

#define big_of(n) container_of(n, struct lake_alloc_big, node)

static inline struct lake_alloc_blk *blk(const struct lake_alloc *a, u32 i)
{
	return &a->blks[i];
}

static inline struct lake_alloc_ent *ent(const struct lake_alloc *a, u32 e)
{
	return &a->ents[e];
}

static inline bool is_free(const struct lake_alloc *a, u32 i)
{
	return a->free_bits[i / 64] >> (i % 64) & 1;
}

static inline bool is_small(u32 size)
{
	return size <= SMALL_G;
}

static inline unsigned int class_of(u32 size)
{
	return size - 1;
}

static inline u32 granules(const struct lake_alloc *a)
{
	return a->size >> GRAN_SHIFT;
}

/* Address-order predecessor of any block, listed or not. */
static inline u32 blk_prev(const struct lake_alloc *a, u32 i)
{
	const struct lake_alloc_blk *b = blk(a, i);

	return is_free(a, i) && is_small(b->size) ? ent(a, b->prev)->prev : b->prev;
}

#endif /* LAKE_SHM_ALLOC_INTERNAL_H */
