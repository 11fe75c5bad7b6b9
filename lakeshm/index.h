/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The allocator's index of live allocations, built from two flat tables:
 * a hash from offset to block (free() and exact lookups: one probe, usually
 * one cache line) and a bitmap of allocation starts at 64-byte granularity
 * with summary levels above it (the floor query "which allocation starts at
 * or before this byte" in a word operation per level). A pointer-linked tree
 * walked several cache misses per operation; these touch two or three.
 */
#ifndef LAKE_SHM_INDEX_H
#define LAKE_SHM_INDEX_H

#include <lake/port.h>

#define LAKE_INDEX_MAX_LEVELS	6	/* 64^6 granules: more than 2^36 bytes */

struct lake_index_slot {
	u64 key;			/* granule + 1; 0 marks an empty slot */
	void *val;
};

struct lake_index {
	struct lake_index_slot *slots;
	u64 mask;			/* capacity - 1 (a power of two) */
	u64 count;
	u64 *bits[LAKE_INDEX_MAX_LEVELS];	/* level 0: one bit per granule */
	unsigned int levels;
};

int lake_index_init(struct lake_index *ix, u64 granules);
void lake_index_destroy(struct lake_index *ix);
/* 0 or -ENOMEM (nothing changed). @g must be absent. */
int lake_index_insert(struct lake_index *ix, u64 g, void *val);
void *lake_index_lookup(const struct lake_index *ix, u64 g);
/* Remove @g and return its value, or NULL if absent. */
void *lake_index_erase(struct lake_index *ix, u64 g);
/* Value at the greatest granule <= @g, or NULL. */
void *lake_index_floor(const struct lake_index *ix, u64 g);

#endif /* LAKE_SHM_INDEX_H */
