/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lakelib's tracepoints, system "lake" (tracefs events/lake/): each call
 * sent and answered, each async error latched, each fallback decision, and
 * laked registering and going. Read them with ftrace, perf or bpftrace
 * (README, "Observe").
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM lake

#include <lake/compat.h>

#if !defined(LAKELIB_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define LAKELIB_TRACE_H

#include <linux/tracepoint.h>

/* A call enters the send queue; @async: no reply unless it fails. */
TRACE_EVENT(lake_call_send,
	TP_PROTO(const char *api, u64 ctx, u64 req_id, bool async),
	TP_ARGS(api, ctx, req_id, async),
	TP_STRUCT__entry(
		__string(api, api)
		__field(u64, ctx)
		__field(u64, req_id)
		__field(bool, async)
	),
	TP_fast_assign(
		LAKE_TRACE_ASSIGN_STR(api, api);
		__entry->ctx = ctx;
		__entry->req_id = req_id;
		__entry->async = async;
	),
	TP_printk("api=%s ctx=0x%llx req_id=%llu async=%d", __get_str(api),
		  __entry->ctx, __entry->req_id, __entry->async)
);

/* A synchronous call returns to its caller: answered, failed or timed out. */
TRACE_EVENT(lake_call_done,
	TP_PROTO(const char *api, u64 ctx, u64 req_id, u64 latency_ns, u32 result),
	TP_ARGS(api, ctx, req_id, latency_ns, result),
	TP_STRUCT__entry(
		__string(api, api)
		__field(u64, ctx)
		__field(u64, req_id)
		__field(u64, latency_ns)
		__field(u32, result)
	),
	TP_fast_assign(
		LAKE_TRACE_ASSIGN_STR(api, api);
		__entry->ctx = ctx;
		__entry->req_id = req_id;
		__entry->latency_ns = latency_ns;
		__entry->result = result;
	),
	TP_printk("api=%s ctx=0x%llx req_id=%llu latency_ns=%llu result=%u", __get_str(api),
		  __entry->ctx, __entry->req_id, __entry->latency_ns, __entry->result)
);

/* laked answered an async call with an error, latched for (ctx, stream). */
TRACE_EVENT(lake_async_error,
	TP_PROTO(u64 ctx, u64 stream, u64 req_id, u32 result),
	TP_ARGS(ctx, stream, req_id, result),
	TP_STRUCT__entry(
		__field(u64, ctx)
		__field(u64, stream)
		__field(u64, req_id)
		__field(u32, result)
	),
	TP_fast_assign(
		__entry->ctx = ctx;
		__entry->stream = stream;
		__entry->req_id = req_id;
		__entry->result = result;
	),
	TP_printk("ctx=0x%llx stream=0x%llx req_id=%llu result=%u", __entry->ctx,
		  __entry->stream, __entry->req_id, __entry->result)
);

/* A fallback policy chose a side for a batch. */
TRACE_EVENT(lake_fallback_decision,
	TP_PROTO(const char *policy, u32 batch, bool gpu, const char *reason),
	TP_ARGS(policy, batch, gpu, reason),
	TP_STRUCT__entry(
		__string(policy, policy)
		__field(u32, batch)
		__field(bool, gpu)
		__string(reason, reason)
	),
	TP_fast_assign(
		LAKE_TRACE_ASSIGN_STR(policy, policy);
		__entry->batch = batch;
		__entry->gpu = gpu;
		LAKE_TRACE_ASSIGN_STR(reason, reason);
	),
	TP_printk("policy=%s batch=%u side=%s reason=%s", __get_str(policy), __entry->batch,
		  __entry->gpu ? "gpu" : "cpu", __get_str(reason))
);

/* laked registered (@up) or went; @why says how it went. */
TRACE_EVENT(lake_daemon,
	TP_PROTO(bool up, u32 portid, u32 pid, const char *what),
	TP_ARGS(up, portid, pid, what),
	TP_STRUCT__entry(
		__field(bool, up)
		__field(u32, portid)
		__field(u32, pid)
		__string(what, what)
	),
	TP_fast_assign(
		__entry->up = up;
		__entry->portid = portid;
		__entry->pid = pid;
		LAKE_TRACE_ASSIGN_STR(what, what);
	),
	TP_printk("%s portid=%u pid=%u %s", __entry->up ? "register" : "unregister",
		  __entry->portid, __entry->pid, __get_str(what))
);

#endif /* LAKELIB_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
