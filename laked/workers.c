// SPDX-License-Identifier: GPL-2.0
/*
 * laked serves contexts in parallel (laked.h, the pool).
 *
 * The receiving thread splits each CALL message into its records and queues
 * each one on the worker of the context it belongs to (lake_wire_req_ctx():
 * the header's context, or the one a cuCtxDestroy destroys); records of no
 * context (cuInit, device queries, cuCtxCreate) go to worker 0. A worker
 * runs its queue in arrival order, which is lakelib's id order, with the
 * context current on its own thread, as the driver's threading model has
 * it: a context may be current on several threads, and the work one thread
 * submits runs in the order it was submitted. So everything CUDA orders
 * within a context (each stream, and the legacy default stream against
 * the blocking streams) keeps lakelib's order, while one context's
 * synchronize, long copy or long kernel holds back only its own later
 * calls, never another context's.
 *
 * A context gets a worker on its first record: an idle one, a new one, or
 * past LAKED_WORKERS the one serving the fewest contexts, which then share
 * it (and its order). The binding is the context object's `serve`, written
 * under d->lock; a worker runs no record of a context bound elsewhere
 * (dispatch.c), so no two threads ever use one context's objects.
 *
 * Each context's queued records are bounded (LAKED_CTX_RECORDS,
 * LAKED_CTX_BYTES), not each worker's: contexts that share a worker (past
 * LAKED_WORKERS) cannot fill it for one another. lakelib keeps every
 * context well inside its bound (its per-context windows: at most 1,088
 * records of at most 4 KiB of inline data), so only a misbehaving kernel
 * reaches it; LAKED_POOL_BYTES bounds the whole pool's memory behind that.
 * A refused record is answered with CUDA_ERROR_OUT_OF_MEMORY (and a log
 * line) by its context's worker, in that context's order: a refusal sent
 * at once could overtake the context's earlier async records, and lakelib,
 * which retires every async record older than a sync reply, would drop
 * their errors. A refusal keeps only the record's header (LAKED_CTX_REFUSALS
 * of them per context; past that, one is answered at once). Workers
 * are threads started after the sandbox: they inherit its identity,
 * Landlock domain and seccomp filter.
 *
 * Lock order: d->lock (the dispatcher's tables), then p->lock (the pool's
 * queues, contexts, workers and stop flag), as worker_for() binds a
 * context; never p->lock then d->lock. A worker runs its records with
 * neither held, so a call that takes d->lock never waits behind the pool;
 * an idle worker runs the pool's idle function (the command ring's spin
 * and watch, laked/ring.c) with neither held, before it sleeps;
 * functions that need a lock held assert it (lockcheck.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include "dispatch.h"

#define LAKED_WORKERS		64
#define LAKED_CTX_REFUSALS	4096
#define LAKED_POOL_BYTES	(1U << 30)
#define LAKED_QUOTA_BUCKETS	256

/* What one context has queued: lives while it has anything queued. */
struct laked_quota {
	struct laked_quota *next;	/* in its bucket */
	u64 ctx;
	u32 records, bytes, refusals;
};

struct laked_job {
	struct laked_job *next;
	struct laked_quota *q;
	u32 len;
	bool refused;			/* data: the record's header, to answer */
	u8 data[] __attribute__((aligned(8)));
};

struct laked_worker {
	struct laked_pool *pool;
	pthread_t thread;
	pthread_cond_t wake;		/* a job queued, or stop */
	struct laked_job *head, **tail;
	u32 queued;			/* jobs, refusals included */
	struct laked_idle idle;		/* for the pool's idle function */
	unsigned int contexts;		/* bound to it */
	struct laked_exec x;
};

