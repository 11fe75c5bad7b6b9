// SPDX-License-Identifier: GPL-2.0
/*
 * lake_parallel_selftest: one context's long synchronize, or its flood of
 * async calls, must not hold back the calls of another context, for
 * tests/vm/cases/35-parallel.sh. Each role is a kthread with a context of
 * its own, as separate kernel modules would be:
 *   A  launches run_for (tests/kernels/timed.cu) for a given time and waits
 *      in cuCtxSynchronize
 *   B  small checked calls: cuMemsetD32 of a value, then a synchronous
 *      cuMemcpyDtoH of those 16 bytes, timed
 *   C  floods: FLOOD_CALLS cuMemsetD32Async with no sync between them, one
 *      cuCtxSynchronize, then a check that the last value landed
 * Every role sets up (context, memory, module) before any starts its work,
 * so that no set-up call queues behind another role's work.
 * Driven through debugfs lake/parallel_selftest (selftest_ctl.h):
 *   overlap       B alone, then B while A synchronizes a kernel 12x as long
 *                 as B alone took (OVERLAP_MIN_MS at least): B must be done
 *                 before the kernel is half over
 *   flood         B alone, then B while C floods: 200 calls, then one a
 *                 millisecond until C's synchronize returns; none may wait
 *                 for a good part of the flood (1 / FLOOD_SHARE of it)
 *   kill_start    A in its synchronize, C behind a kernel of its own, B
 *                 calling until a call fails: in position for kill -9
 *   mark          the time of the kill, taken just before it
 *   kill_results  every role's call failed, within KILL_BOUND_MS of mark
 *   fresh         a new context works (after laked's restart)
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <lake/cuda.h>
#include <lake/lakelib.h>
#include "../../kernels/timed.h"
#include "selftest_ctl.h"

LAKE_KERNEL_SIG(run_for, RUN_FOR_PARAMS);

#define B_CALLS		200
#define B_WORDS		4
#define FLOOD_CALLS	20000
#define FLOOD_WORDS	65536	/* 256 KiB a memset: seconds of work under TCG */
#define FLOOD_PLACED	1000	/* B starts once C has queued this many */
#define FLOOD_SHARE	2	/* no call of B waits half the flood */
/*
 * B must be done at half the kernel: 6x its time alone, and 1 s at least;
 * within one boot TCG's speed was seen to swing 20x.
 */
#define OVERLAP_FACTOR	12
#define OVERLAP_MIN_MS	2000
#define OVERLAP_MAX_MS	20000
#define KILL_KERNEL_MS	25000	/* far beyond the kill; below the case's timeout_ms */
#define KILL_BOUND_MS	2000
#define PLACE_WAIT	(20 * HZ)
#define KILL_WAIT	(60 * HZ)	/* past the case's timeout_ms: every call is back */

#define CHECK(name, cond, fmt, ...) do {					\
	if (cond)								\
		ctl_say("ok - parallel.%s\n", name);				\
	else									\
		ctl_say("not ok - parallel.%s: " fmt "\n", name, ##__VA_ARGS__);	\
} while (0)

enum { ROLE_A, ROLE_B, ROLE_C, ROLES };

struct role {
	int id;
	struct completion ready;	/* set up (or failed to) */
	struct completion go;
	struct completion placed;	/* at its position for the others */
	struct completion done;
	bool started;
	/* what to do */
	u64 kernel_ns;		/* A, C: run_for this long first (C: 0 for none) */
	int calls;		/* B: how many; 0: until one fails */
	bool till_flood_over;	/* B: and on until C is done */
	/* what happened */
	CUresult setup;		/* the first set-up call that failed */
	CUresult result;	/* the first work call that failed */
	int ok;			/* B: calls checked; C: asyncs accepted */
	int wrong;		/* B: calls whose value came back wrong */
	u64 start_ns;		/* A: its launch; B, C: their first call */
	u64 end_ns;		/* when its last call returned */
	u64 first_ns;		/* B: when its first call returned */
	u64 worst_ns;		/* B: its longest call */
	/* its own */
	CUfunction fn;
	CUdeviceptr d;
	u32 *host;
};

