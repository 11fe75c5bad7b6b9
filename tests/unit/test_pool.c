// SPDX-License-Identifier: GPL-2.0
/*
 * laked's worker pool (laked/workers.c) on the host device: contexts run in
 * parallel, each in its own order; a context's full queue refuses, in
 * that context's order, without touching others sharing its worker; destroyed
 * contexts give their workers back. Replies arrive from the workers'
 * threads into a locked collector, and the test thread waits for them by
 * request id. Built twice: with ASan/UBSan (unit "pool") and with
 * ThreadSanitizer (unit "pool_tsan", clang), which checks every access the
 * pool's threads share.
 */
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include "laked/dispatch.h"
#include "tests/unit/dispatch_util.h"
#include "tests/kernels/selftest.h"

#define WAIT_MS		20000
#define NREPLIES	40000
#define NCTX		16

static struct laked_pool *pool;
static int *held_flag;	/* released at teardown, so a failed case ends */

static struct {
	struct laked_reply_sink sink;
	pthread_mutex_t lock;
	pthread_cond_t more;
	unsigned int n;
	struct lake_wire_rep rep[NREPLIES];	/* tails not kept but 4 bytes */
	u32 word[NREPLIES];
} col = { .lock = PTHREAD_MUTEX_INITIALIZER, .more = PTHREAD_COND_INITIALIZER };

/* A worker flushing the reply to this id waits here, before any lock, while set. */
static u64 gate_id;

static void gate_wait(const void *blob, u32 len)
{
	u64 id = __atomic_load_n(&gate_id, __ATOMIC_ACQUIRE);
	struct lake_wire_iter it;
	struct lake_wire_rep rep;

	if (!id)
		return;
	lake_wire_iter_init(&it, blob, len);
	while (lake_wire_next_rep(&it, &rep) == 1)
		if (rep.req_id == id)
			while (__atomic_load_n(&gate_id, __ATOMIC_ACQUIRE))
				usleep(100);
}

/* From the workers' threads: decode and keep; the test thread asserts. */
static int pool_flush(struct laked_reply_sink *s, const void *blob, u32 len)
{
	struct lake_wire_iter it;
	struct lake_wire_rep rep;

	(void)s;
	gate_wait(blob, len);
	pthread_mutex_lock(&col.lock);
	lake_wire_iter_init(&it, blob, len);
	while (lake_wire_next_rep(&it, &rep) == 1 && col.n < NREPLIES) {
		col.word[col.n] = 0;
		if (rep.tail_len >= 4)
			memcpy(&col.word[col.n], rep.tail, 4);
		rep.tail = NULL;
		col.rep[col.n++] = rep;
	}
	pthread_cond_broadcast(&col.more);
	pthread_mutex_unlock(&col.lock);
	return 0;
}

static int pool_setup(void **state)
{
	if (setup(state))
		return -1;
	/* Warnings on: the refusals log from several threads, which TSan then sees too. */
	laked_log_set_level(LOG_WARNING);
	col.sink.flush = pool_flush;
	col.n = 0;
	return laked_pool_create(&pool, dd, &col.sink);
}

static int pool_teardown(void **state)
{
	if (held_flag)
		__atomic_store_n(held_flag, 1, __ATOMIC_SEQ_CST);
	held_flag = NULL;
	laked_pool_destroy(pool);
	pool = NULL;
	return teardown(state);
}

static void submit(struct batch *b)
{
	assert_int_equal(laked_pool_submit(pool, b->data, b->buf.len), 0);
	batch_init(b);
}

static void submit1(const struct lake_wire_req *r)
{
	struct batch b;

	batch_init(&b);
	batch_add(&b, r);
	submit(&b);
}

/* Index of @id's reply, once it came (waits at most WAIT_MS); -1: never. */
static int wait_reply(u64 id)
{
	struct timespec until;
	unsigned int i, seen = 0;
	int found = -1;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += WAIT_MS / 1000;
	pthread_mutex_lock(&col.lock);
	for (;;) {
		for (i = seen; i < col.n && found < 0; i++)
			if (col.rep[i].req_id == id)
				found = (int)i;
		seen = col.n;
		if (found >= 0 || pthread_cond_timedwait(&col.more, &col.lock, &until))
			break;
	}
	pthread_mutex_unlock(&col.lock);
	return found;
}

