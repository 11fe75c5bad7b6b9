// SPDX-License-Identifier: GPL-2.0
/* AVL rebalancing for lake_avl_* (see avl.h). */
#include "avl.h"

static inline int height(const struct lake_avl_node *n)
{
	return n ? n->height : 0;
}

static inline void update(struct lake_avl_node *n)
{
	int l = height(n->left), r = height(n->right);

	n->height = (l > r ? l : r) + 1;
}

static void replace_child(struct lake_avl_root *root, struct lake_avl_node *parent,
			  struct lake_avl_node *old, struct lake_avl_node *new)
{
	if (!parent)
		root->node = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
	if (new)
		new->parent = parent;
}

/* Rotate @n down to the left; returns the node that took its place. */
static struct lake_avl_node *rotate_left(struct lake_avl_root *root, struct lake_avl_node *n)
{
	struct lake_avl_node *r = n->right;

	replace_child(root, n->parent, n, r);
	n->right = r->left;
	if (r->left)
		r->left->parent = n;
	r->left = n;
	n->parent = r;
	update(n);
	update(r);
	return r;
}

static struct lake_avl_node *rotate_right(struct lake_avl_root *root, struct lake_avl_node *n)
{
	struct lake_avl_node *l = n->left;

	replace_child(root, n->parent, n, l);
	n->left = l->right;
	if (l->right)
		l->right->parent = n;
	l->right = n;
	n->parent = l;
	update(n);
	update(l);
	return l;
}

/* Restore the balance of @n; returns the subtree's new top. */
static struct lake_avl_node *balance(struct lake_avl_root *root, struct lake_avl_node *n)
{
	int bf = height(n->left) - height(n->right);

	if (bf > 1) {
		if (height(n->left->left) < height(n->left->right))
			rotate_left(root, n->left);
		return rotate_right(root, n);
	}
	if (bf < -1) {
		if (height(n->right->right) < height(n->right->left))
			rotate_right(root, n->right);
		return rotate_left(root, n);
	}
	update(n);
	return n;
}

/* Walk up from @n rebalancing; stop early once a height stops changing. */
static void retrace(struct lake_avl_root *root, struct lake_avl_node *n, bool insert)
{
	while (n) {
		int old = n->height;

		n = balance(root, n);
		if (n->height == old && insert)
			break;
		n = n->parent;
	}
}

void lake_avl_insert_fixup(struct lake_avl_root *root, struct lake_avl_node *node)
{
	retrace(root, node->parent, true);
}

void lake_avl_erase(struct lake_avl_root *root, struct lake_avl_node *node)
{
	struct lake_avl_node *from;

	if (node->left && node->right) {
		/* Splice the in-order successor into node's place. */
		struct lake_avl_node *s = node->right;

		while (s->left)
			s = s->left;
		if (s->parent != node) {
			from = s->parent;
			replace_child(root, s->parent, s, s->right);
			s->right = node->right;
			s->right->parent = s;
		} else {
			from = s;
		}
		replace_child(root, node->parent, node, s);
		s->left = node->left;
		s->left->parent = s;
		s->height = node->height;
	} else {
		struct lake_avl_node *child = node->left ? node->left : node->right;

		from = node->parent;
		replace_child(root, node->parent, node, child);
	}
	retrace(root, from, false);
}

struct lake_avl_node *lake_avl_first(const struct lake_avl_root *root)
{
	struct lake_avl_node *n = root->node;

	while (n && n->left)
		n = n->left;
	return n;
}

struct lake_avl_node *lake_avl_last(const struct lake_avl_root *root)
{
	struct lake_avl_node *n = root->node;

	while (n && n->right)
		n = n->right;
	return n;
}

struct lake_avl_node *lake_avl_next(const struct lake_avl_node *node)
{
	const struct lake_avl_node *p;

	if (node->right) {
		node = node->right;
		while (node->left)
			node = node->left;
		return (struct lake_avl_node *)node;
	}
	for (p = node->parent; p && node == p->right; p = p->parent)
		node = p;
	return (struct lake_avl_node *)p;
}

int lake_avl_validate(const struct lake_avl_root *root)
{
	const struct lake_avl_node *n;

	if (root->node && root->node->parent)
		return -EFAULT;
	for (n = lake_avl_first(root); n; n = lake_avl_next(n)) {
		int l = height(n->left), r = height(n->right);

		if (n->height != (l > r ? l : r) + 1 || l - r > 1 || r - l > 1)
			return -EFAULT;
		if ((n->left && n->left->parent != n) || (n->right && n->right->parent != n))
			return -EFAULT;
	}
	return 0;
}
