// SPDX-License-Identifier: GPL-2.0
/* Best-fit allocator: see alloc.h for the structure and its invariants. */
#include "alloc_internal.h"

#define MIN_NODES	64
#define MAX_NODES	(1U << 26)	/* 1 GiB of nodes: under kvmalloc's limit */

static int nodes_grow(struct lake_alloc *a)
{
	u32 cap = a->cap ? a->cap * 2 : MIN_NODES, i;
	struct lake_alloc_blk *blks;
	struct lake_alloc_ent *ents;
	u64 *bits;

	if (cap > MAX_NODES)
		return -ENOMEM;
	blks = lake_port_kvzalloc((size_t)cap * sizeof(*blks));
	ents = lake_port_kvzalloc((size_t)(cap / 2 + 1) * sizeof(*ents));
	bits = lake_port_kvzalloc(cap / 8);
	if (!blks || !ents || !bits) {
		lake_port_kvfree(blks);
		lake_port_kvfree(ents);
		lake_port_kvfree(bits);
		return -ENOMEM;
	}
	if (a->cap) {
		memcpy(blks, a->blks, (size_t)a->cap * sizeof(*blks));
		memcpy(ents, a->ents, (size_t)(a->cap / 2 + 1) * sizeof(*ents));
		memcpy(bits, a->free_bits, a->cap / 8);
	}
	lake_port_kvfree(a->blks);
	lake_port_kvfree(a->ents);
	lake_port_kvfree(a->free_bits);
	a->blks = blks;
	a->ents = ents;
	a->free_bits = bits;
	/* Lowest index on top, so nodes and entries are handed out in order. */
	for (i = cap - 1; i >= a->cap && i > 0; i--) {
		blks[i].next = a->spare;
		a->spare = i;
	}
	for (i = cap / 2; i > a->cap / 2; i--) {
		ents[i].cnext = a->ent_spare;
		a->ent_spare = i;
	}
	a->cap = cap;
	return 0;
}

/* A spare node, or 0. May move the node array: re-derive node pointers. */
static u32 node_get(struct lake_alloc *a)
{
	u32 i;

	if (!a->spare && nodes_grow(a))
		return 0;
	i = a->spare;
	a->spare = blk(a, i)->next;
	return i;
}

static void node_put(struct lake_alloc *a, u32 i)
{
	blk(a, i)->next = a->spare;
	a->spare = i;
}

static void big_insert(struct lake_alloc *a, u32 i)
{
	const struct lake_alloc_blk *b = blk(a, i);
	struct lake_alloc_big *e = &a->bigs[b->off >> BIG_SHIFT];
	struct lake_avl_node **link = &a->big_tree.node, *parent = NULL;

	e->key = (u64)b->size << 32 | b->off;
	e->blk = i;
	while (*link) {
		parent = *link;
		link = e->key < big_of(parent)->key ? &parent->left : &parent->right;
	}
	lake_avl_link(&e->node, parent, link);
	lake_avl_insert_fixup(&a->big_tree, &e->node);
}

/* Put entry @ei, whose block is free and of class @c, at the head of @c. */
static void class_push(struct lake_alloc *a, unsigned int c, u32 ei)
{
	struct lake_alloc_ent *e = ent(a, ei);
	u32 head = a->classes[c];

	e->cprev = 0;
	e->cnext = head;
	ent(a, head)->cprev = ei;
	a->classes[c] = ei;
	a->class_bits[c / 64] |= 1ULL << (c % 64);
	a->class_summary |= 1ULL << (c / 64);
}

static void class_unlink(struct lake_alloc *a, unsigned int c, u32 ei)
{
	const struct lake_alloc_ent *e = ent(a, ei);

	ent(a, e->cnext)->cprev = e->cprev;
	if (e->cprev) {
		ent(a, e->cprev)->cnext = e->cnext;
		return;
	}
	a->classes[c] = e->cnext;
	if (!e->cnext) {
		a->class_bits[c / 64] &= ~(1ULL << (c % 64));
		if (!a->class_bits[c / 64])
			a->class_summary &= ~(1ULL << (c / 64));
	}
}

static void free_insert(struct lake_alloc *a, u32 i)
{
	struct lake_alloc_blk *b = blk(a, i);

	a->free_bits[i / 64] |= 1ULL << (i % 64);
	a->st.free_blocks++;
	if (is_small(b->size)) {
		u32 ei = a->ent_spare;
		struct lake_alloc_ent *e = ent(a, ei);

		a->ent_spare = e->cnext;
		e->blk = i;
		e->prev = b->prev;
		b->prev = ei;
		class_push(a, class_of(b->size), ei);
	} else {
		big_insert(a, i);
	}
}

