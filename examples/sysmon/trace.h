/* SPDX-License-Identifier: GPL-2.0 */
/*
 * examples/sysmon's tracepoint, system "lake_sysmon": a window scored past
 * the threshold (events/lake_sysmon/sysmon_anomaly in tracefs).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM lake_sysmon

#if !defined(SYSMON_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SYSMON_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(sysmon_anomaly,
	TP_PROTO(u32 tgid, const char *comm, u32 score, u32 threshold, u32 calls, bool gpu),
	TP_ARGS(tgid, comm, score, threshold, calls, gpu),
	TP_STRUCT__entry(
		__field(u32, tgid)
		__array(char, comm, 16)
		__field(u32, score)
		__field(u32, threshold)
		__field(u32, calls)
		__field(bool, gpu)
	),
	TP_fast_assign(
		__entry->tgid = tgid;
		memcpy(__entry->comm, comm, 16);
		__entry->score = score;
		__entry->threshold = threshold;
		__entry->calls = calls;
		__entry->gpu = gpu;
	),
	TP_printk("tgid=%u comm=%.16s score=%u threshold=%u calls=%u side=%s",
		  __entry->tgid, __entry->comm, __entry->score, __entry->threshold,
		  __entry->calls, __entry->gpu ? "gpu" : "cpu")
);

#endif /* SYSMON_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