static struct role roles[ROLES];
static bool stopping;
static bool flood_over;
static u64 mark_ns;

static u32 pattern(int id, int i)
{
	return (0x9e3779b9u * (i + 1)) ^ ((u32)id << 28);
}

static int ms(s64 ns)
{
	return div_s64(ns, NSEC_PER_MSEC);
}

static CUresult launch_run_for(CUfunction fn, u64 ns)
{
	unsigned long long arg = ns;
	void *params[] = { &arg };

	return cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL);
}

static CUresult role_setup(struct role *r)
{
	size_t bytes = (r->id == ROLE_C ? FLOOD_WORDS : B_WORDS) * sizeof(u32);
	CUmodule mod;
	CUresult res;

	res = cuMemAlloc(&r->d, bytes);
	if (!res && r->kernel_ns) {
		res = cuModuleLoad(&mod, "timed.cubin");
		if (!res)
			res = lake_module_get_function(&r->fn, mod, &lake_sig_run_for);
	}
	return res;
}

static void a_work(struct role *a)
{
	/*
	 * A's worker is then the last to have gone idle: it may be the one that
	 * watches the ring or, on two CPUs, spins and stays awake into A's long
	 * synchronize (laked/ring.c); B's calls must still find someone.
	 */
	a->result = cuCtxSynchronize();
	if (a->result) {
		complete(&a->placed);
		return;
	}
	a->start_ns = ktime_get_ns();
	a->result = launch_run_for(a->fn, a->kernel_ns);
	complete(&a->placed);
	if (!a->result)
		a->result = cuCtxSynchronize();
	a->end_ns = ktime_get_ns();
}

static bool b_more(const struct role *b, int i)
{
	if (READ_ONCE(stopping))
		return false;
	return !b->calls || i < b->calls || (b->till_flood_over && !READ_ONCE(flood_over));
}

/* B is placed once it starts calling: behind a held laked it cannot finish one. */
static void b_work(struct role *b)
{
	u64 t = ktime_get_ns();
	u32 v;
	int i, k;

	b->start_ns = t;
	complete(&b->placed);
	for (i = 0; b_more(b, i); i++) {
		v = pattern(ROLE_B, i);
		memset(b->host, 0, B_WORDS * sizeof(u32));
		b->result = cuMemsetD32(b->d, v, B_WORDS);
		if (!b->result)
			b->result = cuMemcpyDtoH(b->host, b->d, B_WORDS * sizeof(u32));
		b->end_ns = ktime_get_ns();
		b->worst_ns = max(b->worst_ns, b->end_ns - t);
		t = b->end_ns;
		if (!i)
			b->first_ns = t;
		if (b->result)
			break;
		for (k = 0; k < B_WORDS && b->host[k] == v; k++)
			;
		if (k < B_WORDS)
			b->wrong++;
		else
			b->ok++;
		/* Past its count B only watches the flood: leave C the CPU. */
		if (b->calls && i >= b->calls)
			usleep_range(1000, 2000);
	}
}

static void c_work(struct role *c)
{
	u32 last = 0;
	int i;

	c->start_ns = ktime_get_ns();
	if (c->kernel_ns)
		c->result = launch_run_for(c->fn, c->kernel_ns);
	for (i = 0; !c->result && i < FLOOD_CALLS; i++) {
		last = pattern(ROLE_C, i);
		c->result = cuMemsetD32Async(c->d, last, FLOOD_WORDS, NULL);
		if (!c->result)
			c->ok++;
		if (i + 1 == FLOOD_PLACED)
			complete(&c->placed);
	}
	if (!c->result)
		c->result = cuCtxSynchronize();
	if (!c->result)
		c->result = cuMemcpyDtoH(c->host, c->d + (FLOOD_WORDS - 1) * sizeof(u32),
					 sizeof(u32));
	c->end_ns = ktime_get_ns();
	if (!c->result && c->host[0] != last)
		c->wrong++;
	if (i < FLOOD_PLACED)
		complete(&c->placed);
}