static void free_erase(struct lake_alloc *a, u32 i)
{
	struct lake_alloc_blk *b = blk(a, i);

	a->free_bits[i / 64] &= ~(1ULL << (i % 64));
	a->st.free_blocks--;
	if (is_small(b->size)) {
		u32 ei = b->prev;
		struct lake_alloc_ent *e = ent(a, ei);

		class_unlink(a, class_of(b->size), ei);
		b->prev = e->prev;
		e->cnext = a->ent_spare;
		a->ent_spare = ei;
	} else {
		lake_avl_erase(&a->big_tree, &a->bigs[b->off >> BIG_SHIFT].node);
	}
}

/* Smallest non-empty class >= @c, or -1. */
static int class_next(const struct lake_alloc *a, unsigned int c)
{
	unsigned int w = c / 64;
	u64 bits, sum;

	if (c >= LAKE_ALLOC_CLASSES)
		return -1;
	bits = a->class_bits[w] & (~0ULL << (c % 64));
	if (bits)
		return w * 64 + __builtin_ctzll(bits);
	sum = w == 63 ? 0 : a->class_summary & (~0ULL << (w + 1));
	if (!sum)
		return -1;
	w = __builtin_ctzll(sum);
	return w * 64 + __builtin_ctzll(a->class_bits[w]);
}

/* Smallest big free block of at least @size granules (ties: lowest offset). */
static struct lake_avl_node *big_lower_bound(const struct lake_alloc *a, u32 size)
{
	struct lake_avl_node *n = a->big_tree.node, *best = NULL;
	u64 key = (u64)size << 32;

	while (n) {
		if (key <= big_of(n)->key) {
			best = n;
			n = n->left;
		} else {
			n = n->right;
		}
	}
	return best;
}

static bool fits(const struct lake_alloc_blk *b, u32 size, u32 align, u32 *start)
{
	u64 s = LAKE_ALIGN_UP((u64)b->off, align);

	*start = s;
	return s + size <= (u64)b->off + b->size;
}

/*
 * The best-fitting free block for @size at @align. With the minimum
 * alignment any block of a large enough class fits, so the first non-empty
 * class decides. A larger alignment may have to skip blocks whose padding
 * does not fit; any block of size + align - 1 granules or more always fits,
 * so the scan only crosses candidates below that size.
 */
static u32 best_fit(const struct lake_alloc *a, u32 size, u32 align, u32 *start)
{
	struct lake_avl_node *n;
	u32 e;
	int c;

	for (c = class_next(a, class_of(size)); c >= 0; c = class_next(a, c + 1))
		for (e = a->classes[c]; e; e = ent(a, e)->cnext)
			if (fits(blk(a, ent(a, e)->blk), size, align, start))
				return ent(a, e)->blk;
	for (n = big_lower_bound(a, size); n; n = lake_avl_next(n))
		if (fits(blk(a, big_of(n)->blk), size, align, start))
			return big_of(n)->blk;
	return 0;
}

/* Put node @i, already filled in, into the address list after @pos. */
static void link_after(struct lake_alloc *a, u32 pos, u32 i)
{
	struct lake_alloc_blk *p = blk(a, pos), *b = blk(a, i);

	b->prev = pos;
	b->next = p->next;
	blk(a, p->next)->prev = i;
	p->next = i;
}

/*
 * The page map names the last block starting in each page. A block is last
 * when the next start lies in a later page: decided from the block's own
 * fields, so keeping the map never reads a neighbour.
 */
static void page_note(struct lake_alloc *a, u32 i)
{
	const struct lake_alloc_blk *b = blk(a, i);
	u32 end = b->off + b->size;
	/* Pages from start to next start, plus one past the range's end. */
	u32 later = (end >> LAKE_INDEX_PAGE_SHIFT) - (b->off >> LAKE_INDEX_PAGE_SHIFT) +
		    (end == granules(a));

	lake_index_set_page_if(&a->ix, b->off, i, later != 0);
}

/*
 * The block that spanned [@g, @end) was merged into @s, which now ends at
 * @end. In its own page @s may have become the last; in another page, the
 * merged block was that page's only start if @end lies beyond it.
 */
static void page_merged(struct lake_alloc *a, u32 g, u32 end, u32 s)
{
	if (lake_index_same_page(blk(a, s)->off, g))
		page_note(a, s);
	else if (end == granules(a) || !lake_index_same_page(g, end))
		lake_index_set_page(&a->ix, g, 0);
}

