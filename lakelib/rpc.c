// SPDX-License-Identifier: GPL-2.0
/*
 * Calls to laked: the send queue, the in-flight table, and CUDA's async
 * error semantics.
 *
 * Every record goes through one queue, and request ids are taken under the
 * queue lock, so id order is wire order. laked runs the records of one
 * context (lake_wire_req_ctx(): 0 for calls of no context) in that order on
 * one thread, and contexts in parallel, so every ordering fact below holds
 * within a context only. Async records (flagged NOREPLY) wait in the queue
 * until a sync call or a short delayed flush sends them, so N launches and
 * one synchronize cost one message. laked answers an async record only
 * when it fails; the error is latched for its (context, stream) and
 * returned by the next synchronizing call there, as the real driver does.
 * When a sync reply with id S arrives, every async record of the same
 * context before S has run: one that did not fail by then never will, so
 * it is retired.
 *
 * Each context has a window (struct ctx_win): at most CTX_ASYNC_MAX async
 * records unretired, after which its next async call first waits for a
 * barrier in that context, and at most CTX_SYNC_MAX sync records in
 * flight, after which its next sync call waits (killable, within its
 * deadline) for one to end. A flooding context so waits for its own work
 * only, and laked's queue for it stays bounded.
 *
 * Nothing is lost silently: a queue that cannot be sent latches an error
 * for each async record in it, and the latch grows rather than drop one.
 * One API call has one deadline, timeout_ms from its start, that bounds its
 * wait for the queue lock, its send and its reply; every wait is killable.
 * A call given up before its reply fences laked (netlink.c) before it
 * returns, so no late execution can touch the caller's buffers: always on
 * a timeout (laked is stuck); on a fatal signal only when laked can still
 * write the caller's memory, i.e. the call names shared memory (a lakeshm
 * range or a bounce chunk the kernel reuses), or its context has unretired
 * async records that do. A killed caller of any other call (cuCtxSynchronize,
 * cuMemAlloc, an inline copy) leaves laked, and every other module's
 * contexts, alone: its late reply is dropped as a stray one.
 *
 * Lock order: queue_lock (a mutex: the queue, ids, send order), then
 * inflight_lock (a spinlock: the in-flight table, windows, async records,
 * latch), then netlink.c's daemon_lock, which lake_nl_send_call() and
 * lake_nl_gen() take under queue_lock; never the other way round, and
 * nothing sleeps under inflight_lock. Functions that need a lock held
 * assert it (lockdep_assert_held()).
 */
#define pr_fmt(fmt) "lakelib: " fmt

#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <lake/latch.h>
#include "lakelib.h"
#include "trace.h"

#define CTX_ASYNC_MAX	1024	/* a context's unretired async records before a barrier */
#define CTX_SYNC_MAX	64	/* a context's sync records in flight before a wait */

/* What one context has at laked. */
struct ctx_win {
	struct hlist_node node;		/* in windows, by ctx */
	struct list_head async;		/* its unanswered async records, oldest first */
	u64 ctx;
	unsigned int nasync;		/* those, and async records being queued */
	unsigned int nshm;		/* those that name shared memory */
	unsigned int nsync;		/* sync records in flight */
};

struct async_rec {
	struct hlist_node node;		/* in async_ids, by id */
	struct list_head link;		/* in its window's list */
	struct ctx_win *win;
	u64 id, ctx, stream;
	bool shm;			/* names shared memory */
};

static DEFINE_MUTEX(queue_lock);	/* queue, id allocation, send order */
static DECLARE_WAIT_QUEUE_HEAD(queue_wait);
static u8 *queue_data;
static struct lake_wire_buf queue;
static u64 queue_first;			/* id of the oldest record in the queue */
static u64 next_id = 1;
static void queue_flush_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(queue_flush_work, queue_flush_fn);

static DEFINE_SPINLOCK(inflight_lock);	/* everything below */
static DEFINE_HASHTABLE(inflight, 8);
static DEFINE_HASHTABLE(async_ids, 10);
static DEFINE_HASHTABLE(windows, 6);
static struct lake_latch latch = { .tail = &latch.head };
static DECLARE_WAIT_QUEUE_HEAD(window_wait);	/* a sync slot came free */

long lake_jiffies_left(unsigned long deadline)
{
	long left = (long)(deadline - jiffies);

	return left > 0 ? left : 1;	/* a last look costs nothing */
}