/* Has @id been answered yet? */
static bool answered(u64 id)
{
	unsigned int i;
	bool yes = false;

	pthread_mutex_lock(&col.lock);
	for (i = 0; i < col.n && !yes; i++)
		yes = col.rep[i].req_id == id;
	pthread_mutex_unlock(&col.lock);
	return yes;
}

static struct lake_wire_rep pcall(const struct lake_wire_req *r)
{
	int i;

	submit1(r);
	i = wait_reply(r->req_id);
	if (i < 0)
		fail_msg("no reply to %s (req %llu)", lake_wire_api(r->api)->name,
			 (unsigned long long)r->req_id);
	return col.rep[i];
}

static u64 pool_ctx(void)
{
	struct lake_wire_req r = req_new(LAKE_API_INIT, 0);
	struct lake_wire_rep rep;

	assert_int_equal(pcall(&r).result, CUDA_SUCCESS);
	r = req_new(LAKE_API_CTX_CREATE, 0);
	rep = pcall(&r);
	assert_int_equal(rep.result, CUDA_SUCCESS);
	return rep.res.handle.handle;
}

static u64 pool_alloc(u64 ctx, u64 bytes)
{
	struct lake_wire_req r = req_new(LAKE_API_MEM_ALLOC, ctx);
	struct lake_wire_rep rep;

	r.args.size.bytes = bytes;
	rep = pcall(&r);
	assert_int_equal(rep.result, CUDA_SUCCESS);
	return rep.res.handle.handle;
}

static struct lake_wire_req memset_req(u64 ctx, u64 dptr, u32 value, bool async)
{
	struct lake_wire_req r = req_new(async ? LAKE_API_MEMSET_D32_ASYNC : LAKE_API_MEMSET_D32,
					 ctx);

	if (async)
		r.flags = LAKE_WIRE_REQ_F_NOREPLY;
	r.args.memset.dptr = dptr;
	r.args.memset.value = value;
	r.args.memset.count = 1;
	return r;
}

static struct lake_wire_req readback_req(u64 ctx, u64 dptr)
{
	return copy_req(LAKE_API_MEMCPY_DTOH, ctx, dptr, 4, LAKE_WIRE_INLINE, 0, NULL);
}

static void destroy_ctx(u64 ctx)
{
	struct lake_wire_req r = req_new(LAKE_API_CTX_DESTROY, 0);

	r.args.handle.handle = ctx;
	assert_int_equal(pcall(&r).result, CUDA_SUCCESS);
}

/* A context whose only stream runs wait_flag on *flag until the test sets it. */
struct held {
	u64 ctx, flag, sync_id;
};

/* Hold @ctx (0: a new context); its allocation has 4 KiB at flag + 8 for copies. */
static void hold_ctx(struct held *h, u64 ctx)
{
	struct {
		u64 flag, out, max_spins;
	} params;
	struct lake_wire_req r;
	struct lake_wire_rep rep;
	struct batch b;
	u64 mod;

	h->ctx = ctx ? ctx : pool_ctx();
	r = req_new(LAKE_API_MODULE_LOAD, h->ctx);
	r.tail = "selftest.so";
	r.tail_len = sizeof("selftest.so");
	rep = pcall(&r);
	assert_int_equal(rep.result, CUDA_SUCCESS);
	mod = rep.res.handle.handle;
	r = req_new(LAKE_API_MODULE_GET_FUNCTION, h->ctx);
	r.args.handle.handle = mod;
	r.tail = "wait_flag";
	r.tail_len = sizeof("wait_flag");
	rep = pcall(&r);
	assert_int_equal(rep.result, CUDA_SUCCESS);
	h->flag = pool_alloc(h->ctx, 8 + 4096);
	params.flag = h->flag;
	params.out = h->flag + 4;
	params.max_spins = ~0ULL;
	*(volatile int *)(uintptr_t)h->flag = 0;
	held_flag = (int *)(uintptr_t)h->flag;
	batch_init(&b);
	r = launch_req(h->ctx, rep.res.get_function.func, &params, sizeof(params), 1);
	batch_add(&b, &r);
	r = req_new(LAKE_API_CTX_SYNCHRONIZE, h->ctx);
	h->sync_id = r.req_id;
	batch_add(&b, &r);
	submit(&b);
}

