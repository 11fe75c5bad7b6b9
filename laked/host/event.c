// SPDX-License-Identifier: GPL-2.0
/*
 * Events: cuEventRecord queues a marker; when the stream's worker reaches
 * it, the event takes a CLOCK_MONOTONIC timestamp. Re-recording an event
 * bumps its sequence number, so a marker from an older record that is still
 * queued does not complete the newer one. Queued markers hold a reference,
 * so an event destroyed while recorded is freed when its marker runs.
 */
#include "host.h"

#define EVENT_FLAGS (CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS)

static CUresult lookup(CUevent handle, struct hd_event **ev)
{
	struct hd_obj *obj;
	CUresult ret = hd_lookup(handle, HD_EVENT, &obj);

	if (!ret)
		*ev = container_of(obj, struct hd_event, obj);
	return ret;
}

void hd_event_put(struct hd_event *ev)
{
	if (!--ev->refs)
		free(ev);
}

void hd_event_reached(struct hd_event *ev, u64 seq)
{
	if (ev->seq != seq)
		return;
	ev->ts_ns = hd_now_ns();
	ev->done = true;
}

void hd_event_release(struct hd_event *ev)
{
	hd_handle_del(&ev->obj);
	hd_event_put(ev);
}

CUresult hd_cuEventCreate(CUevent *event, unsigned int flags)
{
	struct hd_event *ev;
	struct hd_ctx *ctx;
	CUresult ret;

	hd_lock();
	ret = hd_current(&ctx);
	if (ret)
		goto out;
	ret = CUDA_ERROR_INVALID_VALUE;
	if (!event || (flags & ~EVENT_FLAGS))
		goto out;
	/* CUDA: interprocess events must not time. */
	if ((flags & CU_EVENT_INTERPROCESS) && !(flags & CU_EVENT_DISABLE_TIMING))
		goto out;
	ret = CUDA_ERROR_OUT_OF_MEMORY;
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		goto out;
	ev->obj.type = HD_EVENT;
	ev->obj.ctx = ctx->obj.handle;
	ev->flags = flags;
	ev->refs = 1;
	if (hd_handle_add(&ev->obj)) {
		free(ev);
		goto out;
	}
	*event = ev->obj.handle;
	ret = CUDA_SUCCESS;
out:
	hd_unlock();
	return ret;
}

CUresult hd_cuEventDestroy(CUevent event)
{
	struct hd_event *ev;
	CUresult ret;

	hd_lock();
	ret = lookup(event, &ev);
	if (!ret)
		hd_event_release(ev);
	hd_unlock();
	return ret;
}

CUresult hd_cuEventRecord(CUevent event, CUstream stream)
{
	struct hd_stream *s;
	struct hd_event *ev;
	struct hd_op *op;
	CUresult ret;

	hd_lock();
	ret = lookup(event, &ev);
	if (ret)
		goto out;
	ret = hd_stream_resolve(stream, &s);
	if (ret)
		goto out;
	ret = CUDA_ERROR_INVALID_HANDLE;
	if (s->obj.ctx != ev->obj.ctx)
		goto out;
	ret = CUDA_ERROR_OUT_OF_MEMORY;
	op = hd_op_new(HD_OP_RECORD, 0);
	if (!op)
		goto out;
	ev->seq++;
	ev->recorded = true;
	ev->done = false;
	ev->refs++;
	op->record.ev = ev;
	op->record.seq = ev->seq;
	hd_submit(s, op);
	ret = CUDA_SUCCESS;
out:
	hd_unlock();
	return ret;
}

/* An event never recorded is complete, as in CUDA. */
CUresult hd_cuEventSynchronize(CUevent event)
{
	struct hd_event *ev;
	CUresult ret;

	hd_lock();
	ret = lookup(event, &ev);
	if (!ret) {
		ev->refs++;
		while (ev->recorded && !ev->done)
			hd_wait_done();
		hd_event_put(ev);
	}
	hd_unlock();
	return ret;
}

CUresult hd_cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
	struct hd_event *a, *b;
	CUresult ret;

	hd_lock();
	ret = hd_initialized();
	if (!ret && !ms)
		ret = CUDA_ERROR_INVALID_VALUE;
	if (!ret)
		ret = lookup(start, &a);
	if (!ret)
		ret = lookup(end, &b);
	if (ret)
		goto out;
	ret = CUDA_ERROR_INVALID_HANDLE;
	if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING)
		goto out;
	if (!a->recorded || !b->recorded)
		goto out;
	ret = CUDA_ERROR_NOT_READY;
	if (!a->done || !b->done)
		goto out;
	*ms = (float)((double)(s64)(b->ts_ns - a->ts_ns) / 1e6);
	ret = CUDA_SUCCESS;
out:
	hd_unlock();
	return ret;
}
