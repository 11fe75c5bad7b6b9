// SPDX-License-Identifier: GPL-2.0
/* Counters, shown in debugfs lake/lakelib_stats. */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <lake/shm.h>
#include <lake/lakelib.h>
#include "lakelib.h"

struct lake_stats lake_stats;
atomic_t lake_fail_sends;
bool lake_hold_queue;
static u32 fail_allocs;
static atomic_t allocs_seen;
static u32 release_delay_ms;

/*
 * Tests: widen the window between netlink freeing laked's portid and the
 * notifier unpinning laked, so that a socket bound to that portid meanwhile
 * can be shown to receive nothing.
 */
void lake_test_release_delay(void)
{
	u32 ms = min_t(u32, READ_ONCE(release_delay_ms), 5000);

	if (ms)
		msleep(ms);
}

bool lake_alloc_fault(void)
{
	u32 n = READ_ONCE(fail_allocs);

	if (!n || (u32)atomic_inc_return(&allocs_seen) % n)
		return false;
	atomic64_inc(&lake_stats.alloc_faults);
	return true;
}
static struct dentry *stats_file;

static u64 ctx_threads(void)
{
	return lake_ctx_count();
}

static u64 func_layouts(void)
{
	return lake_funcs_count();
}

static u64 ring_live(void)
{
	return lake_ring_live();
}

#define STAT(name) { #name, &lake_stats.name, NULL }
const struct lake_stat_desc lake_stat_list[] = {
	{ "ctx_threads", NULL, ctx_threads }, { "func_layouts", NULL, func_layouts },
	STAT(in_flight), STAT(errors), STAT(timeouts), STAT(killed), STAT(no_daemon),
	STAT(bytes_inline), STAT(bytes_shm), STAT(messages), STAT(async_queued),
	STAT(async_errors), STAT(async_dropped), STAT(latched), STAT(fences),
	STAT(forged_replies), STAT(refused_registrations), STAT(stray_replies),
	STAT(bad_records),
	STAT(stage_chunks_in_use), STAT(stage_bytes), STAT(stage_waits), STAT(stage_pool_failures),
	STAT(window_waits), STAT(async_barriers), STAT(async_pending),
	STAT(alloc_faults), STAT(unregistered_mapped), STAT(send_retries),
	{ "ring_live", NULL, ring_live },
	STAT(ring_submissions), STAT(ring_completions), STAT(ring_kicks), STAT(ring_wakeups),
	STAT(ring_spins), STAT(ring_spin_hits), STAT(ring_full), STAT(ring_violations),
};
const size_t lake_stat_count = ARRAY_SIZE(lake_stat_list);

u64 lake_stat_value(const struct lake_stat_desc *d)
{
	return d->v ? atomic64_read(d->v) : d->get();
}

static int stats_show(struct seq_file *m, void *unused)
{
	struct lake_genl_load load;
	u64 age;
	size_t i;
	u32 api;

	seq_printf(m, "daemon_portid %u\n", lake_nl_daemon());
	if (lake_nl_load(&load, &age))
		seq_printf(m, "load_util_pct %u\nload_procs %u\nload_age_ms %llu\n",
			   load.util_pct, load.procs, age / NSEC_PER_MSEC);
	for (i = 0; i < lake_stat_count; i++)
		seq_printf(m, "%s %llu\n", lake_stat_list[i].name,
			   lake_stat_value(&lake_stat_list[i]));
	for (api = 1; api < LAKE_API_COUNT; api++)
		seq_printf(m, "calls_%s %lld\nerrors_%s %lld\n", lake_wire_api(api)->name,
			   atomic64_read(&lake_stats.calls[api]), lake_wire_api(api)->name,
			   atomic64_read(&lake_stats.api_errors[api]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

int lake_stats_init(void)
{
	stats_file = debugfs_create_file("lakelib_stats", 0400, lake_debugfs_dir(), NULL,
					 &stats_fops);
	debugfs_create_atomic_t("lakelib_fail_sends", 0600, lake_debugfs_dir(),
				&lake_fail_sends);
	debugfs_create_bool("lakelib_hold_queue", 0600, lake_debugfs_dir(),
			    &lake_hold_queue);
	debugfs_create_u32("lakelib_fail_allocs", 0600, lake_debugfs_dir(), &fail_allocs);
	debugfs_create_u32("lakelib_release_delay_ms", 0600, lake_debugfs_dir(),
			   &release_delay_ms);
	return 0;
}

void lake_stats_exit(void)
{
	debugfs_lookup_and_remove("lakelib_release_delay_ms", lake_debugfs_dir());
	debugfs_lookup_and_remove("lakelib_fail_allocs", lake_debugfs_dir());
	debugfs_lookup_and_remove("lakelib_hold_queue", lake_debugfs_dir());
	debugfs_lookup_and_remove("lakelib_fail_sends", lake_debugfs_dir());
	debugfs_remove(stats_file);
}

u64 lake_messages_sent(void)
{
	return atomic64_read(&lake_stats.messages);
}
EXPORT_SYMBOL_GPL(lake_messages_sent);
