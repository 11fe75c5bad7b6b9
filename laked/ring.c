// SPDX-License-Identifier: GPL-2.0
/*
 * laked's end of the command ring (uapi/lake/ring.h has the contract; the
 * kernel's end is lakelib/ring.c).
 *
 * The submission ring has one consumer at a time (take_lock): the main
 * thread, woken by its eventfd, or an idle worker. Each blob is copied out
 * of its slot and handed to the pool exactly as a CALL message's records
 * (laked_pool_submit: the codec validates every record). A worker that
 * runs out of jobs spins, on a machine with more than one CPU only, for up
 * to spin_us: it drains the ring whenever it can take it, and stops as soon
 * as a job of its own comes, so the next call of a context it serves costs
 * no thread switch. On one CPU nobody spins: the kernel caller it would
 * wait for could not run meanwhile. LAKE_RING_SLEEPING is set while no
 * consumer is awake (awake == 0, under awake_lock); the last one to leave
 * sets it, looks once more, and comes back if something came.
 *
 * Then the worker watches: it sleeps on the watch eventfd, which the
 * kernel signals instead of the main thread's while LAKE_RING_WATCHED is
 * set, so a call of the context it served last wakes the very thread that
 * runs it (two wakeups a call, the caller's and this one, where the main
 * thread's hand-off made three). One worker watches at a time, the one
 * that went idle last (the one before is woken to step down); it stops
 * watching, clearing the flag, as soon as it has a job: calls that come
 * while it runs go to the main thread again, so no context waits behind
 * another's long call. A job queued for a watching worker, or the pool
 * stopping, writes the watch eventfd too (the pool's wake function).
 *
 * Only one thread reads the watch eventfd at a time (the poller, under
 * watch_lock): a read takes every count there is, so a second reader could
 * take the wakeup of a worker just about to poll, which would then sleep
 * through a job of its own (a handover of the watch has the old and the new
 * watcher in the loop at once). A watcher whose turn has not come waits on
 * watch_turn instead, which every wakeup of the watch also broadcasts, and
 * stops waiting when the poller leaves, a job of its own comes, or the watch
 * goes to another.
 *
 * The workers produce the completion ring through the reply sink, one at
 * a time (put_lock). A put that finds the kernel's consumer asleep writes
 * the kernel's eventfd, whose callback reaps in that very write(); a full
 * ring is kicked the same way and tried again, for at most FULL_WAIT_MS.
 *
 * Nothing from the kernel is trusted: the ring's offset is bounded by the
 * region, and an impossible index or length stops the ring and laked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include "daemon.h"
#include "lockcheck.h"
#include "log.h"

#define FULL_WAIT_MS	10000

struct laked_ring {
	int sq_fd, cq_fd;		/* ours to sleep on; the kernel's to write */
	int watch_fd;			/* the watching worker's to sleep on */
	enum laked_ring_forge forge;	/* tests: the next put is forged so */
	bool live;
	bool multi_cpu;
	u32 spin_us;
	struct lake_ring sq, cq;	/* sq: under take_lock; cq: under put_lock */
	pthread_mutex_t take_lock, put_lock, awake_lock, watch_lock;
	unsigned int awake;		/* consumers not asleep, under awake_lock */
	struct laked_idle *watcher;	/* the watching worker, under awake_lock */
	struct laked_idle *poller;	/* the one reading watch_fd, under watch_lock */
	pthread_cond_t watch_turn;	/* the poller left, or a wakeup of the watch */
	struct laked_pool *pool;
	struct laked_reply_sink sink;
	struct laked_ring_stats st;	/* sq side: take_lock; cq side: put_lock */
	u64 kicks, watch_wakeups, watch_lost;	/* from any thread: atomics, apart from st */
	u8 buf[LAKE_RING_DATA_MAX] __attribute__((aligned(8)));
};