static void hold(struct held *h)
{
	hold_ctx(h, 0);
}

static void release(struct held *h)
{
	int i;

	__atomic_store_n((int *)(uintptr_t)h->flag, 1, __ATOMIC_SEQ_CST);
	i = wait_reply(h->sync_id);
	assert_true(i >= 0);
	assert_int_equal(col.rep[i].result, CUDA_SUCCESS);
}

/*
 * While A's worker waits in cuCtxSynchronize for a kernel that runs until
 * the test says, B makes 200 calls one after another, each waiting for its
 * reply: all are answered, right, before A's synchronize is.
 */
static void test_contexts_in_parallel(void **state)
{
	struct lake_wire_req r;
	struct lake_wire_rep rep;
	struct held a;
	u64 b, buf;
	u32 i;

	(void)state;
	hold(&a);
	b = pool_ctx();
	buf = pool_alloc(b, 4);
	for (i = 0; i < 100; i++) {
		r = memset_req(b, buf, 0x1000 + i, false);
		assert_int_equal(pcall(&r).result, CUDA_SUCCESS);
		r = readback_req(b, buf);
		rep = pcall(&r);
		assert_int_equal(rep.result, CUDA_SUCCESS);
		assert_int_equal(col.word[wait_reply(r.req_id)], 0x1000 + i);
	}
	assert_false(answered(a.sync_id));
	release(&a);
	destroy_ctx(b);
	destroy_ctx(a.ctx);
}

/*
 * NCTX contexts, their records interleaved in the same messages: each
 * context's async memset is seen by its own next read-back, never another
 * context's, and each context's replies come in its request order. Each
 * round also makes a stream and an allocation in every context, and the
 * contexts are destroyed in one message, so the workers change the shared
 * tables at once (the handle table grows meanwhile).
 */
static void test_many_contexts_keep_their_order(void **state)
{
	u64 ctx[NCTX], buf[NCTX], last[NCTX] = { 0 }, ids[NCTX][64];
	struct laked_pool_stats st;
	struct lake_wire_req r;
	unsigned int i, k, round, n;
	struct batch bt;
	int at;

	(void)state;
	for (i = 0; i < NCTX; i++) {
		ctx[i] = pool_ctx();
		buf[i] = pool_alloc(ctx[i], 4);
	}
	batch_init(&bt);
	for (round = 0; round < 64; round++) {
		for (i = 0; i < NCTX; i++) {
			r = memset_req(ctx[i], buf[i], i << 16 | round, true);
			batch_add(&bt, &r);
			r = req_new(LAKE_API_STREAM_CREATE, ctx[i]);
			batch_add(&bt, &r);
			r = req_new(LAKE_API_MEM_ALLOC, ctx[i]);
			r.args.size.bytes = 64;
			batch_add(&bt, &r);
			r = readback_req(ctx[i], buf[i]);
			ids[i][round] = r.req_id;
			batch_add(&bt, &r);
		}
		if (bt.buf.len > sizeof(bt.data) / 2)
			submit(&bt);
	}
	if (bt.buf.len)
		submit(&bt);
	for (i = 0; i < NCTX; i++)
		for (round = 0; round < 64; round++) {
			at = wait_reply(ids[i][round]);
			assert_true(at >= 0);
			assert_int_equal(col.rep[at].result, CUDA_SUCCESS);
			assert_int_equal(col.word[at], i << 16 | round);
		}
	/* In arrival order, each context's read-backs are in request order. */
	pthread_mutex_lock(&col.lock);
	n = col.n;
	pthread_mutex_unlock(&col.lock);
	for (k = 0; k < n; k++)
		for (i = 0; i < NCTX; i++)
			for (round = 0; round < 64; round++)
				if (col.rep[k].req_id == ids[i][round]) {
					assert_true(col.rep[k].req_id > last[i]);
					last[i] = col.rep[k].req_id;
				}
	laked_pool_stats(pool, &st);
	assert_int_equal(st.contexts, NCTX);
	assert_true(st.workers >= 2 && st.workers <= NCTX + 1);
	for (i = 0; i < NCTX; i++) {
		r = req_new(LAKE_API_CTX_DESTROY, 0);
		r.args.handle.handle = ctx[i];
		ids[i][0] = r.req_id;
		batch_add(&bt, &r);
	}
	submit(&bt);
	for (i = 0; i < NCTX; i++) {
		at = wait_reply(ids[i][0]);
		assert_true(at >= 0);
		assert_int_equal(col.rep[at].result, CUDA_SUCCESS);
	}
	laked_pool_stats(pool, &st);
	assert_int_equal(st.contexts, 0);
	assert_int_equal(st.queued, 0);
	/* Workers are reused: new contexts start no new thread. */
	n = st.workers;
	ctx[0] = pool_ctx();
	buf[0] = pool_alloc(ctx[0], 4);
	laked_pool_stats(pool, &st);
	assert_int_equal(st.workers, n);
	destroy_ctx(ctx[0]);
}

