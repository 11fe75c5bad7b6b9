// SPDX-License-Identifier: GPL-2.0
/*
 * The "lake" Generic Netlink family (include/lake/genl.h).
 *
 * laked registers once; its portid is pinned until its socket closes (the
 * NETLINK_URELEASE notifier) or it unregisters, and a second daemon gets
 * -EBUSY. Daemon commands need CAP_NET_ADMIN (GENL_ADMIN_PERM) and must come
 * from the pinned portid: anything else is dropped and counted. When the
 * daemon goes, every call in flight fails at once.
 *
 * .parallel_ops: handlers take no genl_mutex, so one daemon's replies never
 * queue behind another sender's message, and a caller that waits inside a
 * genl handler of its own cannot deadlock the reply path.
 */
#define pr_fmt(fmt) "lakelib: " fmt

#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/spinlock.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <lake/lakelib.h>
#include "lakelib.h"
#include "trace.h"

static struct genl_family lake_family;

static DEFINE_SPINLOCK(daemon_lock);
static u32 daemon_portid;
static u32 daemon_pid;		/* the registering process, for lakectl */
static char daemon_device[LAKE_GENL_DEVICE_MAX];
static struct lake_genl_load daemon_load;
static u64 daemon_load_ns;	/* when daemon_load arrived; 0: never */

u32 lake_nl_daemon(void)
{
	return READ_ONCE(daemon_portid);
}

bool lake_nl_load(struct lake_genl_load *out, u64 *age_ns)
{
	bool have;

	spin_lock(&daemon_lock);
	have = daemon_portid && daemon_load_ns;
	if (have) {
		*out = daemon_load;
		*age_ns = ktime_get_ns() - daemon_load_ns;
	}
	spin_unlock(&daemon_lock);
	return have;
}

bool lake_nl_daemon_info(u32 *portid, u32 *pid, char *device, size_t size)
{
	spin_lock(&daemon_lock);
	*portid = daemon_portid;
	*pid = daemon_pid;
	strscpy(device, daemon_device, size);
	spin_unlock(&daemon_lock);
	return *portid != 0;
}

const struct genl_family *lake_nl_family(void)
{
	return &lake_family;
}

/* Is the sender the registered daemon? Logs and counts when not. */
static bool from_daemon(struct genl_info *info, const char *what)
{
	if (info->snd_portid && info->snd_portid == READ_ONCE(daemon_portid))
		return true;
	atomic64_inc(&lake_stats.forged_replies);
	pr_warn_ratelimited("%s from portid %u ignored: not the registered daemon\n",
			    what, info->snd_portid);
	return false;
}

static void daemon_gone(u32 portid, const char *why)
{
	bool was;
	u32 pid;

	spin_lock(&daemon_lock);
	was = daemon_portid == portid && portid;
	if (was) {
		WRITE_ONCE(daemon_portid, 0);
		daemon_load_ns = 0;
	}
	pid = daemon_pid;
	spin_unlock(&daemon_lock);
	if (!was)
		return;
	trace_lake_daemon(false, portid, pid, why);
	lake_fallback_notify();
	pr_info("laked (portid %u) %s; failing calls in flight\n", portid, why);
	lake_rpc_fail_all(LAKE_ERR_DAEMON_LOST);
	lake_funcs_reset();
	lake_ctx_reset();
}

static int lake_nl_register(struct sk_buff *skb, struct genl_info *info)
{
	const char *dev = info->attrs[LAKE_A_DEVICE] ?
		nla_data(info->attrs[LAKE_A_DEVICE]) : "unknown";
	int ret = 0;

	spin_lock(&daemon_lock);
	if (daemon_portid && daemon_portid != info->snd_portid) {
		ret = -EBUSY;
	} else {
		WRITE_ONCE(daemon_portid, info->snd_portid);
		/* genl runs a command in its sender's sendmsg: current sent it. */
		daemon_pid = task_tgid_nr(current);
		strscpy(daemon_device, dev, sizeof(daemon_device));
		daemon_load_ns = 0;
	}
	spin_unlock(&daemon_lock);
	if (ret) {
		pr_warn_ratelimited("registration from portid %u refused: a daemon is registered\n",
				    info->snd_portid);
		GENL_SET_ERR_MSG(info, "another laked is registered");
		return ret;
	}
	pr_info("laked registered (portid %u, device %s)\n", info->snd_portid, dev);
	trace_lake_daemon(true, info->snd_portid, task_tgid_nr(current), dev);
	lake_fallback_notify();
	return 0;
}

static int lake_nl_unregister(struct sk_buff *skb, struct genl_info *info)
{
	if (!from_daemon(info, "unregister"))
		return -EPERM;
	daemon_gone(info->snd_portid, "unregistered");
	return 0;
}

