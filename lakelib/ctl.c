// SPDX-License-Identifier: GPL-2.0
/*
 * lakectl's commands in the "lake" genl family (include/uapi/lake/genl.h):
 * the state that debugfs shows, as an ABI that works under lockdown too.
 *
 * Reading is open to any user: counters, names and the daemon's pid tell
 * nothing that ps and lsmod do not. Changing a policy needs CAP_NET_ADMIN
 * (GENL_ADMIN_PERM in netlink.c). Policies and registries are dumped one
 * per message, by position in their lists; one added or removed between
 * two messages of a dump may be skipped or shown twice, as with any netlink
 * dump.
 */
#define pr_fmt(fmt) "lakelib: " fmt

#include <linux/slab.h>
#include <net/genetlink.h>
#include <lake/policy.h>
#include <lake/registry.h>
#include <lake/shm.h>
#include "lakelib.h"

static int put_ctr(struct sk_buff *msg, int type, const char *name, u64 value)
{
	struct nlattr *nest = nla_nest_start(msg, type);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(msg, LAKE_CTR_A_NAME, name) ||
	    nla_put_u64_64bit(msg, LAKE_CTR_A_VALUE, value, LAKE_CTR_A_PAD)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* A reply to @info with command @cmd, filled by @fill. */
static int reply(struct genl_info *info, u8 cmd, int (*fill)(struct sk_buff *msg))
{
	struct sk_buff *msg;
	void *hdr;
	int ret;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, lake_nl_family(), 0, cmd);
	ret = -EMSGSIZE;
	if (!hdr)
		goto err;
	ret = fill(msg);
	if (ret)
		goto err;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
err:
	nlmsg_free(msg);
	return ret;
}

static int fill_status(struct sk_buff *msg)
{
	char device[LAKE_GENL_DEVICE_MAX];
	struct lake_shm_stats shm;
	u32 portid, pid;

	if (lake_nl_daemon_info(&portid, &pid, device, sizeof(device))) {
		if (nla_put_u32(msg, LAKE_A_PID, pid) || nla_put_string(msg, LAKE_A_DEVICE, device))
			return -EMSGSIZE;
	}
	lake_shm_get_stats(&shm);
	if (nla_put_u32(msg, LAKE_A_PORTID, portid) ||
	    nla_put_u32(msg, LAKE_A_TIMEOUT_MS, READ_ONCE(lake_timeout_ms)) ||
	    nla_put_u32(msg, LAKE_A_TRANSPORT, lake_ring_live() ? LAKE_GENL_TRANSPORT_RING :
							      LAKE_GENL_TRANSPORT_GENL) ||
	    nla_put_u64_64bit(msg, LAKE_A_IN_FLIGHT, atomic64_read(&lake_stats.in_flight),
			      LAKE_A_PAD))
		return -EMSGSIZE;
	if (shm.size && (nla_put_u64_64bit(msg, LAKE_A_REGION_SIZE, shm.size, LAKE_A_PAD) ||
			 nla_put_u64_64bit(msg, LAKE_A_REGION_USED, shm.used, LAKE_A_PAD)))
		return -EMSGSIZE;
	return 0;
}

int lake_ctl_status(struct sk_buff *skb, struct genl_info *info)
{
	return reply(info, LAKE_CMD_STATUS_GET, fill_status);
}

static int fill_stats(struct sk_buff *msg)
{
	size_t i;
	u32 api;

	for (i = 0; i < lake_stat_count; i++)
		if (put_ctr(msg, LAKE_A_STAT, lake_stat_list[i].name,
			    lake_stat_value(&lake_stat_list[i])))
			return -EMSGSIZE;
	for (api = 1; api < LAKE_API_COUNT; api++)
		if (put_ctr(msg, LAKE_A_API_CALLS, lake_wire_api(api)->name,
			    atomic64_read(&lake_stats.calls[api])) ||
		    put_ctr(msg, LAKE_A_API_ERRORS, lake_wire_api(api)->name,
			    atomic64_read(&lake_stats.api_errors[api])))
			return -EMSGSIZE;
	return 0;
}

