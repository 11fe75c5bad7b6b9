/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The command ring: lakelib's calls and laked's replies carried through the
 * shared region instead of Generic Netlink messages. The records are the
 * wire codec's (lake/wire.h): one codec, two carriers. Generic Netlink
 * stays the control plane (LAKE_CMD_RING_SETUP sets a ring up; teardown is
 * the daemon's).
 *
 * Layout, from the ring's offset in the region (LAKE_A_RING_OFFSET, page
 * aligned): one page of indices (struct lake_ring_idx), then the submission
 * ring's slots (kernel -> laked: LAKE_CMD_CALL blobs), then the completion
 * ring's (laked -> kernel: LAKE_CMD_REPLY blobs). A slot holds one blob of
 * up to LAKE_RING_DATA_MAX bytes, exactly what one message would carry.
 *
 * The contract. Each field has a single writer:
 *
 *	sq.tail, sq.prod_flags	the kernel	(lakelib/ring.c)
 *	sq.head, sq.cons_flags	laked		(laked/ring.c)
 *	cq.tail, cq.prod_flags	laked
 *	cq.head, cq.cons_flags	the kernel
 *
 * Indices are free-running u32 counters: slot = index % LAKE_RING_ENTRIES,
 * used = tail - head (mod 2^32), which is never above LAKE_RING_ENTRIES.
 *
 * Barrier pairs (lake_ring_put() and lake_ring_take() in common/ring.c,
 * through port.h's lake_load_acquire / lake_store_release / lake_mb):
 *  - put: slot written, then store-release of tail; take: load-acquire of
 *    tail, then the slot read. The record is whole before it is seen.
 *  - take: slot copied out, then store-release of head; put: load-acquire
 *    of head, then the slot written. A slot is reused only once copied.
 *  - Sleeping: a consumer sets LAKE_RING_SLEEPING in cons_flags, full
 *    barrier, looks at tail once more, and sleeps only if it did not move;
 *    a producer stores tail, full barrier, and wakes the consumer if it
 *    sees LAKE_RING_SLEEPING. One of the two sees the other's store. The
 *    same pair guards LAKE_RING_WATCHED, on the way in and on the way out
 *    (lake_ring_cons_flags(), lake_ring_consumer_watched()).
 *  - Space: a producer finding the ring full sets LAKE_RING_WANT_SPACE in
 *    prod_flags, full barrier, looks at head again; a consumer stores head,
 *    full barrier, and wakes the producer if it sees the flag.
 * Wakeups: the kernel signals laked's eventfd (lake_genl_ring.sq_fd, the
 * main thread's), or its watch eventfd (watch_fd, a worker's) while
 * LAKE_RING_WATCHED is set: the worker that will run the call wakes, not a
 * thread that would hand it over. laked writes the kernel's (cq_fd), whose
 * wait-queue callback reaps.
 *
 * Trust: the kernel keeps its own copy of the indices it writes and never
 * reads them back; it copies a slot out of the ring before validating it,
 * bounds every index and length it reads, and treats any impossible value
 * as a protocol violation: the daemon is fenced. A hostile laked can so at
 * worst fail calls. The flags are hints: a wrong one costs a wakeup or a
 * timeout, never memory safety.
 */
#ifndef _UAPI_LAKE_RING_H
#define _UAPI_LAKE_RING_H

#include <linux/types.h>

#define LAKE_RING_VERSION	2
#define LAKE_RING_ENTRIES	16	/* slots per direction; a power of two */
#define LAKE_RING_DATA_MAX	16384	/* = LAKE_GENL_RECORDS_MAX */
#define LAKE_RING_SLOT_HDR	64
#define LAKE_RING_SLOT_BYTES	(LAKE_RING_SLOT_HDR + LAKE_RING_DATA_MAX)
#define LAKE_RING_IDX_BYTES	4096
#define LAKE_RING_BYTES		(LAKE_RING_IDX_BYTES + 2 * LAKE_RING_ENTRIES * LAKE_RING_SLOT_BYTES)

/* cons_flags */
#define LAKE_RING_SLEEPING	(1U << 0)	/* wake me after a put */
#define LAKE_RING_WATCHED	(1U << 1)	/* ... on the watch eventfd */
/* prod_flags */
#define LAKE_RING_WANT_SPACE	(1U << 0)	/* wake me after a take */

/* One direction's indices; each field on its own cache line. */
struct lake_ring_dir {
	__u32 tail;
	__u32 pad0[15];
	__u32 head;
	__u32 pad1[15];
	__u32 prod_flags;
	__u32 pad2[15];
	__u32 cons_flags;
	__u32 pad3[15];
};

struct lake_ring_idx {
	struct lake_ring_dir sq;	/* kernel -> laked */
	struct lake_ring_dir cq;	/* laked -> kernel */
};

struct lake_ring_slot {
	__u32 len;			/* bytes of data, 8..LAKE_RING_DATA_MAX */
	__u32 pad[LAKE_RING_SLOT_HDR / 4 - 1];
	__u8 data[LAKE_RING_DATA_MAX];
};

#endif /* _UAPI_LAKE_RING_H */
