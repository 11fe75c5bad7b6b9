// SPDX-License-Identifier: GPL-2.0
/* Hash of live allocations and page map of block starts; see index.h. */
#include "index.h"

#define MIN_BUCKETS	8
#define MAX_BUCKETS	(1U << 24)	/* keeps bucket and tag bits apart */

static inline unsigned int hi_bit(u64 x)
{
	return 63 - __builtin_clzll(x);
}

static struct lake_index_bucket *buckets_alloc(u32 n)
{
	return lake_port_kvzalloc((size_t)n * sizeof(struct lake_index_bucket));
}

int lake_index_init(struct lake_index *ix, u32 granules, struct lake_alloc_blk *const *blks)
{
	u64 n = ((u64)granules >> LAKE_INDEX_PAGE_SHIFT) + 1;
	unsigned int l;

	memset(ix, 0, sizeof(*ix));
	ix->blks = blks;
	ix->buckets = buckets_alloc(MIN_BUCKETS);
	ix->pages = lake_port_kvzalloc(n * sizeof(*ix->pages));
	if (!ix->buckets || !ix->pages)
		goto nomem;
	ix->bmask = MIN_BUCKETS - 1;
	/* Level l has one bit per word of level l - 1, up to a single word. */
	for (l = 0; l < LAKE_INDEX_MAX_LEVELS; l++) {
		u64 words = (n + 63) / 64;

		ix->bits[l] = lake_port_kvzalloc(words * sizeof(u64));
		if (!ix->bits[l])
			goto nomem;
		ix->levels = l + 1;
		if (words == 1)
			return 0;
		n = words;
	}
	lake_index_destroy(ix);
	return -EINVAL;	/* range too large for LAKE_INDEX_MAX_LEVELS */
nomem:
	lake_index_destroy(ix);
	return -ENOMEM;
}

void lake_index_destroy(struct lake_index *ix)
{
	unsigned int l;

	for (l = 0; l < ix->levels; l++)
		lake_port_kvfree(ix->bits[l]);
	lake_port_kvfree(ix->pages);
	lake_port_kvfree(ix->buckets);
	memset(ix, 0, sizeof(*ix));
}

static void put_way(struct lake_index_bucket *b, unsigned int w, u32 g, u32 node)
{
	lake_index_set_tag(b, w, lake_index_tag(g));
	b->node[w] = node;
}

/* Both of a key's buckets are full: move one node out of @b, to its other. */
static int make_room(const struct lake_index *ix, struct lake_index_bucket *buckets, u32 bmask,
		     struct lake_index_bucket *b)
{
	unsigned int w;

	for (w = 0; w < LAKE_INDEX_WAYS; w++) {
		u32 g = (*ix->blks)[b->node[w]].off;
		struct lake_index_bucket *o = &buckets[lake_index_bucket1(g, bmask)];
		int e;

		if (o == b)
			o = &buckets[lake_index_bucket2(g, bmask)];
		e = lake_index_empty_way(o);
		if (e >= 0) {
			put_way(o, e, g, b->node[w]);
			lake_index_set_tag(b, w, 0);
			return w;
		}
	}
	return -1;
}

/*
 * A node goes to its first bucket while that has room, else to its second,
 * so most lookups read one cache line. -ENOSPC when both are full and no
 * node in them can move to its other bucket.
 */
static int place(const struct lake_index *ix, struct lake_index_bucket *buckets, u32 bmask,
		 u32 node)
{
	u32 g = (*ix->blks)[node].off;
	struct lake_index_bucket *b = &buckets[lake_index_bucket1(g, bmask)];
	int w = lake_index_empty_way(b);

	if (w < 0) {
		b = &buckets[lake_index_bucket2(g, bmask)];
		w = lake_index_empty_way(b);
		if (w < 0)
			w = make_room(ix, buckets, bmask, b);
		if (w < 0)
			return -ENOSPC;
	}
	put_way(b, w, g, node);
	return 0;
}

/* Rebuild with twice the buckets (or more); on failure keep the old table. */
static int grow(struct lake_index *ix)
{
	u32 n = (ix->bmask + 1) * 2, i, w;
	struct lake_index_bucket *nb;

	for (; n <= MAX_BUCKETS; n *= 2) {
		nb = buckets_alloc(n);
		if (!nb)
			return -ENOMEM;
		for (i = 0; i <= ix->bmask; i++)
			for (w = 0; w < LAKE_INDEX_WAYS; w++)
				if ((ix->buckets[i].tags[w / 8] >> (8 * (w % 8)) & 0xff) &&
				    place(ix, nb, n - 1, ix->buckets[i].node[w]))
					goto retry;
		lake_port_kvfree(ix->buckets);
		ix->buckets = nb;
		ix->bmask = n - 1;
		return 0;
retry:
		lake_port_kvfree(nb);
	}
	return -ENOMEM;
}

/* The first bucket is full or the table is at its load limit. */
int lake_index_insert_slow(struct lake_index *ix, u32 node)
{
	if (ix->count >= (ix->bmask + 1) * 8 && grow(ix))
		return -ENOMEM;
	if (place(ix, ix->buckets, ix->bmask, node) &&
	    (grow(ix) || place(ix, ix->buckets, ix->bmask, node)))
		return -ENOMEM;
	ix->count++;
	return 0;
}

/* Page @p turned empty (@node 0) or non-empty: carry it up the levels. */
void lake_index_set_page_slow(struct lake_index *ix, u64 p, u32 node)
{
	unsigned int l;

	for (l = 0; l < ix->levels; l++, p /= 64) {
		u64 *w = &ix->bits[l][p / 64], old = *w;

		if (node)
			*w = old | (1ULL << (p % 64));
		else
			*w = old & ~(1ULL << (p % 64));
		/* The levels above change only when a word turns (non-)empty. */
		if (!old == !*w)
			break;
	}
}

u32 lake_index_page_floor(const struct lake_index *ix, u32 g)
{
	s64 i = g >> LAKE_INDEX_PAGE_SHIFT;
	unsigned int l = 0;
	u64 idx;

	/* Climb until some level has a set bit at or below the position. */
	for (;;) {
		u64 w, m;

		if (i < 0 || l == ix->levels)
			return 0;
		w = i / 64;
		m = ix->bits[l][w] & (~0ULL >> (63 - i % 64));
		if (m) {
			idx = w * 64 + hi_bit(m);
			break;
		}
		i = (s64)w - 1;	/* the nearest earlier non-empty word */
		l++;
	}
	/* Descend along the highest set bit. */
	while (l-- > 0)
		idx = idx * 64 + hi_bit(ix->bits[l][idx]);
	return ix->pages[idx];
}

int lake_index_validate(const struct lake_index *ix, u32 granules)
{
	u64 n = ((u64)granules >> LAKE_INDEX_PAGE_SHIFT) + 1, i;
	unsigned int l;

	for (i = 0; i < n; i++)
		if (!!ix->pages[i] != !!(ix->bits[0][i / 64] & (1ULL << (i % 64))))
			return -EFAULT;
	for (l = 1; l < ix->levels; l++, n = (n + 63) / 64)
		for (i = 0; i < (n + 63) / 64; i++)
			if (!!ix->bits[l - 1][i] !=
			    !!(ix->bits[l][i / 64] & (1ULL << (i % 64))))
				return -EFAULT;
	return 0;
}
