// SPDX-License-Identifier: GPL-2.0
/*
 * The load report lakelib's CPU-fallback policy reads (DESIGN.md, decision
 * 9), sent every --load-period-ms: utilization and process count from the
 * device's load hook (NVML on CUDA; the worker pool and its queue on the
 * host device), memory from cuMemGetInfo when the kernel holds a context. Fields the
 * device cannot measure are left out, with their flag clear.
 */
#include "daemon.h"
#include "log.h"

int laked_load_sample(struct laked *d, struct lake_driver *drv, u32 period_ms,
		      struct lake_genl_load *out)
{
	struct lake_device_load dl = {};
	const char *why = "";
	u64 used, total;

	memset(out, 0, sizeof(*out));
	out->period_ms = period_ms ? period_ms : 1;
	if (!drv->load(drv, &dl)) {
		if (dl.flags & LAKE_DEVICE_LOAD_UTIL) {
			out->flags |= LAKE_LOAD_F_UTIL;
			out->util_pct = dl.util_percent < 100 ? dl.util_percent : 100;
		}
		if (dl.flags & LAKE_DEVICE_LOAD_PROCS) {
			out->flags |= LAKE_LOAD_F_PROCS;
			out->procs = dl.foreign_procs + 1;	/* laked counts too */
		}
		if (dl.flags & LAKE_DEVICE_LOAD_QUEUE) {
			out->flags |= LAKE_LOAD_F_QUEUE;
			out->queued = dl.queued;
		}
	}
	if (!laked_mem_info(d, &used, &total)) {
		out->flags |= LAKE_LOAD_F_MEM;
		out->mem_used = used;
		out->mem_total = total;
	}
	if (lake_wire_check_load(out, &why)) {
		laked_log(LOG_ERR, "load report not sent: %s", why);
		return -EINVAL;
	}
	return 0;
}
