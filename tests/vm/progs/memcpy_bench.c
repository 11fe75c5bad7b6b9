// SPDX-License-Identifier: GPL-2.0
/*
 * memcpy_bench BYTES ROUNDS [shm]: the median ns of copying BYTES there and
 * back with a plain memcpy in user space, the baseline for lake's copy
 * throughput in the same guest (laked copies in user space too). With
 * "shm", one side is a mapping of /dev/lake_shm, as in laked.
 */
#include <stdint.h>
#include <time.h>
#include <sys/mman.h>
#include <lake/shm_uapi.h>
#include "vmtest.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	size_t bytes = argc > 1 ? strtoul(argv[1], NULL, 0) : 1 << 20;
	int rounds = argc > 2 ? atoi(argv[2]) : 20, i;
	char *a = malloc(bytes), *b = malloc(bytes);
	int fd;

	if (argc > 3 && !strcmp(argv[3], "shm")) {
		fd = open("/dev/" LAKE_SHM_DEVICE, O_RDWR);
		a = fd < 0 ? NULL : mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (a == MAP_FAILED)
			a = NULL;
	}
	uint64_t *t = calloc(rounds > 0 ? rounds : 1, sizeof(*t)), t0;

	if (!a || !b || !t || rounds <= 0)
		return 1;
	memset(a, 0x5a, bytes);
	memset(b, 0xa5, bytes);
	for (i = 0; i < rounds; i++) {
		t0 = now_ns();
		memcpy(b, a, bytes);
		memcpy(a, b, bytes);
		t[i] = now_ns() - t0;
	}
	qsort(t, rounds, sizeof(*t), cmp);
	printf("%llu\n", (unsigned long long)t[rounds / 2]);
	return 0;
}