/* Until no worker has records waiting (at most WAIT_MS). */
static void wait_drained(void)
{
	struct laked_pool_stats st;
	int i;

	for (i = 0; i < WAIT_MS; i++) {
		laked_pool_stats(pool, &st);
		if (!st.queued)
			return;
		usleep(1000);
	}
	fail_msg("%u records still queued", st.queued);
}

/* Index of @id's reply; fails when there is none. */
static int reply_of(u64 id)
{
	int at = wait_reply(id);

	if (at < 0)
		fail_msg("no reply to req %llu", (unsigned long long)id);
	return at;
}

/* An async memset that fails in laked: 4 bytes past its 4 KiB + 8 allocation. */
static struct lake_wire_req failing_memset(u64 ctx, u64 dptr)
{
	return memset_req(ctx, dptr + 8 + 4096, 0, true);
}

/*
 * A held context's queue takes LAKED_CTX_RECORDS records; the ones past
 * that are refused with CUDA_ERROR_OUT_OF_MEMORY, answered in the
 * context's order (after the error of its earlier async memset, never
 * before the worker reached them), and the others still run once the
 * context moves again.
 */
static void test_full_queue_refuses(void **state)
{
	u64 refused_ids[8], fail_id;
	struct laked_pool_stats st;
	struct lake_wire_req r;
	unsigned int i, sent = 0, nref = 0;
	struct held a;
	struct batch b;
	int err_at;

	(void)state;
	hold(&a);
	/* Once the worker took the launch and the synchronize, its queue is empty. */
	wait_drained();
	batch_init(&b);
	r = failing_memset(a.ctx, a.flag);
	fail_id = r.req_id;
	batch_add(&b, &r);
	sent++;
	for (i = 1; i < LAKED_CTX_RECORDS + 8; i++) {
		r = memset_req(a.ctx, a.flag + 8, i, true);
		if (i >= LAKED_CTX_RECORDS)
			refused_ids[nref++] = r.req_id;
		batch_add(&b, &r);
		sent++;
		if (b.buf.len > sizeof(b.data) - 256)
			submit(&b);
	}
	submit(&b);
	laked_pool_stats(pool, &st);
	assert_int_equal(st.overflows, 8);
	/* The refusals wait in the queue, in their records' places. */
	assert_int_equal(st.queued, sent);
	for (i = 0; i < nref; i++)
		assert_false(answered(refused_ids[i]));
	release(&a);
	err_at = reply_of(fail_id);
	assert_int_equal(col.rep[err_at].result, CUDA_ERROR_INVALID_VALUE);
	for (i = 0; i < nref; i++) {
		int at = reply_of(refused_ids[i]);

		assert_int_equal(col.rep[at].result, CUDA_ERROR_OUT_OF_MEMORY);
		assert_true(at > err_at);
	}
	wait_drained();
	r = req_new(LAKE_API_CTX_SYNCHRONIZE, a.ctx);
	assert_int_equal(pcall(&r).result, CUDA_SUCCESS);
	laked_pool_stats(pool, &st);
	assert_int_equal(st.queued, 0);
}

