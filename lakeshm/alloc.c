// SPDX-License-Identifier: GPL-2.0
/* Best-fit allocator: see alloc.h for the structure and its invariants. */
#include "alloc.h"

#define GRAN_SHIFT	6	/* log2(LAKE_ALLOC_MIN_ALIGN) */
#define CHUNK_BLKS	63	/* block nodes per 4 KiB chunk, after its header */

struct lake_alloc_blk {
	struct lake_alloc_blk *prev, *next;	/* address order */
	union {
		struct lake_avl_node node;	/* free, > SMALL_MAX: big_tree */
		struct {			/* free, <= SMALL_MAX: class list */
			struct lake_alloc_blk *cnext, *cprev;
		};
	};
	u64 off, size;
	bool free;
};

/*
 * Block nodes come from 4 KiB chunks that live until the allocator is
 * destroyed: a node is one cache line, neighbours in time sit together, and
 * the steady state never calls the system allocator.
 */
struct lake_alloc_chunk {
	struct lake_alloc_chunk *next;
	u8 pad[64 - sizeof(void *)];
	struct lake_alloc_blk blk[CHUNK_BLKS];
};

#define blk_of(n) container_of(n, struct lake_alloc_blk, node)

static inline unsigned int class_of(u64 size)
{
	return (size >> GRAN_SHIFT) - 1;
}

static inline bool is_small(u64 size)
{
	return size <= LAKE_ALLOC_SMALL_MAX;
}

static struct lake_alloc_blk *blk_get(struct lake_alloc *a)
{
	struct lake_alloc_blk *b = a->spare;
	struct lake_alloc_chunk *c;
	unsigned int i;

	if (!b) {
		c = lake_port_kvzalloc(sizeof(*c));
		if (!c)
			return NULL;
		c->next = a->chunks;
		a->chunks = c;
		for (i = 0; i < CHUNK_BLKS; i++) {
			c->blk[i].next = a->spare;
			a->spare = &c->blk[i];
		}
		b = a->spare;
	}
	a->spare = b->next;
	return b;
}

static void blk_put(struct lake_alloc *a, struct lake_alloc_blk *b)
{
	b->next = a->spare;
	a->spare = b;
}

static bool size_less(u64 size, u64 off, const struct lake_alloc_blk *b)
{
	return size < b->size || (size == b->size && off < b->off);
}

static void free_insert(struct lake_alloc *a, struct lake_alloc_blk *b)
{
	b->free = true;
	a->st.free_blocks++;
	if (is_small(b->size)) {
		unsigned int c = class_of(b->size);

		b->cprev = NULL;
		b->cnext = a->classes[c];
		if (b->cnext)
			b->cnext->cprev = b;
		a->classes[c] = b;
		a->class_bits[c / 64] |= 1ULL << (c % 64);
		a->class_summary |= 1ULL << (c / 64);
	} else {
		struct lake_avl_node **link = &a->big_tree.node, *parent = NULL;

		while (*link) {
			parent = *link;
			link = size_less(b->size, b->off, blk_of(parent)) ?
				&parent->left : &parent->right;
		}
		lake_avl_link(&b->node, parent, link);
		lake_avl_insert_fixup(&a->big_tree, &b->node);
	}
}

