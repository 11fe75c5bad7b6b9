// SPDX-License-Identifier: GPL-2.0
/*
 * Calls to laked: the send queue, the in-flight table, and CUDA's async
 * error semantics.
 *
 * Every record goes through one queue, and request ids are taken under the
 * queue lock, so id order is wire order; laked executes and answers in that
 * order. Async records (flagged NOREPLY) wait in the queue until a sync call
 * or a short delayed flush sends them, so N launches and one synchronize
 * cost one message. laked answers an async record only when it fails; the
 * error is latched for its (context, stream) and returned by the next
 * synchronizing call there, as the real driver does. When a sync reply with
 * id S arrives, every async record before S has run: one that did not fail
 * by then never will, so it is retired.
 *
 * Nothing is lost silently: a queue that cannot be sent latches an error
 * for each async record in it, and the latch grows rather than drop one.
 * One API call has one deadline, timeout_ms from its start, that bounds its
 * wait for the queue lock, its send and its reply; every wait is killable.
 * A call given up before its reply (timeout or fatal signal) fences laked
 * (netlink.c) before it returns, so no late execution can touch the
 * caller's buffers.
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

#define ASYNC_MAX	1024	/* async records in flight before a barrier */

struct async_rec {
	u64 id, ctx, stream;
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
static struct async_rec async_ring[ASYNC_MAX];
static unsigned int async_head, async_count;	/* oldest at head */
static struct lake_latch latch = { .tail = &latch.head };

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

/* inflight_lock held (include/lake/latch.h has the rules). */
static void latch_error(u64 ctx, u64 stream, u64 id, u32 result)
{
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

/*
 * The queue could not be sent: every async record in it latches @result,
 * and is answered as far as retire_before() is concerned. Both locks held.
 */
static void drop_queued(u32 result)
{
	unsigned int i, dropped = 0;
	struct async_rec *a;

	for (i = 0; i < async_count; i++) {
		a = &async_ring[(async_head + i) % ASYNC_MAX];
		if (a->id < queue_first)
			continue;
		latch_error(a->ctx, a->stream, a->id, result);
		a->id = 0;
		dropped++;
	}
	atomic64_add(dropped, &lake_stats.async_dropped);
}

/* Send what is queued, before @deadline; the daemon it went to in @gen. */
static int flush_locked(unsigned long deadline, u64 *gen)
{
	int ret;

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

/* Give @req an id and append it, sending the queue first if it is full. */
static CUresult enqueue_locked(struct lake_wire_req *req, unsigned long deadline)
{
	const char *why = "";
	u64 gen;
	int ret;

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

static void retire_before(u64 id)
{
	while (async_count && async_ring[async_head].id < id) {
		async_head = (async_head + 1) % ASYNC_MAX;
		async_count--;
	}
}

/* A reply from laked, already validated by the codec. */
void lake_rpc_deliver(const struct lake_wire_rep *rep)
{
	struct lake_call *call;
	const char *why = "";
	unsigned int i;

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
		retire_before(rep->req_id);
		hash_del(&call->node);
		/* Under the lock: once unhashed, the waiter may return at once. */
		complete(&call->done);
		spin_unlock(&inflight_lock);
		return;
	}
	for (i = 0; i < async_count; i++) {
		struct async_rec *a = &async_ring[(async_head + i) % ASYNC_MAX];

		if (a->id != rep->req_id)
			continue;
		latch_error(a->ctx, a->stream, a->id, rep->result ? rep->result : CUDA_ERROR_UNKNOWN);
		atomic64_inc(&lake_stats.async_errors);
		a->id = 0;	/* answered; retire_before() drops it in order */
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
	unsigned int bkt;

	mutex_lock(&queue_lock);
	spin_lock(&inflight_lock);
	hash_for_each_safe(inflight, bkt, tmp, call, node) {
		call->result = LAKE_ERR_DAEMON_LOST;
		hash_del(&call->node);
		complete(&call->done);
	}
	async_head = 0;
	async_count = 0;
	latch_clear();
	spin_unlock(&inflight_lock);
	queue.len = 0;
	queue_unlock();
}

/*
 * A call given up with a timeout, or killed after its record went out:
 * fence the daemon that may still run it, before the caller sees @ret.
 */
static void give_up(const struct lake_wire_req *req, CUresult ret, bool sent, u64 gen)
{
	if (ret != LAKE_ERR_TIMEOUT && !(ret == LAKE_ERR_KILLED && sent))
		return;
	atomic64_inc(ret == LAKE_ERR_TIMEOUT ? &lake_stats.timeouts : &lake_stats.killed);
	pr_warn_ratelimited("%s: %s; fencing laked\n", lake_wire_api(req->api)->name,
			    ret == LAKE_ERR_TIMEOUT ? "no reply within timeout_ms" :
			    "caller killed while laked held its call");
	lake_nl_fence(gen);
}

/*
 * A sync call in two halves, so a caller can have several records in flight
 * (stage.c keeps a chunk in transfer while it fills the next). Submit
 * queues and sends @req with @deadline; lake_rpc_wait() must follow,
 * whatever happened, and returns the call's result: a failed submit's, or
 * laked's reply, bounded by the same deadline, killable, fencing laked when
 * given up. Without a daemon the call fails at once and counts no error.
 */
void lake_rpc_submit(struct lake_wire_req *req, struct lake_call *call, unsigned long deadline)
{
	long rc;

	call->gen = lake_nl_gen();
	call->deadline = deadline;
	call->t0 = ktime_get_ns();
	call->sent = false;
	call->tracked = false;
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

	rc = queue_lock_until(deadline);
	if (rc) {
		call->early = send_result(rc);
		return;
	}
	call->early = enqueue_locked(req, deadline);
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
	u64 gen = lake_nl_gen();
	struct lake_wire_req barrier;
	struct lake_call call;
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
	for (;;) {
		rc = queue_lock_until(deadline);
		if (rc) {
			ret = send_result(rc);
			goto err;
		}
		spin_lock(&inflight_lock);
		full = async_count == ASYNC_MAX;
		spin_unlock(&inflight_lock);
		if (!full)
			break;
		queue_unlock();
		/* Wait until every async record sent so far has run. */
		barrier = (struct lake_wire_req){ .api = LAKE_API_DRIVER_GET_VERSION };
		ret = sync_until(&barrier, &call, deadline);
		if (ret)
			return ret;
	}
	ret = enqueue_locked(req, deadline);
	if (!ret) {
		spin_lock(&inflight_lock);
		a = &async_ring[(async_head + async_count) % ASYNC_MAX];
		a->id = req->req_id;
		a->ctx = req->ctx;
		a->stream = req->stream;
		async_count++;
		spin_unlock(&inflight_lock);
		atomic64_inc(&lake_stats.async_queued);
		trace_lake_call_send(lake_wire_api(req->api)->name, req->ctx, req->req_id, true);
	}
	queue_unlock();
	if (ret)
		goto err;
	schedule_delayed_work(&queue_flush_work, 1);
	return CUDA_SUCCESS;
err:
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
	kfree(queue_data);
	lake_latch_clear(&latch);
}
