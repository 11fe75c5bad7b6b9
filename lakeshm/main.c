// SPDX-License-Identifier: GPL-2.0
/*
 * lakeshm: a page-backed region shared by kernel code and laked, with a
 * best-fit allocator (alloc.c) on top.
 *
 * The region comes from vmalloc_user() and reaches user space through
 * remap_vmalloc_range() (dev.c): no CMA, no boot parameter, no patched
 * kernel. laked pins the pages with cuMemHostRegister, so the GPU copies
 * straight from them.
 */
#define pr_fmt(fmt) "lakeshm: " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/vmalloc.h>
#include <lake/shm.h>
#include <uapi/lake/shm.h>
#include "lakeshm.h"

static unsigned int size_mib = 64;
module_param(size_mib, uint, 0444);
MODULE_PARM_DESC(size_mib, "Size of the shared region in MiB (1-4096, default 64)");

struct lake_shm_region lake_shm;
static struct dentry *debugfs_dir;
/*
 * Allocation-failure injection (debugfs shm_fail_allocs = N: every Nth
 * lake_shm_alloc*() fails; 0, the default, none), counted in
 * shm_alloc_faults: Debian's kernels have no fault-injection framework.
 * Both under lake_shm.lock.
 */
static u32 fail_allocs, allocs_seen;
static u64 alloc_faults;

static bool in_region(const void *ptr)
{
	return ptr >= lake_shm.base && ptr < lake_shm.base + lake_shm.size;
}

void *lake_shm_alloc_aligned(size_t size, size_t align)
{
	u64 off;
	int ret;

	mutex_lock(&lake_shm.lock);
	if (fail_allocs && !(++allocs_seen % fail_allocs)) {
		alloc_faults++;
		ret = -ENOMEM;
	} else {
		ret = lake_alloc_alloc(&lake_shm.alloc, size, align, &off);
	}
	mutex_unlock(&lake_shm.lock);
	if (ret) {
		pr_debug("alloc of %zu bytes (align %zu) failed: %d\n", size, align, ret);
		return NULL;
	}
	/* Pins lakeshm while any buffer is alive; dropped in lake_shm_free(). */
	__module_get(THIS_MODULE);
	return lake_shm.base + off;
}
EXPORT_SYMBOL_GPL(lake_shm_alloc_aligned);

void *lake_shm_alloc(size_t size)
{
	return lake_shm_alloc_aligned(size, 0);
}
EXPORT_SYMBOL_GPL(lake_shm_alloc);

int lake_shm_free(const void *ptr)
{
	int ret;

	if (!in_region(ptr)) {
		atomic64_inc(&lake_shm.foreign_frees);
		pr_warn_ratelimited("free of %p: not in the shared region\n", ptr);
		return -EINVAL;
	}
	mutex_lock(&lake_shm.lock);
	ret = lake_alloc_free(&lake_shm.alloc, ptr - lake_shm.base);
	mutex_unlock(&lake_shm.lock);
	if (!ret)
		module_put(THIS_MODULE);
	return ret;
}
EXPORT_SYMBOL_GPL(lake_shm_free);

int lake_shm_ptr_to_off(const void *ptr, size_t len, u64 *off)
{
	u64 o;
	int ret;

	if (!in_region(ptr))
		return -ERANGE;
	o = ptr - lake_shm.base;
	mutex_lock(&lake_shm.lock);
	ret = lake_alloc_find(&lake_shm.alloc, o, len, NULL, NULL);
	mutex_unlock(&lake_shm.lock);
	if (ret) {
		pr_warn_ratelimited("buffer %#llx+%zu is not inside a live allocation\n", o, len);
		return -EINVAL;
	}
	*off = o;
	return 0;
}
EXPORT_SYMBOL_GPL(lake_shm_ptr_to_off);