int laked_ring_open(struct laked_ring **out, u32 spin_us)
{
	struct laked_ring *r = calloc(1, sizeof(*r));
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int ret;

	if (!r)
		return -ENOMEM;
	pthread_mutex_init(&r->put_lock, NULL);
	pthread_mutex_init(&r->take_lock, NULL);
	laked_mutex_init(&r->awake_lock);
	laked_mutex_init(&r->watch_lock);
	pthread_cond_init(&r->watch_turn, NULL);
	r->awake = 1;	/* the main thread, until its first poll() */
	r->sq_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	r->cq_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	r->watch_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->sq_fd < 0 || r->cq_fd < 0 || r->watch_fd < 0) {
		ret = -errno;
		laked_ring_close(r);
		return ret;
	}
	r->multi_cpu = cpus > 1;
	r->spin_us = spin_us;
	*out = r;
	return 0;
}

void laked_ring_fds(const struct laked_ring *r, int *sq_fd, int *cq_fd, int *watch_fd)
{
	*sq_fd = r->sq_fd;
	*cq_fd = r->cq_fd;
	*watch_fd = r->watch_fd;
}

int laked_ring_map(struct laked_ring *r, void *region, u64 region_size, u64 off)
{
	if (!region || off % 4096 || off > region_size || region_size - off < LAKE_RING_BYTES) {
		laked_log(LOG_ERR, "ring: offset %llu does not fit the region (%llu bytes)",
			  (unsigned long long)off, (unsigned long long)region_size);
		return -EPROTO;
	}
	lake_ring_init(&r->sq, (u8 *)region + off, true);
	lake_ring_init(&r->cq, (u8 *)region + off, false);
	__atomic_store_n(&r->live, true, __ATOMIC_RELAXED);
	return 0;
}

static void kick(struct laked_ring *r)
{
	u64 one = 1;

	__atomic_fetch_add(&r->kicks, 1, __ATOMIC_RELAXED);
	if (write(r->cq_fd, &one, sizeof(one)) != sizeof(one))
		laked_log(LOG_WARNING, "ring: waking the kernel: %s", strerrorname_np(errno));
}

static u64 now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (u64)t.tv_sec * 1000000000u + (u64)t.tv_nsec;
}

void laked_ring_test_forge(struct laked_ring *r, enum laked_ring_forge kind)
{
	r->forge = kind;
}

/*
 * Tests: what a compromised laked could write instead of @blob, once; the
 * kernel must take none of it (it fences laked) and fail the call.
 */
static void forge(struct laked_ring *r, const void *blob, u32 len)
{
	struct lake_ring_slot *s = &r->cq.slots[r->cq.pos % LAKE_RING_ENTRIES];
	u32 tail = r->cq.pos + 1;

	laked_log(LOG_WARNING, "ring: forging a completion (test)");
	switch (r->forge) {
	case LAKED_RING_FORGE_TAIL:
		tail = r->cq.pos + LAKE_RING_ENTRIES + 5;
		break;
	case LAKED_RING_FORGE_LEN:
		s->len = 12;
		break;
	case LAKED_RING_FORGE_RECORD:
		memcpy(s->data, blob, len);
		memset(s->data, 0xa5, 8);	/* the first record's header */
		s->len = len;
		break;
	default:
		return;
	}
	r->forge = LAKED_RING_FORGE_NONE;
	__atomic_store_n(&r->cq.dir->tail, tail, __ATOMIC_RELEASE);
	kick(r);
}

int laked_ring_put(struct laked_ring *r, const void *blob, u32 len)
{
	struct timespec pause = { .tv_nsec = 20000 };
	u64 end = 0;
	int ret;

	pthread_mutex_lock(&r->put_lock);
	if (r->forge) {
		forge(r, blob, len);
		pthread_mutex_unlock(&r->put_lock);
		return 0;
	}
	for (;;) {
		ret = lake_ring_put(&r->cq, blob, len);
		if (ret != -ENOSPC)
			break;
		/* The kernel reaps inside the write that wakes it. */
		r->st.full++;
		kick(r);
		if (!end)
			end = now_ns() + FULL_WAIT_MS * 1000000ull;
		else if (now_ns() > end)
			break;
		nanosleep(&pause, NULL);
	}
	if (!ret) {
		r->st.puts++;
		if (lake_ring_consumer_sleeps(&r->cq))
			kick(r);
	}
	pthread_mutex_unlock(&r->put_lock);
	if (ret)
		laked_log(LOG_ERR, "ring: reply not put: %s", strerrorname_np(-ret));
	return ret;
}

