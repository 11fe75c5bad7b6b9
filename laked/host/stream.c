// SPDX-License-Identifier: GPL-2.0
/*
 * Streams: a FIFO of operations run in order by one worker thread per
 * stream. Async calls queue and return; synchronize waits.
 *
 * A thread that has to wait for queued work anyway runs it itself while
 * the stream is idle, rather than sleeping while a worker is woken for it:
 * that costs two thread switches per operation. One executor at a time per
 * stream (s->running) keeps the order. Between hd_batch_begin() and
 * hd_batch_end() a thread queues without waking workers, so a batch of
 * launches costs one wakeup, or none when the batch ends in a synchronize;
 * held work is woken before anyone waits, so holding never blocks it.
 *
 * The NULL stream of each context follows CUDA's legacy default-stream
 * rules: an operation on it starts only after everything queued earlier on
 * the context's blocking streams (those created without
 * CU_STREAM_NON_BLOCKING), and an operation on a blocking stream only after
 * everything queued earlier on the NULL stream. Synchronous copies and
 * memsets behave as NULL-stream work.
 *
 * A failed operation (a kernel that traps, or a C++ kernel whose threads
 * cannot all reach a barrier) latches CUDA_ERROR_LAUNCH_FAILED in its
 * stream. Copies, memsets and kernels queued behind it are discarded,
 * as the real driver does after a fault, until a synchronize of the stream or
 * the context reports the error and clears it. Unlike the real driver's, the
 * error is not sticky: the stream is usable again afterwards.
 */
#include <time.h>
#include "host.h"

/* The calling thread is inside a batch: its submissions wake no worker. */
static __thread bool batching;

u64 hd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

/* seq of the oldest operation not finished on @s; UINT64_MAX when idle */
static u64 oldest_pending(const struct hd_stream *s)
{
	if (s->running)
		return s->running;
	return s->head ? s->head->seq : UINT64_MAX;
}

enum wait_set {
	WAIT_CTX,	/* every stream of a context (all contexts: ctx NULL) */
	WAIT_LEGACY,	/* a context's NULL stream and blocking streams */
	WAIT_NULL_ONLY,	/* a context's NULL stream */
};

static bool in_set(const struct hd_stream *t, enum wait_set set, const void *ctx,
		   const struct hd_stream *self)
{
	if (t == self || (ctx && t->obj.ctx != ctx))
		return false;
	switch (set) {
	case WAIT_LEGACY:
		return t->is_null || !(t->flags & CU_STREAM_NON_BLOCKING);
	case WAIT_NULL_ONLY:
		return t->is_null;
	default:
		return true;
	}
}

/* Wake @s's worker if it has queued work that nobody is running. */
static void kick(struct hd_stream *s)
{
	if (s->head && !s->running)
		pthread_cond_signal(&s->wake);
}

/* Every stream but @self (NULL: every one). */
static void kick_others(const struct hd_stream *self)
{
	struct hd_list *pos;

	hd_list_for_each(pos, &hd.streams) {
		struct hd_stream *t = container_of(pos, struct hd_stream, node);

		if (t != self)
			kick(t);
	}
}

/* Sleep until an operation finishes; held work is woken first. */
void hd_wait_done(void)
{
	kick_others(NULL);
	pthread_cond_wait(&hd.done, &hd.lock);
}

static void run_op(struct hd_stream *s, struct hd_op *op);

/* Run @s's next operation in the calling thread: @s is idle and has work. */
static void run_next(struct hd_stream *s)
{
	struct hd_op *op = s->head;

	s->head = op->next;
	if (!s->head)
		s->tail = &s->head;
	s->running = op->seq;
	run_op(s, op);
	s->running = 0;
	hd.pending--;
	free(op);
	pthread_cond_broadcast(&hd.done);
}

/*
 * A waiter runs @s's next operation rather than sleep until a worker did.
 * Other held work is woken first: the operation may wait for it, as a
 * kernel spinning on a flag that a copy on another stream sets.
 */
static void run_here(struct hd_stream *s)
{
	kick_others(s);
	run_next(s);
}

/*
 * Until no stream of the set has an operation with seq <= @upto pending.
 * With @help, the caller runs the oldest idle one itself instead of waiting.
 */
