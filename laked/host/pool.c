// SPDX-License-Identifier: GPL-2.0
/*
 * The thread pool that plays the multiprocessors. A launch becomes a job:
 * its blocks are handed out in chunks to whichever executor asks next (the
 * pool's workers and the thread running the launch, a stream worker or a
 * synchronizing caller, which helps rather than idles). Each block runs all
 * its threads on the executor that took it: in a loop inside a C kernel's
 * trampoline (lake/kernel.h), as fibers for a C++ kernel (fiber.c). So
 * blocks are the unit of parallelism and threads of a block never run
 * concurrently.
 */
#include "host.h"

struct hd_job {
	struct hd_job *next;
	const struct hd_kernel *kernel;
	struct lake_dim3 grid, block;
	void **args;
	u64 nblocks, next_block, chunk;
	unsigned int running;	/* executors inside a chunk */
	bool trapped;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	struct hd_job *jobs;	/* jobs with blocks still to hand out */
	pthread_t *threads;
	unsigned int n;
	bool stop;
	/*
	 * Executor time spent in blocks, integrated whenever the number of
	 * executors inside a chunk changes or a sample is taken: a chunk
	 * longer than the sampling period counts in every sample it spans,
	 * not all at once when it ends.
	 */
	u64 busy_ns;
	unsigned int active;	/* executors inside a chunk */
	u64 active_since;	/* when busy_ns was last brought up to date */
	u64 sample_at, sample_busy;
} pool = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

static void unlink_job(struct hd_job *j)
{
	struct hd_job **pp;

	for (pp = &pool.jobs; *pp; pp = &(*pp)->next) {
		if (*pp == j) {
			*pp = j->next;
			return;
		}
	}
}

/* Bring busy_ns up to @now; pool.lock held. */
static void account_busy(u64 now)
{
	pool.busy_ns += pool.active * (now - pool.active_since);
	pool.active_since = now;
}

/* Run one chunk of @j's blocks; called and returns with pool.lock held. */
static void run_chunk(struct hd_job *j)
{
	u64 b = j->next_block, end = b + j->chunk;
	struct lake_kernel_launch l = { .grid = j->grid, .block = j->block };
	bool trapped = false;

	if (end > j->nblocks)
		end = j->nblocks;
	j->next_block = end;
	if (end == j->nblocks)
		unlink_job(j);
	j->running++;
	account_busy(hd_now_ns());
	pool.active++;
	pthread_mutex_unlock(&pool.lock);

	for (; b < end && !trapped; b++) {
		l.block_idx.x = (unsigned int)(b % j->grid.x);
		l.block_idx.y = (unsigned int)(b / j->grid.x % j->grid.y);
		l.block_idx.z = (unsigned int)(b / ((u64)j->grid.x * j->grid.y));
		trapped = j->kernel->run_block(j->kernel, &l, j->args) != 0;
	}

	pthread_mutex_lock(&pool.lock);
	account_busy(hd_now_ns());
	pool.active--;
	if (trapped && !j->trapped) {
		/* A trap aborts the whole grid: hand out nothing more. */
		j->trapped = true;
		if (j->next_block < j->nblocks)
			unlink_job(j);
		j->next_block = j->nblocks;
	}
	if (!--j->running && j->next_block == j->nblocks)
		pthread_cond_broadcast(&pool.done);
}

static void *pool_worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pool.lock);
	while (!pool.stop) {
		if (pool.jobs)
			run_chunk(pool.jobs);
		else
			pthread_cond_wait(&pool.work, &pool.lock);
	}
	pthread_mutex_unlock(&pool.lock);
	return NULL;
}

int hd_pool_run(const struct hd_kernel *k, struct lake_dim3 grid, struct lake_dim3 block,
		void **args)
{
	struct hd_job j = {
		.kernel = k,
		.grid = grid,
		.block = block,
		.args = args,
		.nblocks = (u64)grid.x * grid.y * grid.z,
	};
	struct hd_job **pp;

	/* A few chunks per executor: balance without a lock round per block. */
	j.chunk = j.nblocks / (4 * (pool.n + 1));
	if (!j.chunk)
		j.chunk = 1;
	pthread_mutex_lock(&pool.lock);
	for (pp = &pool.jobs; *pp; pp = &(*pp)->next)
		;
	*pp = &j;
	/* A job of one chunk runs on its submitter alone: waking the pool costs more. */
	if (j.nblocks > j.chunk)
		pthread_cond_broadcast(&pool.work);
	while (j.next_block < j.nblocks)
		run_chunk(&j);
	while (j.running)
		pthread_cond_wait(&pool.done, &pool.lock);
	pthread_mutex_unlock(&pool.lock);
	return j.trapped ? LAKE_KERNEL_TRAPPED : 0;
}

unsigned int hd_pool_utilization(void)
{
	u64 now, busy, span;
	unsigned int pct;

	pthread_mutex_lock(&pool.lock);
	/* Read under the lock: no executor may have accounted past it. */
	now = hd_now_ns();
	account_busy(now);
	busy = pool.busy_ns - pool.sample_busy;
	span = (now - pool.sample_at) * pool.n;
	pool.sample_at = now;
	pool.sample_busy = pool.busy_ns;
	pthread_mutex_unlock(&pool.lock);
	if (!span)
		return 0;
	pct = (unsigned int)(busy * 100 / span);
	return pct > 100 ? 100 : pct;
}

int hd_pool_create(unsigned int workers)
{
	unsigned int i;

	pool.threads = calloc(workers, sizeof(*pool.threads));
	if (!pool.threads)
		return -ENOMEM;
	pool.stop = false;
	pool.busy_ns = 0;
	pool.active = 0;
	pool.sample_busy = 0;
	pool.sample_at = hd_now_ns();
	pool.active_since = pool.sample_at;
	for (i = 0; i < workers; i++) {
		if (pthread_create(&pool.threads[i], NULL, pool_worker, NULL)) {
			pool.n = i;
			hd_pool_destroy();
			return -EAGAIN;
		}
	}
	pool.n = workers;
	return 0;
}

void hd_pool_destroy(void)
{
	unsigned int i;

	pthread_mutex_lock(&pool.lock);
	pool.stop = true;
	pthread_cond_broadcast(&pool.work);
	pthread_mutex_unlock(&pool.lock);
	for (i = 0; i < pool.n; i++)
		pthread_join(pool.threads[i], NULL);
	free(pool.threads);
	pool.threads = NULL;
	pool.n = 0;
}
