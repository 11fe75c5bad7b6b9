// SPDX-License-Identifier: GPL-2.0
/*
 * laked's end of the command ring (laked/ring.c) serving its worker pool on
 * the host device, against a stand-in for lakelib's end (lakelib/ring.c):
 * one producer, which signals the watch eventfd while LAKE_RING_WATCHED is
 * set and the main thread's otherwise, and kicks laked's main thread before
 * it waits on a call laked has not taken; a reaper on the completion ring;
 * and laked's main thread as main.c runs it. Several contexts call at once
 * with idle gaps between calls, so workers keep going idle, taking the
 * watch from one another and getting jobs while they hand it over: every
 * call must be answered, with the value it wrote, and no worker may sleep
 * through a wakeup meant for it (the ring's watch_lost: a watch whose
 * wait ran out with a job of its own queued). Built twice: with ASan/UBSan
 * ("ring_pool") and with ThreadSanitizer ("ring_pool_tsan").
 */
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include "laked/daemon.h"
#include "tests/unit/dispatch_util.h"

#define WAIT_MS		20000
#define NCTX		4
#define ROUNDS		300
#define RINGS		4
#define MAX_CALLS	(NCTX * (2 * ROUNDS + 8) + 16)
#define GAP_MAX_US	400	/* an idle gap: past a worker's spin, so it watches */
#define RING_MEM	((LAKE_RING_BYTES + 4095) / 4096 * 4096)

static struct {
	void *mem;
	struct laked_ring *r;
	struct laked_pool *pool;
	struct lake_ring sq, cq;	/* the kernel's ends */
	int sq_fd, cq_fd, watch_fd;
	pthread_mutex_t put_lock;	/* lakelib's queue_lock: one producer */
	pthread_mutex_t lock;		/* the answers */
	pthread_cond_t more;
	bool answered[MAX_CALLS];
	CUresult result[MAX_CALLS];
	u64 handle[MAX_CALLS];
	u32 word[MAX_CALLS];
	u64 next_id;
	bool stop, running;
	pthread_t main_thread, reaper;
	u64 worst_ns;
	char why[256];			/* a caller's first failure */
} k = {
	.put_lock = PTHREAD_MUTEX_INITIALIZER,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.more = PTHREAD_COND_INITIALIZER,
};

static u64 now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (u64)t.tv_sec * 1000000000u + (u64)t.tv_nsec;
}

/* A caller thread cannot fail the test itself (cmocka's jump is per thread): it says why. */
static bool failed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool failed(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&k.lock);
	if (!k.why[0]) {
		va_start(ap, fmt);
		vsnprintf(k.why, sizeof(k.why), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&k.lock);
	return false;
}

static void signal_fd(int fd)
{
	u64 one = 1;

	if (write(fd, &one, sizeof(one)) != sizeof(one))
		failed("eventfd write: %s", strerror(errno));
}

static bool stopping(void)
{
	return __atomic_load_n(&k.stop, __ATOMIC_RELAXED);
}

/* laked's main thread, as main.c's serve() runs the ring. */
static void *main_fn(void *arg)
{
	struct pollfd pfd = { .fd = laked_ring_poll_fd(k.r), .events = POLLIN };
	int more;

	(void)arg;
	while (!stopping()) {
		more = laked_ring_serve(k.r);
		if (more < 0)
			break;
		poll(&pfd, 1, more ? 0 : 100);
		laked_ring_awake(k.r);
	}
	return NULL;
}

/* The kernel's reaper: replies decoded into the answer table. */
static void *reaper_fn(void *arg)
{
	static u8 buf[LAKE_RING_DATA_MAX] __attribute__((aligned(8)));
	struct pollfd pfd = { .fd = k.cq_fd, .events = POLLIN };
	struct lake_wire_iter it;
	struct lake_wire_rep rep;
	u32 len;
	u64 cnt;

	(void)arg;
	while (!stopping()) {
		while (lake_ring_take(&k.cq, buf, sizeof(buf), &len) > 0) {
			pthread_mutex_lock(&k.lock);
			lake_wire_iter_init(&it, buf, len);
			while (lake_wire_next_rep(&it, &rep) == 1) {
				if (rep.req_id >= MAX_CALLS)
					continue;
				k.answered[rep.req_id] = true;
				k.result[rep.req_id] = rep.result;
				k.handle[rep.req_id] = rep.res.handle.handle;
				if (rep.tail_len >= 4)
					memcpy(&k.word[rep.req_id], rep.tail, 4);
			}
			pthread_cond_broadcast(&k.more);
			pthread_mutex_unlock(&k.lock);
		}
		if (poll(&pfd, 1, 50) > 0 && read(k.cq_fd, &cnt, sizeof(cnt)) < 0)
			break;
	}
	return NULL;
}

