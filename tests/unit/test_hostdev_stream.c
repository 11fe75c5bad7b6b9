// SPDX-License-Identifier: GPL-2.0
/*
 * The host device through the ops table, part 3: streams (FIFO order,
 * query, legacy NULL-stream ordering), async memsets, events (timing,
 * re-recording, bad handles), async errors latched until a synchronize,
 * cuMemFree waiting for queued work, the load hook, batches that hold work
 * back, and several host threads at once.
 */
#include <pthread.h>
#include <stdbool.h>
#include "hostdev_kernels.h"

/*
 * A stream runs its work in order: each round rewrites the input and reads
 * the result back, all queued before anything is synchronized.
 */
static void test_stream_fifo(void **state)
{
	enum { ROUNDS = 40, M = 256 };
	static float in[ROUNDS][M], b[M], out[ROUNDS][M];
	CUdeviceptr da = dev_alloc(sizeof(b)), db = dev_alloc(sizeof(b)), dc = dev_alloc(sizeof(b));
	int n = M, r, i;
	void *args[] = { &da, &db, &dc, &n };
	CUstream s;

	(void)state;
	for (i = 0; i < M; i++)
		b[i] = (float)i;
	CU(D->cuMemcpyHtoD(db, b, sizeof(b)));
	CU(D->cuStreamCreate(&s, 0));
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < M; i++)
			in[r][i] = (float)(r * 1000);
		CU(D->cuMemcpyHtoDAsync(da, in[r], sizeof(in[r]), s));
		CU(D->cuLaunchKernel(vadd_fn, M / 32, 1, 1, 32, 1, 1, 0, s, args, NULL));
		CU(D->cuMemcpyDtoHAsync(out[r], dc, sizeof(out[r]), s));
	}
	CU(D->cuStreamSynchronize(s));
	assert_int_equal(D->cuStreamQuery(s), CUDA_SUCCESS);
	for (r = 0; r < ROUNDS; r++)
		for (i = 0; i < M; i++)
			assert_true(out[r][i] == (float)(r * 1000 + i));
	CU(D->cuStreamDestroy(s));
}

