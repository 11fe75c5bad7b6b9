// SPDX-License-Identifier: GPL-2.0
/*
 * The "lake" Generic Netlink family (include/lake/genl.h).
 *
 * laked registers once; its portid is pinned until its socket closes (the
 * NETLINK_URELEASE notifier) or it unregisters, and a second daemon gets
 * -EBUSY. Daemon commands need CAP_NET_ADMIN (GENL_ADMIN_PERM) and must come
 * from the pinned portid: anything else is dropped and counted (forged_replies;
 * a refused registration: refused_registrations). When the
 * daemon goes, every call in flight fails at once.
 *
 * Each registration is a new generation. A daemon's teardown (portid
 * cleared, calls failed, queue dropped, handle tables reset) finishes before
 * the next daemon can register, so none of its calls or handles are lost
 * to the previous one's teardown. A fence is a teardown that first makes the
 * daemon harmless: its mappings of the region revoked (no CPU write lands
 * after that), then SIGKILL, and a wait, bounded by timeout_ms, until every
 * thread of it has exited, its device files (the GPU context) closed.
 *
 * .parallel_ops: these handlers run without genl_mutex, so laked's replies
 * never wait for another family's handler, and a module calling the CUDA
 * API from a genl handler of its own (genl_mutex held) still gets its
 * reply. They do not escape cb_lock, which every genl message holds for
 * reading and a family's (un)registration takes for writing: while such a
 * writer waits behind a handler that waits for laked, laked's reply waits
 * behind the writer, until that call ends with CUDA_ERROR_TIMEOUT, which
 * fences laked. So calling lakelib from a genl handler can cost timeout_ms,
 * fail, and restart laked.
 */
#define pr_fmt(fmt) "lakelib: " fmt

#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/spinlock.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <lake/lakelib.h>
#include <lake/shm.h>
#include "lakelib.h"
#include "trace.h"

static struct genl_family lake_family;

static DEFINE_SPINLOCK(daemon_lock);	/* everything below */
static u32 daemon_portid;
static u64 daemon_gen, last_gen;
static struct pid *daemon_pid;		/* its thread group, for a fence */
static bool tearing_down;		/* no registration until it ends */
static DECLARE_WAIT_QUEUE_HEAD(teardown_wq);
static char daemon_device[LAKE_GENL_DEVICE_MAX];
static struct lake_genl_load daemon_load;
static u64 daemon_load_ns;	/* when daemon_load arrived; 0: never */

u32 lake_nl_daemon(void)
{
	return READ_ONCE(daemon_portid);
}