void *lake_shm_off_to_ptr(u64 off, size_t len)
{
	int ret;

	mutex_lock(&lake_shm.lock);
	ret = lake_alloc_find(&lake_shm.alloc, off, len, NULL, NULL);
	mutex_unlock(&lake_shm.lock);
	if (ret) {
		pr_warn_ratelimited("offset %#llx+%zu rejected: %s\n", off, len,
				    ret == -ERANGE ? "outside the region" : "not a live allocation");
		return NULL;
	}
	return lake_shm.base + off;
}
EXPORT_SYMBOL_GPL(lake_shm_off_to_ptr);

size_t lake_shm_size(void)
{
	return lake_shm.size;
}
EXPORT_SYMBOL_GPL(lake_shm_size);

void lake_shm_get_stats(struct lake_shm_stats *st)
{
	struct lake_alloc_stats a;

	mutex_lock(&lake_shm.lock);
	lake_alloc_get_stats(&lake_shm.alloc, &a);
	mutex_unlock(&lake_shm.lock);
	st->size = a.size;
	st->used = a.used;
	st->free = a.free;
	st->largest_free = a.largest_free;
	st->free_blocks = a.free_blocks;
	st->live_allocs = a.live_allocs;
	st->failed_allocs = a.failed_allocs;
	st->bad_frees = a.bad_frees + atomic64_read(&lake_shm.foreign_frees);
	st->total_allocs = a.total_allocs;
	st->total_frees = a.total_frees;
	st->mappings = atomic_read(&lake_shm.mappings);
}
EXPORT_SYMBOL_GPL(lake_shm_get_stats);

struct dentry *lake_debugfs_dir(void)
{
	return debugfs_dir;
}
EXPORT_SYMBOL_GPL(lake_debugfs_dir);

static int stats_show(struct seq_file *m, void *unused)
{
	struct lake_shm_stats st;

	lake_shm_get_stats(&st);
	seq_printf(m, "size %llu\nused %llu\nfree %llu\nlargest_free %llu\n"
		   "free_blocks %llu\nlive_allocs %llu\nfailed_allocs %llu\n"
		   "bad_frees %llu\ntotal_allocs %llu\ntotal_frees %llu\nmappings %llu\n",
		   st.size, st.used, st.free, st.largest_free, st.free_blocks,
		   st.live_allocs, st.failed_allocs, st.bad_frees, st.total_allocs,
		   st.total_frees, st.mappings);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int __init lake_shm_init(void)
{
	int ret;

	if (size_mib < 1 || size_mib > 4096) {
		pr_err("size_mib=%u out of range (1-4096)\n", size_mib);
		return -EINVAL;
	}
	lake_shm.size = (size_t)size_mib << 20;
	mutex_init(&lake_shm.lock);
	atomic_set(&lake_shm.mappings, 0);
	atomic64_set(&lake_shm.foreign_frees, 0);
	lake_shm.base = vmalloc_user(lake_shm.size);
	if (!lake_shm.base) {
		pr_err("cannot reserve %u MiB\n", size_mib);
		return -ENOMEM;
	}
	ret = lake_alloc_init(&lake_shm.alloc, lake_shm.size);
	if (ret)
		goto err_region;
	ret = lake_shm_dev_init();
	if (ret)
		goto err_alloc;
	debugfs_dir = debugfs_create_dir("lake", NULL);
	debugfs_create_file("shm_stats", 0400, debugfs_dir, NULL, &stats_fops);
	debugfs_create_u32("shm_fail_allocs", 0600, debugfs_dir, &fail_allocs);
	debugfs_create_u64("shm_alloc_faults", 0400, debugfs_dir, &alloc_faults);
	pr_info("region of %u MiB ready at /dev/%s\n", size_mib, LAKE_SHM_DEVICE);
	return 0;

err_alloc:
	lake_alloc_destroy(&lake_shm.alloc);
err_region:
	vfree(lake_shm.base);
	return ret;
}

static void __exit lake_shm_exit(void)
{
	debugfs_remove_recursive(debugfs_dir);
	lake_shm_dev_exit();
	lake_alloc_destroy(&lake_shm.alloc);
	vfree(lake_shm.base);
}

module_init(lake_shm_init);
module_exit(lake_shm_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake: memory region shared by kernel and laked, with a best-fit allocator");
