/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LAKE's lake_shm.h, kernel side: buffers in the shared region under LAKE's
 * names, for modules written against its kernel API. They are lakeshm's
 * buffers (lake/shm.h): pass them to copies and they move with no copy.
 */
#ifndef LAKE_KAPI_LAKE_SHM_H
#define LAKE_KAPI_LAKE_SHM_H

#include <linux/types.h>

/* A buffer of @size bytes in the region, or NULL (as lake_shm_alloc). */
void *kava_alloc(size_t size);
/* Frees a kava_alloc buffer; NULL is ignored, anything else is logged. */
void kava_free(void *p);
/* @p's offset in the region; -ERANGE: not in it; -EINVAL: in no live buffer. */
s64 kava_shm_offset(const void *p);

#endif /* LAKE_KAPI_LAKE_SHM_H */