u64 lake_nl_gen(void)
{
	u64 gen;

	spin_lock(&daemon_lock);
	gen = daemon_portid ? daemon_gen : 0;
	spin_unlock(&daemon_lock);
	return gen;
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
	*pid = pid_nr(daemon_pid);
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

/*
 * Unpin the daemon with *@portid, or of generation @gen when *@portid is 0,
 * and start its teardown: false when it is not registered; else its portid
 * and pid.
 */
static bool daemon_clear(u32 *portid, u64 gen, struct pid **pid)
{
	bool was;

	spin_lock(&daemon_lock);
	was = daemon_portid && (*portid ? daemon_portid == *portid : daemon_gen == gen);
	if (was) {
		*portid = daemon_portid;
		WRITE_ONCE(daemon_portid, 0);
		daemon_load_ns = 0;
		*pid = daemon_pid;
		daemon_pid = NULL;
		tearing_down = true;
	}
	spin_unlock(&daemon_lock);
	return was;
}

/* Portid already cleared: nothing new reaches the daemon. */
static void daemon_teardown(u32 portid, struct pid *pid, const char *why)
{
	trace_lake_daemon(false, portid, pid_nr(pid), why);
	lake_fallback_notify();
	pr_info("laked (portid %u) %s; failing calls in flight\n", portid, why);
	lake_rpc_daemon_gone();
	lake_funcs_reset();
	lake_ctx_reset();
	spin_lock(&daemon_lock);
	tearing_down = false;
	spin_unlock(&daemon_lock);
	wake_up_all(&teardown_wq);
}

static void daemon_gone(u32 portid, const char *why)
{
	struct pid *pid = NULL;

	if (!daemon_clear(&portid, 0, &pid))
		return;
	daemon_teardown(portid, pid, why);
	put_pid(pid);
}

static bool threads_left(struct pid *pid)
{
	struct task_struct *task, *t;
	bool left = false;

	rcu_read_lock();
	task = pid_task(pid, PIDTYPE_TGID);
	if (task) {
		for_each_thread(task, t) {
			if (!READ_ONCE(t->exit_state)) {
				left = true;
				break;
			}
		}
	}
	rcu_read_unlock();
	return left;
}

void lake_nl_fence(u64 gen)
{
	unsigned long bound = msecs_to_jiffies(lake_timeout_ms), end = jiffies + bound;
	struct pid *pid = NULL;
	u32 portid = 0;

	if (!daemon_clear(&portid, gen, &pid)) {
		/* Gone already, or another caller fences it: wait for that to end. */
		wait_event_timeout(teardown_wq, !READ_ONCE(tearing_down), bound);
		return;
	}
	atomic64_inc(&lake_stats.fences);
	lake_shm_revoke_mappings();
	if (pid) {
		pr_warn("fencing laked (pid %d): revoking its mappings and killing it\n",
			pid_nr(pid));
		kill_pid(pid, SIGKILL, 1);
		while (threads_left(pid) && time_before(jiffies, end))
			msleep(5);
		if (threads_left(pid))
			pr_err("laked (pid %d) still running %u ms after SIGKILL; its device may still write\n",
			       pid_nr(pid), lake_timeout_ms);
	}
	daemon_teardown(portid, pid, "fenced");
	put_pid(pid);
}

static int lake_nl_register(struct sk_buff *skb, struct genl_info *info)
{
	const char *dev = info->attrs[LAKE_A_DEVICE] ?
		nla_data(info->attrs[LAKE_A_DEVICE]) : "unknown";
	struct pid *pid = get_task_pid(current, PIDTYPE_TGID);
	int ret = 0;

	/* The previous daemon's teardown ends first. */
	wait_event_killable_timeout(teardown_wq, !READ_ONCE(tearing_down),
				    msecs_to_jiffies(lake_timeout_ms));
	spin_lock(&daemon_lock);
	if (tearing_down) {
		ret = -EAGAIN;
	} else if (daemon_portid && daemon_portid != info->snd_portid) {
		ret = -EBUSY;
	} else {
		if (daemon_portid != info->snd_portid) {
			daemon_gen = ++last_gen;
			swap(daemon_pid, pid);
		}
		WRITE_ONCE(daemon_portid, info->snd_portid);
		strscpy(daemon_device, dev, sizeof(daemon_device));
		daemon_load_ns = 0;
	}
	spin_unlock(&daemon_lock);
	put_pid(pid);
	if (ret) {
		atomic64_inc(&lake_stats.refused_registrations);
		pr_warn_ratelimited("registration from portid %u refused: %s\n", info->snd_portid,
				    ret == -EBUSY ? "a daemon is registered" :
				    "the previous daemon is still being torn down");
		if (ret == -EBUSY)
			GENL_SET_ERR_MSG(info, "another laked is registered");
		else
			GENL_SET_ERR_MSG(info, "the previous laked is still being torn down");
		return ret;
	}
	pr_info("laked registered (portid %u, device %s)\n", info->snd_portid, dev);
	trace_lake_daemon(true, info->snd_portid, task_tgid_nr(current), dev);
	lake_fallback_notify();
	return 0;
}

static int lake_nl_unregister(struct sk_buff *skb, struct genl_info *info)
{
	struct lake_shm_stats st;

	if (!from_daemon(info, "unregister"))
		return -EPERM;
	/*
	 * laked stops writing the region and unmaps it before it unregisters:
	 * the calls failed now must not be written after they return. One
	 * that still maps it is counted, and writes through it no more.
	 */
	lake_shm_get_stats(&st);
	if (st.mappings) {
		atomic64_inc(&lake_stats.unregistered_mapped);
		pr_warn("laked unregistered while it maps the region; revoking its mappings\n");
		lake_shm_revoke_mappings();
	}
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
static DECLARE_WAIT_QUEUE_HEAD(ping_wait);
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
	unsigned long deadline = jiffies + msecs_to_jiffies(lake_timeout_ms);
	static u64 next_token = 1;
	struct sk_buff *msg;
	u32 portid = lake_nl_daemon();
	long left;
	u64 t0;
	void *hdr;
	int ret;

	if (!portid)
		return -ENOTCONN;
	ret = lake_mutex_lock_until(&ping_lock, &ping_wait, deadline);
	if (ret)
		return ret;
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
	left = wait_for_completion_killable_timeout(&ping_done, lake_jiffies_left(deadline));
	if (left > 0)
		*rtt_ns = ktime_get_ns() - t0;
	else
		ret = left ? -EINTR : -ETIMEDOUT;
out:
	WRITE_ONCE(ping_token, 0);
	mutex_unlock(&ping_lock);
	wake_up(&ping_wait);
	return ret;
}
EXPORT_SYMBOL_GPL(lake_ping);

int lake_nl_send_call(const void *blob, u32 len, unsigned long deadline, u64 *gen)
{
	struct sk_buff *msg;
	void *hdr;
	u32 portid;
	u64 g;
	int ret;

	for (;;) {
		spin_lock(&daemon_lock);
		portid = daemon_portid;
		g = daemon_gen;
		spin_unlock(&daemon_lock);
		if (!portid)
			return -ENOTCONN;
		if (atomic_dec_if_positive(&lake_fail_sends) >= 0) {
			ret = -EIO;	/* injected (debugfs lakelib_fail_sends) */
			break;
		}
		msg = lake_alloc_fault() ? NULL : genlmsg_new(nla_total_size(len), GFP_KERNEL);
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
		if (ret != -EAGAIN)
			break;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		if (time_after_eq(jiffies, deadline)) {
			ret = -ETIMEDOUT;
			break;
		}
		usleep_range(100, 500);
	}
	/* -ECONNREFUSED: its socket is closing; the notifier tears it down. */
	if (ret)
		pr_warn_ratelimited("sending to laked failed: %d\n", ret);
	else
		*gen = g;
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

/*
 * NETLINK_URELEASE fires for sockets of every namespace, and a portid is
 * unique only within one: any user can create a namespace and bind a
 * socket there to laked's portid. The family is not netnsok, so laked
 * registered from init_net; only a release there is laked's.
 */
static int lake_nl_notify(struct notifier_block *nb, unsigned long state, void *ptr)
{
	struct netlink_notify *n = ptr;

	if (state == NETLINK_URELEASE && n->protocol == NETLINK_GENERIC &&
	    net_eq(n->net, &init_net) && n->portid == READ_ONCE(daemon_portid))
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
