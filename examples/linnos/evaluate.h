/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LinnOS's offline evaluation (host only): a labelled trace in train.py's
 * CSV format run through the integer model the kernel runs (model.c), every
 * prediction judged as LinnOS judges it: a read is slow when its latency
 * is above the model's threshold; a false submit is a read predicted fast
 * that was slow, a false revoke one predicted slow that was fast. The
 * always-fast baseline (every read submitted) is counted beside it.
 */
#ifndef LINNOS_EVALUATE_H
#define LINNOS_EVALUATE_H

#include <stdio.h>
#include "model.h"

/* One row of a trace: what the model saw at issue, and the label. */
struct linnos_trace_read {
	struct linnos_history h;
	u32 pending;
	u32 lat_us;
};

struct linnos_trace {
	struct linnos_trace_read *r;
	size_t n;
};

struct linnos_eval {
	u64 reads, slow, false_submit, false_revoke;
};

/*
 * Read a trace (header line, then ts_ns,dev,pending,lat_us,hist_lat0..3,
 * hist_pend0..3). 0, or -EINVAL (a bad header or row; *why and *line say
 * which) or -ENOMEM.
 */
int linnos_trace_load(FILE *f, struct linnos_trace *t, const char **why, size_t *line);
void linnos_trace_free(struct linnos_trace *t);

/* Whether a read of @lat_us is slow against @threshold_us (as the target judges). */
static inline bool linnos_is_slow(u32 lat_us, u32 threshold_us)
{
	return lat_us > threshold_us;
}

/* Judge one prediction. */
void linnos_eval_add(struct linnos_eval *e, u32 threshold_us, u32 lat_us, bool pred_slow);

/*
 * Run @m over every read of @t (linnos_infer_batch, the best CPU path) and
 * count against the model's threshold: @model its predictions, @base
 * always fast (either may be NULL). 0, or -ENOMEM.
 */
int linnos_eval_trace(const struct linnos_model *m, const struct linnos_trace *t,
		      struct linnos_eval *model, struct linnos_eval *base);

/* One table row: name, threshold, reads, slow, accuracy, false submits and revokes, recall. */
void linnos_eval_print(FILE *f, const char *name, u32 threshold_us, const struct linnos_eval *e);
void linnos_eval_print_head(FILE *f);

#endif /* LINNOS_EVALUATE_H */
