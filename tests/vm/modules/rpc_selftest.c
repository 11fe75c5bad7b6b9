// SPDX-License-Identifier: GPL-2.0
/*
 * lake_rpc_selftest: lakelib's RPC guarantees, driven by tests/vm/cases/
 * 25-rpc.sh through two debugfs files.
 *
 * lake/rpc_selftest takes one command at a time and answers "ok - rpc.NAME"
 * lines; every command runs in the context made by "setup":
 *   setup            a context, a stream, a device buffer, a lakeshm buffer
 *   drop_send        async work whose send fails must fail the next sync
 *   latch_many N     N streams with an async error each: every one reported
 *   latch_destroy    errors of destroyed streams and contexts are dropped,
 *                    and never crowd out a later one
 *   late_dtoh        a DtoH into the lakeshm buffer that must time out
 *   late_check       the lakeshm buffer is as late_dtoh left it
 *   queue_async      async work that stays queued (with lakelib_hold_queue)
 *   stale_sync       a synchronize on the old stream after a restart
 *   ctx_works        a memset and a DtoH into the lakeshm buffer, checked
 *   window_fill      1,024 async memsets: lakelib's window for the context
 *                    full, no barrier yet (the shell reads async_barriers)
 *   window_next      the 1,025th: it first waits for a barrier
 *   term_start       a kthread copies TERM_BYTES from the device into a
 *                    lakeshm buffer again and again until a copy fails
 *                    (the shell stops laked with SIGTERM meanwhile); then
 *                    it fills the buffer with a pattern at once
 *   term_result      the copy's error, and the pattern intact TERM_SETTLE_MS
 *                    later: no write of laked's landed after the call returned
 * lake/rpc_call runs one call per write in the writer's own task, with no
 * lock of its own, so several can wait at once and a waiter can be killed:
 * "init" a cuInit, "sync" a cuCtxSynchronize in setup's context (names no
 * shared memory), "dtoh" a cuMemcpyDtoH into the lakeshm buffer (names
 * it); reading it lists "call N result R ms T" for the calls that
 * returned; "reset" empties the list.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <lake/cuda.h>
#include "selftest_ctl.h"

#define BUF_BYTES	4096
#define LATCH_STREAMS	128
#define CALLS_MAX	16

#define CHECK(name, cond, fmt, ...) do {					\
	if (cond)								\
		ctl_say("ok - rpc.%s\n", name);					\
	else									\
		ctl_say("not ok - rpc.%s: " fmt "\n", name, ##__VA_ARGS__);	\
} while (0)

#define EXPECT(name, call, want) do {						\
	CUresult _r = (call);							\
	CHECK(name, _r == (want), "%s returned %d, want %d", #call, _r, (want));	\
} while (0)

static CUcontext ctx;
static CUstream stream;
static CUdeviceptr dbuf;
static u8 *shm;

static bool buf_is(const u8 *p, u8 v)
{
	size_t i;

	for (i = 0; i < BUF_BYTES; i++)
		if (p[i] != v)
			return false;
	return true;
}

static void cmd_setup(void)
{
	EXPECT("setup_init", cuInit(0), CUDA_SUCCESS);
	EXPECT("setup_ctx", cuCtxCreate(&ctx, 0, 0), CUDA_SUCCESS);
	EXPECT("setup_stream", cuStreamCreate(&stream, 0), CUDA_SUCCESS);
	EXPECT("setup_alloc", cuMemAlloc(&dbuf, BUF_BYTES), CUDA_SUCCESS);
	if (!shm)
		shm = lake_shm_alloc(BUF_BYTES);
	CHECK("setup_shm", shm, "no lakeshm buffer");
}

/* With lakelib_fail_sends set: the delayed flush of this memset fails. */
static void cmd_drop_send(void)
{
	EXPECT("drop_send_async", cuMemsetD32Async(dbuf, 7, BUF_BYTES / 4, stream), CUDA_SUCCESS);
	msleep(100);	/* the delayed flush runs, and its send fails */
	EXPECT("drop_send_sync_fails", cuStreamSynchronize(stream), CUDA_ERROR_DEVICE_UNAVAILABLE);
	EXPECT("drop_send_reported_once", cuStreamSynchronize(stream), CUDA_SUCCESS);
}

