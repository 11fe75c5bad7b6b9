// SPDX-License-Identifier: GPL-2.0
/*
 * Parameter layouts of the functions callers looked up. laked reports each
 * function's layout with its handle (cuFuncGetParamInfo on a real driver),
 * and cuLaunchKernel packs kernelParams with it: no name mangling to parse.
 */
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "lakelib.h"

struct func_entry {
	struct hlist_node node;
	u64 module;
	struct lake_wire_get_function_res layout;
};

static DEFINE_SPINLOCK(funcs_lock);
static DEFINE_HASHTABLE(funcs, 6);

int lake_funcs_add(u64 module, const struct lake_wire_get_function_res *res)
{
	struct func_entry *e = kmalloc(sizeof(*e), GFP_KERNEL), *old;

	if (!e)
		return -ENOMEM;
	e->module = module;
	e->layout = *res;
	spin_lock(&funcs_lock);
	hash_for_each_possible(funcs, old, node, res->func) {
		if (old->layout.func == res->func) {
			/* Looked up again: same handle, same layout. */
			spin_unlock(&funcs_lock);
			kfree(e);
			return 0;
		}
	}
	hash_add(funcs, &e->node, res->func);
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

static void forget(u64 module, bool all)
{
	struct func_entry *e;
	struct hlist_node *tmp;
	HLIST_HEAD(dead);
	unsigned int bkt;

	spin_lock(&funcs_lock);
	hash_for_each_safe(funcs, bkt, tmp, e, node) {
		if (all || e->module == module) {
			hash_del(&e->node);
			hlist_add_head(&e->node, &dead);
		}
	}
	spin_unlock(&funcs_lock);
	hlist_for_each_entry_safe(e, tmp, &dead, node)
		kfree(e);
}

void lake_funcs_forget_module(u64 module)
{
	forget(module, false);
}

void lake_funcs_reset(void)
{
	forget(0, true);
}
