/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lakeshm: the region shared by kernel code and laked.
 *
 * Buffers allocated here are visible to laked at the same offset, so a copy
 * to or from the GPU needs no staging. Every pointer or offset handed in is
 * checked against the region and a live allocation; bad ones get an errno
 * and a rate-limited log line, never a crash. Process context only (a mutex
 * guards the allocator). Each live allocation holds a reference on lakeshm,
 * so the module cannot go away under a buffer.
 */
#ifndef LAKE_SHM_H
#define LAKE_SHM_H

#include <linux/types.h>

struct dentry;

struct lake_shm_stats {
	u64 size;
	u64 used;
	u64 free;
	u64 largest_free;
	u64 free_blocks;
	u64 live_allocs;
	u64 failed_allocs;
	u64 bad_frees;
	u64 total_allocs;
	u64 total_frees;
	u64 mappings;		/* live user mappings of /dev/lake_shm */
};

/* 64-byte aligned; NULL when the region is exhausted or @size is 0. */
void *lake_shm_alloc(size_t size);
/* @align: a power of two (e.g. PAGE_SIZE); values below 64 mean 64. */
void *lake_shm_alloc_aligned(size_t size, size_t align);
/* 0, or -EINVAL for a double free or a pointer lakeshm did not hand out. */
int lake_shm_free(const void *ptr);

/*
 * Offset of [ptr, ptr + len) within the region. -ERANGE: not in the region
 * at all (the caller may copy it another way); -EINVAL: in the region but
 * not inside one live allocation.
 */
int lake_shm_ptr_to_off(const void *ptr, size_t len, u64 *off);
/* Kernel pointer for [off, off + len), which must lie in one live allocation; else NULL. */
void *lake_shm_off_to_ptr(u64 off, size_t len);

size_t lake_shm_size(void);
/* Zap every user mapping of the region (laked's): writes through them stop now. */
void lake_shm_revoke_mappings(void);
void lake_shm_get_stats(struct lake_shm_stats *st);

/* debugfs directory "lake" that lake's modules put their files in. */
struct dentry *lake_debugfs_dir(void);

#endif /* LAKE_SHM_H */