/*
 * A context's bytes are bounded as well as its records: a few hundred
 * 4 KiB inline copies reach LAKED_CTX_BYTES long before LAKED_CTX_RECORDS.
 */
static void test_byte_bound(void **state)
{
	static u8 data[4096];
	struct laked_pool_stats st;
	struct lake_wire_req r;
	unsigned int i, fit, sent;
	struct held a;
	struct batch b;

	(void)state;
	hold(&a);
	wait_drained();
	r = copy_req(LAKE_API_MEMCPY_HTOD_ASYNC, a.ctx, a.flag + 8, sizeof(data),
		     LAKE_WIRE_INLINE, 0, data);
	r.flags = LAKE_WIRE_REQ_F_NOREPLY;
	batch_init(&b);
	batch_add(&b, &r);
	fit = LAKED_CTX_BYTES / b.buf.len;
	assert_true(fit + 5 < LAKED_CTX_RECORDS / 2);
	batch_init(&b);
	for (sent = 0; sent < fit + 5; sent++) {
		r = copy_req(LAKE_API_MEMCPY_HTOD_ASYNC, a.ctx, a.flag + 8, sizeof(data),
			     LAKE_WIRE_INLINE, 0, data);
		r.flags = LAKE_WIRE_REQ_F_NOREPLY;
		if (b.buf.len + 4096 + 256 > sizeof(b.data))
			submit(&b);
		batch_add(&b, &r);
	}
	submit(&b);
	laked_pool_stats(pool, &st);
	assert_int_equal(st.overflows, 5);
	release(&a);
	wait_drained();
	for (i = 0; i < 5; i++)
		assert_int_equal(col.rep[reply_of(r.req_id - i)].result, CUDA_ERROR_OUT_OF_MEMORY);
	r = req_new(LAKE_API_CTX_SYNCHRONIZE, a.ctx);
	assert_int_equal(pcall(&r).result, CUDA_SUCCESS);
}

#define SHARE_CTX	505	/* past 64 workers: nine contexts on each */
#define SHARE_STRIDE	63	/* contexts k, k + 63, ... share a worker */

/*
 * The reproduction of issue 18: 505 contexts, so each worker serves
 * several. Eight contexts sharing the victim's worker stay inside lakelib's
 * windows (1,024 async records and 63 sync ones beyond the one pending,
 * each with 4 KiB inline) while the worker is held, which together is more
 * than a worker's old 32 MiB. The victim's cuMemAlloc, sent after its
 * failing async memset, must not be refused, and its answer must come
 * after the memset's error (lakelib retires older async records on a sync
 * reply: an answer that overtook it would lose the error).
 */
