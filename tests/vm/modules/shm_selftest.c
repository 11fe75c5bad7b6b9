// SPDX-License-Identifier: GPL-2.0
/*
 * lake_shm_selftest: kernel-side half of the lakeshm VM tests.
 *
 * The user-side program (tests/vm/progs/shm_test.c) drives it through
 * debugfs lake/shm_selftest: it writes one command, then reads the answer.
 *   alloc SIZE ALIGN SEED   allocate, fill with pattern(SEED); answer: offset
 *   verify OFF LEN SEED     does the kernel see pattern(SEED) there? answer: 0/-errno
 *   free OFF                free an allocation made by "alloc"
 *   selftest                in-kernel API misuse cases; answer: TAP-like lines
 * Allocations left at unload are freed, so lakeshm can go after it.
 */
#define CTL_OUT_MAX	2048
#include "selftest_ctl.h"

#define MAX_ALLOCS	64

static void *allocs[MAX_ALLOCS];

static u8 pattern(u64 seed, size_t i)
{
	return (u8)(seed * 131 + i * 31 + (i >> 8));
}

static void cmd_alloc(size_t size, size_t align, u64 seed)
{
	u64 off = 0;
	u8 *p;
	size_t i;
	int slot;

	for (slot = 0; slot < MAX_ALLOCS && allocs[slot]; slot++)
		;
	if (slot == MAX_ALLOCS) {
		ctl_say("%d", -ENOSPC);
		return;
	}
	p = lake_shm_alloc_aligned(size, align);
	if (!p) {
		ctl_say("%d", -ENOMEM);
		return;
	}
	for (i = 0; i < size; i++)
		p[i] = pattern(seed, i);
	allocs[slot] = p;
	if (lake_shm_ptr_to_off(p, size, &off))
		ctl_say("%d", -EFAULT);
	else
		ctl_say("%llu", off);
}

static void cmd_verify(u64 off, size_t len, u64 seed)
{
	u8 *p = lake_shm_off_to_ptr(off, len);
	size_t i;

	if (!p) {
		ctl_say("%d", -EINVAL);
		return;
	}
	for (i = 0; i < len; i++) {
		if (p[i] != pattern(seed, i)) {
			ctl_say("%d", -EBADMSG);
			return;
		}
	}
	ctl_say("0");
}

static void cmd_free(u64 off)
{
	u8 *p = lake_shm_off_to_ptr(off, 1);
	int slot;

	for (slot = 0; slot < MAX_ALLOCS; slot++) {
		if (p && allocs[slot] == p) {
			ctl_say("%d", lake_shm_free(p));
			allocs[slot] = NULL;
			return;
		}
	}
	ctl_say("%d", -ENOENT);
}

#define CHECK(name, cond) ctl_say("%s - shm.kernel.%s\n", (cond) ? "ok" : "not ok", name)

static void cmd_selftest(void)
{
	struct lake_shm_stats before, after;
	u8 *a, *b, *k;
	u64 off = ~0ULL;

	k = kmalloc(64, GFP_KERNEL);
	a = lake_shm_alloc(1000);
	b = lake_shm_alloc_aligned(100, PAGE_SIZE);
	if (!k || !a || !b) {
		ctl_say("not ok - shm.kernel.setup\n");
		goto out;
	}
	CHECK("alignment_64", ((unsigned long)a & 63) == 0);
	CHECK("alignment_page", ((unsigned long)b & (PAGE_SIZE - 1)) == 0);
	CHECK("alloc_zero_fails", lake_shm_alloc(0) == NULL);
	lake_shm_get_stats(&before);
	CHECK("alloc_too_big_fails", lake_shm_alloc(lake_shm_size() + 1) == NULL);
	CHECK("alloc_bad_align_fails", lake_shm_alloc_aligned(64, 3000) == NULL);

	CHECK("ptr_to_off_valid", lake_shm_ptr_to_off(a + 10, 990, &off) == 0 &&
	      lake_shm_off_to_ptr(off, 990) == a + 10);
	CHECK("ptr_to_off_foreign", lake_shm_ptr_to_off(k, 64, &off) == -ERANGE);
	CHECK("ptr_to_off_overrun", lake_shm_ptr_to_off(a, 1025, &off) == -EINVAL);
	CHECK("off_to_ptr_past_region", lake_shm_off_to_ptr(lake_shm_size(), 1) == NULL);
	CHECK("off_to_ptr_wrapping", lake_shm_off_to_ptr(~0ULL - 1, 4) == NULL);
	CHECK("off_to_ptr_len_zero", lake_shm_off_to_ptr(0, 0) == NULL);

	CHECK("free_foreign", lake_shm_free(k) == -EINVAL);
	CHECK("free_interior", lake_shm_free(a + 64) == -EINVAL);
	CHECK("free_ok", lake_shm_free(a) == 0);
	CHECK("double_free", lake_shm_free(a) == -EINVAL);
	CHECK("off_to_ptr_after_free", lake_shm_off_to_ptr(off, 1) == NULL);
	lake_shm_get_stats(&after);
	CHECK("bad_frees_counted", after.bad_frees == before.bad_frees + 3);
	CHECK("failed_allocs_counted", after.failed_allocs >= before.failed_allocs + 1);
	CHECK("live_allocs_counted", after.live_allocs == before.live_allocs - 1);
	a = NULL;
out:
	if (a)
		lake_shm_free(a);
	if (b)
		lake_shm_free(b);
	kfree(k);
}

static void ctl_command(char *cmd)
{
	unsigned long long x, y, z;

	if (sscanf(cmd, "alloc %llu %llu %llu", &x, &y, &z) == 3)
		cmd_alloc(x, y, z);
	else if (sscanf(cmd, "verify %llu %llu %llu", &x, &y, &z) == 3)
		cmd_verify(x, y, z);
	else if (sscanf(cmd, "free %llu", &x) == 1)
		cmd_free(x);
	else if (!strcmp(cmd, "selftest"))
		cmd_selftest();
	else
		ctl_say("%d", -EINVAL);
}

static int __init selftest_init(void)
{
	return ctl_create("shm_selftest");
}

static void __exit selftest_exit(void)
{
	int i;

	ctl_remove();
	for (i = 0; i < MAX_ALLOCS; i++)
		if (allocs[i])
			lake_shm_free(allocs[i]);
}

module_init(selftest_init);
module_exit(selftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake: lakeshm VM selftest helper");