static int lake_nl_reply(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a = info->attrs[LAKE_A_RECORDS];
	struct lake_wire_iter it;
	struct lake_wire_rep rep;
	int ret;

	if (!from_daemon(info, "reply"))
		return -EPERM;
	if (GENL_REQ_ATTR_CHECK(info, LAKE_A_RECORDS))
		return -EINVAL;
	lake_wire_iter_init(&it, nla_data(a), nla_len(a));
	while ((ret = lake_wire_next_rep(&it, &rep)) > 0)
		lake_rpc_deliver(&rep);
	if (ret < 0) {
		atomic64_inc(&lake_stats.bad_records);
		pr_warn_ratelimited("malformed reply at byte %u: %s (%d)\n", it.pos, it.why, ret);
		NL_SET_ERR_MSG_ATTR(info->extack, a, "malformed reply record");
		return -EINVAL;
	}
	return 0;
}

static int lake_nl_load_report(struct sk_buff *skb, struct genl_info *info)
{
	struct lake_genl_load load;
	const char *why = "";

	if (!from_daemon(info, "load report"))
		return -EPERM;
	if (GENL_REQ_ATTR_CHECK(info, LAKE_A_LOAD))
		return -EINVAL;
	memcpy(&load, nla_data(info->attrs[LAKE_A_LOAD]), sizeof(load));
	if (lake_wire_check_load(&load, &why)) {
		pr_warn_ratelimited("bad load report: %s\n", why);
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[LAKE_A_LOAD], "bad load report");
		return -EINVAL;
	}
	spin_lock(&daemon_lock);
	daemon_load = load;
	daemon_load_ns = ktime_get_ns();
	spin_unlock(&daemon_lock);
	lake_fallback_notify();
	return 0;
}

/* lake_ping(): one bare kernel -> laked -> kernel round trip at a time. */
static DEFINE_MUTEX(ping_lock);
static DECLARE_COMPLETION(ping_done);
static u64 ping_token;		/* the value in flight; 0: none */

