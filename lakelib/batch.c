// SPDX-License-Identifier: GPL-2.0
/*
 * The batching helper (include/lake/batch.h).
 *
 * Requests live on their submitters' stacks. The open batch is a list of
 * them; closing it detaches the list, marks every request taken and names
 * one closer. From then on only the closer touches the list, and each
 * request stays on it until the closer completes it. The closer sets the
 * result and completes under b->lock, and a waiter that was woken any other
 * way takes b->lock before it looks at its state, so no completion is ever
 * signalled on a stack frame that has returned.
 *
 * The item array of the last batch run is kept as a spare: a steady stream
 * of batches allocates nothing.
 *
 * The window timer is a soft hrtimer: its callback runs in softirq context
 * (a thread on PREEMPT_RT), where b->lock, a spinlock_t that sleeps on RT
 * and walks up to max_batch requests, may be taken. A hard timer would need
 * a raw spinlock held with interrupts off across those walks.
 */
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <lake/batch.h>

enum req_state {
	REQ_OPEN,	/* in the open batch */
	REQ_TAKEN,	/* in a closed batch: the closer will complete it */
	REQ_CLOSER,	/* must run its batch */
	REQ_DONE,	/* result set */
};

struct batch_req {
	struct list_head node;
	void *item;
	struct completion done;
	struct lake_batch *batch;
	enum req_state state;
	int result;
};

struct lake_batch {
	struct list_head reqs;	/* arrival order */
	u32 n;
	ktime_t deadline;
	void *items[];		/* max_batch, filled by the closer */
};

struct lake_batcher {
	spinlock_t lock;	/* bh-safe: the window timer's softirq takes it */
	struct lake_fallback *fb;
	lake_batch_run_t run;
	void *arg;
	u32 max_batch;
	u64 window_ns;
	struct hrtimer timer;
	struct lake_batch *open;
	struct lake_batch *spare;
	struct lake_batcher_stats stats;
};

static struct lake_batch *batch_alloc(u32 max_batch)
{
	struct lake_batch *batch;

	return kvmalloc(struct_size(batch, items, max_batch), GFP_KERNEL);
}

/* Keep @batch as the spare if there is none; else the caller frees it. */
static struct lake_batch *keep_spare(struct lake_batcher *b,
				     struct lake_batch *batch)
{
	if (b->spare)
		return batch;
	b->spare = batch;
	return NULL;
}

/* b->lock held, b->spare set. */
static void open_batch(struct lake_batcher *b)
{
	struct lake_batch *batch = b->spare;

	b->spare = NULL;
	INIT_LIST_HEAD(&batch->reqs);
	batch->n = 0;
	batch->deadline = ktime_add_ns(ktime_get(), b->window_ns);
	b->open = batch;
	if (b->window_ns)
		hrtimer_start(&b->timer, batch->deadline, HRTIMER_MODE_ABS_SOFT);
}

/* Detach the open batch and make @closer run it; b->lock held. */
static void close_batch(struct lake_batcher *b, struct batch_req *closer)
{
	struct batch_req *req;

	list_for_each_entry(req, &b->open->reqs, node)
		req->state = REQ_TAKEN;
	closer->state = REQ_CLOSER;
	b->open = NULL;
	/* If the callback is running, it finds no batch or a later deadline. */
	hrtimer_try_to_cancel(&b->timer);
}

static enum hrtimer_restart window_expired(struct hrtimer *timer)
{
	struct lake_batcher *b = container_of(timer, struct lake_batcher, timer);
	struct batch_req *first;

	spin_lock(&b->lock);
	if (b->open && ktime_compare(ktime_get(), b->open->deadline) >= 0) {
		first = list_first_entry(&b->open->reqs, struct batch_req, node);
		close_batch(b, first);
		b->stats.closed_window++;
		complete(&first->done);
	}
	spin_unlock(&b->lock);
	return HRTIMER_NORESTART;
}

/* Run on the side the policy picks, again on the CPU if the GPU fails. */
static int run_items(struct lake_batcher *b, void **items, u32 n)
{
	enum lake_target side = lake_fallback_choose(b->fb, n);
	bool rerun = false;
	u64 t0, ns;
	int ret;

	t0 = ktime_get_ns();
	ret = b->run(b->arg, side, items, n);
	ns = ktime_get_ns() - t0;
	if (side == LAKE_TARGET_GPU && ret) {
		lake_fallback_report_gpu_error(b->fb);
		rerun = true;
		side = LAKE_TARGET_CPU;
		t0 = ktime_get_ns();
		ret = b->run(b->arg, side, items, n);
		ns = ktime_get_ns() - t0;
	}
	if (!ret && side == LAKE_TARGET_GPU)
		lake_fallback_report_gpu(b->fb, n, ns);
	else if (!ret)
		lake_fallback_report_cpu(b->fb, n, ns);

	spin_lock_bh(&b->lock);
	b->stats.batches++;
	b->stats.gpu_reruns += rerun;
	if (ret)
		b->stats.failed++;
	else if (side == LAKE_TARGET_GPU)
		b->stats.gpu_batches++;
	else
		b->stats.cpu_batches++;
	spin_unlock_bh(&b->lock);
	return ret;
}

