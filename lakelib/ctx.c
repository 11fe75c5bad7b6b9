// SPDX-License-Identifier: GPL-2.0
/*
 * CUDA's current context is per calling thread. The table is keyed by task
 * and its start time, so a recycled task_struct never inherits a context;
 * entries go when their context is destroyed, set to NULL, or the daemon
 * that issued the handles leaves.
 */
#include <linux/hashtable.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "lakelib.h"

struct ctx_entry {
	struct hlist_node node;
	const struct task_struct *task;
	u64 start_time;
	u64 ctx;
};

static DEFINE_SPINLOCK(ctx_lock);
static DEFINE_HASHTABLE(ctx_table, 6);

static struct ctx_entry *find_current(void)
{
	struct ctx_entry *e;

	hash_for_each_possible(ctx_table, e, node, (unsigned long)current)
		if (e->task == current && e->start_time == current->start_time)
			return e;
	return NULL;
}

u64 lake_ctx_current(void)
{
	struct ctx_entry *e;
	u64 ctx = 0;

	spin_lock(&ctx_lock);
	e = find_current();
	if (e)
		ctx = e->ctx;
	spin_unlock(&ctx_lock);
	return ctx;
}

int lake_ctx_set_current(u64 ctx)
{
	struct ctx_entry *e, *fresh = ctx ? kmalloc(sizeof(*fresh), GFP_KERNEL) : NULL;

	if (ctx && !fresh)
		return -ENOMEM;
	spin_lock(&ctx_lock);
	e = find_current();
	if (e && ctx) {
		e->ctx = ctx;
	} else if (e) {
		hash_del(&e->node);
	} else if (ctx) {
		fresh->task = current;
		fresh->start_time = current->start_time;
		fresh->ctx = ctx;
		hash_add(ctx_table, &fresh->node, (unsigned long)current);
		fresh = NULL;
	}
	spin_unlock(&ctx_lock);
	if (e && !ctx)
		kfree(e);
	kfree(fresh);
	return 0;
}

static void forget(u64 ctx, bool all)
{
	struct ctx_entry *e;
	struct hlist_node *tmp;
	HLIST_HEAD(dead);
	unsigned int bkt;

	spin_lock(&ctx_lock);
	hash_for_each_safe(ctx_table, bkt, tmp, e, node) {
		if (all || e->ctx == ctx) {
			hash_del(&e->node);
			hlist_add_head(&e->node, &dead);
		}
	}
	spin_unlock(&ctx_lock);
	hlist_for_each_entry_safe(e, tmp, &dead, node)
		kfree(e);
}

void lake_ctx_forget(u64 ctx)
{
	forget(ctx, false);
}

void lake_ctx_reset(void)
{
	forget(0, true);
}
