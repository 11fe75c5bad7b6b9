// SPDX-License-Identifier: GPL-2.0
/*
 * lake_sysmon's probe (sysmon.c's essay has the design): every system
 * call counted into its CPU's double-buffered table, and harvest, which
 * flips the tables each period and merges the old ones into cur_win.
 */
#define pr_fmt(fmt) "lake_sysmon: " fmt

#include <linux/compat.h>
#include <linux/hash.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include "sysmon.h"

#define SLOT_PROBES	8	/* hash probes before a call is dropped */
#define NO_CLASS	0xff

/* A process is (tgid, its group leader's start_time): a reused tgid is another. */
struct sm_slot {
	u32 tgid;		/* 0: free */
	u64 start;
	u8 last;		/* class of the slot's previous call, or NO_CLASS */
	char comm[TASK_COMM_LEN];
	u64 comm_ns;		/* when this slot's comm was set: harvest keeps the newest */
	u32 c[SYSMON_DIMS];
};

struct sm_cpu {
	raw_spinlock_t lock;
	u32 live;		/* which table the probe fills */
	u64 calls, dropped;	/* under lock */
	struct sm_slot *table[2];
};

static struct sm_cpu **cpus;
static struct tracepoint *tp_enter;
static bool probe_on;
static struct sm_slot *merge_buf;		/* slots */

static void sm_probe(void *data, struct pt_regs *regs, long id)
{
	struct sm_cpu *c = cpus[raw_smp_processor_id()];
	/* A 32-bit or x32 call's number means another call: "other". */
	u32 tgid = current->tgid, cls = in_compat_syscall() ? 0 : sysmon_class(id), h, i;
	const struct task_struct *leader = current->group_leader;
	u64 start = leader->start_time;
	struct sm_slot *t, *s = NULL;

	/*
	 * The lock, not the CPU we run on, makes the table ours: a probe
	 * moved to another CPU (where syscall tracepoints are preemptible)
	 * still updates a table under its lock.
	 */
	raw_spin_lock(&c->lock);
	t = c->table[c->live];
	h = hash_32(tgid, ilog2(slots));
	for (i = 0; i < SLOT_PROBES; i++) {
		struct sm_slot *x = &t[(h + i) & (slots - 1)];

		if (x->tgid == tgid && x->start == start) {
			s = x;
			break;
		}
		if (!x->tgid) {
			s = x;
			s->tgid = tgid;
			s->start = start;
			s->last = NO_CLASS;
			break;
		}
	}
	if (s) {
		s->c[cls]++;
		if (s->last != NO_CLASS)
			s->c[sysmon_bigram(s->last, cls)]++;
		s->last = cls;
		/*
		 * The process's name (its leader's: threads may name
		 * themselves), timed only when it changes (exec, prctl):
		 * another CPU's slot may hold an older one.
		 */
		if (!s->comm_ns || memcmp(s->comm, leader->comm, TASK_COMM_LEN)) {
			memcpy(s->comm, leader->comm, TASK_COMM_LEN);
			s->comm_ns = ktime_get_ns();
		}
		c->calls++;
	} else {
		c->dropped++;
	}
	raw_spin_unlock(&c->lock);
}

static void find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sys_enter"))
		*(struct tracepoint **)priv = tp;
}

struct sm_win *sm_win_find(struct sm_win *w, u32 n, u32 tgid, u64 start)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (w[i].tgid == tgid && w[i].start == start)
			return &w[i];
	return NULL;
}

/*
 * Flip each CPU's table and merge the old one into cur_win. A tgid on
 * several CPUs is found by a linear search of cur_win: at most PROCS_MAX
 * per slot, in process context, once a period.
 */
