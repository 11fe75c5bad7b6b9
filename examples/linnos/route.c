// SPDX-License-Identifier: GPL-2.0
/* Routing and history freshness (route.h); plain C, kernel and host. */
#include "route.h"

void linnos_leg_complete(struct linnos_leg *leg, u32 latency_us, u32 pending_at_issue,
			 u64 now_ns)
{
	int i;

	for (i = LINNOS_HISTORY - 1; i > 0; i--) {
		leg->hist.latency_us[i] = leg->hist.latency_us[i - 1];
		leg->hist.pending_at_issue[i] = leg->hist.pending_at_issue[i - 1];
	}
	leg->hist.latency_us[0] = latency_us;
	leg->hist.pending_at_issue[0] = pending_at_issue;
	leg->hist_ns = now_ns;
}

/* @t (0: never) is at least LINNOS_PROBE_NS before @now_ns. */
static bool older(u64 now_ns, u64 t)
{
	return !t || (now_ns > t && now_ns - t >= LINNOS_PROBE_NS);
}

bool linnos_leg_take_probe(struct linnos_leg *leg, u64 now_ns)
{
	if (!older(now_ns, leg->hist_ns) || !older(now_ns, leg->probe_ns))
		return false;
	leg->probe_ns = now_ns;
	return true;
}

u8 linnos_route(u8 home, const u8 slow[2], bool probe, u32 *flags)
{
	if (!slow[0])
		return home;
	*flags |= LINNOS_ROUTE_PRED_SLOW;
	if (probe) {
		*flags |= LINNOS_ROUTE_PROBE;
		return home;
	}
	if (slow[1]) {
		*flags |= LINNOS_ROUTE_BOTH_SLOW;
		return home;
	}
	*flags = (*flags & ~LINNOS_ROUTE_PRED_SLOW) | LINNOS_ROUTE_REDIRECT;
	return !home;
}