static void cmd_latch_many(int n)
{
	static CUstream s[LATCH_STREAMS];
	int i, made = 0, lost = 0, bad = 0;
	CUresult r;

	n = clamp(n, 1, LATCH_STREAMS);
	for (i = 0; i < n; i++, made++)
		if (cuStreamCreate(&s[i], 0) || cuMemsetD8Async(0xdead0000, 0, 4, s[i]))
			break;
	CHECK("latch_many_setup", made == n, "%d of %d streams", made, n);
	for (i = 0; i < made; i++) {
		r = cuStreamSynchronize(s[i]);
		lost += r == CUDA_SUCCESS;
		bad += r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_VALUE;
	}
	CHECK("latch_many_none_lost", !lost && !bad, "%d of %d errors lost, %d wrong", lost,
	      made, bad);
	for (i = 0; i < made; i++)
		cuStreamDestroy(s[i]);
}

static void cmd_latch_destroy(void)
{
	static CUstream s[LATCH_STREAMS];
	CUcontext other;
	CUstream fresh, os;
	int i, made = 0;
	int v;

	/* Errors on streams then destroyed, unsynchronized. */
	for (i = 0; i < LATCH_STREAMS; i++, made++)
		if (cuStreamCreate(&s[i], 0) || cuMemsetD8Async(0xdead0000, 0, 4, s[i]))
			break;
	EXPECT("latch_destroy_barrier", cuDriverGetVersion(&v), CUDA_SUCCESS);
	for (i = 0; i < made; i++)
		cuStreamDestroy(s[i]);
	/* And a context destroyed with an error pending. */
	EXPECT("latch_destroy_ctx", cuCtxCreate(&other, 0, 0), CUDA_SUCCESS);
	EXPECT("latch_destroy_ctx_stream", cuStreamCreate(&os, 0), CUDA_SUCCESS);
	EXPECT("latch_destroy_ctx_async", cuMemsetD8Async(0xdead0000, 0, 4, os), CUDA_SUCCESS);
	EXPECT("latch_destroy_ctx_barrier", cuDriverGetVersion(&v), CUDA_SUCCESS);
	EXPECT("latch_destroy_ctx_destroy", cuCtxDestroy(other), CUDA_SUCCESS);
	cuCtxSetCurrent(ctx);
	/* A later error still finds room. */
	EXPECT("latch_destroy_stream", cuStreamCreate(&fresh, 0), CUDA_SUCCESS);
	EXPECT("latch_destroy_async", cuMemsetD8Async(0xdead0000, 0, 4, fresh), CUDA_SUCCESS);
	EXPECT("latch_destroy_later_error", cuStreamSynchronize(fresh), CUDA_ERROR_INVALID_VALUE);
	cuStreamDestroy(fresh);
}

/* Run with laked stopped: the copy must time out and never land. */
static void cmd_late_dtoh(void)
{
	unsigned long t0 = jiffies;

	memset(shm, 0x11, BUF_BYTES);
	EXPECT("late_dtoh_times_out", cuMemcpyDtoH(shm, dbuf, BUF_BYTES), CUDA_ERROR_TIMEOUT);
	ctl_say("# late_dtoh returned after %u ms\n", jiffies_to_msecs(jiffies - t0));
	CHECK("late_dtoh_untouched", buf_is(shm, 0x11), "buffer written before the return");
}

static void cmd_late_check(void)
{
	CHECK("late_write_never_lands", buf_is(shm, 0x11),
	      "laked wrote the buffer after the timeout");
}

static void cmd_queue_async(void)
{
	int i;

	for (i = 0; i < 4; i++)
		EXPECT("queue_async", cuMemsetD32Async(dbuf, i, BUF_BYTES / 4, stream),
		       CUDA_SUCCESS);
}

