/* SPDX-License-Identifier: GPL-2.0 */
/* State shared by lakeshm's files; other modules use include/lake/shm.h. */
#ifndef LAKESHM_INTERNAL_H
#define LAKESHM_INTERNAL_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include "alloc.h"

struct lake_shm_region {
	void *base;			/* vmalloc_user memory */
	size_t size;
	struct mutex lock;		/* guards alloc */
	struct lake_alloc alloc;
	atomic_t mappings;
	atomic64_t foreign_frees;	/* frees of pointers outside the region */
};

extern struct lake_shm_region lake_shm;

int lake_shm_dev_init(void);
void lake_shm_dev_exit(void);

#endif