static int run_batch(struct lake_batcher *b, struct batch_req *self)
{
	struct lake_batch *batch = self->batch;
	struct batch_req *req, *next;
	u32 n = 0;
	int ret;

	list_for_each_entry(req, &batch->reqs, node)
		batch->items[n++] = req->item;
	ret = run_items(b, batch->items, n);

	spin_lock_bh(&b->lock);
	list_for_each_entry_safe(req, next, &batch->reqs, node) {
		if (req == self)
			continue;
		req->result = ret;
		req->state = REQ_DONE;
		complete(&req->done);
	}
	batch = keep_spare(b, batch);
	spin_unlock_bh(&b->lock);
	kvfree(batch);
	return ret;
}

/* Leave the open batch on a fatal signal; b->lock held, released. */
static int leave_batch(struct lake_batcher *b, struct batch_req *req)
	__releases(&b->lock)
{
	struct lake_batch *batch = req->batch;

	list_del(&req->node);
	b->stats.left++;
	if (--batch->n) {
		batch = NULL;
	} else {
		b->open = NULL;
		hrtimer_try_to_cancel(&b->timer);
		batch = keep_spare(b, batch);
	}
	spin_unlock_bh(&b->lock);
	kvfree(batch);
	return -EINTR;
}

static int wait_batch(struct lake_batcher *b, struct batch_req *req)
{
	bool killed = false;
	s64 left_ns;
	long ret;

	for (;;) {
		spin_lock_bh(&b->lock);
		switch (req->state) {
		case REQ_CLOSER:
			spin_unlock_bh(&b->lock);
			return run_batch(b, req);
		case REQ_DONE:
			spin_unlock_bh(&b->lock);
			return req->result;
		case REQ_TAKEN:
			spin_unlock_bh(&b->lock);
			/* The item is in use: wait for the run (batch.h). */
			wait_for_completion(&req->done);
			return req->result;
		case REQ_OPEN:
			break;
		}
		if (killed)
			return leave_batch(b, req);
		left_ns = ktime_to_ns(ktime_sub(req->batch->deadline, ktime_get()));
		if (left_ns <= 0) {
			/* The timer is late: close the batch ourselves. */
			close_batch(b, req);
			b->stats.closed_window++;
			spin_unlock_bh(&b->lock);
			continue;
		}
		spin_unlock_bh(&b->lock);
		ret = wait_for_completion_killable_timeout(&req->done,
							   nsecs_to_jiffies(left_ns) + 1);
		killed = ret < 0;
	}
}

int lake_batcher_submit(struct lake_batcher *b, void *item)
{
	struct batch_req req = { .item = item, .state = REQ_OPEN };
	struct lake_batch *fresh = NULL;

	might_sleep();
	init_completion(&req.done);
	spin_lock_bh(&b->lock);
	b->stats.items++;
	if (!b->open && !b->spare) {
		spin_unlock_bh(&b->lock);
		fresh = batch_alloc(b->max_batch);
		spin_lock_bh(&b->lock);
		if (fresh)
			fresh = keep_spare(b, fresh);
		if (!b->open && !b->spare) {
			b->stats.alone++;
			spin_unlock_bh(&b->lock);
			return run_items(b, &item, 1);
		}
	}
	if (!b->open)
		open_batch(b);
	req.batch = b->open;
	list_add_tail(&req.node, &req.batch->reqs);
	if (++req.batch->n == b->max_batch || !b->window_ns) {
		close_batch(b, &req);
		b->stats.closed_full++;
	}
	spin_unlock_bh(&b->lock);
	/* Another submitter supplied the batch while we allocated. */
	kvfree(fresh);
	return wait_batch(b, &req);
}
EXPORT_SYMBOL_GPL(lake_batcher_submit);

struct lake_batcher *lake_batcher_create(struct lake_fallback *fb,
					 lake_batch_run_t run, void *arg)
{
	struct lake_batcher *b;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&b->lock);
	b->fb = fb;
	b->run = run;
	b->arg = arg;
	b->max_batch = lake_fallback_max_batch(fb);
	b->window_ns = b->max_batch > 1 ? lake_fallback_window_ns(fb) : 0;
	b->spare = batch_alloc(b->max_batch);
	if (!b->spare) {
		kfree(b);
		return ERR_PTR(-ENOMEM);
	}
	hrtimer_init(&b->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	b->timer.function = window_expired;
	return b;
}
EXPORT_SYMBOL_GPL(lake_batcher_create);

void lake_batcher_destroy(struct lake_batcher *b)
{
	if (!b)
		return;
	hrtimer_cancel(&b->timer);
	kvfree(b->spare);
	kfree(b);
}
EXPORT_SYMBOL_GPL(lake_batcher_destroy);

void lake_batcher_get_stats(struct lake_batcher *b,
			    struct lake_batcher_stats *st)
{
	spin_lock_bh(&b->lock);
	*st = b->stats;
	spin_unlock_bh(&b->lock);
}
EXPORT_SYMBOL_GPL(lake_batcher_get_stats);