void sm_harvest(void)
{
	unsigned int cpu;
	u32 i, j;

	cur_n = 0;
	for_each_possible_cpu(cpu) {
		struct sm_cpu *c = cpus[cpu];
		struct sm_slot *old;

		raw_spin_lock(&c->lock);
		old = c->table[c->live];
		c->live ^= 1;
		raw_spin_unlock(&c->lock);
		/* No probe can hold the old table now: each took the lock. */
		memcpy(merge_buf, old, slots * sizeof(*old));
		memset(old, 0, slots * sizeof(*old));
		for (i = 0; i < slots; i++) {
			struct sm_slot *s = &merge_buf[i];
			struct sm_win *w;

			if (!s->tgid)
				continue;
			w = sm_win_find(cur_win, cur_n, s->tgid, s->start);
			if (!w) {
				if (cur_n == PROCS_MAX) {
					atomic64_inc(&sm_st.overflow);
					continue;
				}
				w = &cur_win[cur_n++];
				memset(w, 0, sizeof(*w));
				w->tgid = s->tgid;
				w->start = s->start;
			}
			if (s->comm_ns >= w->comm_ns) {
				memcpy(w->comm, s->comm, TASK_COMM_LEN);
				w->comm_ns = s->comm_ns;
			}
			for (j = 0; j < SYSMON_DIMS; j++)
				w->c[j] = sm_sat_add(w->c[j], s->c[j]);
		}
		cond_resched();
	}
}

u32 sm_win_calls(const u32 *c)
{
	u64 n = 0;
	u32 j;

	for (j = 0; j < SYSMON_UNI; j++)
		n += c[j];
	return (u32)min_t(u64, n, U32_MAX);
}

bool sm_probe_on(void)
{
	return READ_ONCE(probe_on);
}

/* Each CPU's calls and dropped calls, summed (its lock: no tick waited for). */
void sm_probe_totals(u64 *calls, u64 *dropped)
{
	unsigned long irq;
	unsigned int cpu;

	*calls = *dropped = 0;
	for_each_possible_cpu(cpu) {
		raw_spin_lock_irqsave(&cpus[cpu]->lock, irq);
		*calls += cpus[cpu]->calls;
		*dropped += cpus[cpu]->dropped;
		raw_spin_unlock_irqrestore(&cpus[cpu]->lock, irq);
	}
}

int sm_probe_alloc(void)
{
	unsigned int cpu;

	cpus = kcalloc(nr_cpu_ids, sizeof(*cpus), GFP_KERNEL);
	if (!cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct sm_cpu *c = kzalloc_node(sizeof(*c), GFP_KERNEL, cpu_to_node(cpu));

		if (!c)
			return -ENOMEM;
		cpus[cpu] = c;
		raw_spin_lock_init(&c->lock);
		c->table[0] = kvcalloc(slots, sizeof(struct sm_slot), GFP_KERNEL);
		c->table[1] = kvcalloc(slots, sizeof(struct sm_slot), GFP_KERNEL);
		if (!c->table[0] || !c->table[1])
			return -ENOMEM;
	}
	merge_buf = kvcalloc(slots, sizeof(*merge_buf), GFP_KERNEL);
	return merge_buf ? 0 : -ENOMEM;
}

/* After sm_probe_stop(), or when the probe never started. */
void sm_probe_free(void)
{
	unsigned int cpu;

	if (cpus) {
		for_each_possible_cpu(cpu) {
			if (!cpus[cpu])
				continue;
			kvfree(cpus[cpu]->table[0]);
			kvfree(cpus[cpu]->table[1]);
			kfree(cpus[cpu]);
		}
		kfree(cpus);
	}
	cpus = NULL;
	kvfree(merge_buf);
	merge_buf = NULL;
}

int sm_probe_start(void)
{
	int ret;

	for_each_kernel_tracepoint(find_tp, &tp_enter);
	if (!tp_enter) {
		pr_err("no sys_enter tracepoint (CONFIG_FTRACE_SYSCALLS off?)\n");
		return -ENOENT;
	}
	ret = tracepoint_probe_register(tp_enter, sm_probe, NULL);
	if (ret) {
		pr_err("cannot attach to raw_syscalls:sys_enter: %d\n", ret);
		return ret;
	}
	WRITE_ONCE(probe_on, true);
	return 0;
}

void sm_probe_stop(void)
{
	if (!probe_on)
		return;
	tracepoint_probe_unregister(tp_enter, sm_probe, NULL);
	/* No probe runs, or will run, once this returns. */
	tracepoint_synchronize_unregister();
	WRITE_ONCE(probe_on, false);
}