/* Async calls return at once; query says NOT_READY until the work is done. */
static void test_stream_query_and_sync(void **state)
{
	CUdeviceptr flag = zeroed(4), out = zeroed(4);
	CUstream s;

	(void)state;
	CU(D->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CU(launch_wait(s, flag, out, SPIN_FOREVER));
	assert_int_equal(D->cuStreamQuery(s), CUDA_ERROR_NOT_READY);
	/* A synchronous copy does not wait for a non-blocking stream. */
	assert_int_equal(read_int(out), 0);
	assert_int_equal(D->cuStreamQuery(s), CUDA_ERROR_NOT_READY);
	release_flag(flag, 42);
	CU(D->cuStreamSynchronize(s));
	assert_int_equal(D->cuStreamQuery(s), CUDA_SUCCESS);
	assert_int_equal(read_int(out), 42);

	CU(D->cuStreamSynchronize(NULL));
	assert_int_equal(D->cuStreamQuery(NULL), CUDA_SUCCESS);
	assert_int_equal(D->cuStreamCreate(&s, 2), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuStreamCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	CU(D->cuStreamDestroy(s));
	assert_int_equal(D->cuStreamDestroy(s), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuMemcpyHtoDAsync(out, &s, 4, s), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuMemcpyDtoHAsync(&s, out, 4, s), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(launch_wait(s, flag, out, 1), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuStreamDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuStreamQuery((CUstream)0x2), CUDA_ERROR_INVALID_HANDLE);
}

/*
 * Legacy default stream: NULL-stream work waits for earlier work on blocking
 * streams, and blocking streams wait for earlier NULL-stream work; a
 * non-blocking stream waits for neither.
 */
static void test_null_stream_legacy_order(void **state)
{
	CUdeviceptr flag = zeroed(4), out = zeroed(4), other = zeroed(4);
	CUstream blocking, free_running;
	int host = -1, seven = 7;

	(void)state;
	CU(D->cuStreamCreate(&blocking, CU_STREAM_DEFAULT));
	CU(D->cuStreamCreate(&free_running, CU_STREAM_NON_BLOCKING));

	CU(launch_wait(blocking, flag, out, SPIN_FOREVER));
	CU(D->cuMemcpyDtoHAsync(&host, out, sizeof(host), NULL));
	CU(D->cuMemcpyHtoDAsync(other, &seven, sizeof(seven), free_running));
	CU(D->cuStreamSynchronize(free_running));
	assert_int_equal(D->cuStreamQuery(NULL), CUDA_ERROR_NOT_READY);
	assert_int_equal(D->cuStreamQuery(blocking), CUDA_ERROR_NOT_READY);
	release_flag(flag, 5);
	CU(D->cuStreamSynchronize(NULL));
	assert_int_equal(host, 5);

	/* And the other way: the blocking stream waits for the NULL stream. */
	release_flag(flag, 0);
	CU(D->cuMemsetD8(other, 0, 4));
	CU(launch_wait(NULL, flag, out, SPIN_FOREVER));
	CU(D->cuMemcpyHtoDAsync(other, &seven, sizeof(seven), blocking));
	assert_int_equal(D->cuStreamQuery(blocking), CUDA_ERROR_NOT_READY);
	release_flag(flag, 6);
	CU(D->cuStreamSynchronize(blocking));
	assert_int_equal(read_int(out), 6);
	assert_int_equal(read_int(other), 7);
	CU(D->cuStreamDestroy(blocking));
	CU(D->cuStreamDestroy(free_running));
}

/*
 * Async memsets run in order with the stream's other work: none of it runs
 * before the spinning kernel is released, and each copy back sees exactly
 * the memsets queued before it. On the NULL stream, a memset follows the
 * kernel still running on a blocking stream, so the kernel cannot
 * overwrite it.
 */
static void test_memset_async_order(void **state)
{
	CUdeviceptr flag = zeroed(4), out = zeroed(4), buf = zeroed(64);
	static uint32_t first[16], second[16];
	CUstream s, blocking;
	int i;

	(void)state;
	CU(D->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CU(launch_wait(s, flag, out, SPIN_FOREVER));
	CU(D->cuMemsetD32Async(buf, 0xc0ffee11, 16, s));
	CU(D->cuMemcpyDtoHAsync(first, buf, sizeof(first), s));
	CU(D->cuMemsetD8Async(buf + 61, 0x5a, 3, s));
	CU(D->cuMemcpyDtoHAsync(second, buf, sizeof(second), s));
	assert_int_equal(D->cuStreamQuery(s), CUDA_ERROR_NOT_READY);
	assert_int_equal(read_int(buf), 0);
	release_flag(flag, 1);
	CU(D->cuStreamSynchronize(s));
	for (i = 0; i < 16; i++)
		assert_int_equal(first[i], 0xc0ffee11);
	assert_memory_equal(second, first, 15 * 4);
	assert_int_equal(second[15], 0x5a5a5a11);

	release_flag(flag, 0);
	CU(D->cuStreamCreate(&blocking, CU_STREAM_DEFAULT));
	CU(launch_wait(blocking, flag, out, SPIN_FOREVER));
	CU(D->cuMemsetD32Async(out, 9, 1, NULL));
	assert_int_equal(D->cuStreamQuery(NULL), CUDA_ERROR_NOT_READY);
	release_flag(flag, 5);
	CU(D->cuStreamSynchronize(NULL));
	assert_int_equal(read_int(out), 9);
	CU(D->cuStreamDestroy(blocking));
	CU(D->cuStreamDestroy(s));
}

/* The synchronous memsets' checks, then the stream's; nothing is queued on failure. */
static void test_memset_async_refused(void **state)
{
	CUdeviceptr p = zeroed(256), gone = dev_alloc(16);
	CUstream s, dead;

	(void)state;
	CU(D->cuStreamCreate(&s, 0));
	CU(D->cuStreamCreate(&dead, 0));
	CU(D->cuStreamDestroy(dead));
	CU(D->cuMemFree(gone));
	assert_int_equal(D->cuMemsetD8Async(p, 1, 257, s), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemsetD8Async(p + 256, 1, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemsetD8Async(gone, 1, 1, s), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemsetD8Async(0x1000, 1, 1, s), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemsetD32Async(p, 1, 65, s), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemsetD32Async(p + 2, 1, 1, s), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemsetD32Async(p + 2, 1, 0, s), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuMemsetD32Async(p, 1, SIZE_MAX / 2, s), CUDA_ERROR_INVALID_VALUE);
	/* Nothing to set: no range to check, as for cuMemsetD8. */
	CU(D->cuMemsetD8Async(0x1000, 1, 0, s));
	CU(D->cuMemsetD32Async(p + 252, 1, 1, s));	/* the last word */

	assert_int_equal(D->cuMemsetD8Async(p, 1, 1, dead), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuMemsetD32Async(p, 1, 1, dead), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuMemsetD8Async(p, 1, 1, (CUstream)0x2), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuMemsetD32Async(0x1000, 1, 1, (CUstream)0x2),
			 CUDA_ERROR_INVALID_HANDLE);
	CU(D->cuStreamSynchronize(s));
	CU(D->cuStreamSynchronize(NULL));
	assert_int_equal(read_int(p), 0);
	assert_int_equal(read_int(p + 252), 1);
	CU(D->cuStreamDestroy(s));
}

/*
 * The kernel spins between the two records until the host, which has seen
 * the start event complete, sleeps 30 ms and writes the flag: the elapsed
 * time is at least those 30 ms and at most what the host measured around it.
 */
static void test_event_timing(void **state)
{
	CUdeviceptr flag = zeroed(4), out = zeroed(4);
	CUevent start, end;
	double t0, t1;
	float ms = -1;
	CUstream s;

	(void)state;
	CU(D->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CU(D->cuEventCreate(&start, CU_EVENT_DEFAULT));
	CU(D->cuEventCreate(&end, CU_EVENT_BLOCKING_SYNC));
	t0 = now_ms();
	CU(D->cuEventRecord(start, s));
	CU(launch_wait(s, flag, out, SPIN_FOREVER));
	CU(D->cuEventRecord(end, s));
	CU(D->cuEventSynchronize(start));
	assert_int_equal(D->cuEventElapsedTime(&ms, start, end), CUDA_ERROR_NOT_READY);
	sleep_ms(30);
	release_flag(flag, 1);
	CU(D->cuEventSynchronize(end));
	t1 = now_ms();
	CU(D->cuEventElapsedTime(&ms, start, end));
	assert_true(ms >= 29.99f);
	assert_true(ms <= t1 - t0);
	CU(D->cuEventElapsedTime(&ms, end, start));
	assert_true(ms <= -29.99f);
	CU(D->cuEventDestroy(start));
	CU(D->cuEventDestroy(end));
	CU(D->cuStreamDestroy(s));
}

/* The latest record counts; a stale marker still queued changes nothing. */
static void test_event_rerecord(void **state)
{
	CUdeviceptr flag = zeroed(4), out = zeroed(4);
	CUevent ref, e, doomed;
	float before, after;
	CUstream s;

	(void)state;
	CU(D->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CU(D->cuEventCreate(&ref, 0));
	CU(D->cuEventCreate(&e, 0));
	CU(D->cuEventCreate(&doomed, 0));
	CU(D->cuEventRecord(ref, NULL));
	CU(launch_wait(s, flag, out, SPIN_FOREVER));
	CU(D->cuEventRecord(e, s));
	CU(D->cuEventRecord(doomed, s));
	/* Destroyed while its marker is queued: freed when the marker runs. */
	CU(D->cuEventDestroy(doomed));
	assert_int_equal(D->cuEventSynchronize(doomed), CUDA_ERROR_INVALID_HANDLE);
	CU(D->cuEventRecord(e, NULL));
	CU(D->cuEventSynchronize(e));
	CU(D->cuEventElapsedTime(&before, ref, e));
	release_flag(flag, 1);
	CU(D->cuStreamSynchronize(s));
	CU(D->cuEventElapsedTime(&after, ref, e));
	assert_true(before == after);
	CU(D->cuStreamDestroy(s));
}

static void test_event_errors(void **state)
{
	CUevent e, quiet, ipc;
	CUcontext other;
	CUstream s;
	float ms;

	(void)state;
	assert_int_equal(D->cuEventCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuEventCreate(&e, 0x8), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuEventCreate(&e, CU_EVENT_INTERPROCESS), CUDA_ERROR_INVALID_VALUE);
	CU(D->cuEventCreate(&ipc, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
	CU(D->cuEventCreate(&quiet, CU_EVENT_DISABLE_TIMING));
	CU(D->cuEventCreate(&e, 0));

	/* Never recorded: complete for synchronize, unusable for timing. */
	CU(D->cuEventSynchronize(e));
	assert_int_equal(D->cuEventElapsedTime(&ms, e, e), CUDA_ERROR_INVALID_HANDLE);
	CU(D->cuEventRecord(e, NULL));
	CU(D->cuEventRecord(quiet, NULL));
	CU(D->cuEventSynchronize(quiet));
	CU(D->cuEventSynchronize(e));
	CU(D->cuEventElapsedTime(&ms, e, e));
	assert_true(ms == 0.0f);
	assert_int_equal(D->cuEventElapsedTime(&ms, e, quiet), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuEventElapsedTime(NULL, e, e), CUDA_ERROR_INVALID_VALUE);
	assert_int_equal(D->cuEventElapsedTime(&ms, e, (CUevent)0x4000001),
			 CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuEventRecord((CUevent)0x4000001, NULL), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuEventRecord(e, (CUstream)0x4000001), CUDA_ERROR_INVALID_HANDLE);

	/* An event records only on a stream of its own context. */
	CU(D->cuCtxCreate(&other, 0, 0));
	CU(D->cuStreamCreate(&s, 0));
	CU(D->cuCtxSetCurrent(C));
	assert_int_equal(D->cuEventRecord(e, s), CUDA_ERROR_INVALID_HANDLE);
	CU(D->cuCtxDestroy(other));

	CU(D->cuEventDestroy(e));
	assert_int_equal(D->cuEventDestroy(e), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuEventRecord(e, NULL), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuEventSynchronize(e), CUDA_ERROR_INVALID_HANDLE);
	assert_int_equal(D->cuEventElapsedTime(&ms, e, e), CUDA_ERROR_INVALID_HANDLE);
	CU(D->cuEventDestroy(quiet));
	CU(D->cuEventDestroy(ipc));
}

/*
 * A kernel that traps fails asynchronously: the launch itself succeeds, the
 * work queued behind it on its stream is discarded, and the next
 * synchronize of the stream (or of the context) returns the error once.
 */
static void test_async_errors_latch(void **state)
{
	CUdeviceptr flag = zeroed(4), out = zeroed(4), buf = zeroed(4);
	static int v = 77;
	CUstream s;
	CUevent e;

	(void)state;
	CU(D->cuStreamCreate(&s, CU_STREAM_DEFAULT));
	CU(D->cuEventCreate(&e, 0));
	CU(launch_wait(s, flag, out, 1000));
	CU(D->cuMemcpyHtoDAsync(buf, &v, sizeof(v), s));
	CU(D->cuMemsetD8Async(buf, 0xff, 4, s));
	CU(D->cuEventRecord(e, s));
	CU(D->cuEventSynchronize(e));
	assert_int_equal(D->cuStreamQuery(s), CUDA_ERROR_LAUNCH_FAILED);
	assert_int_equal(D->cuStreamQuery(s), CUDA_ERROR_LAUNCH_FAILED);
	assert_int_equal(D->cuStreamSynchronize(s), CUDA_ERROR_LAUNCH_FAILED);
	CU(D->cuStreamSynchronize(s));
	assert_int_equal(read_int(buf), 0);
	CU(D->cuMemcpyHtoDAsync(buf, &v, sizeof(v), s));
	CU(D->cuStreamSynchronize(s));
	assert_int_equal(read_int(buf), 77);

	CU(launch_wait(s, flag, out, 1000));
	assert_int_equal(D->cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
	CU(D->cuCtxSynchronize());
	CU(D->cuStreamSynchronize(s));

	CU(launch_wait(NULL, flag, out, 1000));
	assert_int_equal(D->cuStreamSynchronize(NULL), CUDA_ERROR_LAUNCH_FAILED);
	CU(D->cuStreamSynchronize(NULL));

	/* Nobody synchronized the stream before destroying it: the context reports. */
	CU(launch_wait(s, flag, out, 1000));
	CU(D->cuStreamDestroy(s));
	assert_int_equal(D->cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
	CU(D->cuCtxSynchronize());
	assert_int_equal(read_int(out), 0);
}

struct releaser {
	CUdeviceptr flag;
	double at;
	CUresult ret;
};

static void *release_later(void *arg)
{
	struct releaser *r = arg;
	static int one = 1;
	CUstream s;

	sleep_ms(50);
	r->ret = D->cuCtxSetCurrent(C);
	if (!r->ret)
		r->ret = D->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
	if (r->ret)
		return NULL;
	r->at = now_ms();
	r->ret = D->cuMemcpyHtoDAsync(r->flag, &one, sizeof(one), s);
	if (!r->ret)
		r->ret = D->cuStreamSynchronize(s);
	D->cuStreamDestroy(s);
	return NULL;
}

/* cuMemFree waits until no queued work can still touch the memory. */
static void test_free_waits_for_queued_work(void **state)
{
	CUdeviceptr flag = zeroed(4), out = zeroed(4);
	struct releaser r = { .flag = flag, .ret = CUDA_ERROR_UNKNOWN };
	pthread_t t;
	double freed;
	CUstream s;

	(void)state;
	CU(D->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CU(launch_wait(s, flag, out, SPIN_FOREVER));
	assert_int_equal(pthread_create(&t, NULL, release_later, &r), 0);
	CU(D->cuMemFree(out));
	freed = now_ms();
	assert_int_equal(pthread_join(t, NULL), 0);
	CU(r.ret);
	assert_true(r.at <= freed);
	assert_int_equal(D->cuStreamQuery(s), CUDA_SUCCESS);
	CU(D->cuStreamDestroy(s));
}

static void test_load_reports_queue_and_utilization(void **state)
{
	CUdeviceptr flag = zeroed(4), out = zeroed(4);
	struct lake_device_load l;
	static int host;
	CUstream s;

	(void)state;
	CU(D->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	assert_int_equal(D->load(D, &l), 0);
	CU(launch_wait(s, flag, out, SPIN_FOREVER));
	CU(D->cuMemcpyDtoHAsync(&host, out, sizeof(host), s));
	assert_int_equal(D->load(D, &l), 0);
	assert_int_equal(l.queued, 2);
	sleep_ms(50);
	release_flag(flag, 3);
	CU(D->cuStreamSynchronize(s));
	assert_int_equal(host, 3);
	assert_int_equal(D->load(D, &l), 0);
	assert_int_equal(l.queued, 0);
	/* 50 ms of one spinning executor out of TEST_WORKERS over about as long */
	assert_true(l.util_percent > 0 && l.util_percent <= 100);
	CU(D->cuStreamDestroy(s));
}

/*
 * A block that runs longer than the sampling period counts in every sample it
 * spans, not only in the one taken after it ends: a device kept busy by long
 * blocks must not look idle to the policy between their ends.
 */
static void test_utilization_counts_running_block(void **state)
{
	CUdeviceptr flag = zeroed(4), out = zeroed(4);
	unsigned int seen = 0, during = 0;
	struct lake_device_load l;
	CUstream s;
	int i;

	(void)state;
	CU(D->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	assert_int_equal(D->load(D, &l), 0);
	CU(launch_wait(s, flag, out, SPIN_FOREVER));
	/* Until the block has started: a generous bound, for a loaded host. */
	for (i = 0; i < 5000 && !seen; i++) {
		sleep_ms(1);
		assert_int_equal(D->load(D, &l), 0);
		seen = l.util_percent;
	}
	if (seen) {
		sleep_ms(20);
		assert_int_equal(D->load(D, &l), 0);
		during = l.util_percent;
	}
	release_flag(flag, 1);
	CU(D->cuStreamSynchronize(s));
	CU(D->cuStreamDestroy(s));
	assert_true(seen > 0);
	/* One executor busy all along, out of TEST_WORKERS: exactly. */
	assert_int_equal(during, 100 / TEST_WORKERS);
}

/* Poll without waiting, as a caller that only queries would: true once idle. */
static bool finishes_unwaited(CUstream s)
{
	double until = now_ms() + 5000;
	CUresult r;

	while ((r = D->cuStreamQuery(s)) == CUDA_ERROR_NOT_READY && now_ms() < until)
		sleep_ms(1);
	return r == CUDA_SUCCESS;
}

/*
 * Work held by a batch never blocks: a synchronize inside the batch, which
 * runs the spinning kernel itself, first wakes the copy on another stream
 * that releases it; work left at the batch's end starts with no one waiting.
 */
static void test_batch_holds_nothing_back(void **state)
{
	CUdeviceptr flag = zeroed(4), out = zeroed(4);
	CUstream a, b;
	static int one = 1, two = 2;

	(void)state;
	CU(D->cuStreamCreate(&a, CU_STREAM_NON_BLOCKING));
	CU(D->cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));
	sleep_ms(20);	/* the workers park: only a wakeup starts held work */
	D->batch_begin(D);
	CU(launch_wait(a, flag, out, SPIN_FOREVER));
	CU(D->cuMemcpyHtoDAsync(flag, &one, sizeof(one), b));
	CU(D->cuStreamSynchronize(a));
	assert_int_equal(read_int(out), 1);

	CU(D->cuMemcpyHtoDAsync(out, &two, sizeof(two), a));
	D->batch_end(D);
	assert_true(finishes_unwaited(a));
	assert_int_equal(read_int(out), 2);
	CU(D->cuStreamDestroy(a));
	CU(D->cuStreamDestroy(b));
}

struct syncer {
	CUstream s;
	CUresult ret;
};

static void *synchronize(void *arg)
{
	struct syncer *y = arg;

	y->ret = D->cuCtxSetCurrent(C);
	if (!y->ret)
		y->ret = D->cuStreamSynchronize(y->s);
	return NULL;
}

/*
 * The kernel is held by a batch, so the synchronizing thread runs it. Work
 * queued on the stream meanwhile, which the batch's end cannot start as the
 * stream is busy, is not stranded when the synchronize returns: it goes to
 * the worker, and finishes with no one waiting for it.
 */
static void test_work_queued_during_a_synchronize(void **state)
{
	CUdeviceptr flag = zeroed(4), out = zeroed(4), buf = zeroed(4);
	struct syncer y = { .ret = CUDA_ERROR_UNKNOWN };
	static int seven = 7;
	pthread_t t;

	(void)state;
	CU(D->cuStreamCreate(&y.s, CU_STREAM_NON_BLOCKING));
	sleep_ms(20);
	D->batch_begin(D);
	CU(launch_wait(y.s, flag, out, SPIN_FOREVER));
	assert_int_equal(pthread_create(&t, NULL, synchronize, &y), 0);
	sleep_ms(50);
	CU(D->cuMemcpyHtoDAsync(buf, &seven, sizeof(seven), y.s));
	D->batch_end(D);
	release_flag(flag, 1);
	assert_int_equal(pthread_join(t, NULL), 0);
	CU(y.ret);
	assert_true(finishes_unwaited(y.s));
	assert_int_equal(read_int(buf), 7);
	CU(D->cuStreamDestroy(y.s));
}

#define THREADS	3
#define ROUNDS	20
#define M	512

struct worker {
	int id;
	CUresult ret;
	int bad;
};

/* Each thread: its own stream and buffers, rounds of copy, add, copy back. */
static void *vadd_rounds(void *arg)
{
	static float a[THREADS][M], b[THREADS][M], c[THREADS][M];
	CUdeviceptr da = 0, db = 0, dc = 0;
	struct worker *w = arg;
	CUstream s = NULL;
	int n = M, r, i;
	void *args[] = { &da, &db, &dc, &n };

	w->ret = D->cuCtxSetCurrent(C);
	if (!w->ret)
		w->ret = D->cuStreamCreate(&s, 0);
	if (!w->ret)
		w->ret = D->cuMemAlloc(&da, sizeof(a[0]));
	if (!w->ret)
		w->ret = D->cuMemAlloc(&db, sizeof(b[0]));
	if (!w->ret)
		w->ret = D->cuMemAlloc(&dc, sizeof(c[0]));
	for (r = 0; r < ROUNDS && !w->ret; r++) {
		for (i = 0; i < M; i++) {
			a[w->id][i] = (float)(w->id * 100000 + r);
			b[w->id][i] = (float)i;
		}
		w->ret = D->cuMemcpyHtoDAsync(da, a[w->id], sizeof(a[0]), s);
		if (!w->ret)
			w->ret = D->cuMemcpyHtoDAsync(db, b[w->id], sizeof(b[0]), s);
		if (!w->ret)
			w->ret = D->cuLaunchKernel(vadd_fn, M / 64, 1, 1, 64, 1, 1, 0, s, args, NULL);
		if (!w->ret)
			w->ret = D->cuMemcpyDtoHAsync(c[w->id], dc, sizeof(c[0]), s);
		if (!w->ret)
			w->ret = D->cuStreamSynchronize(s);
		for (i = 0; i < M && !w->ret; i++)
			w->bad += c[w->id][i] != (float)(w->id * 100000 + r + i);
	}
	if (s)
		D->cuStreamDestroy(s);
	return NULL;
}

static void test_threads_share_the_device(void **state)
{
	struct worker w[THREADS];
	pthread_t t[THREADS];
	int i;

	(void)state;
	for (i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .id = i };
		assert_int_equal(pthread_create(&t[i], NULL, vadd_rounds, &w[i]), 0);
	}
	for (i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		CU(w[i].ret);
		assert_int_equal(w[i].bad, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, close_device)
		T(test_stream_fifo),
		T(test_stream_query_and_sync),
		T(test_null_stream_legacy_order),
		T(test_memset_async_order),
		T(test_memset_async_refused),
		T(test_event_timing),
		T(test_event_rerecord),
		T(test_event_errors),
		T(test_async_errors_latch),
		T(test_free_waits_for_queued_work),
		T(test_load_reports_queue_and_utilization),
		T(test_utilization_counts_running_block),
		T(test_batch_holds_nothing_back),
		T(test_work_queued_during_a_synchronize),
		T(test_threads_share_the_device),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
