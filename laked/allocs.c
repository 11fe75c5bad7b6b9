// SPDX-License-Identifier: GPL-2.0
/* Live device allocations in an AVL tree ordered by address (allocs.h). */
#include "allocs.h"

#define alloc_of(n)	container_of(n, struct laked_alloc, node)

struct laked_alloc *laked_alloc_new(struct laked_allocs *t)
{
	if (t->count >= LAKED_ALLOCS_MAX)
		return NULL;
	return calloc(1, sizeof(struct laked_alloc));
}

/* The allocation with the greatest start <= @dptr, or NULL. */
static struct laked_alloc *floor_of(const struct laked_allocs *t, u64 dptr)
{
	struct lake_avl_node *n = t->root.node;
	struct laked_alloc *best = NULL;

	while (n) {
		if (alloc_of(n)->dptr <= dptr) {
			best = alloc_of(n);
			n = n->right;
		} else {
			n = n->left;
		}
	}
	return best;
}

static bool overlaps(const struct laked_alloc *a, u64 start, u64 bytes)
{
	u64 a_end = a->dptr + (a->bytes ? a->bytes : 1), end = start + bytes;

	/* Ranges that wrap are clamped: the driver never hands those out. */
	if (a_end < a->dptr)
		a_end = UINT64_MAX;
	if (end < start)
		end = UINT64_MAX;
	return a->dptr < end && start < a_end;
}

unsigned int laked_alloc_insert(struct laked_allocs *t, struct laked_alloc *a)
{
	struct lake_avl_node **link = &t->root.node, *parent = NULL;
	u64 len = a->bytes ? a->bytes : 1, last = a->dptr + len - 1;
	struct laked_alloc *old;
	unsigned int dropped = 0;

	if (last < a->dptr)
		last = UINT64_MAX;
	/* Records are disjoint: once the nearest one below the end misses, all do. */
	while ((old = floor_of(t, last)) && overlaps(old, a->dptr, len)) {
		laked_alloc_del(t, old);
		dropped++;
	}
	while (*link) {
		parent = *link;
		link = a->dptr < alloc_of(parent)->dptr ? &parent->left : &parent->right;
	}
	lake_avl_link(&a->node, parent, link);
	lake_avl_insert_fixup(&t->root, &a->node);
	t->count++;
	return dropped;
}

void laked_alloc_unlink(struct laked_allocs *t, struct laked_alloc *a)
{
	lake_avl_erase(&t->root, &a->node);
	t->count--;
}

void laked_alloc_del(struct laked_allocs *t, struct laked_alloc *a)
{
	laked_alloc_unlink(t, a);
	free(a);
}

struct laked_alloc *laked_alloc_find(const struct laked_allocs *t, u64 dptr, u64 bytes)
{
	struct laked_alloc *a = floor_of(t, dptr);
	u64 off;

	if (!a)
		return NULL;
	off = dptr - a->dptr;
	if (off >= a->bytes || bytes > a->bytes - off)
		return NULL;
	return a;
}

struct laked_alloc *laked_alloc_exact(const struct laked_allocs *t, u64 dptr)
{
	struct laked_alloc *a = floor_of(t, dptr);

	return a && a->dptr == dptr ? a : NULL;
}

void laked_allocs_drop_ctx(struct laked_allocs *t, u64 ctx)
{
	struct lake_avl_node *n = lake_avl_first(&t->root);

	while (n) {
		struct laked_alloc *a = alloc_of(n);

		n = lake_avl_next(n);
		if (a->ctx == ctx)
			laked_alloc_del(t, a);
	}
}

void laked_allocs_fini(struct laked_allocs *t)
{
	struct lake_avl_node *n;

	while ((n = lake_avl_first(&t->root)))
		laked_alloc_del(t, alloc_of(n));
}
