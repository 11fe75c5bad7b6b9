// SPDX-License-Identifier: GPL-2.0
/* Counters, shown in debugfs lake/lakelib_stats. */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <lake/shm.h>
#include <lake/lakelib.h>
#include "lakelib.h"

struct lake_stats lake_stats;
atomic_t lake_fail_sends;
bool lake_hold_queue;
static struct dentry *stats_file;

#define SHOW(m, name) seq_printf(m, "%s %lld\n", #name, atomic64_read(&lake_stats.name))

static int stats_show(struct seq_file *m, void *unused)
{
	struct lake_genl_load load;
	u64 age;
	u32 api;

	seq_printf(m, "daemon_portid %u\n", lake_nl_daemon());
	if (lake_nl_load(&load, &age))
		seq_printf(m, "load_util_pct %u\nload_procs %u\nload_age_ms %llu\n",
			   load.util_pct, load.procs, age / NSEC_PER_MSEC);
	seq_printf(m, "ctx_threads %u\nfunc_layouts %u\n", lake_ctx_count(),
		   lake_funcs_count());
	SHOW(m, in_flight);
	SHOW(m, errors);
	SHOW(m, timeouts);
	SHOW(m, killed);
	SHOW(m, no_daemon);
	SHOW(m, bytes_inline);
	SHOW(m, bytes_shm);
	SHOW(m, messages);
	SHOW(m, async_queued);
	SHOW(m, async_errors);
	SHOW(m, async_dropped);
	SHOW(m, latched);
	SHOW(m, fences);
	SHOW(m, forged_replies);
	SHOW(m, stray_replies);
	SHOW(m, bad_records);
	for (api = 1; api < LAKE_API_COUNT; api++)
		seq_printf(m, "calls_%s %lld\n", lake_wire_api(api)->name,
			   atomic64_read(&lake_stats.calls[api]));
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
	return 0;
}

void lake_stats_exit(void)
{
	debugfs_lookup_and_remove("lakelib_hold_queue", lake_debugfs_dir());
	debugfs_lookup_and_remove("lakelib_fail_sends", lake_debugfs_dir());
	debugfs_remove(stats_file);
}

u64 lake_messages_sent(void)
{
	return atomic64_read(&lake_stats.messages);
}
EXPORT_SYMBOL_GPL(lake_messages_sent);
