// SPDX-License-Identifier: GPL-2.0
/*
 * Handle table. A handle is (generation << 24 | slot + 1): the slot says
 * where the object lives, the generation that it is still the object the
 * handle was issued for. Generations come from one counter that survives
 * close and reopen, so no value is ever issued twice in a process (until
 * 2^32 objects) and a stale handle from an earlier object, or an earlier
 * open, is refused like a forged one. Handles are at least 2^24, so they
 * never collide with NULL or CUDA's special stream values (0x1, 0x2).
 */
#include "host.h"

#define SLOT_BITS	24
#define SLOT_MAX	((1U << SLOT_BITS) - 1)

struct hd_slot {
	struct hd_obj *obj;	/* NULL: free */
	u32 gen;
	u32 next_free;		/* slot index + 1, 0 ends the list */
};

static struct hd_slot *slots;
static u32 nslots, free_head;
static u32 gen_counter;

static void *encode(u32 slot, u32 gen)
{
	return (void *)(uintptr_t)(((u64)gen << SLOT_BITS) | (slot + 1));
}

int hd_handle_add(struct hd_obj *obj)
{
	u32 slot;

	if (free_head) {
		slot = free_head - 1;
		free_head = slots[slot].next_free;
	} else {
		struct hd_slot *grown;
		u32 n = nslots ? nslots * 2 : 64;

		if (nslots >= SLOT_MAX)
			return -ENOSPC;
		if (n > SLOT_MAX)
			n = SLOT_MAX;
		grown = realloc(slots, n * sizeof(*slots));
		if (!grown)
			return -ENOMEM;
		memset(grown + nslots, 0, (n - nslots) * sizeof(*slots));
		slots = grown;
		/* Chain the new slots so the lowest is handed out first. */
		for (slot = n - 1; slot > nslots; slot--)
			slots[slot - 1].next_free = slot + 1;
		slots[n - 1].next_free = 0;
		slot = nslots;
		free_head = slots[slot].next_free;
		nslots = n;
	}
	if (++gen_counter == 0)
		gen_counter = 1;
	slots[slot].gen = gen_counter;
	slots[slot].obj = obj;
	obj->handle = encode(slot, gen_counter);
	return 0;
}

struct hd_obj *hd_handle_get(const void *handle, enum hd_type type)
{
	u64 v = (uintptr_t)handle;
	u32 slot = (u32)(v & SLOT_MAX);
	struct hd_slot *s;

	if (!slot || slot > nslots || (v >> SLOT_BITS) > UINT32_MAX)
		return NULL;
	s = &slots[slot - 1];
	if (!s->obj || s->gen != (u32)(v >> SLOT_BITS) || s->obj->type != type)
		return NULL;
	return s->obj;
}

CUresult hd_lookup(const void *handle, enum hd_type type, struct hd_obj **obj)
{
	CUresult ret = hd_initialized();

	if (ret)
		return ret;
	*obj = hd_handle_get(handle, type);
	return *obj ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

void hd_handle_del(struct hd_obj *obj)
{
	u32 slot;

	if (!obj->handle)
		return;
	slot = (u32)((uintptr_t)obj->handle & SLOT_MAX) - 1;
	slots[slot].obj = NULL;
	slots[slot].next_free = free_head;
	free_head = slot + 1;
	obj->handle = NULL;
}

struct hd_obj *hd_handle_next(unsigned int *cursor)
{
	while (*cursor < nslots) {
		struct hd_obj *obj = slots[(*cursor)++].obj;

		if (obj)
			return obj;
	}
	return NULL;
}

void hd_handles_fini(void)
{
	free(slots);
	slots = NULL;
	nslots = 0;
	free_head = 0;
}