static void free_erase(struct lake_alloc *a, struct lake_alloc_blk *b)
{
	a->st.free_blocks--;
	if (is_small(b->size)) {
		unsigned int c = class_of(b->size);

		if (b->cnext)
			b->cnext->cprev = b->cprev;
		if (b->cprev) {
			b->cprev->cnext = b->cnext;
		} else {
			a->classes[c] = b->cnext;
			if (!b->cnext) {
				a->class_bits[c / 64] &= ~(1ULL << (c % 64));
				if (!a->class_bits[c / 64])
					a->class_summary &= ~(1ULL << (c / 64));
			}
		}
	} else {
		lake_avl_erase(&a->big_tree, &b->node);
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

/* Smallest big free block of at least @size bytes (ties: lowest offset). */
static struct lake_avl_node *big_lower_bound(const struct lake_alloc *a, u64 size)
{
	struct lake_avl_node *n = a->big_tree.node, *best = NULL;

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

static bool fits(const struct lake_alloc_blk *b, u64 size, u64 align, u64 *start)
{
	*start = LAKE_ALIGN_UP(b->off, align);
	return *start + size <= b->off + b->size;
}

/*
 * The best-fitting free block for @size at @align. With the minimum
 * alignment any block of a large enough class fits, so the first non-empty
 * class decides. A larger alignment may have to skip blocks whose padding
 * does not fit; any block of size + align - 64 or more always fits, so the
 * scan only crosses candidates below that size.
 */
static struct lake_alloc_blk *best_fit(const struct lake_alloc *a, u64 size, u64 align,
				       u64 *start)
{
	struct lake_alloc_blk *b;
	struct lake_avl_node *n;
	int c;

	for (c = class_next(a, class_of(size)); c >= 0; c = class_next(a, c + 1)) {
		for (b = a->classes[c]; b; b = b->cnext)
			if (fits(b, size, align, start))
				return b;
	}
	for (n = big_lower_bound(a, size); n; n = lake_avl_next(n)) {
		b = blk_of(n);
		if (fits(b, size, align, start))
			return b;
	}
	return NULL;
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
	a->classes = lake_port_kvzalloc(LAKE_ALLOC_CLASSES * sizeof(*a->classes));
	if (!a->classes)
		return -ENOMEM;
	b = blk_get(a);
	if (!b || lake_index_init(&a->used, size >> GRAN_SHIFT)) {
		lake_alloc_destroy(a);
		return -ENOMEM;
	}
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
	struct lake_alloc_chunk *c, *next;

	for (c = a->chunks; c; c = next) {
		next = c->next;
		lake_port_kvfree(c);
	}
	lake_index_destroy(&a->used);
	lake_port_kvfree(a->classes);
	memset(a, 0, sizeof(*a));
}

int lake_alloc_alloc(struct lake_alloc *a, u64 size, u64 align, u64 *off)
{
	struct lake_alloc_blk *b, *front = NULL, *tail = NULL;
	u64 start = 0;

	if (!align || align < LAKE_ALLOC_MIN_ALIGN)
		align = LAKE_ALLOC_MIN_ALIGN;
	if (!size || !LAKE_IS_POW2(align) || size > a->size || align > a->size) {
		a->st.failed_allocs++;
		return -EINVAL;
	}
	size = LAKE_ALIGN_UP(size, LAKE_ALLOC_MIN_ALIGN);

	b = best_fit(a, size, align, &start);
	if (!b) {
		a->st.failed_allocs++;
		return -ENOMEM;
	}

	/* Take every node this may need first, so a failure changes nothing. */
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
	if (lake_index_insert(&a->used, start >> GRAN_SHIFT, front ? front : b))
		goto nomem;

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
	b->free = false;
	a->st.used += size;
	a->st.live_allocs++;
	a->st.total_allocs++;
	*off = b->off;
	return 0;

nomem:
	if (tail)
		blk_put(a, tail);
	if (front)
		blk_put(a, front);
	a->st.failed_allocs++;
	return -ENOMEM;
}

/* Merge @b's successor into @b; both are free and already out of the index. */
static void absorb_next(struct lake_alloc *a, struct lake_alloc_blk *b)
{
	struct lake_alloc_blk *n = b->next;

	b->size += n->size;
	list_unlink(a, n);
	blk_put(a, n);
}

int lake_alloc_free(struct lake_alloc *a, u64 off)
{
	struct lake_alloc_blk *b = NULL;

	if (off % LAKE_ALLOC_MIN_ALIGN == 0)
		b = lake_index_erase(&a->used, off >> GRAN_SHIFT);
	if (!b) {
		a->st.bad_frees++;
		lake_port_warn("shm: free of %#llx: not a live allocation%s",
			       (unsigned long long)off,
			       off >= a->size ? " (outside the region)" : "");
		return -EINVAL;
	}
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
	b = lake_index_floor(&a->used, off >> GRAN_SHIFT);
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
	struct lake_avl_node *last = lake_avl_last(&a->big_tree);

	*st = a->st;
	st->free = a->size - a->st.used;
	if (last) {
		st->largest_free = blk_of(last)->size;
	} else if (a->class_summary) {
		unsigned int w = 63 - __builtin_clzll(a->class_summary);
		unsigned int c = w * 64 + 63 - __builtin_clzll(a->class_bits[w]);

		st->largest_free = (u64)(c + 1) << GRAN_SHIFT;
	} else {
		st->largest_free = 0;
	}
}

/* Number of blocks in the free index, or -1 if one is misfiled. */
static s64 count_free_index(const struct lake_alloc *a)
{
	const struct lake_alloc_blk *b, *prev = NULL;
	struct lake_avl_node *n;
	s64 count = 0;
	unsigned int c;

	for (c = 0; c < LAKE_ALLOC_CLASSES; c++) {
		bool bit = a->class_bits[c / 64] & (1ULL << (c % 64));

		if (bit != !!a->classes[c] ||
		    !!(a->class_summary & (1ULL << (c / 64))) != !!a->class_bits[c / 64])
			return -1;
		for (b = a->classes[c]; b; b = b->cnext, count++)
			if (!b->free || class_of(b->size) != c ||
			    (b->cnext && b->cnext->cprev != b))
				return -1;
	}
	if (lake_avl_validate(&a->big_tree))
		return -1;
	for (n = lake_avl_first(&a->big_tree); n; n = lake_avl_next(n), count++) {
		b = blk_of(n);
		if (!b->free || is_small(b->size) ||
		    (prev && !size_less(prev->size, prev->off, b)))
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
			if (lake_index_lookup(&a->used, b->off >> GRAN_SHIFT) != b)
				return -EFAULT;
			used += b->size;
			live++;
		}
		pos += b->size;
	}
	if (pos != a->size || used != a->st.used || live != a->st.live_allocs ||
	    nfree != a->st.free_blocks || a->used.count != live)
		return -EFAULT;
	if (count_free_index(a) != (s64)nfree)
		return -EFAULT;
	return 0;
}