static int sink_flush(struct laked_reply_sink *sink, const void *blob, u32 len)
{
	return laked_ring_put(container_of(sink, struct laked_ring, sink), blob, len);
}

struct laked_reply_sink *laked_ring_sink(struct laked_ring *r)
{
	r->sink.flush = sink_flush;
	return &r->sink;
}

/* The watching worker wakes (and finds out why), the poller or one waiting for its turn. */
static void watch_wake(struct laked_ring *r)
{
	u64 one = 1;

	if (write(r->watch_fd, &one, sizeof(one)) != sizeof(one))
		laked_log(LOG_WARNING, "ring: waking the watch: %s", strerrorname_np(errno));
	pthread_mutex_lock(&r->watch_lock);
	pthread_cond_broadcast(&r->watch_turn);
	pthread_mutex_unlock(&r->watch_lock);
}

static void pool_wake(void *arg)
{
	watch_wake(arg);
}

/* awake_lock held: the consumer flags the kernel reads, from awake and watcher. */
static void publish_flags(struct laked_ring *r)
{
	laked_assert_held(&r->awake_lock);
	lake_ring_cons_flags(&r->sq, (r->awake ? 0 : LAKE_RING_SLEEPING) |
				     (r->watcher ? LAKE_RING_WATCHED : 0));
}

/* take_lock held: take every blob there is into the pool; how many, or -EPROTO (logged). */
static int drain(struct laked_ring *r)
{
	int n = 0, ret;
	u32 len;

	while ((ret = lake_ring_take(&r->sq, r->buf, sizeof(r->buf), &len)) > 0) {
		n++;
		r->st.takes++;
		laked_pool_submit(r->pool, r->buf, len);
	}
	if (ret < 0) {
		if (__atomic_exchange_n(&r->live, false, __ATOMIC_RELAXED)) {
			laked_log(LOG_ERR, "ring: impossible submission index or length from the kernel: stopping");
			watch_wake(r);
		}
		return ret;
	}
	/* The kernel waits for a slot: its wait ends in the callback of this write. */
	if (n && lake_ring_producer_waits(&r->sq))
		kick(r);
	return n;
}

static void consumer_enter(struct laked_ring *r)
{
	pthread_mutex_lock(&r->awake_lock);
	if (!r->awake++)
		publish_flags(r);
	pthread_mutex_unlock(&r->awake_lock);
}

/* Gone to sleep; true when a put came meanwhile, which this caller must take. */
static bool consumer_leave(struct laked_ring *r)
{
	bool last, pending;

	pthread_mutex_lock(&r->awake_lock);
	last = !--r->awake;
	if (last)
		publish_flags(r);
	pthread_mutex_unlock(&r->awake_lock);
	if (!last)
		return false;
	/* The ring's own position is the drain's, under take_lock. */
	pthread_mutex_lock(&r->take_lock);
	pending = lake_ring_pending(&r->sq);
	pthread_mutex_unlock(&r->take_lock);
	return pending;
}

/*
 * An idle worker, spinning: drain until a job of its own comes (true: it
 * stays awake through that job, so the next call of a context it serves
 * finds a consumer awake and the kernel spins instead of signalling; a
 * job that takes long costs another context's call at most the kernel's
 * own spin, after which the kernel signals the main thread anyway,
 * lakelib/ring.c), or until spin_us pass with nothing to take (false:
 * asleep).
 */
static __thread bool spinning;