struct laked_pool {
	struct laked *d;
	struct laked_reply_sink *sink;
	pthread_mutex_t lock;		/* queues, quotas, contexts, workers[], stop */
	bool stop;
	laked_pool_idle_fn idle;	/* what an idle worker does before it sleeps */
	laked_pool_wake_fn wake;	/* ends that function's wait */
	void *idle_arg;
	u32 queued_bytes;		/* of every queue */
	struct laked_quota *quotas[LAKED_QUOTA_BUCKETS];
	unsigned int nworkers;
	struct laked_worker *workers[LAKED_WORKERS];	/* [0]: records of no context */
	struct laked_exec x;		/* the receiving thread's answers */
	u64 overflows;
};

static bool stopping(struct laked_pool *p)
{
	return __atomic_load_n(&p->stop, __ATOMIC_RELAXED);
}

/*
 * Replies go out after each record that has one: a later record of the
 * same context may wait a long time, and the caller waits for its answer.
 * Async records answer only when they fail; their errors ride with the next.
 */
static void run_jobs(struct laked_worker *w, struct laked_job *j)
{
	struct laked_pool *p = w->pool;
	struct laked *d = p->d;
	struct lake_wire_iter it;
	struct lake_wire_req req;
	struct laked_job *next;
	int sink_err = 0;
	CUresult r;

	if (d->drv->batch_begin)
		d->drv->batch_begin(d->drv);
	for (; j; j = next) {
		next = j->next;
		if (j->refused) {
			if (!stopping(p)) {
				laked_answer(&w->x, (const struct lake_wire_req *)j->data,
					     CUDA_ERROR_OUT_OF_MEMORY, p->sink, &sink_err);
				laked_exec_flush(&w->x, p->sink, &sink_err);
			}
			free(j);
			continue;
		}
		lake_wire_iter_init(&it, j->data, j->len);
		if (!stopping(p) && lake_wire_next_req(&it, &req) == 1) {
			r = laked_run_record(d, &w->x, &req, p->sink, &sink_err);
			if (req.api == LAKE_API_CTX_DESTROY && !r) {
				pthread_mutex_lock(&p->lock);
				w->contexts--;
				pthread_mutex_unlock(&p->lock);
			}
			if (!(req.flags & LAKE_WIRE_REQ_F_NOREPLY))
				laked_exec_flush(&w->x, p->sink, &sink_err);
		}
		free(j);
	}
	if (d->drv->batch_end)
		d->drv->batch_end(d->drv);
	laked_exec_flush(&w->x, p->sink, &sink_err);
	if (sink_err)
		laked_log(LOG_WARNING, "replies not sent: %s", strerrorname_np(-sink_err));
}

/* p->lock held: @ctx's quota, made when it has none (NULL: no memory). */
static struct laked_quota *quota_get(struct laked_pool *p, u64 ctx)
{
	struct laked_quota **b = &p->quotas[(ctx ^ ctx >> 16) % LAKED_QUOTA_BUCKETS], *q;

	for (q = *b; q; q = q->next)
		if (q->ctx == ctx)
			return q;
	q = calloc(1, sizeof(*q));
	if (q) {
		q->ctx = ctx;
		q->next = *b;
		*b = q;
	}
	return q;
}

/* p->lock held: @q goes once it has nothing queued. */
static void quota_put(struct laked_pool *p, struct laked_quota *q)
{
	struct laked_quota **b = &p->quotas[(q->ctx ^ q->ctx >> 16) % LAKED_QUOTA_BUCKETS];

	if (q->records || q->refusals)
		return;
	while (*b != q)
		b = &(*b)->next;
	*b = q->next;
	free(q);
}

/* p->lock held: @jobs left their queue for a worker; they count no more. */
static void unaccount(struct laked_pool *p, struct laked_job *jobs)
{
	struct laked_job *j;

	for (j = jobs; j; j = j->next) {
		if (j->refused) {
			j->q->refusals--;
		} else {
			j->q->records--;
			j->q->bytes -= j->len;
			p->queued_bytes -= j->len;
		}
		quota_put(p, j->q);
		j->q = NULL;
	}
}

