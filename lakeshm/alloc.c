// SPDX-License-Identifier: GPL-2.0
/* Best-fit allocator: see alloc.h for the structure and its invariants. */
#include "alloc.h"

#define SPARE_MAX	64

struct lake_alloc_blk {
	struct lake_avl_node node;	/* in free_tree or used_tree, never both */
	struct lake_alloc_blk *prev, *next;	/* address order */
	u64 off, size;
	bool free;
};

#define blk_of(n) container_of(n, struct lake_alloc_blk, node)

static struct lake_alloc_blk *blk_get(struct lake_alloc *a)
{
	struct lake_alloc_blk *b = a->spare;

	if (b) {
		a->spare = b->next;
		a->nspare--;
		return b;
	}
	return lake_port_malloc(sizeof(*b));
}

static void blk_put(struct lake_alloc *a, struct lake_alloc_blk *b)
{
	if (a->nspare >= SPARE_MAX) {
		lake_port_free(b);
		return;
	}
	b->next = a->spare;
	a->spare = b;
	a->nspare++;
}

static bool size_less(u64 size, u64 off, const struct lake_alloc_blk *b)
{
	return size < b->size || (size == b->size && off < b->off);
}

static void free_insert(struct lake_alloc *a, struct lake_alloc_blk *b)
{
	struct lake_avl_node **link = &a->free_tree.node, *parent = NULL;

	while (*link) {
		parent = *link;
		link = size_less(b->size, b->off, blk_of(parent)) ?
			&parent->left : &parent->right;
	}
	lake_avl_link(&b->node, parent, link);
	lake_avl_insert_fixup(&a->free_tree, &b->node);
	b->free = true;
	a->st.free_blocks++;
}

static void free_erase(struct lake_alloc *a, struct lake_alloc_blk *b)
{
	lake_avl_erase(&a->free_tree, &b->node);
	a->st.free_blocks--;
}

static void used_insert(struct lake_alloc *a, struct lake_alloc_blk *b)
{
	struct lake_avl_node **link = &a->used_tree.node, *parent = NULL;

	while (*link) {
		parent = *link;
		link = b->off < blk_of(parent)->off ? &parent->left : &parent->right;
	}
	lake_avl_link(&b->node, parent, link);
	lake_avl_insert_fixup(&a->used_tree, &b->node);
	b->free = false;
}

/* The used block with the greatest offset <= @off, or NULL. */
static struct lake_alloc_blk *used_floor(const struct lake_alloc *a, u64 off)
{
	struct lake_avl_node *n = a->used_tree.node;
	struct lake_alloc_blk *best = NULL;

	while (n) {
		struct lake_alloc_blk *b = blk_of(n);

		if (b->off <= off) {
			best = b;
			n = n->right;
		} else {
			n = n->left;
		}
	}
	return best;
}

/* Smallest free block of at least @size bytes (ties: lowest offset). */
static struct lake_avl_node *free_lower_bound(const struct lake_alloc *a, u64 size)
{
	struct lake_avl_node *n = a->free_tree.node, *best = NULL;

	while (n) {
		if (size <= blk_of(n)->size) {
			best = n;
			n = n->left;
		} else {
			n = n->right;
		}
	}
	return best;
}

static void list_insert_after(struct lake_alloc_blk *pos, struct lake_alloc_blk *b)
{
	b->prev = pos;
	b->next = pos->next;
	if (pos->next)
		pos->next->prev = b;
	pos->next = b;
}

static void list_unlink(struct lake_alloc *a, struct lake_alloc_blk *b)
{
	if (b->prev)
		b->prev->next = b->next;
	else
		a->head = b->next;
	if (b->next)
		b->next->prev = b->prev;
}

int lake_alloc_init(struct lake_alloc *a, u64 size)
{
	struct lake_alloc_blk *b;

	memset(a, 0, sizeof(*a));
	if (!size || size % LAKE_ALLOC_MIN_ALIGN)
		return -EINVAL;
	b = lake_port_malloc(sizeof(*b));
	if (!b)
		return -ENOMEM;
	a->size = size;
	a->st.size = size;
	b->prev = NULL;
	b->next = NULL;
	b->off = 0;
	b->size = size;
	a->head = b;
	free_insert(a, b);
	return 0;
}

void lake_alloc_destroy(struct lake_alloc *a)
{
	struct lake_alloc_blk *b, *next;

	for (b = a->head; b; b = next) {
		next = b->next;
		lake_port_free(b);
	}
	for (b = a->spare; b; b = next) {
		next = b->next;
		lake_port_free(b);
	}
	memset(a, 0, sizeof(*a));
}

