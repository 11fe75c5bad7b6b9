// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's end of the command ring (uapi/lake/ring.h has the contract).
 *
 * laked asks for a ring with LAKE_CMD_RING_SETUP, naming three eventfds:
 * two it sleeps on (the kernel signals one after a put that finds laked's
 * consumer asleep: the watch one while laked says a worker watches, else
 * the main thread's) and one it writes after a put that finds the kernel's
 * consumer asleep. The ring's memory comes from lakeshm, so laked sees it
 * through its mapping of the region. From then on every CALL blob goes in a
 * submission slot instead of a message (rpc.c's flush, under queue_lock:
 * one producer), and laked's replies come in completion slots.
 *
 * The completion ring is reaped by whoever gets reap_lock first: a caller
 * spinning for its reply (only with another CPU to run laked, bounded by
 * ring_spin_us, never past need_resched(), backing off while spins miss),
 * or the wait-queue callback
 * of the kernel's eventfd, which runs in laked's own write(). Replies are
 * so delivered without a thread hand-off, in ring order, which is the order
 * laked sent them. The callback runs with the eventfd's lock held and
 * interrupts off: everything under reap_lock is atomic (lake_rpc_deliver is).
 *
 * A ring lives as long as its daemon: teardown (lake_ring_stop(), from the
 * daemon's teardown, under queue_lock) unhooks the callback, drops the
 * eventfds and gives the memory back to lakeshm once laked can no longer
 * write it (its mappings are revoked or gone by then). An impossible index
 * or length, or a malformed record, is a protocol violation: the ring stops
 * at once and the daemon is fenced from a work item.
 *
 * Lock order: queue_lock (rpc.c), then the cq eventfd's wait-queue lock,
 * then reap_lock, then the sq eventfd's (a spinner's last kick), then
 * rpc.c's inflight_lock. The three eventfds must differ (lake_ring_start).
 */
#define pr_fmt(fmt) "lakelib: " fmt

#include <linux/eventfd.h>
#include <linux/file.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <lake/compat.h>
#include <lake/ring.h>
#include <lake/shm.h>
#include "lakelib.h"

static unsigned int ring_spin_us = 200;
module_param(ring_spin_us, uint, 0644);
MODULE_PARM_DESC(ring_spin_us,
		 "How long a caller spins for its reply over the ring, with another CPU to run laked (0: never)");

/*
 * After SPIN_MISSES_MAX spins in a row that ended without their reply (the
 * calls take longer than ring_spin_us), only every SPIN_PROBE-th call spins,
 * until one gets its reply while spinning.
 */
#define SPIN_MISSES_MAX	8
#define SPIN_PROBE	16
static atomic_t spin_misses = ATOMIC_INIT(0);

static struct {
	bool live;		/* under reap_lock; set also under queue_lock */
	u64 gen;		/* the daemon it serves */
	void *base;		/* in the region */
	u64 off;
	struct lake_ring sq, cq;	/* sq: under queue_lock; cq: under reap_lock */
	struct eventfd_ctx *sq_efd, *cq_efd, *watch_efd;
	wait_queue_entry_t cq_wait;
	poll_table pt;
	unsigned int spinners;	/* under reap_lock */
} ring;

static DEFINE_SPINLOCK(reap_lock);
static DECLARE_WAIT_QUEUE_HEAD(space_wq);	/* a submission slot came free */
static u8 reap_buf[LAKE_RING_DATA_MAX] __aligned(8);	/* under reap_lock */
static u64 fence_gen;
static void fence_fn(struct work_struct *w);
static DECLARE_WORK(fence_work, fence_fn);

static void fence_fn(struct work_struct *w)
{
	lake_nl_fence(READ_ONCE(fence_gen));
}

/* reap_lock held: the ring is dead to us; its daemon is fenced. */
static void violation(const char *what, int err)
{
	lockdep_assert_held(&reap_lock);
	atomic64_inc(&lake_stats.bad_records);
	atomic64_inc(&lake_stats.ring_violations);
	pr_warn_ratelimited("ring: %s (%d); fencing laked\n", what, err);
	ring.live = false;
	WRITE_ONCE(fence_gen, ring.gen);
	schedule_work(&fence_work);
}

/* reap_lock held: deliver every completion laked has put. */
static void reap_locked(void)
{
	struct lake_wire_iter it;
	struct lake_wire_rep rep;
	u32 len;
	int ret;

	lockdep_assert_held(&reap_lock);
	while (ring.live) {
		ret = lake_ring_take(&ring.cq, reap_buf, sizeof(reap_buf), &len);
		if (ret <= 0) {
			if (ret < 0)
				violation("impossible completion index or length", ret);
			return;
		}
		atomic64_inc(&lake_stats.ring_completions);
		lake_wire_iter_init(&it, reap_buf, len);
		while ((ret = lake_wire_next_rep(&it, &rep)) > 0)
			lake_rpc_deliver(&rep);
		if (ret < 0) {
			pr_warn_ratelimited("ring: malformed reply at byte %u: %s\n", it.pos, it.why);
			violation("malformed reply record", ret);
		}
	}
}

/* laked wrote the kernel's eventfd: in its write(), the eventfd's lock held. */
static int cq_wake(wait_queue_entry_t *wait, unsigned int mode, int sync, void *key)
{
	__poll_t events = key_to_poll(key);

	if (events & EPOLLIN) {
		atomic64_inc(&lake_stats.ring_wakeups);
		spin_lock(&reap_lock);
		reap_locked();
		spin_unlock(&reap_lock);
		wake_up(&space_wq);
	}
	return 0;
}

static void cq_queue(struct file *file, wait_queue_head_t *wqh, poll_table *pt)
{
	add_wait_queue(wqh, &ring.cq_wait);
}

bool lake_ring_live(void)
{
	return READ_ONCE(ring.live);
}

/* queue_lock held: the ring stops; no callback runs after this returns. */
void lake_ring_stop(void)
{
	unsigned long flags;
	bool had;
	u64 cnt;

	spin_lock_irqsave(&reap_lock, flags);
	had = ring.base != NULL;
	ring.live = false;
	ring.spinners = 0;
	spin_unlock_irqrestore(&reap_lock, flags);
	if (!had)
		return;
	eventfd_ctx_remove_wait_queue(ring.cq_efd, &ring.cq_wait, &cnt);
	eventfd_ctx_put(ring.cq_efd);
	eventfd_ctx_put(ring.sq_efd);
	eventfd_ctx_put(ring.watch_efd);
	wake_up_all(&space_wq);
	/* The daemon's mappings are revoked or gone: nothing writes it now. */
	lake_shm_free(ring.base);
	ring.base = NULL;
	ring.sq_efd = NULL;
	ring.cq_efd = NULL;
	ring.watch_efd = NULL;
}

/*
 * queue_lock held, daemon @gen registered: set a ring up on eventfds @sq_fd,
 * @cq_fd and @watch_fd of the calling laked; its offset in the region in *@off.
 */
int lake_ring_start(u64 gen, int sq_fd, int cq_fd, int watch_fd, u64 *off)
{
	struct eventfd_ctx *sq, *cq, *watch;
	struct file *file;
	unsigned long flags;
	void *base;
	int ret;

	if (ring.base)
		return -EBUSY;
	sq = eventfd_ctx_fdget(sq_fd);
	if (IS_ERR(sq))
		return PTR_ERR(sq);
	watch = eventfd_ctx_fdget(watch_fd);
	if (IS_ERR(watch)) {
		ret = PTR_ERR(watch);
		goto err_sq;
	}
	file = fget(cq_fd);
	ret = -EBADF;
	if (!file)
		goto err_watch;
	cq = eventfd_ctx_fileget(file);
	if (IS_ERR(cq)) {
		ret = PTR_ERR(cq);
		goto err_file;
	}
	/*
	 * The kernel's eventfd as one of laked's would make its wakeup recurse
	 * into its own callback; the watch as the main thread's would wake both.
	 */
	ret = -EINVAL;
	if (cq == sq || cq == watch || sq == watch)
		goto err_cq;
	base = lake_shm_alloc_aligned(LAKE_RING_BYTES, PAGE_SIZE);
	ret = -ENOMEM;
	if (!base)
		goto err_cq;
	ret = lake_shm_ptr_to_off(base, LAKE_RING_BYTES, &ring.off);
	if (ret)
		goto err_free;
	memset(base, 0, LAKE_RING_BYTES);
	lake_ring_init(&ring.sq, base, true);
	lake_ring_init(&ring.cq, base, false);
	lake_ring_sleeping(&ring.cq, true);	/* no caller spins yet */
	ring.base = base;
	ring.sq_efd = sq;
	ring.cq_efd = cq;
	ring.watch_efd = watch;
	ring.gen = gen;
	ring.spinners = 0;
	init_waitqueue_func_entry(&ring.cq_wait, cq_wake);
	init_poll_funcptr(&ring.pt, cq_queue);
	spin_lock_irqsave(&reap_lock, flags);
	ring.live = true;
	spin_unlock_irqrestore(&reap_lock, flags);
	vfs_poll(file, &ring.pt);
	fput(file);
	*off = ring.off;
	return 0;
err_free:
	lake_shm_free(base);
err_cq:
	eventfd_ctx_put(cq);
err_file:
	fput(file);
err_watch:
	eventfd_ctx_put(watch);
err_sq:
	eventfd_ctx_put(sq);
	return ret;
}

static bool sq_has_room(void)
{
	return !READ_ONCE(ring.live) ||
	       ring.sq.pos - lake_read_once(ring.sq.dir->head) < LAKE_RING_ENTRIES;
}

/*
 * queue_lock held: put @blob in a submission slot of daemon @gen's ring
 * before @deadline and wake laked if it sleeps. 0, -EAGAIN (no ring for
 * @gen: send it as a message), -ETIMEDOUT, -EINTR, -ENOTCONN (the ring
 * stopped meanwhile), -EPROTO (laked's head is impossible).
 */
int lake_ring_send(u64 gen, const void *blob, u32 len, unsigned long deadline)
{
	unsigned long flags;
	long left;
	int ret;

	if (!READ_ONCE(ring.live) || ring.gen != gen)
		return -EAGAIN;
	for (;;) {
		ret = lake_ring_put(&ring.sq, blob, len);
		if (ret != -ENOSPC)
			break;
		lake_ring_want_space(&ring.sq, true);
		ret = lake_ring_put(&ring.sq, blob, len);
		if (ret != -ENOSPC) {
			lake_ring_want_space(&ring.sq, false);
			break;
		}
		atomic64_inc(&lake_stats.ring_full);
		lake_eventfd_signal(ring.sq_efd);
		left = wait_event_killable_timeout(space_wq, sq_has_room(),
						   lake_jiffies_left(deadline));
		lake_ring_want_space(&ring.sq, false);
		if (left <= 0)
			return left ? -EINTR : -ETIMEDOUT;
		if (!READ_ONCE(ring.live))
			return -ENOTCONN;
	}
	if (ret == -EPROTO) {
		spin_lock_irqsave(&reap_lock, flags);
		if (ring.live)
			violation("impossible submission head", ret);
		spin_unlock_irqrestore(&reap_lock, flags);
		return ret;
	}
	if (ret)
		return ret;
	atomic64_inc(&lake_stats.ring_submissions);
	if (lake_ring_consumer_sleeps(&ring.sq)) {
		atomic64_inc(&lake_stats.ring_kicks);
		/* A hint from laked: a wrong one costs a wakeup or the spin's kick. */
		lake_eventfd_signal(lake_ring_consumer_watched(&ring.sq) ? ring.watch_efd :
									    ring.sq_efd);
	}
	return 0;
}

/*
 * reap_lock held, @done's caller about to sleep: laked has not even taken
 * every call, yet its consumer looked awake at the put (so nothing was
 * signalled): that consumer is a worker busy with a long job of its own.
 * Wake laked's main thread, which takes the rest.
 */
static void kick_untaken(struct completion *done)
{
	lockdep_assert_held(&reap_lock);
	if (!completion_done(done) && ring.live &&
	    lake_read_once(ring.sq.dir->head) != READ_ONCE(ring.sq.pos) &&
	    !lake_ring_consumer_sleeps(&ring.sq)) {
		atomic64_inc(&lake_stats.ring_kicks);
		lake_eventfd_signal(ring.sq_efd);
	}
}

/*
 * A caller whose record went over the ring, before it sleeps on @done:
 * spin for the reply, reaping, while that can pay: another CPU online to
 * run laked (woken by the put if it slept), nothing else wanting this CPU,
 * no more than ring_spin_us, and not while spins keep missing (long calls).
 * While any caller spins the kernel's consumer is awake (laked then skips
 * the eventfd write); the last one to stop marks it asleep and reaps once
 * more, for a reply put before laked saw that. A reply that comes while
 * the caller spins is what keeps both sides awake from call to call. A
 * caller that does not spin with another CPU online (ring_spin_us 0, or
 * spins missing) still wakes laked if its call sits untaken (kick_untaken).
 */
void lake_ring_spin(struct completion *done)
{
	u64 budget = (u64)READ_ONCE(ring_spin_us) * NSEC_PER_USEC, t0;
	unsigned long flags;
	int misses;

	if (num_online_cpus() < 2 || !READ_ONCE(ring.live))
		return;
	misses = atomic_read(&spin_misses);
	if (!budget ||
	    (misses >= SPIN_MISSES_MAX && atomic_inc_return(&spin_misses) % SPIN_PROBE)) {
		spin_lock_irqsave(&reap_lock, flags);
		kick_untaken(done);
		spin_unlock_irqrestore(&reap_lock, flags);
		return;
	}
	spin_lock_irqsave(&reap_lock, flags);
	if (!ring.live) {
		spin_unlock_irqrestore(&reap_lock, flags);
		return;
	}
	if (!ring.spinners++)
		lake_ring_sleeping(&ring.cq, false);
	spin_unlock_irqrestore(&reap_lock, flags);
	atomic64_inc(&lake_stats.ring_spins);
	t0 = ktime_get_ns();
	while (!completion_done(done)) {
		if (need_resched() || fatal_signal_pending(current) ||
		    ktime_get_ns() - t0 > budget)
			break;
		if (spin_trylock_irqsave(&reap_lock, flags)) {
			reap_locked();
			spin_unlock_irqrestore(&reap_lock, flags);
		}
		cpu_relax();
	}
	spin_lock_irqsave(&reap_lock, flags);
	if (ring.spinners && !--ring.spinners && ring.live)
		lake_ring_sleeping(&ring.cq, true);
	reap_locked();
	kick_untaken(done);
	spin_unlock_irqrestore(&reap_lock, flags);
	if (completion_done(done)) {
		atomic64_inc(&lake_stats.ring_spin_hits);
		atomic_set(&spin_misses, 0);
	} else if (atomic_read(&spin_misses) < SPIN_MISSES_MAX) {
		atomic_inc(&spin_misses);
	}
}

void lake_ring_exit(void)
{
	flush_work(&fence_work);
}
