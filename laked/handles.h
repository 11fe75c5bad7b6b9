/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The handles laked gives the kernel for contexts, modules, functions,
 * streams and events. A handle is never a driver pointer; it names a slot
 * of laked's table of live objects:
 *
 *	63        40 39  36 35          16 15      0
 *	|    tag    | type |  generation  |  slot   |
 *
 * tag: drawn at startup, so a previous daemon's handles are refused; type:
 * enum laked_type, so a stream cannot pass as an event; generation: bumped
 * each time the slot is freed, so a stale handle is refused; slot: index + 1.
 * Every field is non-zero in a live handle, so 0 is never one. Freed slots
 * are reused oldest first, which keeps a generation from coming round again
 * for as long as possible.
 */
#ifndef LAKED_HANDLES_H
#define LAKED_HANDLES_H

#include <lake/wire.h>

#define LAKED_SLOT_BITS		16
#define LAKED_GEN_BITS		20
#define LAKED_TYPE_BITS		4
#define LAKED_TAG_BITS		24
#define LAKED_GEN_SHIFT		LAKED_SLOT_BITS
#define LAKED_TYPE_SHIFT	(LAKED_GEN_SHIFT + LAKED_GEN_BITS)
#define LAKED_TAG_SHIFT		(LAKED_TYPE_SHIFT + LAKED_TYPE_BITS)
#define LAKED_SLOTS_MAX		((1U << LAKED_SLOT_BITS) - 1)
#define LAKED_GEN_MASK		((1U << LAKED_GEN_BITS) - 1)
#define LAKED_TYPE_MASK		((1U << LAKED_TYPE_BITS) - 1)
#define LAKED_TAG_MASK		((1U << LAKED_TAG_BITS) - 1)

_Static_assert(LAKED_TAG_SHIFT + LAKED_TAG_BITS == 64, "handle fields fill a u64");

enum laked_type {
	LAKED_CTX = 1,
	LAKED_MODULE,
	LAKED_FUNCTION,
	LAKED_STREAM,
	LAKED_EVENT,
};

static inline u64 laked_handle_make(u32 tag, u32 type, u32 gen, u32 slot)
{
	return (u64)tag << LAKED_TAG_SHIFT | (u64)type << LAKED_TYPE_SHIFT |
	       (u64)gen << LAKED_GEN_SHIFT | slot;
}

/* A function's parameter layout, as cuModuleGetFunction reported it. */
struct laked_layout {
	u32 count;
	u32 end;		/* packed size: end of the last parameter */
	struct lake_wire_param param[LAKE_WIRE_MAX_PARAMS];
};

struct laked_obj {
	u64 handle;		/* 0 until published */
	u64 ctx;		/* handle of the owning context; a context's own */
	u64 module;		/* functions: their module's handle */
	void *drv;		/* the driver's CUcontext, CUmodule, ... */
	struct laked_layout *layout;	/* functions */
	void *serve;		/* contexts: the worker serving them (workers.c) */
	u32 slot;		/* index + 1 */
	u8 type;		/* enum laked_type */
	bool dying;		/* contexts: being destroyed, not to be made current */
};

struct laked_slot {
	struct laked_obj *obj;	/* NULL: free */
	u32 gen;
	u32 next_free;		/* index + 1; 0 ends the list */
};

struct laked_handles {
	struct laked_slot *slots;
	u32 nslots;
	u32 free_head, free_tail;
	u32 tag;
};

void laked_handles_init(struct laked_handles *h, u32 tag);
/* Frees every object; the caller has released their driver objects. */
void laked_handles_fini(struct laked_handles *h);

/*
 * An object with a slot set aside for it, or NULL when the table is full
 * or memory is short. Publish it once the driver made what it stands for,
 * or free it.
 */
struct laked_obj *laked_obj_alloc(struct laked_handles *h);
void laked_obj_publish(struct laked_handles *h, struct laked_obj *o, enum laked_type type,
		       u64 ctx, void *drv);
/* Unpublish (if published) and free @o; its handle is stale from now on. */
void laked_obj_free(struct laked_handles *h, struct laked_obj *o);

/* The live object @handle names if it has @type, else NULL. */
struct laked_obj *laked_obj_get(const struct laked_handles *h, u64 handle, enum laked_type type);
/* Live objects in slot order from *cursor (start at 0); NULL at the end. */
struct laked_obj *laked_obj_next(const struct laked_handles *h, u32 *cursor);

#endif /* LAKED_HANDLES_H */
