/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Async error latching (common/latch_core.c, used by rpc.c): CUDA reports
 * an async call's error at the next synchronizing call on its stream, or on
 * any stream of its context for a context-wide one. The latch keeps the
 * first error per (context, stream), stream 0 being the NULL stream; later
 * errors there are dropped until it is taken, as CUDA reports the first.
 *
 * Nothing is dropped for want of room: the latch grows. Where even one entry
 * cannot be allocated (an atomic allocation, rpc.c holds a spinlock), the
 * context's existing entry widens to all its streams, and failing that the
 * error is kept as "lost", which every take reports until the latch is
 * cleared (the daemon changed): an error may be reported too widely, never
 * not at all. The caller serializes every call (rpc.c: its inflight lock).
 */
#ifndef LAKE_LATCH_H
#define LAKE_LATCH_H

#include <lake/port.h>

#define LAKE_LATCH_WHOLE_CTX	(~(u64)0)	/* an entry for every stream of its context */

struct lake_latched {
	struct lake_latched *next;
	u64 ctx, stream;
	u32 result;
};

struct lake_latch {
	struct lake_latched *head, **tail;	/* oldest first */
	u64 count;
	u32 lost;	/* an error no entry could hold; 0: none */
};

void lake_latch_init(struct lake_latch *l);
/*
 * Latch @result (nonzero) for (@ctx, @stream) unless an error waits there.
 * True when it was latched (not already covered by an earlier error).
 */
bool lake_latch_error(struct lake_latch *l, u64 ctx, u64 stream, u32 result);
/*
 * Take the errors of (@ctx, @stream), or of every stream of @ctx when
 * @whole_ctx: the oldest is returned (else the lost one, else 0), and all
 * that matched are cleared.
 */
u32 lake_latch_take(struct lake_latch *l, u64 ctx, u64 stream, bool whole_ctx);
/* Forget everything, the lost error included. */
void lake_latch_clear(struct lake_latch *l);

#endif /* LAKE_LATCH_H */