static bool spin(struct laked_ring *r, struct laked_idle *me)
{
	u64 end;

	if (!spinning)
		consumer_enter(r);
	spinning = true;
	end = now_ns() + r->spin_us * 1000ull;
	for (;;) {
		if (__atomic_load_n(&me->pending, __ATOMIC_RELAXED))
			return true;
		if (!pthread_mutex_trylock(&r->take_lock)) {
			r->st.spins++;
			if (drain(r) > 0)
				end = now_ns() + r->spin_us * 1000ull;
			pthread_mutex_unlock(&r->take_lock);
		}
		if (now_ns() > end || !__atomic_load_n(&r->live, __ATOMIC_RELAXED)) {
			if (!consumer_leave(r))
				break;
			consumer_enter(r);	/* a put raced the flag: take it */
			end = now_ns() + r->spin_us * 1000ull;
		}
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
	spinning = false;
	return false;
}

/* The watcher's drain: counted apart, so a test can tell the watch was used. */
static int watch_take(struct laked_ring *r)
{
	int n;

	pthread_mutex_lock(&r->take_lock);
	n = drain(r);
	if (n > 0)
		r->st.watch_takes += (u64)n;
	pthread_mutex_unlock(&r->take_lock);
	return n;
}

/* A wait ran out with a job of its own queued: a bug, which cost that job a second. */
static void lost_wakeup(struct laked_ring *r, const char *on)
{
	__atomic_fetch_add(&r->watch_lost, 1, __ATOMIC_RELAXED);
	laked_log(LOG_WARNING, "ring: a worker slept through a wakeup, waiting on %s", on);
}

/* Still the watcher, with no job of its own and the ring up. */
static bool still_watching(struct laked_ring *r, struct laked_idle *me)
{
	return !__atomic_load_n(&me->pending, __ATOMIC_SEQ_CST) &&
	       __atomic_load_n(&r->watcher, __ATOMIC_RELAXED) == me &&
	       __atomic_load_n(&r->live, __ATOMIC_RELAXED);
}

/*
 * Wait until no other thread reads the watch eventfd and take the turn;
 * false when the wait ended because the watch is no longer needed. The
 * job's wakeup stores pending, then broadcasts under watch_lock: checked
 * here under that lock, it is either seen or wakes this wait.
 */
static bool poller_turn(struct laked_ring *r, struct laked_idle *me)
{
	struct timespec until;
	bool mine;

	pthread_mutex_lock(&r->watch_lock);
	while (r->poller && still_watching(r, me)) {
		/* A lost wakeup would cost a second, not a hang. */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec++;
		if (pthread_cond_timedwait(&r->watch_turn, &r->watch_lock, &until) == ETIMEDOUT &&
		    __atomic_load_n(&me->pending, __ATOMIC_SEQ_CST))
			lost_wakeup(r, "its turn to watch");
	}
	mine = still_watching(r, me);
	if (mine)
		r->poller = me;
	pthread_mutex_unlock(&r->watch_lock);
	return mine;
}

static void poller_leave(struct laked_ring *r)
{
	pthread_mutex_lock(&r->watch_lock);
	r->poller = NULL;
	pthread_cond_broadcast(&r->watch_turn);
	pthread_mutex_unlock(&r->watch_lock);
}

/*
 * An idle worker, asleep: it watches the ring until a job of its own comes,
 * another worker takes the watch, or the ring stops. What it takes meanwhile
 * goes to the pool like any drain. The kernel stores tail, full barrier,
 * reads the flags; the watcher stores the flags, full barrier, reads tail
 * (drain): a put either signals the watch or is seen, on the way in (the
 * flag is set before the first drain) and on the way out (cleared before
 * the last). A signal that finds nothing costs one extra loop.
 */
static void watch(struct laked_ring *r, struct laked_idle *me)
{
	struct pollfd pfd = { .fd = r->watch_fd, .events = POLLIN };
	bool took_over;
	u64 cnt;
	int n;

	pthread_mutex_lock(&r->awake_lock);
	took_over = r->watcher != NULL;
	__atomic_store_n(&r->watcher, me, __ATOMIC_RELAXED);
	publish_flags(r);
	pthread_mutex_unlock(&r->awake_lock);
	if (took_over)
		watch_wake(r);	/* the one before steps down */
	/* Pairs with the pool's wake_worker(): watching stored, then pending read. */
	__atomic_store_n(&me->watching, true, __ATOMIC_SEQ_CST);
	if (poller_turn(r, me)) {
		while (still_watching(r, me) && watch_take(r) >= 0 &&
		       !__atomic_load_n(&me->pending, __ATOMIC_SEQ_CST)) {
			/* As poller_turn(): a second at most. */
			n = poll(&pfd, 1, 1000);
			if (n > 0 && read(r->watch_fd, &cnt, sizeof(cnt)) == sizeof(cnt))
				__atomic_fetch_add(&r->watch_wakeups, 1, __ATOMIC_RELAXED);
			else if (!n && __atomic_load_n(&me->pending, __ATOMIC_SEQ_CST))
				lost_wakeup(r, "the watch eventfd");
		}
		poller_leave(r);
	}
	__atomic_store_n(&me->watching, false, __ATOMIC_RELAXED);
	pthread_mutex_lock(&r->awake_lock);
	if (r->watcher == me) {
		__atomic_store_n(&r->watcher, NULL, __ATOMIC_RELAXED);
		publish_flags(r);
	}
	pthread_mutex_unlock(&r->awake_lock);
	/* A put that saw the flag before it went signalled only the watch. */
	watch_take(r);
}

/* The pool's idle function: spin where that can pay, then watch. */
static void worker_idle(void *arg, struct laked_idle *me)
{
	struct laked_ring *r = arg;

	if (!__atomic_load_n(&r->live, __ATOMIC_RELAXED))
		return;
	if (r->multi_cpu && r->spin_us && spin(r, me))
		return;
	if (__atomic_load_n(&r->live, __ATOMIC_RELAXED))
		watch(r, me);
}

void laked_ring_serve_pool(struct laked_ring *r, struct laked_pool *pool)
{
	r->pool = pool;
	laked_pool_set_idle(pool, worker_idle, pool_wake, r);
}

int laked_ring_serve(struct laked_ring *r)
{
	bool woken;
	u64 cnt;
	int n;

	if (!__atomic_load_n(&r->live, __ATOMIC_RELAXED))
		return -EPROTO;
	/* Cleared before draining: a signal that comes after is kept for poll(). */
	woken = read(r->sq_fd, &cnt, sizeof(cnt)) == sizeof(cnt);
	pthread_mutex_lock(&r->take_lock);
	r->st.wakeups += woken;
	n = drain(r);
	pthread_mutex_unlock(&r->take_lock);
	if (n < 0)
		return n;
	/* Asleep until laked_ring_awake(): a put after this is seen, or signals. */
	return consumer_leave(r) ? 1 : 0;	/* 1: come again before sleeping */
}

void laked_ring_awake(struct laked_ring *r)
{
	consumer_enter(r);
}

int laked_ring_poll_fd(const struct laked_ring *r)
{
	return r->sq_fd;
}

void laked_ring_stats(struct laked_ring *r, struct laked_ring_stats *st)
{
	pthread_mutex_lock(&r->take_lock);
	pthread_mutex_lock(&r->put_lock);
	*st = r->st;
	st->kicks = __atomic_load_n(&r->kicks, __ATOMIC_RELAXED);
	st->watch_wakeups = __atomic_load_n(&r->watch_wakeups, __ATOMIC_RELAXED);
	st->watch_lost = __atomic_load_n(&r->watch_lost, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&r->put_lock);
	pthread_mutex_unlock(&r->take_lock);
}

void laked_ring_close(struct laked_ring *r)
{
	if (!r)
		return;
	if (r->sq_fd >= 0)
		close(r->sq_fd);
	if (r->cq_fd >= 0)
		close(r->cq_fd);
	if (r->watch_fd >= 0)
		close(r->watch_fd);
	pthread_mutex_destroy(&r->put_lock);
	pthread_mutex_destroy(&r->take_lock);
	pthread_mutex_destroy(&r->awake_lock);
	pthread_mutex_destroy(&r->watch_lock);
	pthread_cond_destroy(&r->watch_turn);
	free(r);
}