static void *worker_main(void *arg)
{
	struct laked_worker *w = arg;
	struct laked_pool *p = w->pool;
	struct laked_job *jobs;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		if (!w->head && !p->stop && p->idle) {
			pthread_mutex_unlock(&p->lock);
			p->idle(p->idle_arg, &w->idle);
			pthread_mutex_lock(&p->lock);
		}
		while (!w->head && !p->stop)
			pthread_cond_wait(&w->wake, &p->lock);
		if (p->stop)
			break;
		jobs = w->head;
		w->head = NULL;
		w->tail = &w->head;
		w->queued = 0;
		__atomic_store_n(&w->idle.pending, false, __ATOMIC_RELAXED);
		unaccount(p, jobs);
		pthread_mutex_unlock(&p->lock);
		run_jobs(w, jobs);
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* A started worker, or NULL (logged). */
static struct laked_worker *start_worker(struct laked_pool *p)
{
	struct laked_worker *w;
	int ret;

	laked_assert_held(&p->lock);
	w = calloc(1, sizeof(*w));
	if (!w) {
		laked_log(LOG_ERR, "no memory for a worker");
		return NULL;
	}
	w->pool = p;
	w->tail = &w->head;
	laked_exec_init(&w->x, w);
	pthread_cond_init(&w->wake, NULL);
	ret = pthread_create(&w->thread, NULL, worker_main, w);
	if (ret) {
		laked_log(LOG_ERR, "cannot start a worker: %s", strerrorname_np(ret));
		pthread_cond_destroy(&w->wake);
		free(w);
		return NULL;
	}
	p->workers[p->nworkers++] = w;
	return w;
}

/* The worker a new context is bound to; worker 0 when no other can start. */
static struct laked_worker *bind_worker(struct laked_pool *p)
{
	struct laked_worker *w, *least = NULL;
	unsigned int i;

	laked_assert_held(&p->lock);
	for (i = 1; i < p->nworkers; i++) {
		w = p->workers[i];
		if (!w->contexts)
			goto bound;
		if (!least || w->contexts < least->contexts)
			least = w;
	}
	w = p->nworkers < LAKED_WORKERS ? start_worker(p) : NULL;
	if (!w)
		w = least ? least : p->workers[0];
bound:
	w->contexts++;
	return w;
}

/* The worker serving @ctx; worker 0 for no context or a dead one (which refuses it). */
static struct laked_worker *worker_for(struct laked_pool *p, u64 ctx)
{
	struct laked *d = p->d;
	struct laked_worker *w = p->workers[0];
	struct laked_obj *o;

	if (!ctx)
		return w;
	laked_lock(d);
	o = laked_obj_get(&d->handles, ctx, LAKED_CTX);
	if (o) {
		if (!o->serve) {
			pthread_mutex_lock(&p->lock);
			o->serve = bind_worker(p);
			pthread_mutex_unlock(&p->lock);
		}
		w = o->serve;
	}
	laked_unlock(d);
	return w;
}

/* p->lock held: @w has a job, or must see the pool stop. */
static void wake_worker(struct laked_pool *p, struct laked_worker *w)
{
	/* Pairs with the idle function: it stores watching, then reads pending. */
	__atomic_store_n(&w->idle.pending, true, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&w->idle.watching, __ATOMIC_SEQ_CST))
		p->wake(p->idle_arg);
	pthread_cond_signal(&w->wake);
}

/* p->lock held: queue @j, counted in @q. */
static void enqueue(struct laked_worker *w, struct laked_quota *q, struct laked_job *j)
{
	j->next = NULL;
	j->q = q;
	*w->tail = j;
	w->tail = &j->next;
	w->queued++;
	wake_worker(w->pool, w);
}