static int role_fn(void *arg)
{
	struct role *r = arg;
	CUcontext ctx = NULL;

	r->host = kzalloc(B_WORDS * sizeof(u32), GFP_KERNEL);
	r->setup = r->host ? cuInit(0) : CUDA_ERROR_OUT_OF_MEMORY;
	if (!r->setup)
		r->setup = cuCtxCreate(&ctx, 0, 0);
	if (!r->setup)
		r->setup = role_setup(r);
	complete(&r->ready);
	wait_for_completion(&r->go);
	if (r->setup || READ_ONCE(stopping))
		complete(&r->placed);
	else if (r->id == ROLE_A)
		a_work(r);
	else if (r->id == ROLE_B)
		b_work(r);
	else
		c_work(r);
	if (r->id == ROLE_C)
		WRITE_ONCE(flood_over, true);
	/* After a kill the context is stale: this only drops lakelib's entry. */
	if (ctx)
		cuCtxDestroy(ctx);
	kfree(r->host);
	kthread_complete_and_exit(&r->done, 0);
}

/* Wait for every role started, so that none outlives a command or the module. */
static void roles_reap(void)
{
	int i;

	for (i = 0; i < ROLES; i++) {
		if (!roles[i].started)
			continue;
		complete_all(&roles[i].go);
		wait_for_completion(&roles[i].done);
		roles[i].started = false;
	}
}

/* Start the roles in @mask, each set up and waiting for its go; false: one failed. */
static bool roles_start(unsigned int mask, u64 a_ns, u64 c_ns, int b_calls, bool till)
{
	struct task_struct *t;
	bool fine = true;
	int i;

	roles_reap();
	flood_over = false;
	for (i = 0; i < ROLES; i++) {
		struct role *r = &roles[i];

		if (!(mask & BIT(i)))
			continue;
		memset(r, 0, sizeof(*r));
		r->id = i;
		r->kernel_ns = i == ROLE_A ? a_ns : i == ROLE_C ? c_ns : 0;
		r->calls = b_calls;
		r->till_flood_over = till;
		init_completion(&r->ready);
		init_completion(&r->go);
		init_completion(&r->placed);
		init_completion(&r->done);
		t = kthread_run(role_fn, r, "lake_par_%c", 'A' + i);
		if (IS_ERR(t)) {
			fine = false;
			continue;
		}
		r->started = true;
	}
	for (i = 0; i < ROLES; i++) {
		if (!roles[i].started)
			continue;
		wait_for_completion(&roles[i].ready);
		if (roles[i].setup) {
			ctl_say("# role %c: set-up call returned %d\n", 'A' + i, roles[i].setup);
			fine = false;
		}
	}
	return fine;
}

/* Let @r go, and wait until it is in position (bounded). */
static bool role_place(struct role *r)
{
	complete(&r->go);
	return wait_for_completion_timeout(&r->placed, PLACE_WAIT) > 0;
}

static void role_wait(struct role *r)
{
	wait_for_completion(&r->done);
	r->started = false;
}

/* B alone: its calls' time, 0 if they did not all check out. */
static u64 b_alone(const char *what)
{
	struct role *b = &roles[ROLE_B];
	u64 ns = 0;

	if (roles_start(BIT(ROLE_B), 0, 0, B_CALLS, false) && role_place(b)) {
		role_wait(b);
		if (b->ok == B_CALLS)
			ns = b->end_ns - b->start_ns;
	}
	roles_reap();
	CHECK(what, ns, "%d/%d calls checked, %d wrong, result %d", b->ok, B_CALLS, b->wrong,
	      b->result);
	return ns;
}

