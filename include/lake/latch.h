/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Async error latching (lakelib/latch_core.c, used by rpc.c): CUDA reports
 * an async call's error at the next synchronizing call on its stream, or on
 * any stream of its context for a context-wide one. The table keeps the
 * first error per (context, stream), stream 0 being the NULL stream; later
 * errors there are dropped until it is taken, as CUDA reports the first.
 * The caller serializes every call (rpc.c: its inflight lock).
 */
#ifndef LAKE_LATCH_H
#define LAKE_LATCH_H

#include <lake/port.h>

#define LAKE_LATCH_MAX	64

struct lake_latch {
	struct {
		u64 ctx, stream;
		u32 result;
	} slot[LAKE_LATCH_MAX];
	unsigned int count;
};

/* Latch @result (nonzero) for (@ctx, @stream) unless an error waits there. */
void lake_latch_error(struct lake_latch *l, u64 ctx, u64 stream, u32 result);
/*
 * Take the errors of (@ctx, @stream), or of every stream of @ctx when
 * @whole_ctx: one of them is returned (0 if none), and all are cleared.
 */
u32 lake_latch_take(struct lake_latch *l, u64 ctx, u64 stream, bool whole_ctx);
void lake_latch_clear(struct lake_latch *l);

#endif /* LAKE_LATCH_H */
