/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device-mapper target's shared state: dm-linnos.c (the target),
 * gpu.c (the batch path through lake) and stats.c (counters, latency
 * histogram, debugfs and the trace exporter). dm-linnos.c explains it.
 */
#ifndef LINNOS_TARGET_H
#define LINNOS_TARGET_H

#include <linux/atomic.h>
#include <linux/bio.h>
#include <linux/completion.h>
#include <linux/device-mapper.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <lake/cuda.h>
#include <lake/fallback.h>
#include <lake/features.h>
#include "args.h"
#include "model.h"
#include "route.h"

#define LINNOS_NAME		"linnos"
#define LINNOS_NR_DEVS		2	/* [0] primary, [1] replica */
#define LINNOS_MAX_BATCH	128	/* reads per worker batch, two vectors each */
#define LINNOS_MAX_VECTORS	(2 * LINNOS_MAX_BATCH)
#define LINNOS_HIST_BUCKETS	496	/* 8 per power of two of ns, see stats.c */

/* Feature indices in each device's registry (schema in dm-linnos.c). */
enum {
	LINNOS_F_PENDING,	/* reads + writes outstanding at issue */
	LINNOS_F_LAT_HIST,	/* last 4 completed reads' latency, us */
	LINNOS_F_PEND_HIST,	/* ... and their pending count at issue */
	LINNOS_F_LATENCY,	/* this read's observed latency, us */
	LINNOS_F_ROUTE,		/* LINNOS_IO_* bits of this read */
	LINNOS_NR_FEATURES
};

struct linnos_dev {
	struct dm_dev *dm;
	spinlock_t lock;		/* leg, pending snapshot, registry order */
	struct linnos_leg leg;		/* history and probe clock (route.h) */
	atomic_t pending;
	bool failed;			/* a write failed here: READ_ONCE, linnos_leg_ok() */
	struct lake_features *reg;
	char reg_name[32];
	u64 trace_seq;			/* last record exported (stats.c) */
	u64 trace_ts;
};

struct linnos_stats {
	atomic64_t reads, writes, write_errors;
	atomic64_t predicted, predicted_slow, redirected, both_slow, probes;
	atomic64_t true_slow, true_fast, false_submit, false_revoke;
	atomic64_t cpu_inferences, cpu_ns, gpu_inferences, gpu_ns;
	atomic64_t gpu_batches, gpu_failures, gpu_late, worker_batches;
	atomic64_t retried, read_failed;	/* reads sent to the other leg, reads failed */
	atomic64_t leg_reads[LINNOS_NR_DEVS], leg_read_errors[LINNOS_NR_DEVS];
	atomic64_t leg_write_errors[LINNOS_NR_DEVS];
	atomic64_t hist[LINNOS_HIST_BUCKETS];
};

struct linnos_gpu {
	bool ready;
	CUcontext ctx;
	CUmodule mod;
	CUfunction first, hidden, last;
	CUstream stream;
	CUdeviceptr weights, in, act[2], z, slow;
	struct linnos_model *loaded;	/* whose weights are on the device: a reference */
	u8 *in_shm;			/* lakeshm: inputs, then verdicts */
	u8 *slow_shm;
};

/*
 * The worker's GPU batch, run on linnos_gpu_wq so that the worker can stop
 * waiting at the deadline. Its own buffers and model reference: a batch
 * given up on runs to its end with them, and its result is dropped. busy
 * from submission until the worker takes the result back or a batch given
 * up on ends; no other is submitted meanwhile.
 */
struct linnos_gpu_job {
	struct work_struct work;
	struct completion done;		/* finished, with the worker still waiting */
	spinlock_t lock;		/* finished, abandoned, busy's clearing */
	bool busy;			/* READ_ONCE in the worker */
	bool finished;
	bool abandoned;			/* the worker gave up on it */
	struct linnos_model *m;		/* a reference, dropped by the job */
	u32 n;
	int ret;
	u64 ns;
	u8 in[LINNOS_MAX_VECTORS][LINNOS_INPUTS];
	u8 slow[LINNOS_MAX_VECTORS];
};

struct linnos_target {
	struct dm_target *ti;
	struct linnos_dev dev[LINNOS_NR_DEVS];
	unsigned int id;

	struct mutex model_lock;	/* swaps and model_name: never across lake */
	struct linnos_model __rcu *model;
	char model_name[LINNOS_MODEL_NAME_MAX];
	int mode;			/* enum linnos_mode; READ_ONCE */
	u32 threshold_us;		/* READ_ONCE; the model's unless set */
	bool threshold_set;		/* by table or message */

