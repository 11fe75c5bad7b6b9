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
 */
#define pr_fmt(fmt) "lakelib: " fmt

#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <lake/latch.h>
#include "lakelib.h"

#define ASYNC_MAX	1024	/* async records in flight before a barrier */

struct async_rec {
	u64 id, ctx, stream;
};

static DEFINE_MUTEX(queue_lock);	/* queue, id allocation, send order */
static u8 *queue_data;
static struct lake_wire_buf queue;
static u64 next_id = 1;
static void queue_flush_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(queue_flush_work, queue_flush_fn);

static DEFINE_SPINLOCK(inflight_lock);	/* everything below */
static DEFINE_HASHTABLE(inflight, 8);
static struct async_rec async_ring[ASYNC_MAX];
static unsigned int async_head, async_count;	/* oldest at head */
static struct lake_latch latch;

/* Send what is queued. Queue lock held. */
static int flush_locked(void)
{
	int ret;

	if (!queue.len)
		return 0;
	ret = lake_nl_send_call(queue.data, queue.len);
	queue.len = 0;
	if (!ret)
		atomic64_inc(&lake_stats.messages);
	return ret;
}

void lake_rpc_flush(void)
{
	int ret;

	mutex_lock(&queue_lock);
	ret = flush_locked();
	mutex_unlock(&queue_lock);
	if (ret)
		pr_warn_ratelimited("flush of queued async calls failed: %d\n", ret);
}

static void queue_flush_fn(struct work_struct *w)
{
	lake_rpc_flush();
}

/* Give @req an id and append it, sending the queue first if it is full. */
static CUresult enqueue_locked(struct lake_wire_req *req)
{
	const char *why = "";
	int ret;

	req->req_id = next_id++;
	ret = lake_wire_put_req(&queue, req, &why);
	if (ret == -EMSGSIZE && queue.len) {
		ret = flush_locked();
		if (ret)
			return ret == -ENOTCONN ? LAKE_ERR_NO_DAEMON : LAKE_ERR_DAEMON_LOST;
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

CUresult lake_rpc_take_latched(u64 ctx, u64 stream, bool whole_ctx)
{
	u32 result;

	spin_lock(&inflight_lock);
	result = lake_latch_take(&latch, ctx, stream, whole_ctx);
	spin_unlock(&inflight_lock);
	return result;
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
		lake_latch_error(&latch, a->ctx, a->stream,
				 rep->result ? rep->result : CUDA_ERROR_UNKNOWN);
		atomic64_inc(&lake_stats.async_errors);
		a->id = 0;	/* answered; retire_before() drops it in order */
		spin_unlock(&inflight_lock);
		return;
	}
	spin_unlock(&inflight_lock);
	atomic64_inc(&lake_stats.stray_replies);
	pr_debug("reply %llu matches no call (timed out?)\n", rep->req_id);
}

/* laked went away or unregistered: nothing in flight will be answered. */
void lake_rpc_fail_all(u32 result)
{
	struct lake_call *call;
	struct hlist_node *tmp;
	unsigned int bkt;

	spin_lock(&inflight_lock);
	hash_for_each_safe(inflight, bkt, tmp, call, node) {
		call->result = result;
		hash_del(&call->node);
		complete(&call->done);
	}
	async_head = 0;
	async_count = 0;
	lake_latch_clear(&latch);
	spin_unlock(&inflight_lock);
}

CUresult lake_rpc_sync(struct lake_wire_req *req, struct lake_call *call)
{
	unsigned long timeout = msecs_to_jiffies(lake_timeout_ms);
	CUresult ret;
	long rc;

	if (!lake_nl_daemon()) {
		atomic64_inc(&lake_stats.no_daemon);
		return LAKE_ERR_NO_DAEMON;
	}
	atomic64_inc(&lake_stats.calls[req->api]);
	init_completion(&call->done);
	call->req = req;
	call->result = CUDA_ERROR_UNKNOWN;
	call->tail_len = 0;

	mutex_lock(&queue_lock);
	ret = enqueue_locked(req);
	if (ret) {
		mutex_unlock(&queue_lock);
		return ret;
	}
	call->id = req->req_id;
	spin_lock(&inflight_lock);
	hash_add(inflight, &call->node, call->id);
	spin_unlock(&inflight_lock);
	atomic64_inc(&lake_stats.in_flight);
	rc = flush_locked();
	mutex_unlock(&queue_lock);
	if (rc) {
		/* Not sent: nobody will answer. */
		ret = rc == -ENOTCONN ? LAKE_ERR_NO_DAEMON : LAKE_ERR_DAEMON_LOST;
		goto unhash;
	}

	rc = wait_for_completion_killable_timeout(&call->done, timeout);
	if (rc > 0) {
		ret = call->result;
		goto out;
	}
	ret = rc == 0 ? LAKE_ERR_TIMEOUT : LAKE_ERR_KILLED;
	if (rc == 0) {
		atomic64_inc(&lake_stats.timeouts);
		pr_warn_ratelimited("%s: no reply from laked in %u ms\n",
				    lake_wire_api(req->api)->name, lake_timeout_ms);
	} else {
		atomic64_inc(&lake_stats.killed);
	}
unhash:
	spin_lock(&inflight_lock);
	if (hash_hashed(&call->node))
		hash_del(&call->node);
	else
		ret = call->result;	/* answered while we gave up */
	spin_unlock(&inflight_lock);
out:
	atomic64_dec(&lake_stats.in_flight);
	if (ret != CUDA_SUCCESS)
		atomic64_inc(&lake_stats.errors);
	return ret;
}

/* Wait until every async record sent so far has run. */
static CUresult async_barrier(void)
{
	struct lake_wire_req req = { .api = LAKE_API_DRIVER_GET_VERSION };
	struct lake_call call;

	return lake_rpc_sync(&req, &call);
}

CUresult lake_rpc_async(struct lake_wire_req *req)
{
	struct async_rec *a;
	CUresult ret;
	bool full;

	if (!lake_nl_daemon()) {
		atomic64_inc(&lake_stats.no_daemon);
		return LAKE_ERR_NO_DAEMON;
	}
	atomic64_inc(&lake_stats.calls[req->api]);
	req->flags |= LAKE_WIRE_REQ_F_NOREPLY;
	for (;;) {
		mutex_lock(&queue_lock);
		spin_lock(&inflight_lock);
		full = async_count == ASYNC_MAX;
		spin_unlock(&inflight_lock);
		if (!full)
			break;
		mutex_unlock(&queue_lock);
		ret = async_barrier();
		if (ret)
			return ret;
	}
	ret = enqueue_locked(req);
	if (!ret) {
		spin_lock(&inflight_lock);
		a = &async_ring[(async_head + async_count) % ASYNC_MAX];
		a->id = req->req_id;
		a->ctx = req->ctx;
		a->stream = req->stream;
		async_count++;
		spin_unlock(&inflight_lock);
		atomic64_inc(&lake_stats.async_queued);
	}
	mutex_unlock(&queue_lock);
	if (ret) {
		atomic64_inc(&lake_stats.errors);
		return ret;
	}
	schedule_delayed_work(&queue_flush_work, 1);
	return CUDA_SUCCESS;
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
}
