/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * /dev/lake_shm, as laked and tests see it: mmap the region at offset 0
 * (MAP_SHARED, read/write, never exec); LAKE_SHM_IOC_INFO tells its size.
 * Buffers inside the region are named by their offset from its start.
 */
#ifndef LAKE_UAPI_SHM_H
#define LAKE_UAPI_SHM_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define LAKE_SHM_DEVICE		"lake_shm"
#define LAKE_SHM_VERSION	1

struct lake_shm_info {
	__u64 size;		/* bytes in the region */
	__u32 version;		/* LAKE_SHM_VERSION */
	__u32 page_size;
};

#define LAKE_SHM_IOC_INFO	_IOR('L', 0x01, struct lake_shm_info)

#endif /* LAKE_UAPI_SHM_H */
