/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What lakelib offers beyond the CUDA API (include/lake/cuda.h): the state
 * of the daemon link, for callers that choose between a GPU and a CPU path,
 * and function lookups held to a declared signature.
 */
#ifndef LAKE_LAKELIB_H
#define LAKE_LAKELIB_H

#include <linux/types.h>
#include <lake/cuda.h>
#include <lake/kernel_sig.h>

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

/*
 * cuModuleGetFunction for the kernel @sig names, with the parameter layout
 * its caller declared (LAKE_KERNEL_SIG, lake/kernel_sig.h): laked's report
 * must equal @sig, else CUDA_ERROR_INVALID_IMAGE and a log line
 * (CUDA_ERROR_INVALID_VALUE for a malformed @sig). cuLaunchKernel
 * then follows exactly sig->count kernelParams pointers and reads exactly the
 * declared sizes, whatever laked says. A plain cuModuleGetFunction takes
 * laked's layout on trust (README, "Trust").
 */
CUresult lake_module_get_function(CUfunction *hfunc, CUmodule hmod,
				  const struct lake_kernel_sig *sig);

#endif /* LAKE_LAKELIB_H */
