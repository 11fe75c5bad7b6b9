// SPDX-License-Identifier: GPL-2.0
/*
 * Async error latching: see include/lake/latch.h. Portable C, so the host
 * tests run the file the module builds (tests/unit/test_latch.c).
 */
#include <lake/latch.h>

void lake_latch_init(struct lake_latch *l)
{
	l->head = NULL;
	l->tail = &l->head;
	l->count = 0;
	l->lost = 0;
}

bool lake_latch_error(struct lake_latch *l, u64 ctx, u64 stream, u32 result)
{
	struct lake_latched *e, *same_ctx = NULL;

	for (e = l->head; e; e = e->next) {
		if (e->ctx != ctx)
			continue;
		if (e->stream == stream || e->stream == LAKE_LATCH_WHOLE_CTX)
			return false;	/* the first error is the one CUDA reports */
		same_ctx = e;
	}
	e = lake_port_malloc_atomic(sizeof(*e));
	if (e) {
		e->next = NULL;
		e->ctx = ctx;
		e->stream = stream;
		e->result = result;
		*l->tail = e;
		l->tail = &e->next;
		l->count++;
	} else if (same_ctx) {
		same_ctx->stream = LAKE_LATCH_WHOLE_CTX;
	} else if (!l->lost) {
		l->lost = result;
	}
	return true;
}

u32 lake_latch_take(struct lake_latch *l, u64 ctx, u64 stream, bool whole_ctx)
{
	struct lake_latched **p = &l->head, *e;
	u32 result = 0;

	while ((e = *p)) {
		if (e->ctx != ctx ||
		    !(whole_ctx || e->stream == stream || e->stream == LAKE_LATCH_WHOLE_CTX)) {
			p = &e->next;
			continue;
		}
		if (!result)
			result = e->result;
		*p = e->next;
		lake_port_free(e);
		l->count--;
	}
	l->tail = p;
	return result ? result : l->lost;
}

void lake_latch_clear(struct lake_latch *l)
{
	struct lake_latched *e, *next;

	for (e = l->head; e; e = next) {
		next = e->next;
		lake_port_free(e);
	}
	lake_latch_init(l);
}
