// SPDX-License-Identifier: GPL-2.0
/*
 * lake_registry_selftest: the feature registry from kernel code, for the
 * VM case tests/vm/cases/30-policy.sh. Write "run" to debugfs
 * lake/registry_selftest, then read TAP-like "ok - registry.NAME" lines.
 *
 *   concurrent  writer kthreads bound to each CPU (two at least) and a
 *               hard-irq writer (a pinned hrtimer) beside each capture into
 *               registry "smp" at once, each thread paced by its irq
 *               writer. Every record must be whole (all its features from
 *               one vector of one writer) and every writer's sequence
 *               complete and in order, with nothing dropped.
 *   ring        registry "ring": a full ring drops the oldest and counts
 *               them; fetch since a time, truncate before one, capture
 *               without a vector, begin past max_open.
 *   names       a name in use, with a '/', or empty is refused.
 * The registries stay until the next run or unload, so the case can read
 * their debugfs files.
 */
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <lake/features.h>

#define CTL_OUT_MAX	4096
#include "selftest_ctl.h"
#define THREAD_VECTORS	5000
#define IRQ_VECTORS	1000
#define IRQ_PERIOD_NS	(100 * 1000)
#define MAX_THREADS	8
#define MAX_WRITERS	(2 * MAX_THREADS)
#define PAYLOAD		16

enum { F_WRITER, F_SEQ, F_PAYLOAD };

static const struct lake_feature_desc smp_schema[] = {
	{ "writer", sizeof(u32), 1 },
	{ "seq", sizeof(u64), 4 },	/* writer << 32 | its sequence number */
	{ "payload", PAYLOAD, 1 },	/* every byte: pattern(writer, seq) */
};

static const struct lake_feature_desc ring_schema[] = {
	{ "v", sizeof(u32), 2 },
};

/* One thread writer and the hard-irq writer beside it. */
struct writer {
	struct task_struct *task;
	struct completion done;	/* kthread_stop could skip a thread not yet run */
	struct hrtimer timer;
	u32 id, irq_id;
	u32 seq, irq_seq;	/* committed so far */
	u32 irq_ticks;		/* irq writer runs, committed or not */
	u32 failed;		/* begin, capture or commit errors */
	int cpu;
};

static struct lake_features *smp, *ring;
static struct writer writers[MAX_THREADS];
static unsigned int nr_threads;
static DECLARE_COMPLETION(go);

#define CHECK(name, cond, fmt, ...) do {					\
	if (cond)								\
		ctl_say("ok - registry.%s\n", name);				\
	else									\
		ctl_say("not ok - registry.%s: " fmt "\n", name, ##__VA_ARGS__);	\
} while (0)

static u8 pattern(u32 writer, u32 seq)
{
	return (u8)(seq * 31 + writer);
}

/* One whole vector of writer @id, number @seq; 0 or the first error. */
static int write_vector(u32 id, u32 seq)
{
	u64 s = (u64)id << 32 | seq;
	u8 payload[PAYLOAD];
	struct lake_reg_vec *vec;
	int ret;

	memset(payload, pattern(id, seq), sizeof(payload));
	vec = lake_features_begin(smp);
	if (!vec)
		return -ENOSPC;
	ret = lake_features_capture(smp, vec, F_WRITER, &id, sizeof(id));
	if (!ret)
		ret = lake_features_capture(smp, vec, F_SEQ, &s, sizeof(s));
	if (!ret)
		ret = lake_features_capture(smp, vec, F_PAYLOAD, payload, sizeof(payload));
	if (ret) {
		lake_features_abort(smp, vec);
		return ret;
	}
	return lake_features_commit(smp, vec);
}

static enum hrtimer_restart irq_write(struct hrtimer *t)
{
	struct writer *w = container_of(t, struct writer, timer);

	WRITE_ONCE(w->irq_ticks, w->irq_ticks + 1);
	if (write_vector(w->irq_id, w->irq_seq + 1))
		w->failed++;
	else
		w->irq_seq++;
	if (w->irq_seq == IRQ_VECTORS)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(IRQ_PERIOD_NS));
	return HRTIMER_RESTART;
}

