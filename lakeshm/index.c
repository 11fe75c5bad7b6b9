// SPDX-License-Identifier: GPL-2.0
/* Hash plus start bitmap over live allocations; see index.h. */
#include "index.h"

#define MIN_CAPACITY	64

static inline u64 hash(u64 key, u64 mask)
{
	return (key * 0x9e3779b97f4a7c15ULL >> 32) & mask;
}

static inline unsigned int hi_bit(u64 x)
{
	return 63 - __builtin_clzll(x);
}

static struct lake_index_slot *slots_alloc(u64 capacity)
{
	return lake_port_kvzalloc(capacity * sizeof(struct lake_index_slot));
}

int lake_index_init(struct lake_index *ix, u64 granules)
{
	u64 n = granules;
	unsigned int l;

	memset(ix, 0, sizeof(*ix));
	ix->slots = slots_alloc(MIN_CAPACITY);
	if (!ix->slots)
		return -ENOMEM;
	ix->mask = MIN_CAPACITY - 1;
	/* Level l has one bit per word of level l - 1, up to a single word. */
	for (l = 0; l < LAKE_INDEX_MAX_LEVELS; l++) {
		u64 words = (n + 63) / 64;

		ix->bits[l] = lake_port_kvzalloc(words * sizeof(u64));
		if (!ix->bits[l])
			goto nomem;
		ix->levels = l + 1;
		if (words == 1)
			return 0;
		n = words;
	}
	return -EINVAL;	/* range too large for LAKE_INDEX_MAX_LEVELS */
nomem:
	lake_index_destroy(ix);
	return -ENOMEM;
}

void lake_index_destroy(struct lake_index *ix)
{
	unsigned int l;

	for (l = 0; l < ix->levels; l++)
		lake_port_kvfree(ix->bits[l]);
	lake_port_kvfree(ix->slots);
	memset(ix, 0, sizeof(*ix));
}

static void put_slot(struct lake_index_slot *slots, u64 mask, u64 key, void *val)
{
	u64 i = hash(key, mask);

	while (slots[i].key)
		i = (i + 1) & mask;
	slots[i].key = key;
	slots[i].val = val;
}

/* Double the table; on failure keep the old one (it still has room). */
static void grow(struct lake_index *ix)
{
	u64 cap = (ix->mask + 1) * 2, i;
	struct lake_index_slot *s = slots_alloc(cap);

	if (!s)
		return;
	for (i = 0; i <= ix->mask; i++)
		if (ix->slots[i].key)
			put_slot(s, cap - 1, ix->slots[i].key, ix->slots[i].val);
	lake_port_kvfree(ix->slots);
	ix->slots = s;
	ix->mask = cap - 1;
}

static void bit_set(struct lake_index *ix, u64 g)
{
	unsigned int l;

	for (l = 0; l < ix->levels; l++, g /= 64) {
		u64 old = ix->bits[l][g / 64];

		ix->bits[l][g / 64] = old | (1ULL << (g % 64));
		if (old)
			break;	/* the levels above already know */
	}
}

static void bit_clear(struct lake_index *ix, u64 g)
{
	unsigned int l;

	for (l = 0; l < ix->levels; l++, g /= 64) {
		ix->bits[l][g / 64] &= ~(1ULL << (g % 64));
		if (ix->bits[l][g / 64])
			break;
	}
}

int lake_index_insert(struct lake_index *ix, u64 g, void *val)
{
	if (ix->count * 2 >= ix->mask + 1)
		grow(ix);
	if (ix->count * 4 >= (ix->mask + 1) * 3)
		return -ENOMEM;	/* growth failed and probing would degrade */
	put_slot(ix->slots, ix->mask, g + 1, val);
	ix->count++;
	bit_set(ix, g);
	return 0;
}

static s64 find_slot(const struct lake_index *ix, u64 g)
{
	u64 key = g + 1, i = hash(key, ix->mask);

	while (ix->slots[i].key) {
		if (ix->slots[i].key == key)
			return i;
		i = (i + 1) & ix->mask;
	}
	return -1;
}

void *lake_index_lookup(const struct lake_index *ix, u64 g)
{
	s64 i = find_slot(ix, g);

	return i < 0 ? NULL : ix->slots[i].val;
}

void *lake_index_erase(struct lake_index *ix, u64 g)
{
	s64 i = find_slot(ix, g);
	u64 j, home, mask = ix->mask;
	void *val;

	if (i < 0)
		return NULL;
	val = ix->slots[i].val;
	/*
	 * Linear probing without tombstones: pull later entries of the probe
	 * run back into the hole unless their home slot lies after it.
	 */
	for (j = (i + 1) & mask; ix->slots[j].key; j = (j + 1) & mask) {
		home = hash(ix->slots[j].key, mask);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			ix->slots[i] = ix->slots[j];
			i = j;
		}
	}
	ix->slots[i].key = 0;
	ix->slots[i].val = NULL;
	ix->count--;
	bit_clear(ix, g);
	return val;
}

void *lake_index_floor(const struct lake_index *ix, u64 g)
{
	unsigned int l = 0;
	s64 i = g;
	u64 idx;

	/* Climb until some level has a set bit at or below the position. */
	for (;;) {
		u64 w, m;

		if (i < 0 || l == ix->levels)
			return NULL;
		w = i / 64;
		m = ix->bits[l][w] & (~0ULL >> (63 - i % 64));
		if (m) {
			idx = w * 64 + hi_bit(m);
			break;
		}
		i = (s64)w - 1;	/* the nearest earlier non-empty word */
		l++;
	}
	/* Descend along the highest set bit. */
	while (l-- > 0)
		idx = idx * 64 + hi_bit(ix->bits[l][idx]);
	return lake_index_lookup(ix, idx);
}
