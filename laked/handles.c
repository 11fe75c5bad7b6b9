// SPDX-License-Identifier: GPL-2.0
/*
 * The table of live objects behind laked's handles (handles.h). Objects are
 * allocated one by one, so a pointer to one stays valid while the slot array
 * grows; only laked_obj_free ends its life.
 */
#include <lake/port.h>
#include "handles.h"

#define SLOTS_FIRST	64

void laked_handles_init(struct laked_handles *h, u32 tag)
{
	memset(h, 0, sizeof(*h));
	h->tag = tag;
}

void laked_handles_fini(struct laked_handles *h)
{
	u32 i;

	for (i = 0; i < h->nslots; i++) {
		struct laked_obj *o = h->slots[i].obj;

		if (o) {
			free(o->layout);
			free(o);
		}
	}
	free(h->slots);
	memset(h, 0, sizeof(*h));
}

/* Freed slots go to the tail: the one freed longest ago is reused first. */
static void push_free(struct laked_handles *h, u32 slot)
{
	h->slots[slot - 1].next_free = 0;
	if (h->free_tail)
		h->slots[h->free_tail - 1].next_free = slot;
	else
		h->free_head = slot;
	h->free_tail = slot;
}

static u32 pop_free(struct laked_handles *h)
{
	u32 slot = h->free_head;

	h->free_head = h->slots[slot - 1].next_free;
	if (!h->free_head)
		h->free_tail = 0;
	return slot;
}

static int grow(struct laked_handles *h)
{
	u32 n = h->nslots ? h->nslots * 2 : SLOTS_FIRST, i;
	struct laked_slot *s;

	if (h->nslots >= LAKED_SLOTS_MAX)
		return -ENOSPC;
	if (n > LAKED_SLOTS_MAX)
		n = LAKED_SLOTS_MAX;
	s = realloc(h->slots, n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memset(s + h->nslots, 0, (n - h->nslots) * sizeof(*s));
	h->slots = s;
	for (i = h->nslots; i < n; i++) {
		s[i].gen = 1;
		push_free(h, i + 1);
	}
	h->nslots = n;
	return 0;
}

struct laked_obj *laked_obj_alloc(struct laked_handles *h)
{
	struct laked_obj *o;

	if (!h->free_head && grow(h))
		return NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->slot = pop_free(h);
	return o;
}

void laked_obj_publish(struct laked_handles *h, struct laked_obj *o, enum laked_type type,
		       u64 ctx, void *drv)
{
	struct laked_slot *s = &h->slots[o->slot - 1];

	o->type = type;
	o->drv = drv;
	o->handle = laked_handle_make(h->tag, type, s->gen, o->slot);
	o->ctx = type == LAKED_CTX ? o->handle : ctx;
	s->obj = o;
}

void laked_obj_free(struct laked_handles *h, struct laked_obj *o)
{
	struct laked_slot *s = &h->slots[o->slot - 1];

	if (s->obj == o) {
		s->obj = NULL;
		s->gen = (s->gen + 1) & LAKED_GEN_MASK;
		if (!s->gen)
			s->gen = 1;
	}
	push_free(h, o->slot);
	free(o->layout);
	free(o);
}

struct laked_obj *laked_obj_get(const struct laked_handles *h, u64 handle, enum laked_type type)
{
	u32 slot = (u32)(handle & LAKED_SLOTS_MAX);
	struct laked_obj *o;

	if ((handle >> LAKED_TAG_SHIFT) != h->tag ||
	    ((handle >> LAKED_TYPE_SHIFT) & LAKED_TYPE_MASK) != (u64)type)
		return NULL;
	if (!slot || slot > h->nslots)
		return NULL;
	o = h->slots[slot - 1].obj;
	return o && o->handle == handle ? o : NULL;
}

struct laked_obj *laked_obj_next(const struct laked_handles *h, u32 *cursor)
{
	while (*cursor < h->nslots) {
		struct laked_obj *o = h->slots[(*cursor)++].obj;

		if (o)
			return o;
	}
	return NULL;
}
