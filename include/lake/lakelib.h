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

#endif /* LAKE_LAKELIB_H */