	struct bio_set bs;		/* write clones */
	spinlock_t fail_lock;		/* marking a leg failed */
	struct work_struct event_work;	/* dm_table_event() after a leg failed */
	spinlock_t retry_lock;
	struct bio_list retries;	/* failed reads for the other leg */
	struct work_struct retry_work;

	struct lake_fallback *fb;
	char fb_name[20];		/* "linnosN": the policy's name */
	spinlock_t qlock;
	struct bio_list queue;		/* reads waiting for the worker */
	struct work_struct work;
	u8 batch_in[LINNOS_MAX_VECTORS][LINNOS_INPUTS];	/* the worker's */
	u8 batch_slow[LINNOS_MAX_VECTORS];
	struct linnos_gpu_job job;

	struct mutex gpu_lock;		/* gpu and tool_*: whoever calls lake */
	struct linnos_gpu gpu;
	u8 tool_in[LINNOS_MAX_VECTORS][LINNOS_INPUTS];	/* calibration, bench, compare */
	u8 tool_slow[LINNOS_MAX_VECTORS];

	struct linnos_stats st;
	struct {
		u32 batch;
		u64 cpu_ns, gpu_ns;
	} bench[9];			/* debugfs bench (stats.c), under gpu_lock */
	u32 bench_sizes;
	struct dentry *dbg;
	struct mutex trace_lock;
};

/* Per bio, in dm's per-bio data. */
struct linnos_io {
	struct linnos_target *lt;
	u64 map_ns;			/* reads: when map() saw it */
	u64 start_ns;			/* when it went to a replica */
	struct lake_reg_vec *vec;
	struct bvec_iter iter;		/* reads: as mapped, for a retry */
	unsigned short bi_flags;
	u32 pending_at_issue;
	u32 flags;
	blk_status_t error;		/* writes: the clone's (the other leg's) status */
	u8 in[LINNOS_NR_DEVS][LINNOS_INPUTS];	/* [0] home, [1] the other */
	u8 home;			/* the replica a read goes to unless predicted slow */
	u8 dev;				/* where it went (a write: dm's bio; its clone: !dev) */
};

#define LINNOS_IO_READ		0x01
#define LINNOS_IO_WRITE		0x02
#define LINNOS_IO_PREDICTED	0x04	/* a model judged the device it went to */
#define LINNOS_IO_PRED_SLOW	LINNOS_ROUTE_PRED_SLOW	/* ... and predicted it slow */
#define LINNOS_IO_REDIRECTED	LINNOS_ROUTE_REDIRECT	/* went to the other replica */
#define LINNOS_IO_GPU		0x20	/* predicted on the GPU side */
#define LINNOS_IO_PROBE		LINNOS_ROUTE_PROBE	/* predicted slow, sent home to probe */
/* 0x80: LINNOS_ROUTE_BOTH_SLOW */
#define LINNOS_IO_RETRIED	0x100	/* a read that failed once, sent to the other leg */
#define LINNOS_IO_CLONED	0x200	/* a write with a clone for the other leg */

/* Not failed: a leg that reads may go to and writes are sent to. */
static inline bool linnos_leg_ok(const struct linnos_target *lt, u8 d)
{
	return !READ_ONCE(lt->dev[d].failed);
}

extern struct workqueue_struct *linnos_wq;

/* gpu.c, under gpu_lock; @m is a model the caller holds a reference to. */
int linnos_gpu_infer(struct linnos_target *lt, struct linnos_model *m,
		     const u8 *in, u32 n, u8 *out);
void linnos_gpu_release(struct linnos_target *lt);

/* dm-linnos.c */
void linnos_fake_inputs(u8 (*in)[LINNOS_INPUTS]);
/* The current model with a reference (linnos_model_free() drops it), or NULL. */
struct linnos_model *linnos_model_ref(struct linnos_target *lt);

/* stats.c */
void linnos_stats_latency(struct linnos_stats *st, u64 ns);
void linnos_stats_reset(struct linnos_stats *st);
void linnos_status_line(struct linnos_target *lt, char *result, unsigned int maxlen);
int linnos_debugfs_init(void);
void linnos_debugfs_exit(void);
void linnos_debugfs_add(struct linnos_target *lt, struct dm_target *ti);
void linnos_debugfs_remove(struct linnos_target *lt);

#endif /* LINNOS_TARGET_H */
