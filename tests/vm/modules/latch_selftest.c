// SPDX-License-Identifier: GPL-2.0
/*
 * lake_latch_selftest: CUDA's async error semantics from kernel code, for
 * tests/vm/cases/25-latch.sh. An async call laked refuses (a copy to a
 * device address nobody allocated: CUDA_ERROR_INVALID_VALUE; a record of a
 * forged event: CUDA_ERROR_INVALID_HANDLE) returns CUDA_SUCCESS, and its
 * error must come back from the next synchronizing call on its stream, or
 * on its context for a context-wide one: the NULL stream included, never on
 * another stream or context, the first error of a stream and not a later
 * one, and once. Synchronizing calls: cuStreamSynchronize, cuStreamQuery,
 * cuCtxSynchronize, cuEventSynchronize and the synchronous copies.
 * laked runs contexts in parallel, so an error must also survive another
 * context's sync reply arriving before it (across_contexts).
 * Driven through debugfs lake/latch_selftest: write "run", read back
 * "ok - latch.NAME" lines.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <lake/cuda.h>
#include <lake/kernel_sig.h>
#include <lake/lakelib.h>
#include "../../kernels/timed.h"
#include "selftest_ctl.h"

LAKE_KERNEL_SIG(run_for, RUN_FOR_PARAMS);

#define BAD_DPTR	0xdead0000ULL
#define FORGED_EVENT	((CUevent)0x4242)

#define EXPECT(name, call, want) do {						\
	CUresult _r = (call);							\
	if (_r == (want))							\
		ctl_say("ok - latch.%s\n", name);				\
	else									\
		ctl_say("not ok - latch.%s: %s returned %d, want %d\n", name,	\
			#call, _r, (want));					\
} while (0)

/* An async copy laked refuses: CUDA_ERROR_INVALID_VALUE, latched on @s. */
static CUresult bad_copy(void *buf, CUstream s)
{
	return cuMemcpyHtoDAsync(BAD_DPTR, buf, 64, s);
}

static void null_stream(void *buf)
{
	EXPECT("null_async_returns_success", bad_copy(buf, NULL), CUDA_SUCCESS);
	EXPECT("null_error_at_stream_sync", cuStreamSynchronize(NULL), CUDA_ERROR_INVALID_VALUE);
	EXPECT("null_error_once", cuStreamSynchronize(NULL), CUDA_SUCCESS);
	bad_copy(buf, NULL);
	EXPECT("null_error_at_ctx_sync", cuCtxSynchronize(), CUDA_ERROR_INVALID_VALUE);
	EXPECT("null_ctx_sync_clean", cuCtxSynchronize(), CUDA_SUCCESS);
}

static void isolation(void *buf, CUstream s1, CUstream s2)
{
	bad_copy(buf, s1);
	EXPECT("other_stream_clean", cuStreamSynchronize(s2), CUDA_SUCCESS);
	EXPECT("null_stream_clean", cuStreamSynchronize(NULL), CUDA_SUCCESS);
	EXPECT("other_stream_query_clean", cuStreamQuery(s2), CUDA_SUCCESS);
	EXPECT("own_stream_error", cuStreamSynchronize(s1), CUDA_ERROR_INVALID_VALUE);
	bad_copy(buf, NULL);
	EXPECT("stream_clean_beside_null_error", cuStreamSynchronize(s1), CUDA_SUCCESS);
	EXPECT("null_error_kept", cuStreamSynchronize(NULL), CUDA_ERROR_INVALID_VALUE);
	/* Errors on two streams: each is its stream's. */
	cuEventRecord(FORGED_EVENT, s2);
	bad_copy(buf, s1);
	EXPECT("two_streams_s1", cuStreamSynchronize(s1), CUDA_ERROR_INVALID_VALUE);
	EXPECT("two_streams_s2", cuStreamSynchronize(s2), CUDA_ERROR_INVALID_HANDLE);
}

static void first_error_wins(void *buf, CUstream s)
{
	EXPECT("forged_record_returns_success", cuEventRecord(FORGED_EVENT, s), CUDA_SUCCESS);
	bad_copy(buf, s);
	EXPECT("first_error_handle", cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE);
	EXPECT("first_error_once", cuStreamSynchronize(s), CUDA_SUCCESS);
	bad_copy(buf, s);
	cuEventRecord(FORGED_EVENT, s);
	EXPECT("first_error_value", cuStreamSynchronize(s), CUDA_ERROR_INVALID_VALUE);
	EXPECT("first_error_value_once", cuStreamSynchronize(s), CUDA_SUCCESS);
}

static void synchronizing_calls(void *buf, CUstream s, CUdeviceptr p)
{
	CUevent e;

	bad_copy(buf, s);
	EXPECT("not_synchronizing_own_result", cuMemsetD8(p, 1, 64), CUDA_SUCCESS);
	EXPECT("stream_query_error", cuStreamQuery(s), CUDA_ERROR_INVALID_VALUE);
	EXPECT("stream_query_once", cuStreamQuery(s), CUDA_SUCCESS);

	EXPECT("event_create", cuEventCreate(&e, 0), CUDA_SUCCESS);
	bad_copy(buf, s);
	EXPECT("event_record", cuEventRecord(e, s), CUDA_SUCCESS);
	EXPECT("event_sync_error", cuEventSynchronize(e), CUDA_ERROR_INVALID_VALUE);
	EXPECT("event_sync_once", cuEventSynchronize(e), CUDA_SUCCESS);
	EXPECT("event_destroy", cuEventDestroy(e), CUDA_SUCCESS);

	bad_copy(buf, s);
	EXPECT("htod_error", cuMemcpyHtoD(p, buf, 64), CUDA_ERROR_INVALID_VALUE);
	EXPECT("htod_once", cuMemcpyHtoD(p, buf, 64), CUDA_SUCCESS);
	bad_copy(buf, NULL);
	EXPECT("dtoh_error", cuMemcpyDtoH(buf, p, 64), CUDA_ERROR_INVALID_VALUE);
	EXPECT("dtoh_once", cuMemcpyDtoH(buf, p, 64), CUDA_SUCCESS);
	EXPECT("ctx_sync_clean", cuCtxSynchronize(), CUDA_SUCCESS);
}