static int lake_nl_ping(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	u64 v = 0;

	if (info->attrs[LAKE_A_VALUE])
		v = nla_get_u64(info->attrs[LAKE_A_VALUE]);
	/* laked echoing lake_ping(): wake the caller; a late echo is dropped. */
	if (info->snd_portid && info->snd_portid == READ_ONCE(daemon_portid)) {
		if (v && cmpxchg(&ping_token, v, 0) == v)
			complete(&ping_done);
		return 0;
	}
	msg = genlmsg_new(nla_total_size_64bit(sizeof(u64)), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &lake_family, 0, LAKE_CMD_PING);
	if (!hdr || nla_put_u64_64bit(msg, LAKE_A_VALUE, v, LAKE_A_PAD)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

int lake_ping(u64 *rtt_ns)
{
	static u64 next_token = 1;
	struct sk_buff *msg;
	u32 portid = lake_nl_daemon();
	u64 t0;
	void *hdr;
	int ret;

	if (!portid)
		return -ENOTCONN;
	mutex_lock(&ping_lock);
	reinit_completion(&ping_done);
	msg = genlmsg_new(nla_total_size_64bit(sizeof(u64)), GFP_KERNEL);
	ret = -ENOMEM;
	if (!msg)
		goto out;
	hdr = genlmsg_put(msg, 0, 0, &lake_family, 0, LAKE_CMD_PING);
	WRITE_ONCE(ping_token, next_token++);
	if (!hdr || nla_put_u64_64bit(msg, LAKE_A_VALUE, ping_token, LAKE_A_PAD)) {
		nlmsg_free(msg);
		ret = -EMSGSIZE;
		goto out;
	}
	genlmsg_end(msg, hdr);
	t0 = ktime_get_ns();
	ret = genlmsg_unicast(&init_net, msg, portid);
	if (ret)
		goto out;
	if (!wait_for_completion_timeout(&ping_done, msecs_to_jiffies(lake_timeout_ms)))
		ret = -ETIMEDOUT;
	else
		*rtt_ns = ktime_get_ns() - t0;
out:
	WRITE_ONCE(ping_token, 0);
	mutex_unlock(&ping_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(lake_ping);

int lake_nl_send_call(const void *blob, u32 len)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(lake_timeout_ms);
	struct sk_buff *msg;
	void *hdr;
	u32 portid;
	int ret;

	for (;;) {
		portid = lake_nl_daemon();
		if (!portid)
			return -ENOTCONN;
		msg = genlmsg_new(nla_total_size(len), GFP_KERNEL);
		if (!msg)
			return -ENOMEM;
		hdr = genlmsg_put(msg, 0, 0, &lake_family, 0, LAKE_CMD_CALL);
		if (!hdr || nla_put(msg, LAKE_A_RECORDS, len, blob)) {
			nlmsg_free(msg);
			return -EMSGSIZE;
		}
		genlmsg_end(msg, hdr);
		ret = genlmsg_unicast(&init_net, msg, portid);
		/* A full receive buffer means laked is busy, not gone: retry. */
		if (ret != -EAGAIN || time_after(jiffies, deadline) || fatal_signal_pending(current))
			break;
		usleep_range(100, 500);
	}
	if (ret == -ECONNREFUSED)
		daemon_gone(portid, "vanished");
	else if (ret)
		pr_warn_ratelimited("sending to laked failed: %d\n", ret);
	return ret;
}

/* POLICY_SET's attributes; the rest of lake_policy_attr is kernel -> user. */
static const struct nla_policy lake_policy_set_policy[LAKE_POLICY_A_MAX + 1] = {
	[LAKE_POLICY_A_NAME] = { .type = NLA_NUL_STRING, .len = LAKE_GENL_NAME_MAX - 1 },
	[LAKE_POLICY_A_MODE] = NLA_POLICY_MAX(NLA_U32, LAKE_GENL_MODE_GPU),
	[LAKE_POLICY_A_CROSSOVER] = { .type = NLA_U32 },
};

static const struct nla_policy lake_policy[LAKE_A_MAX + 1] = {
	[LAKE_A_RECORDS] = { .type = NLA_BINARY, .len = LAKE_GENL_RECORDS_MAX },
	[LAKE_A_LOAD] = NLA_POLICY_EXACT_LEN(sizeof(struct lake_genl_load)),
	[LAKE_A_DEVICE] = { .type = NLA_NUL_STRING, .len = LAKE_GENL_DEVICE_MAX - 1 },
	[LAKE_A_VALUE] = { .type = NLA_U64 },
	[LAKE_A_POLICY] = NLA_POLICY_NESTED(lake_policy_set_policy),
};

static const struct genl_ops lake_ops[] = {
	{ .cmd = LAKE_CMD_REGISTER, .doit = lake_nl_register, .flags = GENL_ADMIN_PERM },
	{ .cmd = LAKE_CMD_UNREGISTER, .doit = lake_nl_unregister, .flags = GENL_ADMIN_PERM },
	{ .cmd = LAKE_CMD_REPLY, .doit = lake_nl_reply, .flags = GENL_ADMIN_PERM },
	{ .cmd = LAKE_CMD_LOAD, .doit = lake_nl_load_report, .flags = GENL_ADMIN_PERM },
	{ .cmd = LAKE_CMD_PING, .doit = lake_nl_ping },
	/* lakectl (ctl.c) */
	{ .cmd = LAKE_CMD_STATUS_GET, .doit = lake_ctl_status },
	{ .cmd = LAKE_CMD_STATS_GET, .doit = lake_ctl_stats },
	{ .cmd = LAKE_CMD_POLICY_GET, .dumpit = lake_ctl_policy_dump },
	{ .cmd = LAKE_CMD_POLICY_SET, .doit = lake_ctl_policy_set, .flags = GENL_ADMIN_PERM },
	{ .cmd = LAKE_CMD_REGISTRY_GET, .dumpit = lake_ctl_registry_dump },
};

static struct genl_family lake_family __ro_after_init = {
	.name = LAKE_GENL_NAME,
	.version = LAKE_GENL_VERSION,
	.maxattr = LAKE_A_MAX,
	.policy = lake_policy,
	.netnsok = false,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = lake_ops,
	.n_ops = ARRAY_SIZE(lake_ops),
};

static int lake_nl_notify(struct notifier_block *nb, unsigned long state, void *ptr)
{
	struct netlink_notify *n = ptr;

	if (state == NETLINK_URELEASE && n->protocol == NETLINK_GENERIC &&
	    n->portid == READ_ONCE(daemon_portid))
		daemon_gone(n->portid, "closed its socket");
	return NOTIFY_DONE;
}

static struct notifier_block lake_nl_nb = { .notifier_call = lake_nl_notify };

int lake_nl_init(void)
{
	int ret;

	ret = netlink_register_notifier(&lake_nl_nb);
	if (ret)
		return ret;
	ret = genl_register_family(&lake_family);
	if (ret)
		netlink_unregister_notifier(&lake_nl_nb);
	return ret;
}

void lake_nl_exit(void)
{
	genl_unregister_family(&lake_family);
	netlink_unregister_notifier(&lake_nl_nb);
	daemon_gone(READ_ONCE(daemon_portid), "left: lakelib unloading");
}

bool lake_daemon_alive(void)
{
	return lake_nl_daemon() != 0;
}
EXPORT_SYMBOL_GPL(lake_daemon_alive);
