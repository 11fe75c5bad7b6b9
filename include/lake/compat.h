/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel-version difference the modules care about, in one place.
 * Supported: Debian 12's 6.1 LTS and 6.12 LTS kernels, and newer.
 */
#ifndef LAKE_COMPAT_H
#define LAKE_COMPAT_H

#include <linux/version.h>
#include <linux/mm.h>
#include <linux/eventfd.h>

/* vm_flags became read-only behind accessors in 6.3. */
static inline void lake_vm_flags_clear(struct vm_area_struct *vma, unsigned long flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/* Tracepoints: __assign_str() takes the __string() field's source from 6.10 on. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define LAKE_TRACE_ASSIGN_STR(dst, src)	__assign_str(dst)
#else
#define LAKE_TRACE_ASSIGN_STR(dst, src)	__assign_str(dst, src)
#endif

/* eventfd_signal() lost its count argument in 6.8: it always adds 1. */
static inline void lake_eventfd_signal(struct eventfd_ctx *ctx)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
	eventfd_signal(ctx);
#else
	eventfd_signal(ctx, 1);
#endif
}

/*
 * Crypto API completions: from 6.3 a callback gets the request's data, not
 * the request. LAKE_CRYPTO_DONE(fn) declares one; LAKE_CRYPTO_DATA() is that
 * data inside it.
 */
struct crypto_async_request;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define LAKE_CRYPTO_DONE(fn)	void fn(void *lake__data, int err)
#define LAKE_CRYPTO_DATA()	(lake__data)
#else
#define LAKE_CRYPTO_DONE(fn)	void fn(struct crypto_async_request *lake__areq, int err)
#define LAKE_CRYPTO_DATA()	(lake__areq->data)
#endif

/*
 * Holding a block device open by number: a struct file from 6.9 on
 * (bdev_file_open_by_dev), a block_device and its mode before. Read-only,
 * not exclusive; the holder is the caller's cookie for exclusive opens only.
 */
#include <linux/blkdev.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
#include <linux/fs.h>
struct lake_bdev_ref {
	struct file *file;
};

static inline int lake_bdev_open(dev_t dev, struct lake_bdev_ref *ref)
{
	struct file *f = bdev_file_open_by_dev(dev, BLK_OPEN_READ, NULL, NULL);

	if (IS_ERR(f))
		return PTR_ERR(f);
	ref->file = f;
	return 0;
}

static inline struct block_device *lake_bdev(const struct lake_bdev_ref *ref)
{
	return file_bdev(ref->file);
}

static inline void lake_bdev_close(struct lake_bdev_ref *ref)
{
	fput(ref->file);
}
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
/*
 * 6.5 to 6.8 open by blk_mode_t with holder ops (6.5), then return a
 * bdev_handle (6.7): neither is built or tested here (Debian ships 6.1 and
 * 6.12), so a module that opens a block device refuses to build there
 * rather than guess; the others build.
 */
struct lake_bdev_ref {
	struct block_device *bdev;
};
#define LAKE_BDEV_UNSUPPORTED "lake_bdev_*: kernels 6.5 to 6.8 are not supported (6.1..6.4, 6.9 on are)"
int lake_bdev_open(dev_t dev, struct lake_bdev_ref *ref) __compiletime_error(LAKE_BDEV_UNSUPPORTED);
struct block_device *lake_bdev(const struct lake_bdev_ref *ref)
	__compiletime_error(LAKE_BDEV_UNSUPPORTED);
void lake_bdev_close(struct lake_bdev_ref *ref) __compiletime_error(LAKE_BDEV_UNSUPPORTED);
#else
/* 6.1 up to 6.4: blkdev_get_by_dev with an fmode_t, put with the same mode. */
struct lake_bdev_ref {
	struct block_device *bdev;
};

static inline int lake_bdev_open(dev_t dev, struct lake_bdev_ref *ref)
{
	struct block_device *b = blkdev_get_by_dev(dev, FMODE_READ, NULL);

	if (IS_ERR(b))
		return PTR_ERR(b);
	ref->bdev = b;
	return 0;
}

static inline struct block_device *lake_bdev(const struct lake_bdev_ref *ref)
{
	return ref->bdev;
}

static inline void lake_bdev_close(struct lake_bdev_ref *ref)
{
	blkdev_put(ref->bdev, FMODE_READ);
}
#endif

#endif /* LAKE_COMPAT_H */