/* lakelib's put: the slot, then the eventfd the consumer flags name. */
static void kernel_put(const void *blob, u32 len)
{
	int ret;

	pthread_mutex_lock(&k.put_lock);
	while ((ret = lake_ring_put(&k.sq, blob, len)) == -ENOSPC) {
		signal_fd(k.sq_fd);
		usleep(50);
	}
	if (ret)
		failed("submission put: %d", ret);
	else if (lake_ring_consumer_sleeps(&k.sq))
		signal_fd(lake_ring_consumer_watched(&k.sq) ? k.watch_fd : k.sq_fd);
	pthread_mutex_unlock(&k.put_lock);
}

/* lakelib's kick_untaken(), before a caller sleeps: its call sits untaken, nobody asleep. */
static void kick_untaken(void)
{
	pthread_mutex_lock(&k.put_lock);
	if (__atomic_load_n(&k.sq.dir->head, __ATOMIC_ACQUIRE) != k.sq.pos &&
	    !lake_ring_consumer_sleeps(&k.sq))
		signal_fd(k.sq_fd);
	pthread_mutex_unlock(&k.put_lock);
}

/* One request over the ring; its answer's index (the request id), or 0 (said why). */
static u64 kcall(struct lake_wire_req *r)
{
	struct timespec until;
	struct batch b;
	u64 t0 = now_ns(), d;
	bool got;

	r->req_id = __atomic_add_fetch(&k.next_id, 1, __ATOMIC_RELAXED);
	if (r->req_id >= MAX_CALLS)
		return failed("more calls than the table holds");
	batch_init(&b);
	batch_add(&b, r);
	kernel_put(b.data, b.buf.len);
	kick_untaken();
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += WAIT_MS / 1000;
	pthread_mutex_lock(&k.lock);
	while (!(got = k.answered[r->req_id]) &&
	       !pthread_cond_timedwait(&k.more, &k.lock, &until))
		;
	d = now_ns() - t0;
	if (d > k.worst_ns)
		k.worst_ns = d;
	pthread_mutex_unlock(&k.lock);
	if (!got)
		return failed("no answer to %s (req %llu) in %d ms", lake_wire_api(r->api)->name,
			      (unsigned long long)r->req_id, WAIT_MS);
	return r->req_id;
}

/* The call's result, or -1 unanswered. */
static int kresult(struct lake_wire_req *r, u64 *handle, u32 *word)
{
	u64 id = kcall(r);
	int res;

	if (!id)
		return -1;
	pthread_mutex_lock(&k.lock);
	res = (int)k.result[id];
	if (handle)
		*handle = k.handle[id];
	if (word)
		*word = k.word[id];
	pthread_mutex_unlock(&k.lock);
	if (res)
		failed("%s (req %llu) returned %d", lake_wire_api(r->api)->name,
		       (unsigned long long)id, res);
	return res;
}

/* req_new() and copy_req() count ids without a lock: kcall() gives them here. */
static struct lake_wire_req kreq(u16 api, u64 ctx)
{
	struct lake_wire_req r = { .api = api, .ctx = ctx };

	return r;
}

/* A context's caller: a checked memset and read-back a round, idle gaps between. */
static void *caller_fn(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg, i;
	struct lake_wire_req r = kreq(LAKE_API_CTX_CREATE, 0);
	u64 ctx, dptr;
	u32 v, got;

	if (kresult(&r, &ctx, NULL))
		return NULL;
	r = kreq(LAKE_API_MEM_ALLOC, ctx);
	r.args.size.bytes = 16;
	if (kresult(&r, &dptr, NULL))
		return NULL;
	for (i = 0; i < ROUNDS; i++) {
		v = (0x9e3779b9u * (i + 1)) ^ seed;
		r = kreq(LAKE_API_MEMSET_D32, ctx);
		r.args.memset.dptr = dptr;
		r.args.memset.value = v;
		r.args.memset.count = 1;
		if (kresult(&r, NULL, NULL))
			return NULL;
		r = kreq(LAKE_API_MEMCPY_DTOH, ctx);
		r.args.memcpy.dptr = dptr;
		r.args.memcpy.bytes = 4;
		r.args.memcpy.where = LAKE_WIRE_INLINE;
		got = ~v;
		if (kresult(&r, NULL, &got))
			return NULL;
		if (got != v) {
			failed("context %llu read back %#x, not %#x", (unsigned long long)ctx, got, v);
			return NULL;
		}
		if (rand_r(&seed) % 2)
			usleep(rand_r(&seed) % GAP_MAX_US);
	}
	r = kreq(LAKE_API_CTX_DESTROY, 0);
	r.args.handle.handle = ctx;
	kresult(&r, NULL, NULL);
	return NULL;
}

