/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command ring's portable core (common/ring.c): one direction seen by
 * one side, the same code in lakelib.ko and in laked. The contract (who
 * writes what, the barrier pairs, sleeping and trust) is in
 * uapi/lake/ring.h; this file is only its mechanics.
 */
#ifndef LAKE_RING_H
#define LAKE_RING_H

#include <lake/port.h>
#include <uapi/lake/ring.h>

/* One side's view of one direction. */
struct lake_ring {
	struct lake_ring_dir *dir;	/* shared */
	struct lake_ring_slot *slots;	/* shared, LAKE_RING_ENTRIES of them */
	u32 pos;			/* ours: the producer's tail, the consumer's head */
	u32 seen;			/* the peer's index as last read, bounded */
};

void lake_ring_init(struct lake_ring *r, void *base, bool sq);

/*
 * Producer: copy @len bytes into the next slot and publish it. 0, -ENOSPC
 * (full: set LAKE_RING_WANT_SPACE and look again, see lake_ring_want_space),
 * -EMSGSIZE (@len is 0, not a multiple of 8, or over LAKE_RING_DATA_MAX),
 * -EPROTO (the consumer's head is impossible).
 */
int lake_ring_put(struct lake_ring *r, const void *data, u32 len);
/* Producer, after a put: must the consumer be woken? (full barrier first) */
bool lake_ring_consumer_sleeps(struct lake_ring *r);
/* Producer, once consumer_sleeps said yes: on the watch eventfd? */
bool lake_ring_consumer_watched(struct lake_ring *r);
/* Producer, ring full: flag it (full barrier after); then check again. */
void lake_ring_want_space(struct lake_ring *r, bool want);

/*
 * Consumer: copy the next slot into @buf (@cap bytes, at least
 * LAKE_RING_DATA_MAX) and free the slot. 1 with *@len set, 0 when empty,
 * -EPROTO when the producer's tail or the slot's length is impossible.
 */
int lake_ring_take(struct lake_ring *r, void *buf, u32 cap, u32 *len);
/* Consumer: anything to take? (-EPROTO counts as something: take says so) */
bool lake_ring_pending(struct lake_ring *r);
/* Consumer, after a take: does the producer wait for space? (full barrier first) */
bool lake_ring_producer_waits(struct lake_ring *r);
/* Consumer: set or clear LAKE_RING_SLEEPING, with a full barrier after. */
void lake_ring_sleeping(struct lake_ring *r, bool sleeping);
/* Consumer: set cons_flags (LAKE_RING_SLEEPING, LAKE_RING_WATCHED), full barrier after. */
void lake_ring_cons_flags(struct lake_ring *r, u32 flags);

#endif /* LAKE_RING_H */
