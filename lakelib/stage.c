// SPDX-License-Identifier: GPL-2.0
/*
 * Staged copies: CUDA's pageable memory, for lake.
 *
 * laked reaches host memory only through lakeshm, lake's pinned memory.
 * CUDA accepts any host pointer and stages pageable memory through pinned
 * buffers of its own; lakelib does the same for every kernel buffer outside
 * the region (kmalloc, vmalloc, a page, the stack) that is too big to ride
 * inline. The bounce pool is one lakeshm allocation of stage_kib, cut into
 * STAGE_CHUNK chunks (512 KiB: fewer round trips than 256 KiB, measured
 * faster in `make bench`, and still two chunks, so overlap, in a 1 MiB copy). It is allocated at the first staged
 * copy, so a region too small for it costs nothing until then; when lakeshm
 * cannot supply it, that copy fails with CUDA_ERROR_OUT_OF_MEMORY and a log
 * line, and the next one tries again.
 *
 * One copy is a pipeline of chunk records on the caller's context and
 * stream, each a sync call split into submit and wait (rpc.c): the caller
 * fills chunk k+1 (host to device) or empties chunk k-1 (device to host)
 * while laked transfers chunk k. laked executes one context's records in
 * order, so the chunks land in order, and each record carries LAKE_WIRE_REQ_F_STAGED:
 * by its reply laked no longer reads or writes the chunk (an async
 * host-to-device chunk is staged or finished, an async device-to-host one
 * has landed, uapi/lake/wire.h). A chunk goes back to the pool only after its
 * reply, its failure, or a fence (rpc.c), when laked can no longer reach
 * it. So an async copy from pageable memory has staged its data when it
 * returns and the caller may reuse its buffer, and an async copy to one
 * returns with the data in place, in stream order, as CUDA documents.
 *
 * Fairness without deadlock: a call waits (killable, within timeout_ms)
 * only for its first chunk, while it holds none. Further chunks, up to
 * STAGE_PER_CALL, it takes only when free and nobody waits; otherwise it
 * reuses its own as their replies come. A holder never waits on the pool,
 * so every holder finishes and every waiter is served as chunks return.
 * Each chunk record is bounded by timeout_ms from its submit, so a staged
 * copy of n chunks waits at most about n times timeout_ms in all; when
 * laked dies every record in flight fails at once.
 */
#define pr_fmt(fmt) "lakelib: " fmt

#include <linux/bitmap.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <lake/shm.h>
#include "lakelib.h"

#define STAGE_CHUNK		(512U << 10)
#define STAGE_PER_CALL		4
#define STAGE_KIB_MIN		(2 * STAGE_CHUNK >> 10)
#define STAGE_KIB_MAX		(1U << 20)

static unsigned int stage_kib = 8192;

static int stage_kib_set(const char *val, const struct kernel_param *kp)
{
	unsigned int kib;
	int ret = kstrtouint(val, 0, &kib);

	if (ret)
		return ret;
	if (kib < STAGE_KIB_MIN || kib > STAGE_KIB_MAX) {
		pr_warn("stage_kib %u refused: %u..%u\n", kib, STAGE_KIB_MIN, STAGE_KIB_MAX);
		return -EINVAL;
	}
	stage_kib = kib;
	return 0;
}

static const struct kernel_param_ops stage_kib_ops = {
	.set = stage_kib_set,
	.get = param_get_uint,
};
module_param_cb(stage_kib, &stage_kib_ops, &stage_kib, 0444);
MODULE_PARM_DESC(stage_kib, "Bounce pool in lakeshm for copies of other kernel memory (KiB, 512..1048576, default 8192)");

static DEFINE_MUTEX(pool_setup);
static u8 *pool;			/* set once, at the first staged copy */
static u64 pool_off;			/* its offset in the region */
static unsigned int pool_chunks;
static unsigned long *pool_used;	/* under pool_lock */
static DEFINE_SPINLOCK(pool_lock);
static DECLARE_WAIT_QUEUE_HEAD(pool_wait);
static atomic_t pool_waiters;

static int pool_ready(void)
{
	unsigned int n = stage_kib / (STAGE_CHUNK >> 10);
	unsigned long *used;
	u8 *p;

	if (smp_load_acquire(&pool))
		return 0;
	mutex_lock(&pool_setup);
	if (pool)
		goto out;
	used = bitmap_zalloc(n, GFP_KERNEL);
	p = used ? lake_shm_alloc_aligned((size_t)n * STAGE_CHUNK, PAGE_SIZE) : NULL;
	if (!p) {
		bitmap_free(used);
		atomic64_inc(&lake_stats.stage_pool_failures);
		pr_warn_ratelimited("bounce pool of %u KiB: lakeshm cannot supply it (raise lakeshm's size_mib or lower stage_kib); copies of memory outside lakeshm fail with CUDA_ERROR_OUT_OF_MEMORY\n",
				    stage_kib);
		mutex_unlock(&pool_setup);
		return -ENOMEM;
	}
	if (lake_shm_ptr_to_off(p, (size_t)n * STAGE_CHUNK, &pool_off)) {
		lake_shm_free(p);
		bitmap_free(used);
		mutex_unlock(&pool_setup);
		return -ENOMEM;
	}
	pool_used = used;
	pool_chunks = n;
	smp_store_release(&pool, p);
out:
	mutex_unlock(&pool_setup);
	return 0;
}