/* A ring, its pool and the stand-in kernel's threads, on the case's dispatcher. */
static void ring_start(u32 spin_us)
{
	memset(k.answered, 0, sizeof(k.answered));
	k.next_id = 0;
	k.stop = false;
	k.worst_ns = 0;
	k.why[0] = 0;
	k.mem = aligned_alloc(4096, RING_MEM);
	assert_non_null(k.mem);
	assert_int_equal(laked_ring_open(&k.r, spin_us), 0);
	memset(k.mem, 0, RING_MEM);
	laked_ring_fds(k.r, &k.sq_fd, &k.cq_fd, &k.watch_fd);
	lake_ring_init(&k.sq, k.mem, true);
	lake_ring_init(&k.cq, k.mem, false);
	lake_ring_sleeping(&k.cq, true);	/* the reaper never spins: kick every put */
	assert_int_equal(laked_ring_map(k.r, k.mem, RING_MEM, 0), 0);
	assert_int_equal(laked_pool_create(&k.pool, dd, laked_ring_sink(k.r)), 0);
	laked_ring_serve_pool(k.r, k.pool);
	assert_int_equal(pthread_create(&k.reaper, NULL, reaper_fn, NULL), 0);
	k.running = true;
	assert_int_equal(pthread_create(&k.main_thread, NULL, main_fn, NULL), 0);
}

static void ring_stop(void)
{
	if (!k.running)
		return;
	k.running = false;
	__atomic_store_n(&k.stop, true, __ATOMIC_RELAXED);
	pthread_join(k.main_thread, NULL);
	laked_pool_destroy(k.pool);
	pthread_join(k.reaper, NULL);
	laked_ring_close(k.r);
	free(k.mem);
}

static int ring_teardown(void **state)
{
	ring_stop();
	return teardown(state);
}

/* One ring's life: the contexts' calls, then what the ring counted. */
static void contexts_handing_over_the_watch(u32 spin_us)
{
	struct lake_wire_req r = kreq(LAKE_API_INIT, 0);
	struct laked_ring_stats st;
	pthread_t t[NCTX];
	unsigned int i;

	ring_start(spin_us);
	assert_int_equal(kresult(&r, NULL, NULL), CUDA_SUCCESS);
	for (i = 0; i < NCTX; i++)
		assert_int_equal(pthread_create(&t[i], NULL, caller_fn,
						(void *)(uintptr_t)(0x5eed0000u + i)), 0);
	for (i = 0; i < NCTX; i++)
		pthread_join(t[i], NULL);
	if (k.why[0])
		fail_msg("%s", k.why);
	laked_ring_stats(k.r, &st);
	print_message("# %llu calls: %llu taken by the watch in %llu watch wakeups, %llu by the main thread in %llu wakeups; worst call %llu us; %llu watches lost a wakeup\n",
		      (unsigned long long)k.next_id, (unsigned long long)st.watch_takes,
		      (unsigned long long)st.watch_wakeups,
		      (unsigned long long)(st.takes - st.watch_takes),
		      (unsigned long long)st.wakeups, (unsigned long long)(k.worst_ns / 1000),
		      (unsigned long long)st.watch_lost);
	assert_int_equal(st.takes, k.next_id);
	/* Else this ran nothing it means to test. */
	assert_true(st.watch_takes > 0);
	assert_int_equal(st.watch_lost, 0);
	ring_stop();
}

/*
 * *state: laked's spin, in us. With two readers of the watch eventfd (the
 * bug this guards) about half the rings lost a wakeup, as many at 300
 * rounds as at 1,500: so several rings, not a longer one.
 */
static void test_watch(void **state)
{
	unsigned int i;

	for (i = 0; i < RINGS; i++)
		contexts_handing_over_the_watch(*(const u32 *)*state);
}

int main(void)
{
	static const u32 no_spin, spin = 50;
	const struct CMUnitTest tests[] = {
		{ "test_watch_no_spin", test_watch, setup, ring_teardown, (void *)&no_spin },
		{ "test_watch_after_spin", test_watch, setup, ring_teardown, (void *)&spin },
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
