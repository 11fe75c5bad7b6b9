/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lake_readahead's shared state: readahead.c (probes, windows, devices),
 * gpu.c (the GPU side) and debugfs.c (the control and view files).
 *
 * Locks, outermost first: ctl_lock (a debugfs command; device and model
 * changes), work_lock (one window pass; it is what a device list or model
 * change waits for), gpu_lock (the GPU state), then per device a raw
 * spinlock the probes take, any context. Probes find devices under RCU.
 */
#ifndef RA_READAHEAD_H
#define RA_READAHEAD_H

#include <linux/backing-dev-defs.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <lake/compat.h>
#include <lake/cuda.h>
#include "model.h"

#define RA_MAX_DEVS	16
#define RA_LOG_ENTRIES	64
#define RA_REG_CAPACITY	4096	/* records: an hour of four devices at 1 s */
#define RA_NO_LABEL	0xffff

/* The registry's features ("readahead"), in schema order. */
enum { RA_REC_DEV, RA_REC_LABEL, RA_REC_PAGES, RA_REC_IN };

struct ra_dev {
	dev_t dev;
	char name[32];
	struct lake_bdev_ref ref;
	struct gendisk *disk;
	struct backing_dev_info *bdi;
	bool mq;			/* reads counted per request, not bio */
	unsigned long saved_ra_pages;	/* put back on release */
	raw_spinlock_t lock;		/* stream */
	struct ra_stream stream;
	atomic_t inflight;		/* reads issued, not completed */
	/* Under lock: ra_pages at the end of each of the last windows, their max. */
	u32 ra_hist[RA_HISTORY], ra_hist_next, ra_recent;
	/* Under work_lock. */
	u64 window_start;
	u64 windows, decisions, changes, last_pages;
	u32 last_cls;
	u16 last_in[RA_INPUTS];
};

struct ra_log_entry {
	u64 ts_ns;
	dev_t dev;
	u32 from_kib, to_kib, cls;
	bool gpu;
};

struct ra_gpu {
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	CUstream stream;
	CUdeviceptr wb, in, cls;
	void *in_shm, *cls_shm;
	u64 model_gen;		/* of the weights in wb; 0 none */
	bool ready;
};

struct ra_state {
	struct mutex ctl_lock, work_lock, gpu_lock;
	struct ra_dev __rcu *devs[RA_MAX_DEVS];
	u32 nr_devs;
	u32 attached;		/* probes registered, a bit each */
	struct ra_model *model;	/* under work_lock */
	u64 model_gen;
	char model_name[64];
	bool decide;		/* decisions applied, or features only */
	u16 label;
	bool label_fresh;	/* the window in progress is not recorded */
	struct delayed_work work;
	struct lake_features *fr;
	struct lake_fallback *fb;
	/* One pass's batch, under work_lock. */
	u16 batch_in[RA_MAX_DEVS * RA_INPUTS];
	u8 batch_cls[RA_MAX_DEVS];
	u64 cpu_batches, gpu_batches, gpu_failures, gpu_verified, gpu_mismatches;
	spinlock_t log_lock;
	struct ra_log_entry log[RA_LOG_ENTRIES];
	u64 log_next;
	struct ra_gpu gpu;	/* under gpu_lock */
};

extern struct ra_state ra;
extern unsigned int ra_window_ms;

int ra_load_model(const char *name);
int ra_add_dev(const char *path);
int ra_remove_dev(const char *path);
u32 ra_set_kib(struct ra_dev *d, u32 kib);

/* gpu.c. Classes of n inputs on the GPU; 0 or -EIO. Takes gpu_lock. */
int ra_gpu_infer(const struct ra_model *m, const u16 *in, u32 n, u8 *cls);
/* Under gpu_lock. */
void ra_gpu_release(void);
int ra_calibrate(void);

/* debugfs.c */
int ra_debugfs_init(void);
void ra_debugfs_exit(void);

#endif /* RA_READAHEAD_H */