static void test_shared_worker_not_filled_by_others(void **state)
{
	static u64 ctx[SHARE_CTX], buf[SHARE_CTX];
	static u8 data[4096];
	struct laked_pool_stats st;
	unsigned int i, k, flooder;
	struct lake_wire_req r;
	u64 victim, fail_id, alloc_id;
	struct held a;
	struct batch b;
	int err_at, alloc_at;

	(void)state;
	for (i = 0; i < SHARE_CTX; i++) {
		ctx[i] = pool_ctx();
		buf[i] = pool_alloc(ctx[i], 8 + 4096);
	}
	laked_pool_stats(pool, &st);
	assert_int_equal(st.workers, 64);
	/* Worker 1 serves contexts 0, 63, ..., 504: the first holds it. */
	hold_ctx(&a, ctx[0]);
	wait_drained();
	victim = ctx[SHARE_CTX - 1];
	batch_init(&b);
	r = failing_memset(victim, buf[SHARE_CTX - 1]);
	fail_id = r.req_id;
	batch_add(&b, &r);
	submit(&b);
	for (flooder = 0; flooder < 8; flooder++) {
		i = flooder * SHARE_STRIDE;
		for (k = 0; k < 1024 + 63; k++) {
			r = copy_req(k < 1024 ? LAKE_API_MEMCPY_HTOD_ASYNC : LAKE_API_MEMCPY_HTOD,
				     ctx[i], (i ? buf[i] : a.flag) + 8, sizeof(data),
				     LAKE_WIRE_INLINE, 0, data);
			if (k < 1024)
				r.flags = LAKE_WIRE_REQ_F_NOREPLY;
			if (b.buf.len + 4096 + 256 > sizeof(b.data))
				submit(&b);
			batch_add(&b, &r);
		}
	}
	submit(&b);
	r = req_new(LAKE_API_MEM_ALLOC, victim);
	r.args.size.bytes = 64;
	alloc_id = r.req_id;
	submit1(&r);
	laked_pool_stats(pool, &st);
	/* All of it waits behind the held context: they share its worker. */
	assert_int_equal(st.queued, 1 + 8 * (1024 + 63) + 1);
	assert_int_equal(st.overflows, 0);
	assert_false(answered(fail_id));
	assert_false(answered(alloc_id));
	release(&a);
	err_at = reply_of(fail_id);
	alloc_at = reply_of(alloc_id);
	assert_int_equal(col.rep[err_at].result, CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(col.rep[alloc_at].result, CUDA_SUCCESS);
	assert_true(alloc_at > err_at);
	wait_drained();
	for (i = 0; i < SHARE_CTX; i++)
		destroy_ctx(ctx[i]);
}

/*
 * A new context is published by worker 0 and may be destroyed by another
 * worker at once by a message that guesses its handle (here: the test
 * finds it in the table, the only context there). Nothing of the object
 * may be read after the publishing unlock: under ThreadSanitizer
 * (pool_tsan) such a read races with the other worker's free. Worker 0 is
 * held as it sends the create's reply (before it takes any lock the others
 * take) until the destroy has been answered, so the race is there every
 * time.
 */
static void test_guessed_handle_destroyed_at_once(void **state)
{
	struct lake_wire_req r, d;
	struct laked_obj *o;
	u64 h, guess;
	unsigned int i;
	u32 cursor;
	int at;

	(void)state;
	h = pool_ctx();
	for (i = 0; i < 50; i++) {
		destroy_ctx(h);
		r = req_new(LAKE_API_CTX_CREATE, 0);
		__atomic_store_n(&gate_id, r.req_id, __ATOMIC_RELEASE);
		submit1(&r);
		guess = 0;
		while (!guess) {
			cursor = 0;
			laked_lock(dd);
			while ((o = laked_obj_next(&dd->handles, &cursor)))
				if (o->type == LAKED_CTX)
					guess = o->handle;
			laked_unlock(dd);
		}
		d = req_new(LAKE_API_CTX_DESTROY, 0);
		d.args.handle.handle = guess;
		submit1(&d);
		at = reply_of(d.req_id);
		__atomic_store_n(&gate_id, 0, __ATOMIC_RELEASE);
		assert_int_equal(col.rep[at].result, CUDA_SUCCESS);
		at = reply_of(r.req_id);
		assert_int_equal(col.rep[at].result, CUDA_SUCCESS);
		assert_int_equal(col.rep[at].res.handle.handle, guess);
		h = pool_ctx();
	}
	destroy_ctx(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_contexts_in_parallel, pool_setup,
						pool_teardown),
		cmocka_unit_test_setup_teardown(test_many_contexts_keep_their_order, pool_setup,
						pool_teardown),
		cmocka_unit_test_setup_teardown(test_full_queue_refuses, pool_setup,
						pool_teardown),
		cmocka_unit_test_setup_teardown(test_byte_bound, pool_setup, pool_teardown),
		cmocka_unit_test_setup_teardown(test_guessed_handle_destroyed_at_once, pool_setup,
						pool_teardown),
		cmocka_unit_test_setup_teardown(test_shared_worker_not_filled_by_others,
						pool_setup, pool_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