int lake_alloc_alloc(struct lake_alloc *a, u64 size, u64 align, u64 *off)
{
	struct lake_alloc_blk *b = NULL, *front = NULL, *tail = NULL;
	struct lake_avl_node *n;
	u64 start = 0;

	if (!align || align < LAKE_ALLOC_MIN_ALIGN)
		align = LAKE_ALLOC_MIN_ALIGN;
	if (!size || !LAKE_IS_POW2(align) || size > a->size || align > a->size) {
		a->st.failed_allocs++;
		return -EINVAL;
	}
	size = LAKE_ALIGN_UP(size, LAKE_ALLOC_MIN_ALIGN);

	/*
	 * Best fit under alignment: walk up from the smallest block that could
	 * hold @size. Any block of size + align - 64 bytes or more fits, so the
	 * walk only crosses blocks in [size, size + align), usually none.
	 */
	for (n = free_lower_bound(a, size); n; n = lake_avl_next(n)) {
		b = blk_of(n);
		start = LAKE_ALIGN_UP(b->off, align);
		if (start + size <= b->off + b->size)
			break;
	}
	if (!n) {
		a->st.failed_allocs++;
		return -ENOMEM;
	}

	/* Take both possible split nodes first so failure changes nothing. */
	if (start != b->off) {
		front = blk_get(a);
		if (!front)
			goto nomem;
	}
	if (start + size != b->off + b->size) {
		tail = blk_get(a);
		if (!tail)
			goto nomem;
	}

	free_erase(a, b);
	if (front) {
		/* @b keeps its list position and becomes the free padding. */
		front->off = start;
		front->size = b->off + b->size - start;
		b->size = start - b->off;
		list_insert_after(b, front);
		free_insert(a, b);
		b = front;
	}
	if (tail) {
		tail->off = b->off + size;
		tail->size = b->size - size;
		b->size = size;
		list_insert_after(b, tail);
		free_insert(a, tail);
	}
	used_insert(a, b);
	a->st.used += size;
	a->st.live_allocs++;
	a->st.total_allocs++;
	*off = b->off;
	return 0;

nomem:
	if (front)
		blk_put(a, front);
	a->st.failed_allocs++;
	return -ENOMEM;
}

/* Merge @b's successor into @b; both are free and already out of the tree. */
static void absorb_next(struct lake_alloc *a, struct lake_alloc_blk *b)
{
	struct lake_alloc_blk *n = b->next;

	b->size += n->size;
	list_unlink(a, n);
	blk_put(a, n);
}

int lake_alloc_free(struct lake_alloc *a, u64 off)
{
	struct lake_alloc_blk *b = used_floor(a, off);

	if (!b || b->off != off) {
		a->st.bad_frees++;
		lake_port_warn("shm: free of %#llx: not a live allocation%s",
			       (unsigned long long)off,
			       off >= a->size ? " (outside the region)" : "");
		return -EINVAL;
	}
	lake_avl_erase(&a->used_tree, &b->node);
	a->st.used -= b->size;
	a->st.live_allocs--;
	a->st.total_frees++;

	if (b->next && b->next->free) {
		free_erase(a, b->next);
		absorb_next(a, b);
	}
	if (b->prev && b->prev->free) {
		struct lake_alloc_blk *p = b->prev;

		free_erase(a, p);
		absorb_next(a, p);
		b = p;
	}
	free_insert(a, b);
	return 0;
}

int lake_alloc_find(const struct lake_alloc *a, u64 off, u64 len,
		    u64 *blk_off, u64 *blk_size)
{
	struct lake_alloc_blk *b;

	if (!len || off >= a->size || len > a->size - off)
		return -ERANGE;
	b = used_floor(a, off);
	if (!b || off - b->off >= b->size || len > b->size - (off - b->off))
		return -EINVAL;
	if (blk_off)
		*blk_off = b->off;
	if (blk_size)
		*blk_size = b->size;
	return 0;
}

void lake_alloc_get_stats(const struct lake_alloc *a, struct lake_alloc_stats *st)
{
	struct lake_avl_node *last = lake_avl_last(&a->free_tree);

	*st = a->st;
	st->free = a->size - a->st.used;
	st->largest_free = last ? blk_of(last)->size : 0;
}

/* Count a tree's nodes, or return -1 if its in-order walk is not sorted. */
static s64 tree_count(const struct lake_avl_root *root, bool by_size)
{
	const struct lake_alloc_blk *b, *prev = NULL;
	struct lake_avl_node *n;
	s64 count = 0;

	for (n = lake_avl_first(root); n; n = lake_avl_next(n), count++) {
		b = blk_of(n);
		if (b->free != by_size)
			return -1;
		if (prev && (by_size ? !size_less(prev->size, prev->off, b) :
			     prev->off >= b->off))
			return -1;
		prev = b;
	}
	return count;
}

int lake_alloc_check(const struct lake_alloc *a)
{
	const struct lake_alloc_blk *b, *prev = NULL;
	u64 pos = 0, used = 0, live = 0, nfree = 0;

	for (b = a->head; b; prev = b, b = b->next) {
		if (b->prev != prev || b->off != pos || !b->size ||
		    b->size % LAKE_ALLOC_MIN_ALIGN)
			return -EFAULT;
		if (b->free && prev && prev->free)
			return -EFAULT;	/* missed coalesce */
		if (b->free) {
			nfree++;
		} else {
			used += b->size;
			live++;
		}
		pos += b->size;
	}
	if (pos != a->size || used != a->st.used || live != a->st.live_allocs ||
	    nfree != a->st.free_blocks)
		return -EFAULT;
	if (lake_avl_validate(&a->free_tree) || lake_avl_validate(&a->used_tree))
		return -EFAULT;
	if (tree_count(&a->free_tree, true) != (s64)nfree ||
	    tree_count(&a->used_tree, false) != (s64)live)
		return -EFAULT;
	return 0;
}
