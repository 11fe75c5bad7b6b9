// SPDX-License-Identifier: GPL-2.0
/*
 * memcpy_bench BYTES ROUNDS [shm|congruent|switch]: the median ns of copying
 * BYTES there and back with a plain memcpy in user space, the baseline for
 * lake's copy throughput in the same guest (laked copies in user space too).
 * With "shm", one side is a mapping of /dev/lake_shm, as in laked. The other
 * two isolate what TCG adds to laked's copies (bench/vm/lake_bench.c,
 * bench_copy): "congruent" puts the buffers 16 MiB apart from a 2 MiB
 * boundary, equal modulo 2 MiB like the buffers of lake's copy benchmark;
 * "switch" bounces a byte off a child process before each memcpy, two
 * address-space switches as around each of laked's copies, and times the
 * copies alone.
 */
#include <stdint.h>
#include <time.h>
#include <sys/mman.h>
#include <uapi/lake/shm.h>
#include "vmtest.h"

#define CONGRUENT_APART	(16 << 20)
#define HUGE_ALIGN	(2 << 20)

static int to_child[2], to_parent[2];

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

/* A child that echoes each byte back; it exits when we close its pipe. */
static int start_echo(void)
{
	pid_t pid;
	char c;

	if (pipe(to_child) || pipe(to_parent))
		return -1;
	pid = fork();
	if (pid)
		return pid < 0 ? -1 : 0;
	close(1);
	close(to_child[1]);
	while (read(to_child[0], &c, 1) == 1 && write(to_parent[1], &c, 1) == 1)
		;
	_exit(0);
}

/* To the child and back: the CPU leaves our address space and returns. */
static void switch_away(void)
{
	char c = 0;

	if (write(to_child[1], &c, 1) != 1 || read(to_parent[0], &c, 1) != 1)
		exit(1);
}

static uint64_t timed_copy(char *dst, const char *src, size_t bytes, int sw)
{
	uint64_t t0;

	if (sw)
		switch_away();
	t0 = now_ns();
	memcpy(dst, src, bytes);
	return now_ns() - t0;
}

int main(int argc, char **argv)
{
	size_t bytes = argc > 1 ? strtoul(argv[1], NULL, 0) : 1 << 20;
	int rounds = argc > 2 ? atoi(argv[2]) : 20, i;
	const char *mode = argc > 3 ? argv[3] : "";
	char *a = malloc(bytes), *b = malloc(bytes), *m;
	int fd, sw = !strcmp(mode, "switch");

	if (!strcmp(mode, "shm")) {
		fd = open("/dev/" LAKE_SHM_DEVICE, O_RDWR);
		a = fd < 0 ? NULL : mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (a == MAP_FAILED)
			a = NULL;
	} else if (!strcmp(mode, "congruent")) {
		m = mmap(NULL, HUGE_ALIGN + CONGRUENT_APART + bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		a = m == MAP_FAILED ? NULL :
			(char *)(((uintptr_t)m + HUGE_ALIGN - 1) & ~(uintptr_t)(HUGE_ALIGN - 1));
		b = a ? a + CONGRUENT_APART : NULL;
	} else if (sw && start_echo()) {
		return 1;
	}
	uint64_t *t = calloc(rounds > 0 ? rounds : 1, sizeof(*t));

	if (!a || !b || !t || rounds <= 0)
		return 1;
	memset(a, 0x5a, bytes);
	memset(b, 0xa5, bytes);
	for (i = 0; i < rounds; i++)
		t[i] = timed_copy(b, a, bytes, sw) + timed_copy(a, b, bytes, sw);
	qsort(t, rounds, sizeof(*t), cmp);
	printf("%llu\n", (unsigned long long)t[rounds / 2]);
	return 0;
}