int lake_ctl_stats(struct sk_buff *skb, struct genl_info *info)
{
	return reply(info, LAKE_CMD_STATS_GET, fill_stats);
}

static int put_policy(struct sk_buff *msg, const struct lake_policy_snapshot *s)
{
	const struct lake_policy_counters *c = &s->counters;
	struct nlattr *nest = nla_nest_start(msg, LAKE_A_POLICY);
	u32 r;

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(msg, LAKE_POLICY_A_NAME, s->name) ||
	    nla_put_u32(msg, LAKE_POLICY_A_MODE, s->mode) ||
	    nla_put_u32(msg, LAKE_POLICY_A_CROSSOVER, s->crossover) ||
	    nla_put_u32(msg, LAKE_POLICY_A_CROSSOVER_CALIBRATED, s->crossover_calibrated) ||
	    nla_put_u32(msg, LAKE_POLICY_A_MAX_BATCH, s->max_batch) ||
	    nla_put_string(msg, LAKE_POLICY_A_LAST_REASON,
			   lake_policy_reason_str(s->last_reason)) ||
	    nla_put_u64_64bit(msg, LAKE_POLICY_A_DECISIONS_CPU, c->cpu, LAKE_POLICY_A_PAD) ||
	    nla_put_u64_64bit(msg, LAKE_POLICY_A_DECISIONS_GPU, c->gpu, LAKE_POLICY_A_PAD) ||
	    nla_put_u64_64bit(msg, LAKE_POLICY_A_TRIPS, c->trips, LAKE_POLICY_A_PAD) ||
	    nla_put_u64_64bit(msg, LAKE_POLICY_A_GPU_ERRORS, c->gpu_errors, LAKE_POLICY_A_PAD))
		goto err;
	for (r = 0; r < LAKE_REASON_NR; r++)
		if (put_ctr(msg, LAKE_POLICY_A_REASON, lake_policy_reason_str(r), c->reason[r]))
			goto err;
	nla_nest_end(msg, nest);
	return 0;
err:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

/* cb->args[0]: the position of the next entry to send. */
int lake_ctl_policy_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct lake_policy_snapshot *s;
	void *hdr;
	int ret;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	ret = lake_fallback_snapshot_nth((u32)cb->args[0], s);
	if (ret) {
		/* Past the last one: the dump is complete. */
		ret = ret == -ENOENT ? 0 : ret;
		goto out;
	}
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  lake_nl_family(), NLM_F_MULTI, LAKE_CMD_POLICY_GET);
	ret = -EMSGSIZE;
	if (!hdr)
		goto out;
	if (put_policy(skb, s)) {
		genlmsg_cancel(skb, hdr);
		goto out;
	}
	genlmsg_end(skb, hdr);
	cb->args[0]++;
	ret = skb->len;
out:
	kfree(s);
	return ret;
}