static bool queue_record(void *arg, const struct lake_wire_req *req, const void *raw,
			 u32 len)
{
	struct laked_pool *p = arg;
	u64 ctx = lake_wire_req_ctx(req);
	struct laked_worker *w = worker_for(p, ctx);
	struct laked_job *j = malloc(sizeof(*j) + len);
	struct laked_quota *q;
	bool full, later = false;
	u32 records = 0;
	int err = 0;

	pthread_mutex_lock(&p->lock);
	q = quota_get(p, ctx);
	full = !j || !q || q->records >= LAKED_CTX_RECORDS || len > LAKED_CTX_BYTES - q->bytes ||
	       len > LAKED_POOL_BYTES - p->queued_bytes;
	if (!full) {
		j->len = len;
		j->refused = false;
		memcpy(j->data, raw, len);
		q->records++;
		q->bytes += len;
		p->queued_bytes += len;
		enqueue(w, q, j);
	} else {
		p->overflows++;
		records = q ? q->records : 0;
		/* The refusal takes the record's place in the queue: its header only. */
		free(j);
		j = q && q->refusals < LAKED_CTX_REFUSALS ? malloc(sizeof(*j) + sizeof(*req)) : NULL;
		if (j) {
			j->len = sizeof(*req);
			j->refused = true;
			memcpy(j->data, req, sizeof(*req));
			((struct lake_wire_req *)j->data)->tail = NULL;
			q->refusals++;
			enqueue(w, q, j);
			later = true;
		} else if (q) {
			quota_put(p, q);
		}
	}
	pthread_mutex_unlock(&p->lock);
	if (full) {
		laked_log(LOG_WARNING, "%s (req %llu) refused: context %#llx has %u records queued: CUDA_ERROR_OUT_OF_MEMORY%s",
			  lake_wire_api(req->api)->name, (unsigned long long)req->req_id,
			  (unsigned long long)ctx, records,
			  later ? "" : " (answered at once: no room for the refusal)");
		if (!later)
			laked_answer(&p->x, req, CUDA_ERROR_OUT_OF_MEMORY, p->sink, &err);
	}
	return true;
}

int laked_pool_create(struct laked_pool **out, struct laked *d, struct laked_reply_sink *sink)
{
	struct laked_pool *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->d = d;
	p->sink = sink;
	laked_mutex_init(&p->lock);
	laked_exec_init(&p->x, p);
	pthread_mutex_lock(&p->lock);
	if (!start_worker(p)) {
		pthread_mutex_unlock(&p->lock);
		pthread_mutex_destroy(&p->lock);
		free(p);
		return -EAGAIN;
	}
	pthread_mutex_unlock(&p->lock);
	*out = p;
	return 0;
}

void laked_pool_set_idle(struct laked_pool *p, laked_pool_idle_fn idle, laked_pool_wake_fn wake,
			 void *arg)
{
	pthread_mutex_lock(&p->lock);
	p->idle = idle;
	p->wake = wake;
	p->idle_arg = arg;
	pthread_mutex_unlock(&p->lock);
}

int laked_pool_submit(struct laked_pool *p, const void *blob, u32 len)
{
	return laked_walk_blob(p->d, &p->x, blob, len, p->sink, queue_record, p);
}

void laked_pool_stats(struct laked_pool *p, struct laked_pool_stats *st)
{
	unsigned int i;

	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&p->lock);
	st->workers = p->nworkers;
	st->overflows = p->overflows;
	for (i = 0; i < p->nworkers; i++) {
		st->contexts += p->workers[i]->contexts;
		st->queued += p->workers[i]->queued;
	}
	pthread_mutex_unlock(&p->lock);
}

void laked_pool_destroy(struct laked_pool *p)
{
	struct laked_quota *q;
	struct laked_worker *w;
	struct laked_job *j;
	unsigned int i;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	for (i = 0; i < p->nworkers; i++)
		wake_worker(p, p->workers[i]);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->nworkers; i++) {
		w = p->workers[i];
		pthread_join(w->thread, NULL);
		while ((j = w->head)) {
			w->head = j->next;
			free(j);
		}
		laked_stagings_fini(&w->x.staged);
		pthread_cond_destroy(&w->wake);
		free(w);
	}
	for (i = 0; i < LAKED_QUOTA_BUCKETS; i++)
		while ((q = p->quotas[i])) {
			p->quotas[i] = q->next;
			free(q);
		}
	pthread_mutex_destroy(&p->lock);
	free(p);
}