static void cmd_overlap(void)
{
	struct role *a = &roles[ROLE_A], *b = &roles[ROLE_B];
	u64 alone = b_alone("overlap_b_alone"), d;
	bool placed;

	if (!alone)
		return;
	d = clamp_t(u64, OVERLAP_FACTOR * alone, OVERLAP_MIN_MS * NSEC_PER_MSEC,
		    OVERLAP_MAX_MS * NSEC_PER_MSEC);
	if (!roles_start(BIT(ROLE_A) | BIT(ROLE_B), d, 0, B_CALLS, false)) {
		CHECK("overlap_setup", false, "a role could not set up");
		roles_reap();
		return;
	}
	/* B's first call goes out while A's synchronize is in laked, or just after. */
	placed = role_place(a) && role_place(b);
	CHECK("overlap_setup", placed, "a role did not start");
	if (!placed) {
		roles_reap();
		return;
	}
	role_wait(b);
	role_wait(a);
	ctl_say("# overlap: A's kernel %d ms; B alone: %d calls in %d ms\n", ms(d), B_CALLS,
		ms(alone));
	ctl_say("# overlap: since A's launch, B's first call done at %d ms, its last at %d ms (slowest %d ms); A's synchronize returned at %d ms\n",
		b->first_ns ? ms(b->first_ns - a->start_ns) : -1, ms(b->end_ns - a->start_ns),
		ms(b->worst_ns), ms(a->end_ns - a->start_ns));
	CHECK("overlap_a_synchronized", !a->result && a->end_ns - a->start_ns >= d,
	      "result %d after %d ms, kernel %d ms", a->result, ms(a->end_ns - a->start_ns),
	      ms(d));
	CHECK("overlap_b_calls_checked", b->ok == B_CALLS && !b->wrong,
	      "%d/%d checked, %d wrong, result %d", b->ok, B_CALLS, b->wrong, b->result);
	CHECK("overlap_b_not_held_by_a", b->end_ns - a->start_ns < d / 2,
	      "B's last call returned %d ms after A's launch, not before half A's %d ms kernel",
	      ms(b->end_ns - a->start_ns), ms(d));
}

static void cmd_flood(void)
{
	struct role *b = &roles[ROLE_B], *c = &roles[ROLE_C];
	u64 alone = b_alone("flood_b_alone"), flood;
	bool placed;

	if (!alone)
		return;
	if (!roles_start(BIT(ROLE_B) | BIT(ROLE_C), 0, 0, B_CALLS, true)) {
		CHECK("flood_setup", false, "a role could not set up");
		roles_reap();
		return;
	}
	placed = role_place(c) && role_place(b);
	CHECK("flood_setup", placed, "a role did not start");
	if (!placed) {
		roles_reap();
		return;
	}
	role_wait(b);
	role_wait(c);
	flood = c->end_ns - c->start_ns;
	ctl_say("# flood: C: %d asyncs and a synchronize in %d ms; B: %d calls in %d ms beside it (%d calls in %d ms alone), the slowest %d ms\n",
		c->ok, ms(flood), b->ok, ms(b->end_ns - b->start_ns), B_CALLS, ms(alone),
		ms(b->worst_ns));
	CHECK("flood_b_calls_checked", b->ok >= B_CALLS && !b->wrong && !b->result,
	      "%d checked (%d at least), %d wrong, result %d", b->ok, B_CALLS, b->wrong,
	      b->result);
	CHECK("flood_b_beside_it", c->end_ns > b->start_ns,
	      "C was done before B started: no flood to call beside");
	CHECK("flood_b_prompt", b->ok && b->worst_ns * FLOOD_SHARE < flood,
	      "a call of B waited %d ms, over 1/%d of C's %d ms flood", ms(b->worst_ns),
	      FLOOD_SHARE, ms(flood));
	CHECK("flood_c_synchronized", !c->result && c->ok == FLOOD_CALLS && !c->wrong,
	      "result %d, %d/%d asyncs accepted, last value %s", c->result, c->ok, FLOOD_CALLS,
	      c->wrong ? "wrong" : "right");
}

