/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What lakelib offers beyond the CUDA API (include/lake/cuda.h): the state
 * of the daemon link, for callers that choose between a GPU and a CPU path.
 */
#ifndef LAKE_LAKELIB_H
#define LAKE_LAKELIB_H

#include <linux/types.h>

/* Is laked registered? A call made now would be sent, not refused. */
bool lake_daemon_alive(void);
/* LAKE_CMD_CALL messages sent so far: coalescing shows in its growth. */
u64 lake_messages_sent(void);
/*
 * One bare round trip to laked and back (LAKE_CMD_PING, echoed): the cost
 * of the link itself, against which a null CUDA call is measured.
 * 0 with *rtt_ns set, -ENOTCONN without a daemon, -ETIMEDOUT.
 */
int lake_ping(u64 *rtt_ns);

#endif /* LAKE_LAKELIB_H */
