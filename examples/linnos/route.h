/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a read goes, and how each replica's history stays fresh: the part
 * of the target's routing that is plain C (include/lake/port.h only), so
 * the host tests drive it on scripted histories. dm-linnos.c holds the
 * locks and calls these.
 *
 * The history of a replica changes only when a read completes there, and
 * reads predicted slow are sent away from it, so a replica that was slow
 * would keep its slow history (and get no reads) until the other replica
 * was predicted slow too. A probe prevents that: when a read's home is
 * predicted slow but its history is older than LINNOS_PROBE_NS, and no
 * probe went there within that time, the read goes home anyway. So while
 * reads keep arriving for a replica, its history is never more than about
 * LINNOS_PROBE_NS (plus one read's latency) old, and it costs at most one
 * read per replica per LINNOS_PROBE_NS.
 */
#ifndef LINNOS_ROUTE_H
#define LINNOS_ROUTE_H

#include <lake/port.h>
#include "model.h"

#define LINNOS_PROBE_NS		10000000ULL	/* 10 ms */

/* The routing state of one replica. */
struct linnos_leg {
	struct linnos_history hist;
	u64 hist_ns;		/* when hist last changed (0: never) */
	u64 probe_ns;		/* when the last probe was sent (0: never) */
};

/* What linnos_route() decided, as LINNOS_IO_* bits (target.h). */
#define LINNOS_ROUTE_PRED_SLOW	0x08	/* the replica it goes to was predicted slow */
#define LINNOS_ROUTE_REDIRECT	0x10	/* it goes to the other replica */
#define LINNOS_ROUTE_PROBE	0x40	/* predicted slow, sent home to refresh its history */
#define LINNOS_ROUTE_BOTH_SLOW	0x80	/* predicted slow on both replicas */

/* A read completed on @leg at @now_ns: the newest history entry. */
void linnos_leg_complete(struct linnos_leg *leg, u32 latency_us, u32 pending_at_issue,
			 u64 now_ns);

/*
 * Whether a read predicted slow on @leg should go there anyway as a probe;
 * if so the probe is taken (one per LINNOS_PROBE_NS). Callers serialize.
 */
bool linnos_leg_take_probe(struct linnos_leg *leg, u64 now_ns);

/*
 * The replica for a read with home @home: @slow[0] is home's verdict,
 * @slow[1] the other's (read only when home is slow and @probe is false);
 * @probe says a probe of home was taken. Sets LINNOS_ROUTE_* bits in
 * *@flags.
 */
u8 linnos_route(u8 home, const u8 slow[2], bool probe, u32 *flags);

#endif /* LINNOS_ROUTE_H */
