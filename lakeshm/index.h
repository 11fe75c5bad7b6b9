/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The allocator's block nodes, and its two lookups by offset (in granules
 * of 64 bytes), which name nodes by index (0: none):
 *
 * - a hash from the start of each live allocation to its node, so free()
 *   finds its block in one cache line. A bucket is a line of 12 node indices
 *   and a tag byte for each; a key's node sits in the first of its two
 *   buckets unless that one was full. The key itself is not stored: a tag
 *   match is confirmed against the node's own offset, the node free() loads
 *   next anyway. That halves the table, which is what a random free misses
 *   in cache once there are many live allocations.
 * - a page map for "which block holds this byte": per 64 KiB page, the
 *   last block, free or used, that starts in the page, plus a bitmap of the
 *   pages where one does, with summary levels for the floor query. The
 *   allocator keeps it with stores alone; only lake_alloc_find() reads it.
 */
#ifndef LAKE_SHM_INDEX_H
#define LAKE_SHM_INDEX_H

#include <lake/port.h>

#define LAKE_INDEX_WAYS		12	/* nodes per bucket: one cache line */
#define LAKE_INDEX_PAGE_SHIFT	10	/* granules per page: 1024 (64 KiB) */
#define LAKE_INDEX_MAX_LEVELS	6	/* 64^6 pages */

/*
 * A block, free or used. Offsets and sizes are in granules. Node 0 is the
 * sentinel that closes the address list; it is never free, so no merge
 * crosses it.
 */
struct lake_alloc_blk {
	u32 off, size;
	u32 prev, next;			/* address order; spare nodes: next */
};

struct lake_index_bucket {
	u64 tags[2];			/* way w: byte w % 8 of tags[w / 8]; 0: empty */
	u32 node[LAKE_INDEX_WAYS];
};

struct lake_index {
	struct lake_index_bucket *buckets;
	u32 bmask;			/* buckets - 1 (a power of two) */
	u32 count;
	struct lake_alloc_blk *const *blks;	/* the allocator's nodes: the keys */
	u32 *pages;			/* last block starting in each page, or 0 */
	u64 *bits[LAKE_INDEX_MAX_LEVELS];	/* level 0: pages[p] != 0 */
	unsigned int levels;
};

static inline bool lake_index_same_page(u32 g1, u32 g2)
{
	return g1 >> LAKE_INDEX_PAGE_SHIFT == g2 >> LAKE_INDEX_PAGE_SHIFT;
}

/* @blks: where the allocator keeps its node array, which may move. */
int lake_index_init(struct lake_index *ix, u32 granules, struct lake_alloc_blk *const *blks);
void lake_index_destroy(struct lake_index *ix);

/*
 * A key's two buckets come from two multiplicative hashes; its tag, the
 * same in both, from the top bits of the first. Tags have bit 7 set, so a
 * zero byte marks an empty way.
 */
static inline u32 lake_index_bucket1(u32 g, u32 bmask)
{
	return ((u64)g * 0x9e3779b97f4a7c15ULL >> 32) & bmask;
}

static inline u32 lake_index_bucket2(u32 g, u32 bmask)
{
	return ((u64)g * 0xc2b2ae3d27d4eb4fULL >> 32) & bmask;
}

static inline u64 lake_index_tag(u32 g)
{
	return (u64)g * 0x9e3779b97f4a7c15ULL >> 57 | 0x80;
}

/* Bit 7 of each byte of @x that is zero, computed without carries between bytes. */
static inline u64 lake_index_zero_bytes(u64 x)
{
	const u64 low7 = 0x7f7f7f7f7f7f7f7fULL;

	return ~(((x & low7) + low7) | x | low7);
}

/* Ways of @b in @half (0: ways 0-7, 1: ways 8-11) tagged @tag, at bit 7 of each byte. */
static inline u64 lake_index_match(const struct lake_index_bucket *b, int half, u64 tag)
{
	u64 ways = half ? 0x80808080ULL : 0x8080808080808080ULL;

	return lake_index_zero_bytes(b->tags[half] ^ tag * 0x0101010101010101ULL) & ways;
}