static void wait_set(enum wait_set set, const void *ctx, const struct hd_stream *self,
		     u64 upto, bool help)
{
	struct hd_stream *idle;
	struct hd_list *pos;
	bool busy;

	for (;;) {
		idle = NULL;
		busy = false;
		hd_list_for_each(pos, &hd.streams) {
			struct hd_stream *t = container_of(pos, struct hd_stream, node);

			if (!in_set(t, set, ctx, self) || oldest_pending(t) > upto)
				continue;
			busy = true;
			if (!t->running && (!idle || t->head->seq < idle->head->seq))
				idle = t;
		}
		if (!busy)
			break;
		if (help && idle)
			run_here(idle);
		else
			hd_wait_done();
	}
	/* Work queued behind @upto while we ran some is the workers' again. */
	if (help)
		kick_others(NULL);
}

static void wait_stream(struct hd_stream *s, u64 upto)
{
	while (oldest_pending(s) <= upto) {
		if (s->running)
			hd_wait_done();
		else
			run_here(s);
	}
	kick(s);
}

void hd_wait_legacy(const void *ctx)
{
	wait_set(WAIT_LEGACY, ctx, NULL, hd.seq, true);
}

void hd_drain(const void *ctx)
{
	wait_set(WAIT_CTX, ctx, NULL, hd.seq, true);
}

void hd_batch_begin(void)
{
	batching = true;
}

void hd_batch_end(void)
{
	batching = false;
	hd_lock();
	kick_others(NULL);
	hd_unlock();
}

/* Legacy ordering for an operation about to run on @s. */
static void wait_legacy_deps(struct hd_stream *s, const struct hd_op *op)
{
	if (s->is_null)
		wait_set(WAIT_LEGACY, s->obj.ctx, s, op->seq - 1, false);
	else if (!(s->flags & CU_STREAM_NON_BLOCKING))
		wait_set(WAIT_NULL_ONLY, s->obj.ctx, s, op->seq - 1, false);
}

static void run_launch(struct hd_stream *s, struct hd_op *op)
{
	const struct hd_kernel *k = op->launch.kernel;
	void *args[LAKE_KERNEL_MAX_PARAMS];
	unsigned int i;
	int trapped;

	for (i = 0; i < k->nparams; i++)
		args[i] = op->data + k->params[i].offset;
	hd_unlock();
	trapped = hd_pool_run(k, op->launch.grid, op->launch.block, args);
	hd_lock();
	if (trapped && !s->err)
		s->err = CUDA_ERROR_LAUNCH_FAILED;
}

static void run_op(struct hd_stream *s, struct hd_op *op)
{
	wait_legacy_deps(s, op);
	switch (op->kind) {
	case HD_OP_COPY:
		if (s->err)
			break;
		hd_unlock();
		memcpy(op->copy.dst, op->copy.src, op->copy.bytes);
		hd_lock();
		break;
	case HD_OP_MEMSET:
		if (s->err)
			break;
		hd_unlock();
		hd_mem_fill(op->memset.dst, op->memset.value, op->memset.count, op->memset.d32);
		hd_lock();
		break;
	case HD_OP_LAUNCH:
		if (!s->err)
			run_launch(s, op);
		break;
	case HD_OP_RECORD:
		hd_event_reached(op->record.ev, op->record.seq);
		hd_event_put(op->record.ev);
		break;
	}
}

static void *worker(void *arg)
{
	struct hd_stream *s = arg;

	hd_lock();
	for (;;) {
		while ((!s->head || s->running) && !s->stop)
			pthread_cond_wait(&s->wake, &hd.lock);
		if (!s->head || s->running)
			break;
		run_next(s);
	}
	hd_unlock();
	return NULL;
}

struct hd_op *hd_op_new(enum hd_op_kind kind, size_t data_bytes)
{
	struct hd_op *op = calloc(1, sizeof(*op) + data_bytes);

	if (op)
		op->kind = kind;
	return op;
}

void hd_submit(struct hd_stream *s, struct hd_op *op)
{
	op->seq = ++hd.seq;
	op->next = NULL;
	*s->tail = op;
	s->tail = &op->next;
	hd.pending++;
	/* A running executor, worker or helper, takes it or kicks it when done. */
	if (!batching && !s->running)
		pthread_cond_signal(&s->wake);
}