static void cmd_stale_sync(void)
{
	CUresult r = cuStreamSynchronize(stream);

	CHECK("stale_stream_fails", r != CUDA_SUCCESS, "old stream synchronized after a restart");
}

static void cmd_ctx_works(void)
{
	EXPECT("ctx_works_memset", cuMemsetD8(dbuf, 0x5a, BUF_BYTES), CUDA_SUCCESS);
	memset(shm, 0, BUF_BYTES);
	EXPECT("ctx_works_dtoh", cuMemcpyDtoH(shm, dbuf, BUF_BYTES), CUDA_SUCCESS);
	CHECK("ctx_works_data", buf_is(shm, 0x5a), "wrong data");
}

/* lakelib's async window (CTX_ASYNC_MAX in lakelib/rpc.c) */
#define WINDOW_ASYNC	1024

static void cmd_window_fill(void)
{
	int i, bad = 0;

	for (i = 0; i < WINDOW_ASYNC; i++)
		bad += cuMemsetD32Async(dbuf, i, 1, stream) != CUDA_SUCCESS;
	CHECK("window_fill", !bad, "%d of %d async calls failed", bad, WINDOW_ASYNC);
}

static void cmd_window_next(void)
{
	EXPECT("window_next", cuMemsetD32Async(dbuf, WINDOW_ASYNC, 1, stream), CUDA_SUCCESS);
	EXPECT("window_sync", cuStreamSynchronize(stream), CUDA_SUCCESS);
}

#define TERM_BYTES	(4 << 20)
#define TERM_SETTLE_MS	500

static struct {
	struct completion done;
	struct task_struct *task;
	CUdeviceptr d;
	u8 *buf;
	int copies;
	CUresult result;
	bool intact;
} term;

static int term_fn(void *unused)
{
	CUresult r;

	cuCtxSetCurrent(ctx);
	do {
		r = cuMemcpyDtoH(term.buf, term.d, TERM_BYTES);
		term.copies += !r;
	} while (!r && !kthread_should_stop());
	/* The call returned: the buffer is the caller's again, and reused at once. */
	memset(term.buf, 0xc3, TERM_BYTES);
	msleep(TERM_SETTLE_MS);
	term.intact = !memchr_inv(term.buf, 0xc3, TERM_BYTES);
	term.result = r;
	cuCtxSetCurrent(NULL);
	complete(&term.done);
	return 0;
}

static void cmd_term_start(void)
{
	if (!term.buf)
		term.buf = lake_shm_alloc(TERM_BYTES);
	term.copies = 0;
	init_completion(&term.done);
	if (!term.buf || cuMemAlloc(&term.d, TERM_BYTES) || cuMemsetD8(term.d, 0x11, TERM_BYTES)) {
		ctl_say("not ok - rpc.term_setup\n");
		return;
	}
	term.task = kthread_run(term_fn, NULL, "rpc_term");
	CHECK("term_started", !IS_ERR(term.task), "kthread_run: %ld", PTR_ERR(term.task));
	if (IS_ERR(term.task))
		term.task = NULL;
}

static void cmd_term_result(void)
{
	if (!term.task) {
		ctl_say("not ok - rpc.term_result: not started\n");
		return;
	}
	if (!wait_for_completion_timeout(&term.done, msecs_to_jiffies(20000))) {
		ctl_say("not ok - rpc.term_result: the copies did not end\n");
		return;
	}
	term.task = NULL;
	ctl_say("# term: %d copies, then result %d\n", term.copies, term.result);
	CHECK("term_copies_ran", term.copies > 0, "no copy succeeded");
	CHECK("term_copy_failed", term.result == CUDA_ERROR_DEVICE_UNAVAILABLE ||
	      term.result == CUDA_ERROR_NO_DEVICE, "result %d", term.result);
	CHECK("term_no_late_write", term.intact, "laked wrote the buffer after the call returned");
}

