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
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <lake/shm.h>

#define MAX_ALLOCS	64
#define ANSWER_MAX	2048

static DEFINE_MUTEX(lock);
static void *allocs[MAX_ALLOCS];
static char answer[ANSWER_MAX];
static size_t answer_len;
static struct dentry *file;

static u8 pattern(u64 seed, size_t i)
{
	return (u8)(seed * 131 + i * 31 + (i >> 8));
}

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	answer_len += vscnprintf(answer + answer_len, ANSWER_MAX - answer_len, fmt, ap);
	va_end(ap);
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
		say("%d", -ENOSPC);
		return;
	}
	p = lake_shm_alloc_aligned(size, align);
	if (!p) {
		say("%d", -ENOMEM);
		return;
	}
	for (i = 0; i < size; i++)
		p[i] = pattern(seed, i);
	allocs[slot] = p;
	if (lake_shm_ptr_to_off(p, size, &off))
		say("%d", -EFAULT);
	else
		say("%llu", off);
}

static void cmd_verify(u64 off, size_t len, u64 seed)
{
	u8 *p = lake_shm_off_to_ptr(off, len);
	size_t i;

	if (!p) {
		say("%d", -EINVAL);
		return;
	}
	for (i = 0; i < len; i++) {
		if (p[i] != pattern(seed, i)) {
			say("%d", -EBADMSG);
			return;
		}
	}
	say("0");
}

static void cmd_free(u64 off)
{
	u8 *p = lake_shm_off_to_ptr(off, 1);
	int slot;

	for (slot = 0; slot < MAX_ALLOCS; slot++) {
		if (p && allocs[slot] == p) {
			say("%d", lake_shm_free(p));
			allocs[slot] = NULL;
			return;
		}
	}
	say("%d", -ENOENT);
}

#define CHECK(name, cond) say("%s - shm.kernel.%s\n", (cond) ? "ok" : "not ok", name)

static void cmd_selftest(void)
{
	struct lake_shm_stats before, after;
	u8 *a, *b, *k;
	u64 off = ~0ULL;

	k = kmalloc(64, GFP_KERNEL);
	a = lake_shm_alloc(1000);
	b = lake_shm_alloc_aligned(100, PAGE_SIZE);
	if (!k || !a || !b) {
		say("not ok - shm.kernel.setup\n");
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

static ssize_t ctl_write(struct file *f, const char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[96];
	unsigned long long x, y, z;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	mutex_lock(&lock);
	answer_len = 0;
	answer[0] = '\0';
	if (sscanf(buf, "alloc %llu %llu %llu", &x, &y, &z) == 3)
		cmd_alloc(x, y, z);
	else if (sscanf(buf, "verify %llu %llu %llu", &x, &y, &z) == 3)
		cmd_verify(x, y, z);
	else if (sscanf(buf, "free %llu", &x) == 1)
		cmd_free(x);
	else if (!strncmp(buf, "selftest", 8))
		cmd_selftest();
	else
		say("%d", -EINVAL);
	mutex_unlock(&lock);
	return len;
}

static ssize_t ctl_read(struct file *f, char __user *ubuf, size_t len, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, answer, answer_len);
	mutex_unlock(&lock);
	return ret;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.read = ctl_read,
	.write = ctl_write,
	.llseek = default_llseek,
};

static int __init selftest_init(void)
{
	file = debugfs_create_file("shm_selftest", 0600, lake_debugfs_dir(), NULL, &ctl_fops);
	return IS_ERR(file) ? PTR_ERR(file) : 0;
}

static void __exit selftest_exit(void)
{
	int i;

	debugfs_remove(file);
	for (i = 0; i < MAX_ALLOCS; i++)
		if (allocs[i])
			lake_shm_free(allocs[i]);
}

module_init(selftest_init);
module_exit(selftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake: lakeshm VM selftest helper");