/*
 * The thread keeps pace with its irq writer, at most THREAD_VECTORS /
 * IRQ_VECTORS vectors per irq run ahead, so the two overlap from start to
 * end however fast the host: a fast one could otherwise finish the thread
 * before the first tick.
 */
static bool thread_ahead(const struct writer *w)
{
	u32 ticks = READ_ONCE(w->irq_ticks);

	return ticks < IRQ_VECTORS &&
	       (u64)w->seq * IRQ_VECTORS >= (u64)(ticks + 1) * THREAD_VECTORS;
}

static int thread_write(void *arg)
{
	struct writer *w = arg;

	wait_for_completion(&go);
	w->cpu = raw_smp_processor_id();
	hrtimer_start(&w->timer, ns_to_ktime(IRQ_PERIOD_NS), HRTIMER_MODE_REL_PINNED_HARD);
	while (w->seq < THREAD_VECTORS) {
		if (thread_ahead(w)) {
			usleep_range(50, 100);
			continue;
		}
		if (write_vector(w->id, w->seq + 1))
			w->failed++;
		else
			w->seq++;
		if (!(w->seq % 256))
			cond_resched();
	}
	complete(&w->done);
	return 0;
}

/* Every record whole, every writer's numbers 1..n in order; -1 if fine. */
static long check_records(const u8 *buf, int n, u32 *last, u32 nr_writers)
{
	size_t rs = lake_features_record_size(smp);
	u64 prev_end = 0;
	int i, e, b;

	for (i = 0; i < n; i++) {
		const struct lake_reg_record *rec = (const void *)(buf + i * rs);
		const u8 *pay = lake_features_record_feature(smp, rec, F_PAYLOAD, 0);
		u32 id, seq;
		u64 s;

		memcpy(&id, lake_features_record_feature(smp, rec, F_WRITER, 0), sizeof(id));
		memcpy(&s, lake_features_record_feature(smp, rec, F_SEQ, 0), sizeof(s));
		seq = (u32)s;
		if (id >= nr_writers || s >> 32 != id || seq != last[id] + 1)
			return i;
		last[id] = seq;
		for (b = 0; b < PAYLOAD; b++)
			if (pay[b] != pattern(id, seq))
				return i;
		/* Older history entries: empty, or some writer's real value. */
		for (e = 1; e < 4; e++) {
			memcpy(&s, lake_features_record_feature(smp, rec, F_SEQ, e), sizeof(s));
			if (s && (s >> 32 >= nr_writers || !(u32)s))
				return i;
		}
		if (rec->ts_begin > rec->ts_end || rec->ts_end < prev_end)
			return i;
		prev_end = rec->ts_end;
	}
	return -1;
}