/*
 * @m, taken before @deadline: 0, -ETIMEDOUT or -EINTR. Its holder may sleep
 * until its own deadline; a waiter keeps its own. Unlock with mutex_unlock()
 * and wake_up(@wq).
 */
int lake_mutex_lock_until(struct mutex *m, wait_queue_head_t *wq, unsigned long deadline)
{
	long ret;

	if (mutex_trylock(m))
		return 0;
	ret = wait_event_killable_timeout(*wq, mutex_trylock(m), lake_jiffies_left(deadline));
	if (ret > 0)
		return 0;
	return ret ? -EINTR : -ETIMEDOUT;
}

static int queue_lock_until(unsigned long deadline)
{
	return lake_mutex_lock_until(&queue_lock, &queue_wait, deadline);
}

static void queue_unlock(void)
{
	mutex_unlock(&queue_lock);
	wake_up(&queue_wait);
}

/* What a caller gets for a send that failed with @err. */
static CUresult send_result(int err)
{
	switch (err) {
	case -ENOTCONN:
		return LAKE_ERR_NO_DAEMON;
	case -ETIMEDOUT:
		return LAKE_ERR_TIMEOUT;
	case -EINTR:
		return LAKE_ERR_KILLED;
	default:
		return LAKE_ERR_DAEMON_LOST;
	}
}

/* include/lake/latch.h has the rules. */
static void latch_error(u64 ctx, u64 stream, u64 id, u32 result)
{
	lockdep_assert_held(&inflight_lock);
	if (lake_latch_error(&latch, ctx, stream, result))
		trace_lake_async_error(ctx, stream, id, result);
	atomic64_set(&lake_stats.latched, latch.count);
}

static void latch_clear(void)
{
	lake_latch_clear(&latch);
	atomic64_set(&lake_stats.latched, 0);
}

CUresult lake_rpc_take_latched(u64 ctx, u64 stream, bool whole_ctx)
{
	u32 result;

	spin_lock(&inflight_lock);
	result = lake_latch_take(&latch, ctx, stream, whole_ctx);
	atomic64_set(&lake_stats.latched, latch.count);
	spin_unlock(&inflight_lock);
	return result;
}

static struct ctx_win *win_find(u64 ctx)
{
	struct ctx_win *w;

	lockdep_assert_held(&inflight_lock);
	hash_for_each_possible(windows, w, node, ctx)
		if (w->ctx == ctx)
			return w;
	return NULL;
}

/* @ctx's window, made of *@spare if it has none (NULL: no spare). */
static struct ctx_win *win_get(u64 ctx, struct ctx_win **spare)
{
	struct ctx_win *w = win_find(ctx);

	if (w || !*spare)
		return w;
	w = *spare;
	*spare = NULL;
	w->ctx = ctx;
	INIT_LIST_HEAD(&w->async);
	w->nasync = 0;
	w->nshm = 0;
	w->nsync = 0;
	hash_add(windows, &w->node, ctx);
	return w;
}

/* An empty window goes. */
static void win_put(struct ctx_win *w)
{
	lockdep_assert_held(&inflight_lock);
	if (w->nasync || w->nsync)
		return;
	hash_del(&w->node);
	kfree(w);
}

/* @a is answered or retired. */
static void async_done(struct async_rec *a)
{
	struct ctx_win *w = a->win;

	lockdep_assert_held(&inflight_lock);
	hash_del(&a->node);
	list_del(&a->link);
	w->nasync--;
	w->nshm -= a->shm;
	kfree(a);
	atomic64_dec(&lake_stats.async_pending);
	win_put(w);
}

/*
 * The queue could not be sent: every async record in it latches @result,
 * and is answered as far as retirement is concerned.
 */
static void drop_queued(u32 result)
{
	unsigned int bkt, dropped = 0;
	struct hlist_node *tmp;
	struct async_rec *a;

	lockdep_assert_held(&queue_lock);
	lockdep_assert_held(&inflight_lock);
	hash_for_each_safe(async_ids, bkt, tmp, a, node) {
		if (a->id < queue_first)
			continue;
		latch_error(a->ctx, a->stream, a->id, result);
		async_done(a);
		dropped++;
	}
	atomic64_add(dropped, &lake_stats.async_dropped);
}