static void ctl_command(char *cmd)
{
	int n;

	cuCtxSetCurrent(ctx);
	if (!strcmp(cmd, "setup"))
		cmd_setup();
	else if (!strcmp(cmd, "drop_send"))
		cmd_drop_send();
	else if (sscanf(cmd, "latch_many %d", &n) == 1)
		cmd_latch_many(n);
	else if (!strcmp(cmd, "latch_destroy"))
		cmd_latch_destroy();
	else if (!strcmp(cmd, "late_dtoh"))
		cmd_late_dtoh();
	else if (!strcmp(cmd, "late_check"))
		cmd_late_check();
	else if (!strcmp(cmd, "queue_async"))
		cmd_queue_async();
	else if (!strcmp(cmd, "stale_sync"))
		cmd_stale_sync();
	else if (!strcmp(cmd, "ctx_works"))
		cmd_ctx_works();
	else if (!strcmp(cmd, "window_fill"))
		cmd_window_fill();
	else if (!strcmp(cmd, "window_next"))
		cmd_window_next();
	else if (!strcmp(cmd, "term_start"))
		cmd_term_start();
	else if (!strcmp(cmd, "term_result"))
		cmd_term_result();
	else
		ctl_say("unknown command\n");
	cuCtxSetCurrent(NULL);
}

/* lake/rpc_call: concurrent, killable calls and their times. */
static DEFINE_SPINLOCK(calls_lock);
static struct { CUresult result; unsigned int ms; } calls[CALLS_MAX];
static int ncalls;
static struct dentry *call_file;

static ssize_t call_write(struct file *f, const char __user *ubuf, size_t len, loff_t *ppos)
{
	unsigned long t0 = jiffies;
	char cmd[8] = "";
	CUresult r;

	if (copy_from_user(cmd, ubuf, min(len, sizeof(cmd) - 1)))
		return -EFAULT;
	if (!strncmp(cmd, "reset", 5)) {
		spin_lock(&calls_lock);
		ncalls = 0;
		spin_unlock(&calls_lock);
		return len;
	}
	if (!strncmp(cmd, "init", 4)) {
		r = cuInit(0);
	} else if (!strncmp(cmd, "sync", 4)) {
		cuCtxSetCurrent(ctx);
		r = cuCtxSynchronize();
		cuCtxSetCurrent(NULL);
	} else if (!strncmp(cmd, "dtoh", 4)) {
		cuCtxSetCurrent(ctx);
		r = cuMemcpyDtoH(shm, dbuf, BUF_BYTES);
		cuCtxSetCurrent(NULL);
	} else {
		return -EINVAL;
	}
	spin_lock(&calls_lock);
	if (ncalls < CALLS_MAX) {
		calls[ncalls].result = r;
		calls[ncalls].ms = jiffies_to_msecs(jiffies - t0);
		ncalls++;
	}
	spin_unlock(&calls_lock);
	return len;
}

static ssize_t call_read(struct file *f, char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[CALLS_MAX * 48];
	size_t n = 0;
	int i;

	spin_lock(&calls_lock);
	for (i = 0; i < ncalls; i++)
		n += scnprintf(buf + n, sizeof(buf) - n, "call %d result %d ms %u\n", i,
			       calls[i].result, calls[i].ms);
	spin_unlock(&calls_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations call_fops = {
	.owner = THIS_MODULE,
	.read = call_read,
	.write = call_write,
	.llseek = default_llseek,
};

static int __init selftest_init(void)
{
	int ret = ctl_create("rpc_selftest");

	if (ret)
		return ret;
	call_file = debugfs_create_file("rpc_call", 0600, lake_debugfs_dir(), NULL, &call_fops);
	return 0;
}

static void __exit selftest_exit(void)
{
	debugfs_remove(call_file);
	ctl_remove();
	if (term.task)
		wait_for_completion(&term.done);
	if (term.buf)
		lake_shm_free(term.buf);
	if (shm)
		lake_shm_free(shm);
}

module_init(selftest_init);
module_exit(selftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake: selftest of lakelib's RPC guarantees against laked");