int lake_ctl_policy_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[LAKE_POLICY_A_MAX + 1];
	enum lake_policy_mode mode;
	u32 crossover;
	const char *name;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, LAKE_A_POLICY))
		return -EINVAL;
	/* The family policy validated the nest against lake_policy_set_policy. */
	ret = nla_parse_nested(tb, LAKE_POLICY_A_MAX, info->attrs[LAKE_A_POLICY], NULL,
			       info->extack);
	if (ret)
		return ret;
	if (!tb[LAKE_POLICY_A_NAME]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[LAKE_A_POLICY], "policy name missing");
		return -EINVAL;
	}
	if (!tb[LAKE_POLICY_A_MODE] && !tb[LAKE_POLICY_A_CROSSOVER]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[LAKE_A_POLICY],
				    "nothing to set: give a mode or a crossover");
		return -EINVAL;
	}
	name = nla_data(tb[LAKE_POLICY_A_NAME]);
	if (tb[LAKE_POLICY_A_MODE])
		mode = nla_get_u32(tb[LAKE_POLICY_A_MODE]);
	if (tb[LAKE_POLICY_A_CROSSOVER])
		crossover = nla_get_u32(tb[LAKE_POLICY_A_CROSSOVER]);
	ret = lake_fallback_set_by_name(name, tb[LAKE_POLICY_A_MODE] ? &mode : NULL,
					tb[LAKE_POLICY_A_CROSSOVER] ? &crossover : NULL);
	if (ret == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, tb[LAKE_POLICY_A_NAME], "no such policy");
	else if (ret)
		NL_SET_ERR_MSG(info->extack, "policy refused the value");
	else if (tb[LAKE_POLICY_A_MODE])
		pr_info("policy %s: mode %s, set by pid %d\n", name, lake_policy_mode_str(mode),
			task_tgid_nr(current));
	if (!ret && tb[LAKE_POLICY_A_CROSSOVER])
		pr_info("policy %s: crossover %u (0: calibrated), set by pid %d\n", name, crossover,
			task_tgid_nr(current));
	return ret;
}

static int put_registry(const struct lake_reg *reg, const struct lake_reg_stats *st, void *arg)
{
	struct sk_buff *msg = arg;
	struct nlattr *nest = nla_nest_start(msg, LAKE_A_REGISTRY), *f;
	u32 i, size, entries;
	const char *fname;

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(msg, LAKE_REGISTRY_A_NAME, lake_reg_name(reg)) ||
	    nla_put_u32(msg, LAKE_REGISTRY_A_CAPACITY, st->capacity) ||
	    nla_put_u32(msg, LAKE_REGISTRY_A_COUNT, st->count) ||
	    nla_put_u32(msg, LAKE_REGISTRY_A_OPEN, st->open) ||
	    nla_put_u32(msg, LAKE_REGISTRY_A_MAX_OPEN, st->max_open) ||
	    nla_put_u32(msg, LAKE_REGISTRY_A_VECTOR_BYTES, lake_reg_vector_bytes(reg)) ||
	    nla_put_u64_64bit(msg, LAKE_REGISTRY_A_COMMITTED, st->committed, LAKE_REGISTRY_A_PAD) ||
	    nla_put_u64_64bit(msg, LAKE_REGISTRY_A_DROPPED, st->dropped, LAKE_REGISTRY_A_PAD) ||
	    nla_put_u64_64bit(msg, LAKE_REGISTRY_A_TRUNCATED, st->truncated, LAKE_REGISTRY_A_PAD) ||
	    nla_put_u64_64bit(msg, LAKE_REGISTRY_A_ABORTED, st->aborted, LAKE_REGISTRY_A_PAD) ||
	    nla_put_u64_64bit(msg, LAKE_REGISTRY_A_BEGIN_FAILED, st->begin_failed,
			      LAKE_REGISTRY_A_PAD))
		goto err;
	for (i = 0; (fname = lake_reg_feature(reg, i, &size, &entries)); i++) {
		f = nla_nest_start(msg, LAKE_REGISTRY_A_FEATURE);
		if (!f || nla_put_string(msg, LAKE_FEATURE_A_NAME, fname) ||
		    nla_put_u32(msg, LAKE_FEATURE_A_SIZE, size) ||
		    nla_put_u32(msg, LAKE_FEATURE_A_ENTRIES, entries))
			goto err;
		nla_nest_end(msg, f);
	}
	nla_nest_end(msg, nest);
	return 0;
err:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

int lake_ctl_registry_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	void *hdr;
	int ret;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  lake_nl_family(), NLM_F_MULTI, LAKE_CMD_REGISTRY_GET);
	if (!hdr)
		return -EMSGSIZE;
	ret = lake_features_visit_nth((u32)cb->args[0], put_registry, skb);
	if (ret) {
		genlmsg_cancel(skb, hdr);
		return ret == -ENOENT ? 0 : ret;
	}
	genlmsg_end(skb, hdr);
	cb->args[0]++;
	return skb->len;
}