/* A context sees its own errors only. */
static void contexts(void *buf, CUcontext a, CUcontext b)
{
	cuCtxSetCurrent(a);
	bad_copy(buf, NULL);
	cuCtxSetCurrent(b);
	EXPECT("other_ctx_clean", cuCtxSynchronize(), CUDA_SUCCESS);
	EXPECT("other_ctx_null_stream_clean", cuStreamSynchronize(NULL), CUDA_SUCCESS);
	cuCtxSetCurrent(a);
	EXPECT("own_ctx_error", cuCtxSynchronize(), CUDA_ERROR_INVALID_VALUE);
}

/*
 * Context A's worker in laked, held in cuStreamSynchronize(NULL) behind a
 * 1 s kernel: that takes the NULL stream's latched errors only.
 */
struct holder {
	CUcontext ctx;
	CUfunction fn;
	CUresult result;
	struct completion done;
};

static int holder_fn(void *arg)
{
	struct holder *h = arg;
	unsigned long long ns = 1000ULL * NSEC_PER_MSEC;
	void *params[] = { &ns };

	cuCtxSetCurrent(h->ctx);
	h->result = cuLaunchKernel(h->fn, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL);
	if (!h->result)
		h->result = cuStreamSynchronize(NULL);
	complete(&h->done);
	return 0;
}

/*
 * A's bad copy (on a stream of its own, so the holder's synchronize of the
 * NULL stream cannot take its error) reaches laked behind the holder's
 * synchronize, and B's synchronize, sent after it, is answered first: A's
 * error must still come back from a synchronize of its stream. Retiring by
 * reply order across contexts loses it.
 */
static void across_contexts(void *buf, CUcontext a, CUcontext b)
{
	struct holder h = { .ctx = a };
	struct task_struct *t;
	CUstream s = NULL;
	CUmodule mod;

	cuCtxSetCurrent(a);
	init_completion(&h.done);
	h.result = cuStreamCreate(&s, 0);
	if (!h.result)
		h.result = cuModuleLoad(&mod, "timed.cubin");
	if (!h.result)
		h.result = lake_module_get_function(&h.fn, mod, &lake_sig_run_for);
	if (h.result) {
		ctl_say("not ok - latch.across_contexts_setup: %d\n", h.result);
		return;
	}
	t = kthread_run(holder_fn, &h, "lake_latch_hold");
	if (IS_ERR(t)) {
		ctl_say("not ok - latch.across_contexts_setup: no thread\n");
		return;
	}
	msleep(200);	/* the holder's synchronize is in laked, behind its kernel */
	bad_copy(buf, s);
	cuCtxSetCurrent(b);
	EXPECT("across_other_ctx_sync", cuCtxSynchronize(), CUDA_SUCCESS);
	if (completion_done(&h.done))
		ctl_say("not ok - latch.across_other_ctx_first: B's sync came after A's copy\n");
	else
		ctl_say("ok - latch.across_other_ctx_first\n");
	wait_for_completion(&h.done);
	EXPECT("across_holder_clean", h.result, CUDA_SUCCESS);
	cuCtxSetCurrent(a);
	EXPECT("across_error_kept", cuStreamSynchronize(s), CUDA_ERROR_INVALID_VALUE);
	cuStreamDestroy(s);
	cuModuleUnload(mod);
}

static void cmd_run(void)
{
	CUcontext a = NULL, b = NULL;
	CUstream s1 = NULL, s2 = NULL;
	CUdeviceptr p = 0;
	void *buf = kzalloc(64, GFP_KERNEL);
	CUresult r;

	r = buf ? cuInit(0) : CUDA_ERROR_OUT_OF_MEMORY;
	if (!r)
		r = cuCtxCreate(&b, 0, 0);
	if (!r)
		r = cuCtxCreate(&a, 0, 0);
	if (!r)
		r = cuStreamCreate(&s1, 0);
	if (!r)
		r = cuStreamCreate(&s2, 0);
	if (!r)
		r = cuMemAlloc(&p, 64);
	if (r) {
		ctl_say("not ok - latch.setup: %d\n", r);
		goto out;
	}
	null_stream(buf);
	isolation(buf, s1, s2);
	first_error_wins(buf, s1);
	synchronizing_calls(buf, s1, p);
	contexts(buf, a, b);
	across_contexts(buf, a, b);
	ctl_say("latch: done\n");
out:
	if (a) {
		cuCtxSetCurrent(a);
		cuCtxDestroy(a);
	}
	if (b)
		cuCtxDestroy(b);
	cuCtxSetCurrent(NULL);
	kfree(buf);
}

static void ctl_command(char *cmd)
{
	if (!strcmp(cmd, "run"))
		cmd_run();
	else
		ctl_say("unknown command\n");
}

static int __init selftest_init(void)
{
	return ctl_create("latch_selftest");
}

static void __exit selftest_exit(void)
{
	ctl_remove();
}

module_init(selftest_init);
module_exit(selftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake: selftest of CUDA's async error latching through lakelib");