CUresult hd_stream_new(struct hd_ctx *ctx, unsigned int flags, bool is_null,
		       struct hd_stream **out)
{
	struct hd_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return CUDA_ERROR_OUT_OF_MEMORY;
	s->obj.type = HD_STREAM;
	s->obj.ctx = ctx->obj.handle;
	s->flags = flags;
	s->is_null = is_null;
	s->refs = 1;
	s->tail = &s->head;
	if (pthread_cond_init(&s->wake, NULL))
		goto err_free;
	if (!is_null && hd_handle_add(&s->obj))
		goto err_cond;
	if (pthread_create(&s->thread, NULL, worker, s))
		goto err_handle;
	hd_list_add(&s->node, &hd.streams);
	*out = s;
	return CUDA_SUCCESS;

err_handle:
	hd_handle_del(&s->obj);
err_cond:
	pthread_cond_destroy(&s->wake);
err_free:
	free(s);
	return CUDA_ERROR_OUT_OF_MEMORY;
}

static void stream_put(struct hd_stream *s)
{
	if (--s->refs)
		return;
	pthread_cond_destroy(&s->wake);
	free(s);
}

/*
 * Finish the stream's work, stop its worker and drop the owner's reference.
 * An error nobody synchronized on moves to the context, whose next
 * cuCtxSynchronize reports it.
 */
void hd_stream_release(struct hd_stream *s)
{
	struct hd_obj *ctx;

	hd_handle_del(&s->obj);
	wait_stream(s, hd.seq);
	s->stop = true;
	pthread_cond_signal(&s->wake);
	hd_unlock();
	pthread_join(s->thread, NULL);
	hd_lock();
	hd_list_del(&s->node);
	ctx = hd_handle_get(s->obj.ctx, HD_CTX);
	if (ctx && s->err && !container_of(ctx, struct hd_ctx, obj)->err)
		container_of(ctx, struct hd_ctx, obj)->err = s->err;
	stream_put(s);
}

CUresult hd_stream_resolve(CUstream handle, struct hd_stream **s)
{
	struct hd_ctx *ctx;
	struct hd_obj *obj;
	CUresult ret;

	if (!handle) {
		ret = hd_current(&ctx);
		if (!ret)
			*s = ctx->null_stream;
		return ret;
	}
	ret = hd_lookup(handle, HD_STREAM, &obj);
	if (!ret)
		*s = container_of(obj, struct hd_stream, obj);
	return ret;
}

CUresult hd_cuStreamCreate(CUstream *stream, unsigned int flags)
{
	struct hd_stream *s;
	struct hd_ctx *ctx;
	CUresult ret;

	hd_lock();
	ret = hd_current(&ctx);
	if (ret)
		goto out;
	ret = CUDA_ERROR_INVALID_VALUE;
	if (!stream || (flags & ~CU_STREAM_NON_BLOCKING))
		goto out;
	ret = hd_stream_new(ctx, flags, false, &s);
	if (!ret)
		*stream = s->obj.handle;
out:
	hd_unlock();
	return ret;
}

CUresult hd_cuStreamDestroy(CUstream stream)
{
	struct hd_obj *obj;
	CUresult ret;

	hd_lock();
	/* The NULL stream belongs to its context and cannot be destroyed. */
	ret = hd_lookup(stream, HD_STREAM, &obj);
	if (!ret)
		hd_stream_release(container_of(obj, struct hd_stream, obj));
	hd_unlock();
	return ret;
}

/*
 * The NULL stream's synchronize covers the legacy set, as work queued on
 * the blocking streams before it would have ordered before the NULL stream.
 */
CUresult hd_cuStreamSynchronize(CUstream stream)
{
	struct hd_stream *s;
	CUresult ret;

	hd_lock();
	ret = hd_stream_resolve(stream, &s);
	if (ret)
		goto out;
	s->refs++;
	if (s->is_null)
		wait_set(WAIT_LEGACY, s->obj.ctx, NULL, hd.seq, true);
	else
		wait_stream(s, hd.seq);
	ret = s->err;
	s->err = CUDA_SUCCESS;
	stream_put(s);
out:
	hd_unlock();
	return ret;
}

CUresult hd_cuStreamQuery(CUstream stream)
{
	struct hd_stream *s;
	CUresult ret;

	hd_lock();
	ret = hd_stream_resolve(stream, &s);
	if (!ret)
		ret = oldest_pending(s) != UINT64_MAX ? CUDA_ERROR_NOT_READY : s->err;
	hd_unlock();
	return ret;
}