static inline void lake_index_set_tag(struct lake_index_bucket *b, unsigned int w, u64 tag)
{
	u64 *t = &b->tags[w / 8];

	*t = (*t & ~(0xffULL << (8 * (w % 8)))) | tag << (8 * (w % 8));
}

/* The first empty way of @b, or -1. */
static inline int lake_index_empty_way(const struct lake_index_bucket *b)
{
	u64 m = lake_index_match(b, 0, 0);

	if (m)
		return __builtin_ctzll(m) / 8;
	m = lake_index_match(b, 1, 0);
	return m ? 8 + __builtin_ctzll(m) / 8 : -1;
}

static inline struct lake_index_bucket *lake_index_find(const struct lake_index *ix, u32 g,
							 unsigned int *way)
{
	struct lake_index_bucket *b = &ix->buckets[lake_index_bucket1(g, ix->bmask)];
	u64 tag = lake_index_tag(g), m;
	int pass, half;

	for (pass = 0; pass < 2; pass++) {
		for (half = 0; half < 2; half++) {
			for (m = lake_index_match(b, half, tag); m; m &= m - 1) {
				*way = half * 8 + __builtin_ctzll(m) / 8;
				if ((*ix->blks)[b->node[*way]].off == g)
					return b;
			}
		}
		b = &ix->buckets[lake_index_bucket2(g, ix->bmask)];
	}
	return NULL;
}

/* The live allocation starting at @g, or 0. */
static inline u32 lake_index_lookup(const struct lake_index *ix, u32 g)
{
	unsigned int w;
	struct lake_index_bucket *b = lake_index_find(ix, g, &w);

	return b ? b->node[w] : 0;
}

/* Remove the allocation starting at @g and return its node, or 0 if none. */
static inline u32 lake_index_erase(struct lake_index *ix, u32 g)
{
	unsigned int w;
	struct lake_index_bucket *b = lake_index_find(ix, g, &w);

	if (!b)
		return 0;
	lake_index_set_tag(b, w, 0);
	ix->count--;
	return b->node[w];
}

int lake_index_insert_slow(struct lake_index *ix, u32 node);

/* Add @node, whose offset is set and not in the hash: 0 or -ENOMEM (nothing changed). */
static inline int lake_index_insert(struct lake_index *ix, u32 node)
{
	u32 g = (*ix->blks)[node].off;
	struct lake_index_bucket *b = &ix->buckets[lake_index_bucket1(g, ix->bmask)];
	int w = lake_index_empty_way(b);

	/* Eight keys a bucket at most: the first bucket nearly always has room. */
	if (w < 0 || ix->count >= (ix->bmask + 1) * 8)
		return lake_index_insert_slow(ix, node);
	lake_index_set_tag(b, w, lake_index_tag(g));
	b->node[w] = node;
	ix->count++;
	return 0;
}

void lake_index_set_page_slow(struct lake_index *ix, u64 p, u32 node);

/* Record @node (0: none) as the block starting in @g's page. */
static inline void lake_index_set_page(struct lake_index *ix, u32 g, u32 node)
{
	u64 p = g >> LAKE_INDEX_PAGE_SHIFT;
	u32 old = ix->pages[p];

	ix->pages[p] = node;
	/* The bitmap changes only when a page turns (non-)empty. */
	if (!old != !node)
		lake_index_set_page_slow(ix, p, node);
}

/*
 * The same for a non-zero @node, if @cond. @cond is a coin toss to the
 * branch predictor, so it selects with a mask instead of a branch.
 */
static inline void lake_index_set_page_if(struct lake_index *ix, u32 g, u32 node, bool cond)
{
	u64 p = g >> LAKE_INDEX_PAGE_SHIFT;
	u32 old = ix->pages[p];

	ix->pages[p] = old ^ ((old ^ node) & -(u32)cond);
	if (cond & (old == 0))
		lake_index_set_page_slow(ix, p, node);
}

/* The entry of the last non-empty page at or before @g's page, or 0. */
u32 lake_index_page_floor(const struct lake_index *ix, u32 g);
/* Page entries agree with the bitmap levels: 0 or -EFAULT. For tests. */
int lake_index_validate(const struct lake_index *ix, u32 granules);

#endif /* LAKE_SHM_INDEX_H */
