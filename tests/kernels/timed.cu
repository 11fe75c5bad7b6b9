// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel that holds its device for a given wall-clock time, however fast
 * the device or the host: what a test needs to keep one context inside a
 * long synchronize while others make calls. Unlike policy.cu's hold, it
 * ends by itself, so nothing has to reach the device to stop it (a caller
 * stuck behind the synchronize could not).
 *
 * On a GPU it naps in __nanosleep steps against %globaltimer. On the host
 * device it sleeps rather than spins: a GPU kernel costs the host no CPU,
 * and a spinning one would take a vCPU from the callers a test times.
 */
#include <lake/kernel.h>
#include "timed.h"

#ifdef __CUDACC__

LAKE_DEVICE unsigned long long now_ns(void)
{
	unsigned long long t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

LAKE_DEVICE void nap_until(unsigned long long end)
{
	(void)end;
	__nanosleep(1000000);	/* its maximum: about 1 ms */
}

#else

#include <time.h>

LAKE_DEVICE unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* An early return (a signal) just goes round the caller's loop again. */
LAKE_DEVICE void nap_until(unsigned long long end)
{
	struct timespec ts = { end / 1000000000ULL, end % 1000000000ULL };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

#endif

/* Every thread of the launch runs for @ns; launch one. */
LAKE_KERNEL(run_for, RUN_FOR_PARAMS)
{
	unsigned long long end = now_ns() + ns;

	while (now_ns() < end)
		nap_until(end);
}
