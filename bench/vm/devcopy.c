// SPDX-License-Identifier: GPL-2.0
/*
 * devcopy: the host device's own copy speed, without lake around it.
 * 1 MiB cuMemcpyHtoD + cuMemcpyDtoH through laked's device layer, called
 * directly, against memcpy() of the same bytes; median of 15 rounds, in ns.
 * Set beside lake_bench's copy figure, it splits lake's copy cost into the
 * device's share and the round trips' share.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "laked/driver.h"

#define BYTES	(1 << 20)
#define ROUNDS	15

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

int main(void)
{
	unsigned long long dev[ROUNDS], cpy[ROUNDS], t0;
	char *a = malloc(BYTES), *b = malloc(BYTES);
	struct lake_driver *drv;
	CUdeviceptr p;
	CUcontext ctx;
	int i;

	if (!a || !b || lake_driver_open_host(&drv, NULL) || drv->cuInit(0) ||
	    drv->cuCtxCreate(&ctx, 0, 0) || drv->cuMemAlloc(&p, BYTES)) {
		fprintf(stderr, "devcopy: host device setup failed\n");
		return 1;
	}
	memset(a, 0x5a, BYTES);
	for (i = 0; i < ROUNDS; i++) {
		t0 = now_ns();
		if (drv->cuMemcpyHtoD(p, a, BYTES) || drv->cuMemcpyDtoH(b, p, BYTES))
			return 1;
		dev[i] = now_ns() - t0;
		t0 = now_ns();
		memcpy(b, a, BYTES);
		memcpy(a, b, BYTES);
		cpy[i] = now_ns() - t0;
	}
	qsort(dev, ROUNDS, sizeof(dev[0]), cmp);
	qsort(cpy, ROUNDS, sizeof(cpy[0]), cmp);
	printf("%llu %llu\n", dev[ROUNDS / 2], cpy[ROUNDS / 2]);
	drv->cuCtxDestroy(ctx);
	lake_driver_close(drv);
	return 0;
}
