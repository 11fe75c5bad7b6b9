// SPDX-License-Identifier: GPL-2.0
/*
 * Parameter layouts of the functions callers looked up. laked reports each
 * function's layout with its handle (cuFuncGetParamInfo on a real driver),
 * and cuLaunchKernel packs kernelParams with it: no name mangling to parse.
 * The layout decides how many kernelParams pointers lakelib follows, so one
 * looked up with a declared signature (lake_module_get_function) is marked
 * declared and never replaced by a later plain lookup's. Entries go with
 * their module, their context, or the daemon that issued the handles.
 */
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "lakelib.h"

struct func_entry {
	struct hlist_node node;
	u64 ctx;
	u64 module;
	bool declared;
	struct lake_wire_get_function_res layout;
};

static DEFINE_SPINLOCK(funcs_lock);
static DEFINE_HASHTABLE(funcs, 6);
static unsigned int nfuncs;

int lake_funcs_add(u64 ctx, u64 module, const struct lake_wire_get_function_res *res,
		   bool declared)
{
	struct func_entry *e, *old;

	e = lake_alloc_fault() ? NULL : kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->ctx = ctx;
	e->module = module;
	e->declared = declared;
	e->layout = *res;
	spin_lock(&funcs_lock);
	hash_for_each_possible(funcs, old, node, res->func) {
		if (old->layout.func == res->func) {
			/* Looked up again: a declared layout wins over laked's word. */
			if (declared && !old->declared) {
				old->declared = true;
				old->layout = *res;
			}
			spin_unlock(&funcs_lock);
			kfree(e);
			return 0;
		}
	}
	hash_add(funcs, &e->node, res->func);
	nfuncs++;
	spin_unlock(&funcs_lock);
	return 0;
}

bool lake_funcs_layout(u64 func, struct lake_wire_get_function_res *out)
{
	struct func_entry *e;
	bool found = false;

	spin_lock(&funcs_lock);
	hash_for_each_possible(funcs, e, node, func) {
		if (e->layout.func == func) {
			*out = e->layout;
			found = true;
			break;
		}
	}
	spin_unlock(&funcs_lock);
	return found;
}

unsigned int lake_funcs_count(void)
{
	return READ_ONCE(nfuncs);
}

enum forget_by { BY_MODULE, BY_CTX, ALL };

static void forget(u64 handle, enum forget_by by)
{
	struct func_entry *e;
	struct hlist_node *tmp;
	HLIST_HEAD(dead);
	unsigned int bkt;

	spin_lock(&funcs_lock);
	hash_for_each_safe(funcs, bkt, tmp, e, node) {
		if (by == ALL || (by == BY_MODULE && e->module == handle) ||
		    (by == BY_CTX && e->ctx == handle)) {
			hash_del(&e->node);
			hlist_add_head(&e->node, &dead);
			nfuncs--;
		}
	}
	spin_unlock(&funcs_lock);
	hlist_for_each_entry_safe(e, tmp, &dead, node)
		kfree(e);
}

void lake_funcs_forget_module(u64 module)
{
	forget(module, BY_MODULE);
}

void lake_funcs_forget_ctx(u64 ctx)
{
	forget(ctx, BY_CTX);
}

void lake_funcs_reset(void)
{
	forget(0, ALL);
}
