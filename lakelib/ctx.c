// SPDX-License-Identifier: GPL-2.0
/*
 * CUDA's current context is per calling thread. The table is keyed by the
 * thread's struct pid, of which each entry holds a reference: a struct pid
 * is never given to another task while referenced, so a new thread never
 * inherits an exited one's context. The kernel tells modules nothing when a
 * task exits, so entries of dead tasks are pruned: by every insertion once
 * the table has doubled since the last prune (amortized O(1), and the table
 * stays within twice the live threads that set a context), and when the
 * count is read: there a little at a time (COUNT_PRUNE entries, from where
 * the last read stopped), since any user may ask for the count (lakectl
 * stats) and every API call takes the same lock. Entries also go when their context is destroyed, set to
 * NULL, or the daemon that issued the handles leaves.
 *
 * A workqueue worker runs many modules' work items: there an entry also
 * records the work item it was set in, and reads as "no context" in any
 * other, so one module's context never leaks into another's work. Work
 * functions set their context at the start, as threads do in CUDA.
 */
#include <linux/hashtable.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include "lakelib.h"

#define PRUNE_MIN	64U
#define COUNT_PRUNE	256U	/* entries one count looks at */

struct ctx_entry {
	struct hlist_node node;
	struct pid *pid;			/* a reference */
	const struct work_struct *work;		/* set in this work item; NULL: a thread */
	u64 ctx;
};

static DEFINE_SPINLOCK(ctx_lock);
static DEFINE_HASHTABLE(ctx_table, 6);
static unsigned int nentries, prune_at = PRUNE_MIN;
static unsigned int count_bkt, count_pos;	/* where the last count stopped */

static struct ctx_entry *find_current(void)
{
	struct pid *pid = task_pid(current);
	struct ctx_entry *e;

	hash_for_each_possible(ctx_table, e, node, (unsigned long)pid)
		if (e->pid == pid)
			return e;
	return NULL;
}

/* Move entries that match to @dead; ctx_lock held. */
static void collect(struct hlist_head *dead, bool (*match)(struct ctx_entry *e, u64 ctx),
		    u64 ctx)
{
	struct ctx_entry *e;
	struct hlist_node *tmp;
	unsigned int bkt;

	hash_for_each_safe(ctx_table, bkt, tmp, e, node) {
		if (match(e, ctx)) {
			hash_del(&e->node);
			hlist_add_head(&e->node, dead);
			nentries--;
		}
	}
}

static void free_dead(struct hlist_head *dead)
{
	struct ctx_entry *e;
	struct hlist_node *tmp;

	hlist_for_each_entry_safe(e, tmp, dead, node) {
		put_pid(e->pid);
		kfree(e);
	}
}

static bool task_gone(struct ctx_entry *e, u64 unused)
{
	bool gone;

	rcu_read_lock();
	gone = !pid_task(e->pid, PIDTYPE_PID);
	rcu_read_unlock();
	return gone;
}

/* ctx_lock held. */
static void prune_locked(struct hlist_head *dead)
{
	collect(dead, task_gone, 0);
	prune_at = max(PRUNE_MIN, 2 * nentries);
}

u64 lake_ctx_current(void)
{
	struct ctx_entry *e;
	u64 ctx = 0;

	spin_lock(&ctx_lock);
	e = find_current();
	if (e && e->work == current_work())
		ctx = e->ctx;
	spin_unlock(&ctx_lock);
	return ctx;
}

int lake_ctx_set_current(u64 ctx)
{
	struct ctx_entry *e, *fresh = NULL;
	HLIST_HEAD(dead);

	if (ctx) {
		fresh = lake_alloc_fault() ? NULL : kmalloc(sizeof(*fresh), GFP_KERNEL);
		if (!fresh)
			return -ENOMEM;
		fresh->pid = get_task_pid(current, PIDTYPE_PID);
		fresh->work = current_work();
		fresh->ctx = ctx;
	}
	spin_lock(&ctx_lock);
	e = find_current();
	if (e && ctx) {
		e->ctx = ctx;
		e->work = fresh->work;
	} else if (e) {
		hash_del(&e->node);
		hlist_add_head(&e->node, &dead);
		nentries--;
	} else if (ctx) {
		hash_add(ctx_table, &fresh->node, (unsigned long)fresh->pid);
		fresh = NULL;
		if (++nentries >= prune_at)
			prune_locked(&dead);
	}
	spin_unlock(&ctx_lock);
	free_dead(&dead);
	if (fresh) {
		put_pid(fresh->pid);
		kfree(fresh);
	}
	return 0;
}

/* ctx_lock held: look at up to COUNT_PRUNE entries, from where the last call stopped. */
static void prune_some(struct hlist_head *dead)
{
	unsigned int seen = 0, buckets = 0, pos;
	struct ctx_entry *e;
	struct hlist_node *tmp;

	while (seen < COUNT_PRUNE && buckets++ < HASH_SIZE(ctx_table)) {
		pos = 0;
		hlist_for_each_entry_safe(e, tmp, &ctx_table[count_bkt], node) {
			if (pos++ < count_pos)
				continue;
			if (seen++ == COUNT_PRUNE)
				break;
			if (task_gone(e, 0)) {
				hash_del(&e->node);
				hlist_add_head(&e->node, dead);
				nentries--;
				pos--;
			}
		}
		if (seen > COUNT_PRUNE) {
			count_pos = pos - 1;
			return;
		}
		count_bkt = (count_bkt + 1) % HASH_SIZE(ctx_table);
		count_pos = 0;
	}
}

unsigned int lake_ctx_count(void)
{
	unsigned int n;
	HLIST_HEAD(dead);

	spin_lock(&ctx_lock);
	prune_some(&dead);
	n = nentries;
	spin_unlock(&ctx_lock);
	free_dead(&dead);
	return n;
}

static bool same_ctx(struct ctx_entry *e, u64 ctx)
{
	return e->ctx == ctx;
}

static bool any(struct ctx_entry *e, u64 unused)
{
	return true;
}

void lake_ctx_forget(u64 ctx)
{
	HLIST_HEAD(dead);

	spin_lock(&ctx_lock);
	collect(&dead, same_ctx, ctx);
	spin_unlock(&ctx_lock);
	free_dead(&dead);
}

void lake_ctx_reset(void)
{
	HLIST_HEAD(dead);

	spin_lock(&ctx_lock);
	collect(&dead, any, 0);
	prune_at = PRUNE_MIN;
	spin_unlock(&ctx_lock);
	free_dead(&dead);
}