static void test_concurrent(void)
{
	u32 last[MAX_WRITERS] = {}, want = 0, failed = 0, irq = 0, i;
	struct lake_reg_stats st;
	bool two_cpus = false;
	u8 *buf = NULL;
	long bad;
	int n, cpu;

	nr_threads = clamp_t(unsigned int, num_online_cpus(), 2, MAX_THREADS);
	smp = lake_features_create("smp", smp_schema, ARRAY_SIZE(smp_schema),
				   nr_threads * (THREAD_VECTORS + IRQ_VECTORS), 2 * nr_threads);
	if (IS_ERR(smp)) {
		ctl_say("not ok - registry.concurrent_create: %ld\n", PTR_ERR(smp));
		smp = NULL;
		return;
	}
	reinit_completion(&go);
	cpu = cpumask_first(cpu_online_mask);
	for (i = 0; i < nr_threads; i++) {
		struct writer *w = &writers[i];

		memset(w, 0, sizeof(*w));
		w->id = i;
		w->irq_id = nr_threads + i;
		init_completion(&w->done);
		hrtimer_init(&w->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		w->timer.function = irq_write;
		w->task = kthread_create(thread_write, w, "registry_writer/%u", i);
		if (IS_ERR(w->task)) {
			ctl_say("not ok - registry.concurrent_threads: %ld\n", PTR_ERR(w->task));
			w->task = NULL;
			continue;
		}
		get_task_struct(w->task);
		kthread_bind(w->task, cpu);
		wake_up_process(w->task);
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
	}
	complete_all(&go);
	for (i = 0; i < nr_threads; i++) {
		struct writer *w = &writers[i];

		if (w->task) {
			wait_for_completion(&w->done);
			kthread_stop(w->task);
			put_task_struct(w->task);
		}
		/* Its irq writer stops itself after IRQ_VECTORS. */
		hrtimer_cancel(&w->timer);
		want += w->seq + w->irq_seq;
		failed += w->failed;
		irq += w->irq_seq;
		two_cpus |= w->cpu != writers[0].cpu;
	}

	lake_features_get_stats(smp, &st);
	CHECK("concurrent_no_failures", !failed && !st.begin_failed,
	      "%u failed, %llu begins failed", failed, st.begin_failed);
	CHECK("concurrent_irq_writers", irq > 0, "no vector from hard irq");
	if (num_online_cpus() > 1)
		CHECK("concurrent_two_cpus", two_cpus, "every writer ran on cpu %d",
		      writers[0].cpu);
	CHECK("concurrent_counts", st.committed == want && st.count == want && !st.dropped,
	      "committed %llu count %u dropped %llu, want %u", st.committed, st.count,
	      st.dropped, want);

	buf = kvmalloc_array(st.count, lake_features_record_size(smp), GFP_KERNEL);
	if (!buf) {
		ctl_say("not ok - registry.concurrent_fetch: no memory\n");
		return;
	}
	n = lake_features_fetch(smp, 0, buf, st.count * lake_features_record_size(smp),
				st.count);
	CHECK("concurrent_fetch_all", n == st.count, "fetched %d of %u", n, st.count);
	bad = check_records(buf, n, last, 2 * nr_threads);
	CHECK("concurrent_whole_and_in_order", bad < 0, "record %ld of %d is torn or out of order",
	      bad, n);
	for (i = 0; bad < 0 && i < nr_threads; i++) {
		if (last[i] != writers[i].seq || last[nr_threads + i] != writers[i].irq_seq)
			bad = i;
	}
	CHECK("concurrent_nothing_lost", bad < 0, "writer %ld incomplete", bad);
	ctl_say("# %u thread writers and %u irq writers, %u vectors (%u from hard irq)\n",
	    nr_threads, nr_threads, want, irq);
	kvfree(buf);
}

static u32 ring_v(const struct lake_reg_record *rec, u32 entry)
{
	u32 v;

	memcpy(&v, lake_features_record_feature(ring, rec, 0, entry), sizeof(v));
	return v;
}

static void ring_commit(u32 v)
{
	struct lake_reg_vec *vec = lake_features_begin(ring);

	if (!vec)
		return;
	lake_features_capture(ring, vec, 0, &v, sizeof(v));
	lake_features_commit(ring, vec);
}

static void test_ring(void)
{
	size_t rs;
	struct lake_reg_vec *v1, *v2, *v3;
	struct lake_reg_stats st;
	int n, i, since = 0, before = 0;
	u8 *buf, *buf2;
	u32 v;
	u64 t;

	ring = lake_features_create("ring", ring_schema, 1, 16, 2);
	if (IS_ERR(ring)) {
		ctl_say("not ok - registry.ring_create: %ld\n", PTR_ERR(ring));
		ring = NULL;
		return;
	}
	rs = lake_features_record_size(ring);
	buf = kmalloc_array(2 * 16, rs, GFP_KERNEL);
	if (!buf) {
		ctl_say("not ok - registry.ring_fetch: no memory\n");
		return;
	}
	buf2 = buf + 16 * rs;
	for (v = 1; v <= 40; v++)
		ring_commit(v);
	lake_features_get_stats(ring, &st);
	CHECK("ring_drops_oldest", st.count == 16 && st.dropped == 24 && st.committed == 40,
	      "count %u dropped %llu committed %llu", st.count, st.dropped, st.committed);
	n = lake_features_fetch(ring, 0, buf, 16 * rs, 16);
	for (i = 0; i < n; i++) {
		const struct lake_reg_record *rec = (const void *)(buf + i * rs);

		if (ring_v(rec, 0) != 25 + i || ring_v(rec, 1) != 24 + i || rec->seq != 25 + i)
			break;
	}
	CHECK("ring_fetch_newest_in_order", n == 16 && i == 16, "%d records, record %d wrong",
	      n, i);

	/* Times may repeat on a coarse clock: count what each call must see. */
	t = ((const struct lake_reg_record *)(buf + 5 * rs))->ts_end;
	for (i = 0; i < n; i++) {
		const struct lake_reg_record *rec = (const void *)(buf + i * rs);

		since += rec->ts_end >= t;
		before += rec->ts_end < t;
	}
	n = lake_features_fetch(ring, t, buf2, 16 * rs, 16);
	CHECK("ring_fetch_since", n == since && ring_v((const void *)buf2, 0) <= 30,
	      "fetched %d, want %d", n, since);
	CHECK("ring_truncate", lake_features_truncate(ring, t) == before,
	      "truncate did not remove %d", before);
	lake_features_get_stats(ring, &st);
	CHECK("ring_truncate_counts", st.count == 16 - before && st.truncated == before,
	      "count %u truncated %llu", st.count, st.truncated);

	v = 100;
	lake_features_capture(ring, NULL, 0, &v, sizeof(v));
	v1 = lake_features_begin(ring);
	v2 = lake_features_begin(ring);
	v3 = lake_features_begin(ring);
	CHECK("ring_begin_past_max_open", v1 && v2 && !v3, "%p %p %p", v1, v2, v3);
	lake_features_abort(ring, v2);
	lake_features_commit(ring, v1);
	n = lake_features_fetch(ring, 0, buf, 16 * rs, 16);
	CHECK("ring_capture_without_vector", n > 0 &&
	      ring_v((const void *)(buf + (n - 1) * rs), 0) == 100 &&
	      ring_v((const void *)(buf + (n - 1) * rs), 1) == 40, "newest record wrong");
	kfree(buf);
}

static void test_names(void)
{
	struct lake_features *fr;

	fr = lake_features_create("ring", ring_schema, 1, 4, 1);
	CHECK("name_in_use", PTR_ERR(fr) == -EEXIST, "%ld", PTR_ERR(fr));
	if (!IS_ERR(fr))
		lake_features_destroy(fr);
	fr = lake_features_create("a/b", ring_schema, 1, 4, 1);
	CHECK("name_with_slash", PTR_ERR(fr) == -EINVAL, "%ld", PTR_ERR(fr));
	if (!IS_ERR(fr))
		lake_features_destroy(fr);
	fr = lake_features_create("", ring_schema, 1, 4, 1);
	CHECK("name_empty", PTR_ERR(fr) == -EINVAL, "%ld", PTR_ERR(fr));
	if (!IS_ERR(fr))
		lake_features_destroy(fr);
}

static void release(void)
{
	lake_features_destroy(smp);
	lake_features_destroy(ring);
	smp = NULL;
	ring = NULL;
}

static void ctl_command(char *cmd)
{
	if (strcmp(cmd, "run")) {
		ctl_say("unknown command\n");
		return;
	}
	release();
	test_concurrent();
	test_ring();
	test_names();
}

static int __init registry_selftest_init(void)
{
	return ctl_create("registry_selftest");
}

static void __exit registry_selftest_exit(void)
{
	ctl_remove();
	release();
}

module_init(registry_selftest_init);
module_exit(registry_selftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake: feature registry from kernel code, two CPUs and hard irq at once");