/* Send what is queued, before @deadline; the daemon it went to in @gen. */
static int flush_locked(unsigned long deadline, u64 *gen)
{
	int ret;

	lockdep_assert_held(&queue_lock);
	if (!queue.len)
		return 0;
	ret = lake_nl_send_call(queue.data, queue.len, deadline, gen);
	if (ret) {
		spin_lock(&inflight_lock);
		drop_queued(ret == -ETIMEDOUT ? LAKE_ERR_TIMEOUT : LAKE_ERR_DAEMON_LOST);
		spin_unlock(&inflight_lock);
	} else {
		atomic64_inc(&lake_stats.messages);
	}
	queue.len = 0;
	return ret;
}

void lake_rpc_flush(void)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(lake_timeout_ms);
	u64 gen;
	int ret;

	ret = queue_lock_until(deadline);
	if (!ret) {
		ret = flush_locked(deadline, &gen);
		queue_unlock();
	}
	if (ret)
		pr_warn_ratelimited("flush of queued async calls failed: %d\n", ret);
}

static void queue_flush_fn(struct work_struct *w)
{
	if (!READ_ONCE(lake_hold_queue))
		lake_rpc_flush();
}

/*
 * Give @req an id and append it, sending the queue first if it is full. A
 * caller that started with daemon @started, which has left since (its
 * teardown cleared the queue and the latch while the caller waited for the
 * lock), must not queue: its record would only latch an error for a
 * context that no longer exists.
 */