/* A free chunk's index, or -1; @extra: only when nobody waits for one. */
static int chunk_try(bool extra)
{
	unsigned long i;

	if (extra && atomic_read(&pool_waiters))
		return -1;
	spin_lock(&pool_lock);
	i = find_first_zero_bit(pool_used, pool_chunks);
	if (i < pool_chunks)
		__set_bit(i, pool_used);
	spin_unlock(&pool_lock);
	if (i >= pool_chunks)
		return -1;
	atomic64_inc(&lake_stats.stage_chunks_in_use);
	return i;
}

static void chunk_put(int i)
{
	spin_lock(&pool_lock);
	__clear_bit(i, pool_used);
	spin_unlock(&pool_lock);
	atomic64_dec(&lake_stats.stage_chunks_in_use);
	wake_up(&pool_wait);
}

/* The first chunk of a call, waited for: its index, or a CUresult as -ret. */
static int chunk_wait(unsigned long deadline)
{
	int i = chunk_try(false);
	long rc;

	if (i >= 0)
		return i;
	atomic64_inc(&lake_stats.stage_waits);
	atomic_inc(&pool_waiters);
	rc = wait_event_killable_timeout(pool_wait, (i = chunk_try(false)) >= 0,
					 lake_jiffies_left(deadline));
	atomic_dec(&pool_waiters);
	wake_up(&pool_wait);	/* holders skip extras while we wait */
	if (rc > 0)
		return i;
	pr_warn_ratelimited("no bounce chunk within timeout_ms (%u chunks, all in use)\n",
			    pool_chunks);
	return rc ? -LAKE_ERR_KILLED : -LAKE_ERR_TIMEOUT;
}

struct stage_slot {
	struct lake_wire_req req;
	struct lake_call call;
	int chunk;
	size_t off;
};

static void submit(struct stage_slot *s, const struct lake_wire_req *tmpl, const void *host,
		   size_t off, size_t len, bool htod)
{
	u8 *chunk = pool + (size_t)s->chunk * STAGE_CHUNK;

	if (htod)
		memcpy(chunk, host + off, len);
	s->off = off;
	s->req = *tmpl;
	s->req.flags = LAKE_WIRE_REQ_F_STAGED;
	s->req.args.memcpy.dptr += off;
	s->req.args.memcpy.bytes = len;
	s->req.args.memcpy.where = LAKE_WIRE_SHM;
	s->req.args.memcpy.shm_off = pool_off + (size_t)s->chunk * STAGE_CHUNK;
	s->call.tail = NULL;
	s->call.tail_cap = 0;
	atomic64_add(len, &lake_stats.stage_bytes);
	lake_rpc_submit(&s->req, &s->call, jiffies + msecs_to_jiffies(lake_timeout_ms));
}

CUresult lake_stage_copy(const struct lake_wire_req *tmpl, void *host, size_t bytes, bool htod)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(lake_timeout_ms);
	int idle[STAGE_PER_CALL], nidle = 0;
	unsigned int head = 0, inflight = 0;
	struct stage_slot *slots, *s;
	CUresult ret = CUDA_SUCCESS, r;
	size_t next = 0, len;
	int c;

	if (pool_ready())
		return CUDA_ERROR_OUT_OF_MEMORY;
	slots = lake_alloc_fault() ? NULL :
		kmalloc_array(STAGE_PER_CALL, sizeof(*slots), GFP_KERNEL);
	if (!slots)
		return CUDA_ERROR_OUT_OF_MEMORY;
	for (;;) {
		if (!ret && next < bytes && inflight < STAGE_PER_CALL) {
			/* Held: idle ones, else those in flight; 0 only at the start. */
			if (nidle)
				c = idle[--nidle];
			else
				c = inflight ? chunk_try(true) : chunk_wait(deadline);
			if (c >= 0) {
				s = &slots[(head + inflight++) % STAGE_PER_CALL];
				s->chunk = c;
				len = min_t(size_t, bytes - next, STAGE_CHUNK);
				submit(s, tmpl, host, next, len, htod);
				next += len;
				continue;
			}
			if (!inflight) {
				ret = -c;
				continue;
			}
		}
		if (!inflight)
			break;
		s = &slots[head];
		head = (head + 1) % STAGE_PER_CALL;
		inflight--;
		r = lake_rpc_wait(&s->call);
		if (!r && !htod)
			memcpy(host + s->off, pool + (size_t)s->chunk * STAGE_CHUNK,
			       s->req.args.memcpy.bytes);
		if (r && !ret)
			ret = r;
		idle[nidle++] = s->chunk;
	}
	while (nidle)
		chunk_put(idle[--nidle]);
	kfree(slots);
	return ret;
}

void lake_stage_exit(void)
{
	if (pool)
		lake_shm_free(pool);
	bitmap_free(pool_used);
}
