// SPDX-License-Identifier: GPL-2.0
/*
 * The command ring's mechanics, built unchanged into lakelib.ko and laked
 * (lake/ring.h; the contract is uapi/lake/ring.h). The peer's index is
 * read with acquire and bounded before use: a consumer never takes more
 * than the producer can have put, a producer never overwrites a slot the
 * consumer has not released. A slot's length is read once, bounded, and
 * the data copied out before anyone looks at it.
 */
#include <lake/ring.h>

void lake_ring_init(struct lake_ring *r, void *base, bool sq)
{
	struct lake_ring_idx *idx = base;
	u8 *slots = (u8 *)base + LAKE_RING_IDX_BYTES;

	r->dir = sq ? &idx->sq : &idx->cq;
	r->slots = (struct lake_ring_slot *)(slots + (sq ? 0 : LAKE_RING_ENTRIES *
							  (size_t)LAKE_RING_SLOT_BYTES));
	r->pos = 0;
	r->seen = 0;
}

static struct lake_ring_slot *slot_at(struct lake_ring *r, u32 i)
{
	return &r->slots[i % LAKE_RING_ENTRIES];
}

/* The consumer's head: at most LAKE_RING_ENTRIES behind our tail, never ahead. */
static int read_head(struct lake_ring *r)
{
	u32 head = lake_load_acquire(&r->dir->head);

	if (r->pos - head > LAKE_RING_ENTRIES)
		return -EPROTO;
	r->seen = head;
	return 0;
}

int lake_ring_put(struct lake_ring *r, const void *data, u32 len)
{
	struct lake_ring_slot *s;
	int ret;

	if (!len || len % 8 || len > LAKE_RING_DATA_MAX)
		return -EMSGSIZE;
	if (r->pos - r->seen >= LAKE_RING_ENTRIES) {
		ret = read_head(r);
		if (ret)
			return ret;
		if (r->pos - r->seen >= LAKE_RING_ENTRIES)
			return -ENOSPC;
	}
	s = slot_at(r, r->pos);
	memcpy(s->data, data, len);
	lake_write_once(s->len, len);
	/* Pairs with take's acquire of tail: the slot is whole before it is seen. */
	lake_store_release(&r->dir->tail, r->pos + 1);
	r->pos++;
	return 0;
}

bool lake_ring_consumer_sleeps(struct lake_ring *r)
{
	/* Pairs with lake_ring_sleeping()'s barrier: tail stored, then flag read. */
	lake_mb();
	return lake_read_once(r->dir->cons_flags) & LAKE_RING_SLEEPING;
}

bool lake_ring_consumer_watched(struct lake_ring *r)
{
	return lake_read_once(r->dir->cons_flags) & LAKE_RING_WATCHED;
}

void lake_ring_want_space(struct lake_ring *r, bool want)
{
	lake_write_once(r->dir->prod_flags, want ? LAKE_RING_WANT_SPACE : 0);
	/* Pairs with lake_ring_producer_waits(): flag stored, then head read. */
	lake_mb();
}

/* The producer's tail: at most LAKE_RING_ENTRIES ahead of our head, never behind. */
static int read_tail(struct lake_ring *r)
{
	u32 tail = lake_load_acquire(&r->dir->tail);

	if (tail - r->pos > LAKE_RING_ENTRIES)
		return -EPROTO;
	r->seen = tail;
	return 0;
}

int lake_ring_take(struct lake_ring *r, void *buf, u32 cap, u32 *len)
{
	struct lake_ring_slot *s;
	u32 n;
	int ret;

	if (r->seen == r->pos) {
		ret = read_tail(r);
		if (ret)
			return ret;
		if (r->seen == r->pos)
			return 0;
	}
	s = slot_at(r, r->pos);
	n = lake_read_once(s->len);
	if (!n || n % 8 || n > LAKE_RING_DATA_MAX || n > cap)
		return -EPROTO;
	memcpy(buf, s->data, n);
	/* Pairs with put's acquire of head: the slot is ours until this store. */
	lake_store_release(&r->dir->head, r->pos + 1);
	r->pos++;
	*len = n;
	return 1;
}

bool lake_ring_pending(struct lake_ring *r)
{
	return r->seen != r->pos || lake_read_once(r->dir->tail) != r->pos;
}

bool lake_ring_producer_waits(struct lake_ring *r)
{
	/* Pairs with lake_ring_want_space()'s barrier: head stored, then flag read. */
	lake_mb();
	return lake_read_once(r->dir->prod_flags) & LAKE_RING_WANT_SPACE;
}

void lake_ring_cons_flags(struct lake_ring *r, u32 flags)
{
	lake_write_once(r->dir->cons_flags, flags);
	/* Pairs with lake_ring_consumer_sleeps(): flag stored, then tail read. */
	lake_mb();
}

void lake_ring_sleeping(struct lake_ring *r, bool sleeping)
{
	lake_ring_cons_flags(r, sleeping ? LAKE_RING_SLEEPING : 0);
}
