// SPDX-License-Identifier: GPL-2.0
/*
 * Async error latching: see include/lake/latch.h. Portable C, so the host
 * tests run the file the module builds (tests/unit/test_latch.c).
 */
#include <lake/latch.h>

void lake_latch_error(struct lake_latch *l, u64 ctx, u64 stream, u32 result)
{
	unsigned int i;

	for (i = 0; i < l->count; i++)
		if (l->slot[i].ctx == ctx && l->slot[i].stream == stream)
			return;	/* the first error is the one CUDA reports */
	if (l->count == LAKE_LATCH_MAX)
		return;
	l->slot[l->count].ctx = ctx;
	l->slot[l->count].stream = stream;
	l->slot[l->count].result = result;
	l->count++;
}

u32 lake_latch_take(struct lake_latch *l, u64 ctx, u64 stream, bool whole_ctx)
{
	unsigned int i = 0;
	u32 result = 0;

	while (i < l->count) {
		if (l->slot[i].ctx == ctx && (whole_ctx || l->slot[i].stream == stream)) {
			if (!result)
				result = l->slot[i].result;
			l->slot[i] = l->slot[--l->count];
		} else {
			i++;
		}
	}
	return result;
}

void lake_latch_clear(struct lake_latch *l)
{
	l->count = 0;
}
