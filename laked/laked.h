/* SPDX-License-Identifier: GPL-2.0 */
/*
 * laked's dispatcher: what turns a LAKE_CMD_CALL blob into driver calls and
 * reply records. It knows nothing of netlink, so tests and the fuzzer drive
 * it with blobs they build themselves and collect the replies in memory.
 *
 * Every byte of a blob is untrusted (DESIGN.md, decision 11).
 * laked_dispatch_blob() runs a blob's records in order on the calling
 * thread; the pool (workers.c) runs each context's records in order on a
 * thread of its own, contexts in parallel. Use one or the other on one
 * dispatcher: the first from one thread at a time, the pool from the one
 * thread that submits.
 */
#ifndef LAKED_LAKED_H
#define LAKED_LAKED_H

#include <lake/wire.h>
#include "laked/driver.h"

/* Defaults; `make install` builds laked with its PREFIX's and SYSCONFDIR's. */
#ifndef LAKED_MODULE_DIR
#define LAKED_MODULE_DIR	"/usr/lib/lake/kernels"
#endif
#ifndef LAKED_CONFIG
#define LAKED_CONFIG		"/etc/lake/laked.conf"
#endif

struct laked;

/*
 * Where replies go. flush takes a blob of one or more reply records, at most
 * LAKE_GENL_RECORDS_MAX bytes, valid only during the call; 0 or -errno.
 */
struct laked_reply_sink {
	int (*flush)(struct laked_reply_sink *sink, const void *blob, u32 len);
};

struct laked_config {
	struct lake_driver *drv;
	const char *module_dir;		/* cuModuleLoad names resolve beneath it */
	void *region;			/* the shared region's mapping; NULL: none */
	u64 region_size;
	/*
	 * Instance tag in every handle, 24 bits, not 0; 0 here draws one from
	 * getrandom so handles of a previous daemon are refused.
	 */
	u32 tag;
};

/*
 * 0 or -errno. The config's strings and region must outlive the dispatcher.
 * The module directory is opened here, once (a missing one is logged, and
 * cuModuleLoad then fails).
 */
int laked_init(struct laked **out, const struct laked_config *cfg);
/* The module directory's descriptor (O_PATH), for the sandbox; -1: none. */
int laked_module_dir_fd(const struct laked *d);
/* Destroys every context the kernel created (and with it their objects). */
void laked_fini(struct laked *d);

/*
 * Run the requests of one blob in order and hand their replies to @sink,
 * gathered into as few flushes as fit. A malformed record is logged and
 * answered with CUDA_ERROR_INVALID_VALUE when its header names an API; when
 * its framing is broken too, the rest of the blob is dropped. Returns 0, or
 * the first error of the sink (records still run).
 */
int laked_dispatch_blob(struct laked *d, const void *blob, u32 len,
			struct laked_reply_sink *sink);

/*
 * The pool: laked_pool_submit() queues each record of @blob on the worker
 * of its context and returns; the workers run them and hand the replies to
 * @sink, which must take flushes from several threads at once. Create it
 * once sandboxed: its threads inherit the sandbox. 0 or -errno.
 */
struct laked_pool;

/* What one context may have queued at its worker (workers.c). */
#define LAKED_CTX_RECORDS	4096
#define LAKED_CTX_BYTES		(8U << 20)

struct laked_pool_stats {
	unsigned int workers;		/* threads started, worker 0 included */
	unsigned int contexts;		/* contexts bound to a worker */
	unsigned int queued;		/* records waiting */
	u64 overflows;			/* records refused: their context's queue was full */
};

int laked_pool_create(struct laked_pool **out, struct laked *d, struct laked_reply_sink *sink);
/* Returns the first error of the sink for answers sent from here (malformed records). */
int laked_pool_submit(struct laked_pool *p, const void *blob, u32 len);
/*
 * What an idle worker runs, no lock held, before it sleeps on its condition
 * variable: @idle may submit to the pool, and returns when me->pending (this
 * worker got a job, or the pool stops) turns true or it has nothing more to
 * do. While @idle waits for something of its own, it sets me->watching; a
 * job queued for a watching worker then calls @wake, whose wakeup @idle's
 * wait must end. Both flags are sequentially consistent atomics: a job
 * stores pending and then reads watching, @idle the other way round.
 */
struct laked_idle {
	bool pending;
	bool watching;
};
typedef void (*laked_pool_idle_fn)(void *arg, struct laked_idle *me);
typedef void (*laked_pool_wake_fn)(void *arg);
void laked_pool_set_idle(struct laked_pool *p, laked_pool_idle_fn idle, laked_pool_wake_fn wake,
			 void *arg);
void laked_pool_stats(struct laked_pool *p, struct laked_pool_stats *st);
/* Records still queued are dropped; a running one finishes first. */
void laked_pool_destroy(struct laked_pool *p);

/*
 * Device memory in use, from cuMemGetInfo in any live context: 0, or
 * -ENOENT when the kernel has none, -EIO when the driver fails.
 */
int laked_mem_info(struct laked *d, u64 *used, u64 *total);

#endif /* LAKED_LAKED_H */
