// SPDX-License-Identifier: GPL-2.0
/*
 * LAKE's shared-memory calls (include/kapi/lake_shm.h) over lakeshm's own:
 * the same buffers under the names LAKE's modules use.
 */
#include <linux/module.h>
#include <lake/shm.h>
#include <kapi/lake_shm.h>

void *kava_alloc(size_t size)
{
	return lake_shm_alloc(size);
}
EXPORT_SYMBOL_GPL(kava_alloc);

/* lake_shm_free logs a pointer it did not hand out; LAKE's returns nothing. */
void kava_free(void *p)
{
	if (p)
		lake_shm_free(p);
}
EXPORT_SYMBOL_GPL(kava_free);

s64 kava_shm_offset(const void *p)
{
	u64 off;
	int ret = lake_shm_ptr_to_off(p, 1, &off);

	return ret ? ret : (s64)off;
}
EXPORT_SYMBOL_GPL(kava_shm_offset);
