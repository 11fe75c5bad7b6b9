/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Batching helper: requests that arrive within a policy's window, up to its
 * max_batch, run as one batch on the side the policy picks.
 *
 * Each submitter joins the open batch and sleeps. The request that fills
 * the batch closes it; when the window expires first, a timer hands the
 * batch to its oldest waiter. The closer asks the policy, runs the batch,
 * reports the time it took (the calibration follows drift), and wakes the
 * others with the result. A GPU failure is reported to the policy and the
 * batch runs again on the CPU, so no request is lost to a GPU fault.
 *
 * Waits: a waiter whose batch is still open leaves on a fatal signal
 * (-EINTR) and, should the timer be late, closes the batch itself once the
 * window is over. A waiter whose batch is running waits for it, neither
 * killable nor timed, since its item is in use. On the GPU path each lakelib
 * call of the run ends within timeout_ms, and the first that times out
 * fences laked, so the rest fail at once and the CPU rerun follows; the CPU
 * path is the consumer's.
 *
 * Context: create, destroy and submit sleep (process context); get_stats
 * runs in any context.
 */
#ifndef LAKE_BATCH_H
#define LAKE_BATCH_H

#include <lake/fallback.h>

struct lake_batcher;

/*
 * Run @n items (n >= 1, in arrival order) on @side: 0 when every item is
 * done, or -errno. After a GPU failure the same items are run on the CPU,
 * so a GPU run must leave them fit to run again.
 */
typedef int (*lake_batch_run_t)(void *arg, enum lake_target side,
				void **items, u32 n);

struct lake_batcher_stats {
	u64 items;		/* submitted */
	u64 batches;		/* run, batches of one included */
	u64 closed_full;	/* closed by the request that filled them */
	u64 closed_window;	/* closed when the window expired */
	u64 alone;		/* run alone: no memory for a batch */
	u64 cpu_batches;	/* completed on each side */
	u64 gpu_batches;
	u64 gpu_reruns;		/* GPU failed, run again on the CPU */
	u64 failed;		/* the CPU run failed: its requests got the error */
	u64 left;		/* requests that left an open batch (fatal signal) */
};

/*
 * Batches of up to lake_fallback_max_batch(fb) items within
 * lake_fallback_window_ns(fb) (0: no waiting, every request runs alone).
 * ERR_PTR(-ENOMEM). fb must outlive the batcher.
 */
struct lake_batcher *lake_batcher_create(struct lake_fallback *fb,
					 lake_batch_run_t run, void *arg);
/* No submit may be running or follow. NULL is ignored. */
void lake_batcher_destroy(struct lake_batcher *b);

/*
 * Run @item in a batch; returns the batch's result (run's 0 or -errno), or
 * -EINTR when a fatal signal came before the batch closed (@item unused).
 * @item belongs to the batcher until this returns.
 */
int lake_batcher_submit(struct lake_batcher *b, void *item);

void lake_batcher_get_stats(struct lake_batcher *b,
			    struct lake_batcher_stats *st);

#endif /* LAKE_BATCH_H */