static void cmd_kill_start(void)
{
	u64 k = (u64)KILL_KERNEL_MS * NSEC_PER_MSEC;
	bool placed;
	int i;

	if (!roles_start(BIT(ROLE_A) | BIT(ROLE_B) | BIT(ROLE_C), k, k, 0, false)) {
		CHECK("kill_setup", false, "a role could not set up");
		roles_reap();
		return;
	}
	placed = role_place(&roles[ROLE_A]) && role_place(&roles[ROLE_C]) &&
		 role_place(&roles[ROLE_B]);
	CHECK("kill_in_position", placed, "a role did not start");
	/* Whatever happened, none waits for a go that would never come. */
	for (i = 0; i < ROLES; i++)
		complete_all(&roles[i].go);
}

/* A role's last call failed as a lost laked's must, soon after the mark. */
static void kill_verdict(const char *name, struct role *r, bool no_device_too)
{
	int after;

	if (wait_for_completion_timeout(&r->done, KILL_WAIT))
		r->started = false;
	if (r->started) {
		CHECK(name, false, "still in its call %d s after the kill", KILL_WAIT / HZ);
		return;
	}
	after = ms(r->end_ns - mark_ns);
	ctl_say("# kill: role %s returned %d %d ms after the kill (%d calls done before)\n",
		name, r->result, after, r->ok);
	CHECK(name, (r->result == CUDA_ERROR_DEVICE_UNAVAILABLE ||
		     (no_device_too && r->result == CUDA_ERROR_NO_DEVICE)) &&
	      after >= 0 && after <= KILL_BOUND_MS,
	      "result %d, %d ms after the kill (bound %d ms)", r->result, after, KILL_BOUND_MS);
}

/*
 * A was inside its synchronize: DEVICE_UNAVAILABLE. B and C may be between
 * two calls at the kill, whose next then finds no laked at all.
 */
static void cmd_kill_results(void)
{
	if (!mark_ns || !roles[ROLE_A].started) {
		CHECK("kill_marked", false, "no kill_start and mark before the kill");
		return;
	}
	kill_verdict("kill_a_synchronize_fails", &roles[ROLE_A], false);
	kill_verdict("kill_b_call_fails", &roles[ROLE_B], true);
	kill_verdict("kill_c_flood_fails", &roles[ROLE_C], true);
	mark_ns = 0;
}

static void cmd_fresh(void)
{
	struct role *b = &roles[ROLE_B];

	if (roles_start(BIT(ROLE_B), 0, 0, B_CALLS, false) && role_place(b))
		role_wait(b);
	roles_reap();
	CHECK("fresh_context_served", b->ok == B_CALLS && !b->wrong,
	      "setup %d, %d/%d checked, %d wrong, result %d", b->setup, b->ok, B_CALLS, b->wrong,
	      b->result);
}

static void ctl_command(char *cmd)
{
	if (!strcmp(cmd, "overlap"))
		cmd_overlap();
	else if (!strcmp(cmd, "flood"))
		cmd_flood();
	else if (!strcmp(cmd, "kill_start"))
		cmd_kill_start();
	else if (!strcmp(cmd, "mark"))
		mark_ns = ktime_get_ns();
	else if (!strcmp(cmd, "kill_results"))
		cmd_kill_results();
	else if (!strcmp(cmd, "fresh"))
		cmd_fresh();
	else
		ctl_say("unknown command\n");
}

static int __init parallel_selftest_init(void)
{
	return ctl_create("parallel_selftest");
}

static void __exit parallel_selftest_exit(void)
{
	WRITE_ONCE(stopping, true);
	roles_reap();
	ctl_remove();
}

module_init(parallel_selftest_init);
module_exit(parallel_selftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake: calls of one context not held back by another's work");
