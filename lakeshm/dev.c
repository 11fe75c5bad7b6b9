// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/lake_shm: how laked maps the region. Root only (mode 0600 and
 * CAP_NET_ADMIN, the capability laked registers with and the only one
 * laked.service leaves it), shared writable mappings only, never
 * executable. An open file or a live mapping holds a reference on the
 * module (fops.owner and vm_file), so rmmod is refused until both are gone.
 *
 * Mappings go through one device inode, the first one mapped, so that
 * lakelib can revoke them all at once when it fences laked: after
 * lake_shm_revoke_mappings() no user write reaches the region through a
 * mapping made before it (a touch gets SIGBUS).
 */
#define pr_fmt(fmt) "lakeshm: " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <lake/compat.h>
#include <lake/shm.h>
#include <uapi/lake/shm.h>
#include "lakeshm.h"

static DEFINE_SPINLOCK(map_lock);
static struct inode *map_inode;		/* referenced; where every mapping lives */

void lake_shm_revoke_mappings(void)
{
	struct inode *inode;

	spin_lock(&map_lock);
	inode = map_inode ? igrab(map_inode) : NULL;
	spin_unlock(&map_lock);
	if (!inode)
		return;
	unmap_mapping_range(inode->i_mapping, 0, 0, 1);
	iput(inode);
}
EXPORT_SYMBOL_GPL(lake_shm_revoke_mappings);

/* Pin the inode mappings go through; another one is refused. */
static int use_inode(struct file *file)
{
	struct inode *inode = file_inode(file);
	int ret = 0;

	if (file->f_mapping != inode->i_mapping)
		return -EINVAL;
	spin_lock(&map_lock);
	if (!map_inode)
		map_inode = igrab(inode);
	if (map_inode != inode)
		ret = -EINVAL;
	spin_unlock(&map_lock);
	return ret;
}

static int shm_open(struct inode *inode, struct file *file)
{
	if (!capable(CAP_NET_ADMIN)) {
		pr_warn_ratelimited("open by uid %u refused\n",
				    from_kuid(&init_user_ns, current_uid()));
		return -EPERM;
	}
	return 0;
}

static void shm_vma_open(struct vm_area_struct *vma)
{
	atomic_inc(&lake_shm.mappings);
}

static void shm_vma_close(struct vm_area_struct *vma)
{
	atomic_dec(&lake_shm.mappings);
}

static const struct vm_operations_struct shm_vm_ops = {
	.open = shm_vma_open,
	.close = shm_vma_close,
};

static int shm_mmap(struct file *file, struct vm_area_struct *vma)
{
	int ret;

	if (!(vma->vm_flags & VM_SHARED) || (vma->vm_flags & VM_EXEC)) {
		pr_warn_ratelimited("mmap refused: needs MAP_SHARED and no PROT_EXEC\n");
		return -EINVAL;
	}
	if (use_inode(file)) {
		pr_warn_ratelimited("mmap refused: map the region through its first device node\n");
		return -EINVAL;
	}
	ret = remap_vmalloc_range(vma, lake_shm.base, vma->vm_pgoff);
	if (ret) {
		pr_warn_ratelimited("mmap of %lu bytes at page %lu refused: %d\n",
				    vma->vm_end - vma->vm_start, vma->vm_pgoff, ret);
		return ret;
	}
	lake_vm_flags_clear(vma, VM_MAYEXEC);
	vma->vm_ops = &shm_vm_ops;
	shm_vma_open(vma);
	return 0;
}

static long shm_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct lake_shm_info info = {
		.size = lake_shm.size,
		.version = LAKE_SHM_VERSION,
		.page_size = PAGE_SIZE,
	};

	if (cmd != LAKE_SHM_IOC_INFO)
		return -ENOTTY;
	if (copy_to_user((void __user *)arg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static const struct file_operations shm_fops = {
	.owner = THIS_MODULE,
	.open = shm_open,
	.mmap = shm_mmap,
	.unlocked_ioctl = shm_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice shm_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = LAKE_SHM_DEVICE,
	.fops = &shm_fops,
	.mode = 0600,
};

int lake_shm_dev_init(void)
{
	return misc_register(&shm_misc);
}

void lake_shm_dev_exit(void)
{
	misc_deregister(&shm_misc);
	iput(map_inode);
	map_inode = NULL;
}