int lake_alloc_init(struct lake_alloc *a, u64 size)
{
	struct lake_alloc_blk *b;
	u32 i;

	memset(a, 0, sizeof(*a));
	if (!size || size % LAKE_ALLOC_MIN_ALIGN || size > LAKE_ALLOC_MAX_SIZE)
		return -EINVAL;
	a->classes = lake_port_kvzalloc(LAKE_ALLOC_CLASSES * sizeof(*a->classes));
	a->bigs = lake_port_kvzalloc(((size >> GRAN_SHIFT >> BIG_SHIFT) + 1) *
				     sizeof(*a->bigs));
	if (!a->classes || !a->bigs || nodes_grow(a) ||
	    lake_index_init(&a->ix, size >> GRAN_SHIFT, &a->blks)) {
		lake_alloc_destroy(a);
		return -ENOMEM;
	}
	a->size = size;
	a->st.size = size;
	i = node_get(a);
	b = blk(a, i);
	b->off = 0;
	b->size = size >> GRAN_SHIFT;
	b->prev = 0;
	b->next = 0;
	blk(a, 0)->prev = i;
	blk(a, 0)->next = i;
	page_note(a, i);
	free_insert(a, i);
	return 0;
}

void lake_alloc_destroy(struct lake_alloc *a)
{
	lake_index_destroy(&a->ix);
	lake_port_kvfree(a->blks);
	lake_port_kvfree(a->ents);
	lake_port_kvfree(a->free_bits);
	lake_port_kvfree(a->bigs);
	lake_port_kvfree(a->classes);
	memset(a, 0, sizeof(*a));
}

/*
 * Carve [@start, @start + @size) out of free block @fi, which is already
 * out of the free index, as node @xi; @ti is a spare for a tail when there
 * is free room on both sides. Free remainders go back to the index.
 */
static void carve(struct lake_alloc *a, u32 fi, u32 xi, u32 ti, u32 start, u32 size)
{
	struct lake_alloc_blk *f = blk(a, fi), *x = blk(a, xi);
	u32 end = f->off + f->size;

	if (xi == fi)
		return;
	x->off = start;
	x->size = size;
	if (start == f->off) {
		/* @f keeps the tail and moves up; @x takes its place. */
		x->prev = f->prev;
		x->next = fi;
		blk(a, f->prev)->next = xi;
		f->prev = xi;
		f->off = start + size;
		f->size = end - f->off;
		page_note(a, xi);
		page_note(a, fi);
		free_insert(a, fi);
		return;
	}
	/* @f keeps the padding in front. */
	f->size = start - f->off;
	link_after(a, fi, xi);
	page_note(a, xi);
	free_insert(a, fi);
	if (start + size < end) {
		struct lake_alloc_blk *t = blk(a, ti);

		t->off = start + size;
		t->size = end - t->off;
		link_after(a, xi, ti);
		page_note(a, ti);
		free_insert(a, ti);
	}
}

/*
 * The common request: default alignment, served by the head of class @c.
 * The class gives the block's size and its entry gives its predecessor, so
 * the block's own node is the only one read; the entry moves on with the
 * free remainder.
 */
static int alloc_from_class(struct lake_alloc *a, unsigned int c, u32 size, u64 *off)
{
	u32 ei = a->classes[c], fi = ent(a, ei)->blk, xi = fi, rest = c + 1 - size;
	struct lake_alloc_ent *e;
	struct lake_alloc_blk *f, *x;

	if (rest) {
		xi = node_get(a);
		if (!xi)
			return -ENOMEM;
	}
	f = blk(a, fi);
	x = blk(a, xi);
	x->off = f->off;
	if (lake_index_insert(&a->ix, xi)) {
		if (rest)
			node_put(a, xi);
		return -ENOMEM;
	}
	e = ent(a, ei);
	class_unlink(a, c, ei);
	if (!rest) {
		a->free_bits[fi / 64] &= ~(1ULL << (fi % 64));
		a->st.free_blocks--;
		f->prev = e->prev;
		e->cnext = a->ent_spare;
		a->ent_spare = ei;
	} else {
		/* @f keeps the tail and moves up; @x takes its place. */
		x->size = size;
		x->prev = e->prev;
		x->next = fi;
		blk(a, e->prev)->next = xi;
		e->prev = xi;
		f->off += size;
		f->size = rest;
		page_note(a, xi);
		page_note(a, fi);
		class_push(a, class_of(rest), ei);
	}
	*off = (u64)blk(a, xi)->off << GRAN_SHIFT;
	return 0;
}

/* Any request: best fit over classes and tree, with any alignment. */
static int alloc_any(struct lake_alloc *a, u32 z, u32 align, u64 *off)
{
	u32 fi, xi, ti = 0, start = 0, end;
	const struct lake_alloc_blk *f;

	fi = best_fit(a, z, align, &start);
	if (!fi)
		return -ENOMEM;
	f = blk(a, fi);
	end = f->off + f->size;

	/* Take every node this may need first, so a failure changes nothing. */
	xi = fi;
	if (start != f->off || start + z != end) {
		xi = node_get(a);
		if (!xi)
			return -ENOMEM;
		if (start != blk(a, fi)->off && start + z != end) {
			ti = node_get(a);
			if (!ti)
				goto put_x;
		}
	}
	blk(a, xi)->off = start;
	if (lake_index_insert(&a->ix, xi))
		goto put_t;

	free_erase(a, fi);
	carve(a, fi, xi, ti, start, z);
	*off = (u64)start << GRAN_SHIFT;
	return 0;

put_t:
	if (ti)
		node_put(a, ti);
put_x:
	if (xi != fi)
		node_put(a, xi);
	return -ENOMEM;
}

