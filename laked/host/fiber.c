// SPDX-License-Identifier: GPL-2.0
/*
 * The threads of a C++ kernel's block as fibers (ucontext), all on the OS
 * thread that runs the block, so that __syncthreads() can hold a CUDA
 * thread while the others catch up. A fiber runs CUDA threads one after
 * another until one waits at a barrier; the next thread then starts on a
 * fresh fiber. A kernel that never syncs so runs its threads in a loop on a
 * single fiber (two context switches per block), one that syncs every
 * thread ends with a fiber per thread.
 *
 * A fiber that waits, or has no thread left to start, switches straight to
 * the next ready one, in order (next_fiber). When none is ready and every
 * thread has started: if no thread waits, the block is done; if all that
 * are left wait and none returned, the barrier opens and they all become
 * ready, having seen every write made before it (one OS thread: program
 * order is enough); if some wait while others returned, those never arrive
 * (a barrier behind `if (i >= n) return;`), so the block fails as one that
 * reached __trap() does, with a log line, and the launch reports
 * CUDA_ERROR_LAUNCH_FAILED. Only then does the OS thread's own context,
 * which started the first fiber, resume. Nothing is left to hang: fibers
 * abandoned at a barrier or a trap are never resumed, and their stacks
 * start afresh in the next block.
 *
 * Each OS thread keeps its fibers (FIBER_STACK bytes of stack over a guard
 * page, mapped at first use) for its later blocks, so a launch maps
 * nothing once warm; they are unmapped when the thread exits.
 */
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include "host.h"

#define FIBER_STACK	(64 * 1024)

enum fiber_state {
	FIBER_READY,
	FIBER_WAITING,		/* at a barrier */
	FIBER_EXITED,		/* no thread left to start */
};

struct fiber {
	ucontext_t uc;
	void *map;		/* guard page, then the stack */
	enum fiber_state state;
	struct lake_cxx_thread t;
};

struct fiber_cache {
	size_t page;
	unsigned int n;
	struct fiber *f[HD_MAX_THREADS];
};

struct block {
	ucontext_t sched;	/* the OS thread's, resumed when the block is over */
	struct fiber_cache *cache;
	const char *name;
	const struct lake_kernel_launch *l;
	void (*run)(void *arg);
	void *arg;
	unsigned int threads, started, returned, waiting;
	struct lake_dim3 next_idx;	/* of the thread started next */
	unsigned int fibers;	/* in use, cache->f[0 .. fibers - 1] */
	unsigned int scan;	/* the next one next_fiber looks at */
	struct fiber *starting;	/* the one fiber_main is to run as */
	struct lake_cxx_thread **slot;
	int ret;		/* once over: 0, or LAKE_KERNEL_TRAPPED */
};

/* The block this OS thread runs: makecontext passes no pointers. */
static __thread struct block *cur;
static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static int cache_key_err;

static void fiber_unmap(struct fiber *f, size_t page)
{
	munmap(f->map, page + FIBER_STACK);
	free(f);
}

static void cache_free(void *p)
{
	struct fiber_cache *c = p;
	unsigned int i;

	for (i = 0; i < c->n; i++)
		fiber_unmap(c->f[i], c->page);
	free(c);
}

static void cache_key_create(void)
{
	cache_key_err = pthread_key_create(&cache_key, cache_free);
}

static struct fiber_cache *cache_get(void)
{
	struct fiber_cache *c;

	pthread_once(&cache_once, cache_key_create);
	if (cache_key_err)
		return NULL;
	c = pthread_getspecific(cache_key);
	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->page = (size_t)sysconf(_SC_PAGESIZE);
	if (pthread_setspecific(cache_key, c)) {
		free(c);
		return NULL;
	}
	return c;
}

/* Apart: getcontext returns twice, which would pin fiber_new's locals. */
static __attribute__((noinline)) int context_init(ucontext_t *uc)
{
	return getcontext(uc);
}

