/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside lake_example_xts: what its two algorithms (xts_lake.c's xts(aes),
 * gcm_lake.c's gcm(aes)) share, in lake_crypto.c: the queue of requests
 * and the worker that takes them in batches, the policy's choice and the
 * CPU redo of a failed GPU batch, the GPU context and the batch's lakeshm
 * buffer (units, data, keys; both kernels take the same parameters), the
 * counters debugfs shows. An algorithm fills in a struct lc_alg with its
 * sizes and four functions and calls lc_alg_start().
 */
#ifndef LAKE_EXAMPLE_LAKE_CRYPTO_H
#define LAKE_EXAMPLE_LAKE_CRYPTO_H

#include <linux/crypto.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/wait.h>
#include <lake/cuda.h>
#include <lake/fallback.h>
#include <lake/kernel_sig.h>

#define LC_MAX_BATCH	256
#define LC_RAN_MAX	3	/* AES_RAN_GPU */

struct lc_alg {
	/* Set by the algorithm. */
	const char *name;			/* policy, debugfs file, log lines */
	const char *cubin;
	const struct lake_kernel_sig *sig;
	size_t unit_size, key_size;
	/* A request's room in a batch's data array (aligned as the kernel wants). */
	size_t (*bytes)(struct crypto_async_request *req);
	/* Pack @n requests and run them (lc_gpu_exec); 0 with errs[] filled, or -errno. */
	int (*gpu_run)(struct lc_alg *a, struct crypto_async_request **reqs, unsigned int n,
		       int *errs);
	/* Submit to the CPU driver; true when it completed (lc_complete) before returning. */
	bool (*cpu_submit)(struct crypto_async_request *req);
	void (*complete)(struct crypto_async_request *req, int err);

	/* Set at lc_alg_start from the module's parameters. */
	unsigned int max_batch, max_queue;
	size_t data_cap;
	struct lake_fallback *fb;

	/* The queue: base.list links requests accepted and not yet taken. */
	spinlock_t lock;
	struct list_head ready, backlog;
	unsigned int nready;
	wait_queue_head_t wait;
	struct task_struct *worker;
	struct crypto_async_request *reqs[LC_MAX_BATCH];
	bool was_backlogged[LC_MAX_BATCH];
	int errs[LC_MAX_BATCH];

	/* The GPU side: one batch (or calibration) at a time, under gpu_lock. */
	struct mutex gpu_lock;
	bool ready_gpu;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	CUstream stream;
	CUdeviceptr dunits, dkeys, ddata;
	void *buf;				/* lakeshm: units, data, keys */
	void *hunits, *hkeys;
	u8 *hdata;
	const void *key_of[LC_MAX_BATCH];

	atomic64_t requests, completed, errors, cpu, gpu, redone_on_cpu, refused, backlogged,
		   bad, too_big, batches, gpu_batches, gpu_unfinished, bad_tags;
	atomic64_t ran[LC_RAN_MAX + 1];
};

/* Allocate the buffer and the policy, start the worker; 0 or -errno (all undone). */
int lc_alg_start(struct lc_alg *a, unsigned int max_batch, unsigned int batch_kib,
		 unsigned int max_queue, enum lake_policy_mode mode);
/* After the algorithm is unregistered (no request left). NULL-safe on a failed start. */
void lc_alg_stop(struct lc_alg *a);

/* Queue a checked request: -EINPROGRESS, -EBUSY (backlogged) or -ENOSPC. */
int lc_queue(struct lc_alg *a, struct crypto_async_request *req);
/* Complete a request through the crypto API, bottom halves off; counted. */
void lc_complete(struct lc_alg *a, struct crypto_async_request *req, int err);

/*
 * Run the @n units already packed (gpu_lock held): copies, one launch of
 * @a's kernel with (units, keys, data, n, nkeys, bytes, impl), copies back,
 * one synchronize. 0 or -EIO; the lakeshm keys are wiped either way.
 */
int lc_gpu_exec(struct lc_alg *a, int n, int nkeys, unsigned int bytes, int impl);
/* The index of @owner's key in this batch; *fresh when the caller must fill it in. */
int lc_key_index(struct lc_alg *a, const void *owner, int *nkeys, bool *fresh);
/* A unit's ran field (1..LC_RAN_MAX, else it was not processed): counted; false if bad. */
bool lc_count_ran(struct lc_alg *a, int unit, unsigned int ran);

/* The counters, as "name value" lines. */
void lc_show(struct seq_file *m, struct lc_alg *a);
int lc_parse_mode(const char *s, enum lake_policy_mode *mode);

/*
 * fuzz.c: @n random request shapes through lake's xts(aes) or gcm(aes) and
 * the kernel's own, compared (its head comment); the result line to @out.
 * Process context; 0 or -errno (mismatches are in the line, and logged).
 */
int lc_fuzz(bool gcm, unsigned int n, u32 seed, char *out, size_t outlen);

/* gcm_lake.c, started and stopped by the module's init and exit. */
int gcm_lake_init(int priority, unsigned int max_batch, unsigned int batch_kib,
		  unsigned int max_queue, enum lake_policy_mode mode, const unsigned int *calib_bytes);
void gcm_lake_exit(void);

#endif