int lake_alloc_alloc(struct lake_alloc *a, u64 size, u64 align, u64 *off)
{
	int c, ret;
	u32 z;

	if (align < LAKE_ALLOC_MIN_ALIGN)
		align = LAKE_ALLOC_MIN_ALIGN;
	if (!size || !LAKE_IS_POW2(align) || size > a->size || align > a->size) {
		a->st.failed_allocs++;
		return -EINVAL;
	}
	z = LAKE_ALIGN_UP(size, LAKE_ALLOC_MIN_ALIGN) >> GRAN_SHIFT;
	c = align == LAKE_ALLOC_MIN_ALIGN ? class_next(a, class_of(z)) : -1;
	if (c >= 0)
		ret = alloc_from_class(a, c, z, off);
	else
		ret = alloc_any(a, z, align >> GRAN_SHIFT, off);
	if (ret) {
		a->st.failed_allocs++;
		return ret;
	}
	a->st.used += (u64)z << GRAN_SHIFT;
	a->st.live_allocs++;
	a->st.total_allocs++;
	return 0;
}

int lake_alloc_free(struct lake_alloc *a, u64 off)
{
	struct lake_alloc_blk *x, *n;
	u32 xi = 0, ni, pi;

	if (off % LAKE_ALLOC_MIN_ALIGN == 0 && off < a->size)
		xi = lake_index_erase(&a->ix, off >> GRAN_SHIFT);
	if (!xi) {
		a->st.bad_frees++;
		lake_port_warn("shm: free of %#llx: not a live allocation%s",
			       (unsigned long long)off,
			       off >= a->size ? " (outside the region)" : "");
		return -EINVAL;
	}
	x = blk(a, xi);
	a->st.used -= (u64)x->size << GRAN_SHIFT;
	a->st.live_allocs--;
	a->st.total_frees++;

	ni = x->next;
	pi = x->prev;
	/* Both merges may come: start the second one's load now (node 0: none). */
	__builtin_prefetch(blk(a, pi & -(u32)is_free(a, pi)));
	if (is_free(a, ni)) {
		n = blk(a, ni);
		free_erase(a, ni);
		x->size += n->size;
		x->next = n->next;
		blk(a, n->next)->prev = xi;
		page_merged(a, n->off, x->off + x->size, xi);
		node_put(a, ni);
	}
	if (is_free(a, pi)) {
		struct lake_alloc_blk *p = blk(a, pi);

		free_erase(a, pi);
		p->size += x->size;
		p->next = x->next;
		blk(a, x->next)->prev = pi;
		page_merged(a, x->off, p->off + p->size, pi);
		node_put(a, xi);
		xi = pi;
	}
	free_insert(a, xi);
	return 0;
}

int lake_alloc_find(const struct lake_alloc *a, u64 off, u64 len,
		    u64 *blk_off, u64 *blk_size)
{
	const struct lake_alloc_blk *b;
	u32 g, i;

	if (!len || off >= a->size || len > a->size - off)
		return -ERANGE;
	g = off >> GRAN_SHIFT;
	/* A buffer's start is in the hash; any other byte is in the page map. */
	i = off % LAKE_ALLOC_MIN_ALIGN ? 0 : lake_index_lookup(&a->ix, g);
	if (!i) {
		i = lake_index_page_floor(&a->ix, g);
		while (blk(a, i)->off > g)
			i = blk_prev(a, i);
	}
	b = blk(a, i);
	if (is_free(a, i) || len > (((u64)b->off + b->size) << GRAN_SHIFT) - off)
		return -EINVAL;
	if (blk_off)
		*blk_off = (u64)b->off << GRAN_SHIFT;
	if (blk_size)
		*blk_size = (u64)b->size << GRAN_SHIFT;
	return 0;
}

void lake_alloc_get_stats(const struct lake_alloc *a, struct lake_alloc_stats *st)
{
	struct lake_avl_node *last = lake_avl_last(&a->big_tree);

	*st = a->st;
	st->free = a->size - a->st.used;
	if (last) {
		st->largest_free = big_of(last)->key >> 32 << GRAN_SHIFT;
	} else if (a->class_summary) {
		unsigned int w = 63 - __builtin_clzll(a->class_summary);
		unsigned int c = w * 64 + 63 - __builtin_clzll(a->class_bits[w]);

		st->largest_free = (u64)(c + 1) << GRAN_SHIFT;
	} else {
		st->largest_free = 0;
	}
}