static struct fiber *fiber_new(size_t page)
{
	struct fiber *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->map = mmap(NULL, page + FIBER_STACK, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
	if (f->map == MAP_FAILED) {
		free(f);
		return NULL;
	}
	if (mprotect(f->map, page, PROT_NONE) || context_init(&f->uc)) {
		fiber_unmap(f, page);
		return NULL;
	}
	return f;
}

/* The index of the thread after @idx, x fastest: no division per thread. */
static void thread_next(struct lake_dim3 *idx, const struct lake_dim3 *dim)
{
	if (++idx->x < dim->x)
		return;
	idx->x = 0;
	if (++idx->y < dim->y)
		return;
	idx->y = 0;
	idx->z++;
}

/* Every live thread is at the barrier: all go on. */
static void barrier_open(struct block *b)
{
	unsigned int i;

	for (i = 0; i < b->fibers; i++)
		if (b->cache->f[i]->state == FIBER_WAITING)
			b->cache->f[i]->state = FIBER_READY;
	b->waiting = 0;
	b->scan = 0;
}

static struct fiber *next_fiber(struct block *b);

/* A fiber's life: CUDA threads until none is left to start. */
static void fiber_main(void)
{
	struct block *b = cur;
	struct fiber *f = b->starting, *next;

	while (b->started < b->threads) {
		f->t.thread_idx = b->next_idx;
		thread_next(&b->next_idx, &b->l->block);
		b->started++;
		b->run(b->arg);
		b->returned++;
	}
	f->state = FIBER_EXITED;
	next = next_fiber(b);
	if (next) {
		*b->slot = &next->t;
		setcontext(&next->uc);
	}
}	/* the block is over: uc_link, the scheduler */

/* Straight on to the next fiber: one switch per thread and barrier. */
static void fiber_sync(struct lake_cxx_thread *t)
{
	struct fiber *f = container_of(t, struct fiber, t), *next;
	struct block *b = cur;

	f->state = FIBER_WAITING;
	b->waiting++;
	next = next_fiber(b);
	if (next == f)
		return;		/* the barrier opened, and this thread is first */
	if (next)
		*b->slot = &next->t;
	swapcontext(&f->uc, next ? &next->uc : &b->sched);
}

static void fiber_trap(struct lake_cxx_thread *t)
{
	const struct lake_dim3 *i = &t->block_idx;

	hd_warn("%s: block (%u,%u,%u): __trap(); the launch fails", cur->name, i->x, i->y, i->z);
	cur->ret = LAKE_KERNEL_TRAPPED;
	setcontext(&cur->sched);
	abort();	/* setcontext returns only on a context it cannot load */
}

static struct fiber *fiber_start(struct block *b)
{
	struct fiber_cache *c = b->cache;
	struct fiber *f;

	if (b->fibers == c->n) {
		f = fiber_new(c->page);
		if (!f)
			return NULL;
		c->f[c->n++] = f;
	}
	f = c->f[b->fibers++];
	b->scan = b->fibers;
	f->uc.uc_link = &b->sched;
	f->uc.uc_stack.ss_sp = (char *)f->map + c->page;
	f->uc.uc_stack.ss_size = FIBER_STACK;
	makecontext(&f->uc, fiber_main, 0);
	f->state = FIBER_READY;
	f->t.block_idx = b->l->block_idx;
	f->t.block_dim = b->l->block;
	f->t.grid_dim = b->l->grid;
	f->t.sync = fiber_sync;
	f->t.trap = fiber_trap;
	b->starting = f;
	return f;
}

/* The next fiber to resume, NULL when the block is over (b->ret says how). */
static struct fiber *next_fiber(struct block *b)
{
	const struct lake_dim3 *i = &b->l->block_idx;
	struct fiber *f;

	for (;;) {
		while (b->scan < b->fibers) {
			f = b->cache->f[b->scan++];
			if (f->state == FIBER_READY)
				return f;
		}
		if (b->started < b->threads) {
			f = fiber_start(b);
			if (f)
				return f;
			hd_warn("%s: block (%u,%u,%u): no memory for a fiber", b->name,
				i->x, i->y, i->z);
			b->ret = LAKE_KERNEL_TRAPPED;
			return NULL;
		}
		if (!b->waiting)
			return NULL;
		if (b->returned) {
			hd_warn("%s: block (%u,%u,%u): %u threads wait at __syncthreads() for %u that returned; the launch fails",
				b->name, i->x, i->y, i->z, b->waiting, b->returned);
			b->ret = LAKE_KERNEL_TRAPPED;
			return NULL;
		}
		barrier_open(b);
	}
}

int hd_fiber_block(const char *name, const struct lake_kernel_launch *l,
		   struct lake_cxx_thread **slot, void (*run)(void *arg), void *arg)
{
	struct block b = {
		.name = name,
		.l = l,
		.slot = slot,
		.run = run,
		.arg = arg,
		.threads = l->block.x * l->block.y * l->block.z,
	};
	struct fiber *f;

	b.cache = cache_get();
	if (!b.cache) {
		hd_warn("%s: no memory for fibers", name);
		return LAKE_KERNEL_TRAPPED;
	}
	cur = &b;
	f = next_fiber(&b);
	if (f) {
		*slot = &f->t;
		swapcontext(&b.sched, &f->uc);
	}
	*slot = NULL;
	cur = NULL;
	return b.ret;
}
