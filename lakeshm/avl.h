/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small intrusive AVL tree. Like the kernel's rbtree, the caller walks the
 * tree with its own comparisons and links the new node; this file only
 * rebalances. It is portable C so the allocator that uses it builds both in
 * lakeshm.ko and in the host tests. AVL rather than a treap or skip list:
 * the height bound is deterministic (1.44 log2 n), which the allocator's
 * O(log n) promise and the kernel's small stack both want.
 */
#ifndef LAKE_AVL_H
#define LAKE_AVL_H

#include <lake/port.h>

struct lake_avl_node {
	struct lake_avl_node *left, *right, *parent;
	int height;
};

struct lake_avl_root {
	struct lake_avl_node *node;
};

/* Attach @node as the @link child of @parent (NULL parent: the root). */
static inline void lake_avl_link(struct lake_avl_node *node,
				 struct lake_avl_node *parent,
				 struct lake_avl_node **link)
{
	node->left = NULL;
	node->right = NULL;
	node->parent = parent;
	node->height = 1;
	*link = node;
}

void lake_avl_insert_fixup(struct lake_avl_root *root, struct lake_avl_node *node);
void lake_avl_erase(struct lake_avl_root *root, struct lake_avl_node *node);
struct lake_avl_node *lake_avl_first(const struct lake_avl_root *root);
struct lake_avl_node *lake_avl_last(const struct lake_avl_root *root);
struct lake_avl_node *lake_avl_next(const struct lake_avl_node *node);
/* Heights, balance and parent links of every node: 0 or -EFAULT. */
int lake_avl_validate(const struct lake_avl_root *root);

#endif /* LAKE_AVL_H */
