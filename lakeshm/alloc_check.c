// SPDX-License-Identifier: GPL-2.0
/*
 * lake_alloc_check(): every invariant of the allocator, walked in full. The
 * host tests and benchmark build it; the module does not.
 */
#include "alloc_internal.h"

/* Number of blocks in the free index, or -1 if one is misfiled. */
static s64 count_free_index(const struct lake_alloc *a)
{
	const struct lake_alloc_big *e, *prev = NULL;
	struct lake_avl_node *n;
	u32 ents = a->cap / 2 + 1, i;
	s64 count = 0, spare = 0;
	unsigned int c;

	for (c = 0; c < LAKE_ALLOC_CLASSES; c++) {
		bool bit = a->class_bits[c / 64] & (1ULL << (c % 64));

		if (bit != !!a->classes[c] ||
		    !!(a->class_summary & (1ULL << (c / 64))) != !!a->class_bits[c / 64])
			return -1;
		for (i = a->classes[c]; i; i = ent(a, i)->cnext, count++) {
			u32 b = ent(a, i)->blk, next = ent(a, i)->cnext;

			if (i >= ents || count >= ents || b >= a->cap || !is_free(a, b) ||
			    blk(a, b)->prev != i || class_of(blk(a, b)->size) != c ||
			    (next && (next >= ents || ent(a, next)->cprev != i)))
				return -1;
		}
	}
	for (i = a->ent_spare; i; i = ent(a, i)->cnext)
		if (i >= ents || count + ++spare >= ents)
			return -1;
	if (count + spare != ents - 1)
		return -1;	/* an entry leaked */
	if (lake_avl_validate(&a->big_tree))
		return -1;
	for (n = lake_avl_first(&a->big_tree); n; n = lake_avl_next(n), count++) {
		const struct lake_alloc_blk *b;

		e = big_of(n);
		if (e->blk >= a->cap)
			return -1;
		b = blk(a, e->blk);
		if (!is_free(a, e->blk) || is_small(b->size) ||
		    e != &a->bigs[b->off >> BIG_SHIFT] ||
		    e->key != ((u64)b->size << 32 | b->off) || (prev && prev->key >= e->key))
			return -1;
		prev = e;
	}
	return count;
}

/* Each page names its last block start, and a page without one is empty. */
static int check_pages(const struct lake_alloc *a)
{
	u32 i, page = 0, last = 0, pages = (granules(a) >> LAKE_INDEX_PAGE_SHIFT) + 1;

	for (i = blk(a, 0)->next; i; i = blk(a, i)->next) {
		u32 p = blk(a, i)->off >> LAKE_INDEX_PAGE_SHIFT;

		for (; page < p; page++, last = 0)
			if (a->ix.pages[page] != last)
				return -EFAULT;
		last = i;
	}
	for (; page < pages; page++, last = 0)
		if (a->ix.pages[page] != last)
			return -EFAULT;
	return lake_index_validate(&a->ix, granules(a));
}

int lake_alloc_check(const struct lake_alloc *a)
{
	const struct lake_alloc_blk *b;
	u64 pos = 0, used = 0, live = 0, nfree = 0, nodes = 1;
	u32 i, prev = 0;

	if (is_free(a, 0))
		return -EFAULT;
	for (i = blk(a, 0)->next; i; prev = i, i = b->next) {
		if (i >= a->cap || ++nodes > a->cap)
			return -EFAULT;
		b = blk(a, i);
		if (is_free(a, i) && is_small(b->size) && b->prev > a->cap / 2)
			return -EFAULT;	/* a listed block's entry out of range */
		if (blk_prev(a, i) != prev || b->off != pos || !b->size)
			return -EFAULT;
		if (is_free(a, i) && is_free(a, prev))
			return -EFAULT;	/* missed coalesce */
		if (is_free(a, i)) {
			nfree++;
		} else {
			if (lake_index_lookup(&a->ix, b->off) != i)
				return -EFAULT;
			used += (u64)b->size << GRAN_SHIFT;
			live++;
		}
		pos += b->size;
	}
	if (blk(a, 0)->prev != prev || pos << GRAN_SHIFT != a->size ||
	    used != a->st.used || live != a->st.live_allocs ||
	    nfree != a->st.free_blocks || a->ix.count != live)
		return -EFAULT;
	for (i = a->spare; i; i = blk(a, i)->next)
		if (i >= a->cap || is_free(a, i) || ++nodes > a->cap)
			return -EFAULT;
	if (nodes != a->cap || count_free_index(a) != (s64)nfree)
		return -EFAULT;
	return check_pages(a);
}