static CUresult enqueue_locked(struct lake_wire_req *req, unsigned long deadline, u64 started)
{
	const char *why = "";
	u64 gen;
	int ret;

	lockdep_assert_held(&queue_lock);
	if (lake_nl_gen() != started)
		return LAKE_ERR_DAEMON_LOST;
	req->req_id = next_id++;
	if (!queue.len)
		queue_first = req->req_id;
	ret = lake_wire_put_req(&queue, req, &why);
	if (ret == -EMSGSIZE && queue.len) {
		ret = flush_locked(deadline, &gen);
		if (ret)
			return send_result(ret);
		queue_first = req->req_id;
		ret = lake_wire_put_req(&queue, req, &why);
	}
	if (ret) {
		pr_warn_ratelimited("%s: cannot encode: %s (%d)\n",
				    lake_wire_api(req->api)->name, why, ret);
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

/*
 * @call's reply came, so its context's async records before it ran. The window stays while its list empties: @call holds one
 * of its sync slots until lake_rpc_wait().
 */
static void retire_before(const struct lake_call *call)
{
	struct ctx_win *w = win_find(lake_wire_req_ctx(call->req));
	struct async_rec *a, *tmp;

	if (!w)
		return;
	lockdep_assert_held(&inflight_lock);
	list_for_each_entry_safe(a, tmp, &w->async, link) {
		if (a->id >= call->id)
			break;
		async_done(a);
	}
}

/* A reply from laked, already validated by the codec. */
void lake_rpc_deliver(const struct lake_wire_rep *rep)
{
	struct lake_call *call;
	struct async_rec *a;
	const char *why = "";

	spin_lock(&inflight_lock);
	hash_for_each_possible(inflight, call, node, rep->req_id) {
		if (call->id != rep->req_id)
			continue;
		if (lake_wire_rep_matches(call->req, rep, &why) || rep->tail_len > call->tail_cap) {
			pr_warn_ratelimited("reply %llu does not match its call: %s\n",
					    rep->req_id, why);
			atomic64_inc(&lake_stats.bad_records);
			call->result = CUDA_ERROR_UNKNOWN;
		} else {
			call->result = rep->result;
			call->res = rep->res;
			if (rep->tail_len)
				memcpy(call->tail, rep->tail, rep->tail_len);
			call->tail_len = rep->tail_len;
		}
		retire_before(call);
		hash_del(&call->node);
		/* Under the lock: once unhashed, the waiter may return at once. */
		complete(&call->done);
		spin_unlock(&inflight_lock);
		return;
	}
	hash_for_each_possible(async_ids, a, node, rep->req_id) {
		if (a->id != rep->req_id)
			continue;
		latch_error(a->ctx, a->stream, a->id, rep->result ? rep->result : CUDA_ERROR_UNKNOWN);
		atomic64_inc(&lake_stats.async_errors);
		async_done(a);
		spin_unlock(&inflight_lock);
		return;
	}
	spin_unlock(&inflight_lock);
	atomic64_inc(&lake_stats.stray_replies);
	pr_debug("reply %llu matches no call (timed out?)\n", rep->req_id);
}

/*
 * laked went away (its portid already cleared, so no send reaches it):
 * nothing in flight will be answered, nothing queued may reach the next
 * one, and its handles' latched errors mean nothing to it.
 */
void lake_rpc_daemon_gone(void)
{
	struct lake_call *call;
	struct hlist_node *tmp;
	struct async_rec *a;
	unsigned int bkt;

	mutex_lock(&queue_lock);
	lake_ring_stop();
	spin_lock(&inflight_lock);
	hash_for_each_safe(inflight, bkt, tmp, call, node) {
		call->result = LAKE_ERR_DAEMON_LOST;
		hash_del(&call->node);
		complete(&call->done);
	}
	/* Windows with sync calls still waiting stay until those calls end. */
	hash_for_each_safe(async_ids, bkt, tmp, a, node)
		async_done(a);
	latch_clear();
	spin_unlock(&inflight_lock);
	queue.len = 0;
	queue_unlock();
}

int lake_rpc_ring_start(u64 gen, int sq_fd, int cq_fd, int watch_fd, u64 *off)
{
	int ret = queue_lock_until(jiffies + msecs_to_jiffies(lake_timeout_ms));

	if (ret)
		return ret;
	/* Flushed as messages first: what was queued before goes before what follows. */
	ret = flush_locked(jiffies + msecs_to_jiffies(lake_timeout_ms), &gen);
	if (!ret)
		ret = gen && lake_nl_gen() == gen ? lake_ring_start(gen, sq_fd, cq_fd, watch_fd, off) :
		      -ENOTCONN;
	queue_unlock();
	return ret;
}

void lake_rpc_ring_stop(void)
{
	mutex_lock(&queue_lock);
	lake_ring_stop();
	queue_unlock();
}

/* Can laked write the caller's memory when it runs @req? (a lakeshm range or bounce chunk) */
static bool names_shm(const struct lake_wire_req *req)
{
	switch (req->api) {
	case LAKE_API_MEMCPY_HTOD:
	case LAKE_API_MEMCPY_DTOH:
	case LAKE_API_MEMCPY_HTOD_ASYNC:
	case LAKE_API_MEMCPY_DTOH_ASYNC:
		return req->args.memcpy.where == LAKE_WIRE_SHM;
	default:
		return false;
	}
}

/* Has @req's context async records that name shared memory and may still run? */
static bool ctx_names_shm(const struct lake_wire_req *req)
{
	struct ctx_win *w;
	bool shm;

	spin_lock(&inflight_lock);
	w = win_find(lake_wire_req_ctx(req));
	shm = w && w->nshm;
	spin_unlock(&inflight_lock);
	return shm;
}

/*
 * A call given up with a timeout, or killed after its record went out:
 * fence the daemon that may still run it, before the caller sees @ret,
 * unless it was killed and laked can write none of the caller's memory.
 */
static void give_up(const struct lake_wire_req *req, CUresult ret, bool sent, u64 gen)
{
	if (ret != LAKE_ERR_TIMEOUT && !(ret == LAKE_ERR_KILLED && sent))
		return;
	atomic64_inc(ret == LAKE_ERR_TIMEOUT ? &lake_stats.timeouts : &lake_stats.killed);
	if (ret == LAKE_ERR_KILLED && !names_shm(req) && !ctx_names_shm(req)) {
		pr_info_ratelimited("%s: caller killed; it names no shared memory, so its late reply is dropped\n",
				    lake_wire_api(req->api)->name);
		return;
	}
	pr_warn_ratelimited("%s: %s; fencing laked\n", lake_wire_api(req->api)->name,
			    ret == LAKE_ERR_TIMEOUT ? "no reply within timeout_ms" :
			    "caller killed while laked held its call");
	lake_nl_fence(gen);
}

/* Takes inflight_lock: true once a sync slot of @ctx's window is ours, or memory is short. */
static bool slot_take(u64 ctx, struct ctx_win **spare, bool *nomem)
{
	struct ctx_win *w;
	bool took = false;

	spin_lock(&inflight_lock);
	w = win_get(ctx, spare);
	if (!w) {
		*nomem = true;
	} else if (w->nsync < CTX_SYNC_MAX) {
		w->nsync++;
		took = true;
	}
	spin_unlock(&inflight_lock);
	return took || *nomem;
}

/* A sync slot in @ctx's window before @deadline: 0, -ETIMEDOUT, -EINTR or -ENOMEM. */
static int slot_wait(u64 ctx, unsigned long deadline)
{
	struct ctx_win *spare = lake_alloc_fault() ? NULL : kmalloc(sizeof(*spare), GFP_KERNEL);
	bool nomem = false;
	long rc = 1;

	if (!slot_take(ctx, &spare, &nomem)) {
		atomic64_inc(&lake_stats.window_waits);
		rc = wait_event_killable_timeout(window_wait, slot_take(ctx, &spare, &nomem),
						 lake_jiffies_left(deadline));
	}
	kfree(spare);
	if (rc > 0)
		return nomem ? -ENOMEM : 0;
	return rc ? -EINTR : -ETIMEDOUT;
}

static void slot_release(u64 ctx)
{
	struct ctx_win *w;

	spin_lock(&inflight_lock);
	w = win_find(ctx);
	if (w) {
		w->nsync--;
		win_put(w);
	}
	spin_unlock(&inflight_lock);
	wake_up(&window_wait);
}

/*
 * A sync call in two halves, so a caller can have several records in flight
 * (stage.c keeps a chunk in transfer while it fills the next). Submit
 * takes a slot in the context's window, queues and sends @req with
 * @deadline; lake_rpc_wait() must follow, whatever happened, and returns
 * the call's result: a failed submit's, or laked's reply, bounded by the
 * same deadline, killable, fencing laked when given up. Without a daemon
 * the call fails at once and counts no error.
 */
void lake_rpc_submit(struct lake_wire_req *req, struct lake_call *call, unsigned long deadline)
{
	long rc;

	call->gen = lake_nl_gen();
	call->deadline = deadline;
	call->t0 = ktime_get_ns();
	call->sent = false;
	call->tracked = false;
	call->slot = false;
	call->id = 0;
	init_completion(&call->done);
	call->req = req;
	call->result = CUDA_ERROR_UNKNOWN;
	call->tail_len = 0;
	if (!call->gen) {
		atomic64_inc(&lake_stats.no_daemon);
		call->early = LAKE_ERR_NO_DAEMON;
		return;
	}
	atomic64_inc(&lake_stats.calls[req->api]);

	rc = slot_wait(lake_wire_req_ctx(req), deadline);
	if (rc) {
		call->early = rc == -ENOMEM ? CUDA_ERROR_OUT_OF_MEMORY : send_result(rc);
		return;
	}
	call->slot = true;
	rc = queue_lock_until(deadline);
	if (rc) {
		call->early = send_result(rc);
		return;
	}
	call->early = enqueue_locked(req, deadline, call->gen);
	if (call->early) {
		queue_unlock();
		return;
	}
	call->id = req->req_id;
	trace_lake_call_send(lake_wire_api(req->api)->name, req->ctx, req->req_id, false);
	spin_lock(&inflight_lock);
	hash_add(inflight, &call->node, call->id);
	spin_unlock(&inflight_lock);
	atomic64_inc(&lake_stats.in_flight);
	call->tracked = true;
	rc = flush_locked(deadline, &call->gen);
	queue_unlock();
	/* Not sent: nobody will answer. */
	call->early = rc ? send_result(rc) : CUDA_SUCCESS;
	call->sent = !rc;
}

CUresult lake_rpc_wait(struct lake_call *call)
{
	const struct lake_wire_req *req = call->req;
	bool sent = call->sent, answered = false;
	CUresult ret = call->early;
	long rc = 0;

	if (ret == LAKE_ERR_NO_DAEMON && !call->gen)
		return ret;
	if (sent) {
		lake_ring_spin(&call->done);
		rc = wait_for_completion_killable_timeout(&call->done,
							  lake_jiffies_left(call->deadline));
		answered = rc > 0;
		ret = answered ? call->result : rc == 0 ? LAKE_ERR_TIMEOUT : LAKE_ERR_KILLED;
	}
	if (call->tracked) {
		if (rc <= 0) {
			spin_lock(&inflight_lock);
			if (hash_hashed(&call->node)) {
				hash_del(&call->node);
			} else if (sent) {
				ret = call->result;	/* answered while we gave up */
				answered = true;
			}
			spin_unlock(&inflight_lock);
		}
		atomic64_dec(&lake_stats.in_flight);
	}
	/*
	 * laked's own result may equal LAKE_ERR_TIMEOUT or _KILLED (a lying
	 * laked chooses it at will): only a wait that ended without a reply
	 * fences it.
	 */
	if (call->slot)
		slot_release(lake_wire_req_ctx(req));
	if (!answered)
		give_up(req, ret, sent, call->gen);
	if (ret != CUDA_SUCCESS) {
		atomic64_inc(&lake_stats.errors);
		atomic64_inc(&lake_stats.api_errors[req->api]);
	}
	trace_lake_call_done(lake_wire_api(req->api)->name, req->ctx, call->id,
			     ktime_get_ns() - call->t0, ret);
	return ret;
}

static CUresult sync_until(struct lake_wire_req *req, struct lake_call *call,
			   unsigned long deadline)
{
	lake_rpc_submit(req, call, deadline);
	return lake_rpc_wait(call);
}

CUresult lake_rpc_sync(struct lake_wire_req *req, struct lake_call *call)
{
	return sync_until(req, call, jiffies + msecs_to_jiffies(lake_timeout_ms));
}

CUresult lake_rpc_async(struct lake_wire_req *req)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(lake_timeout_ms);
	u64 gen = lake_nl_gen(), ctx = lake_wire_req_ctx(req);
	struct lake_wire_req barrier;
	struct ctx_win *spare, *w;
	struct lake_call call = {};
	struct async_rec *a;
	CUresult ret;
	bool full;
	int rc;

	if (!gen) {
		atomic64_inc(&lake_stats.no_daemon);
		return LAKE_ERR_NO_DAEMON;
	}
	atomic64_inc(&lake_stats.calls[req->api]);
	req->flags |= LAKE_WIRE_REQ_F_NOREPLY;
	a = lake_alloc_fault() ? NULL : kmalloc(sizeof(*a), GFP_KERNEL);
	spare = lake_alloc_fault() ? NULL : kmalloc(sizeof(*spare), GFP_KERNEL);
	for (;;) {
		ret = CUDA_ERROR_OUT_OF_MEMORY;
		if (!a)
			goto err;
		rc = queue_lock_until(deadline);
		if (rc) {
			ret = send_result(rc);
			goto err;
		}
		spin_lock(&inflight_lock);
		w = win_get(ctx, &spare);
		full = w && w->nasync >= CTX_ASYNC_MAX;
		if (w && !full)
			w->nasync++;	/* reserved: the window stays while this is queued */
		spin_unlock(&inflight_lock);
		if (w && !full)
			break;
		queue_unlock();
		if (!w)
			goto err;
		/*
		 * Wait until every async record this context sent so far has
		 * run: a harmless sync call in the same context.
		 */
		atomic64_inc(&lake_stats.async_barriers);
		barrier = (struct lake_wire_req){ .api = LAKE_API_MEM_GET_INFO, .ctx = ctx };
		ret = sync_until(&barrier, &call, deadline);
		if (ret) {
			kfree(a);
			kfree(spare);
			return ret;
		}
	}
	kfree(spare);
	ret = enqueue_locked(req, deadline, gen);
	spin_lock(&inflight_lock);
	if (!ret) {
		a->id = req->req_id;
		a->ctx = req->ctx;
		a->stream = req->stream;
		a->shm = names_shm(req);
		w->nshm += a->shm;
		a->win = w;
		hash_add(async_ids, &a->node, a->id);
		list_add_tail(&a->link, &w->async);
		atomic64_inc(&lake_stats.async_pending);
		a = NULL;
	} else {
		w->nasync--;
		win_put(w);
	}
	spin_unlock(&inflight_lock);
	if (!ret) {
		atomic64_inc(&lake_stats.async_queued);
		trace_lake_call_send(lake_wire_api(req->api)->name, req->ctx, req->req_id, true);
	}
	queue_unlock();
	if (ret)
		goto err_free;
	schedule_delayed_work(&queue_flush_work, 1);
	return CUDA_SUCCESS;
err:
	kfree(spare);
err_free:
	kfree(a);
	give_up(req, ret, false, gen);
	atomic64_inc(&lake_stats.errors);
	atomic64_inc(&lake_stats.api_errors[req->api]);
	return ret;
}

int lake_rpc_init(void)
{
	queue_data = kmalloc(LAKE_GENL_RECORDS_MAX, GFP_KERNEL);
	if (!queue_data)
		return -ENOMEM;
	queue.data = queue_data;
	queue.size = LAKE_GENL_RECORDS_MAX;
	queue.len = 0;
	return 0;
}

void lake_rpc_exit(void)
{
	cancel_delayed_work_sync(&queue_flush_work);
	lake_rpc_daemon_gone();
	kfree(queue_data);
	lake_latch_clear(&latch);
}
