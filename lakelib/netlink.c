// SPDX-License-Identifier: GPL-2.0
/*
 * The "lake" Generic Netlink family (include/uapi/lake/genl.h).
 *
 * laked registers once (REGISTER needs CAP_NET_ADMIN: GENL_ADMIN_PERM); the
 * socket that sent it is the daemon, held (sock_hold) until it closes (the
 * NETLINK_URELEASE notifier, once the socket is dead) or unregisters, and a
 * second daemon gets -EBUSY. The daemon's other commands need no capability,
 * so laked drops them all once registered: they must come from that socket
 * (NETLINK_CB(skb).sk), never just from its portid, which netlink frees
 * before the notifier runs and any user may bind then. Anything else is
 * dropped and counted (forged_replies; a refused registration:
 * refused_registrations). Sends go to the held socket itself, never by
 * portid, and not once it is dead, so nothing reaches whoever takes the
 * portid next. When the daemon goes, every call in flight fails, but only
 * once laked can no longer write its caller's memory: it unregisters after
 * it has drained and unmapped the region (laked/main.c), and one that
 * closes its socket (exits) or unregisters still mapped is first made
 * harmless from a work item (daemon_stop(): mappings revoked, its exit
 * awaited, SIGKILL if it outlives timeout_ms).
 *
 * Lock order: daemon_lock is innermost (rpc.c takes it under queue_lock
 * through lake_nl_send_call()); nothing is taken under it. ping_lock is
 * taken alone.
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
#include <net/sock.h>
#include <lake/lakelib.h>
#include <lake/shm.h>
#include "lakelib.h"
#include "trace.h"

static struct genl_family lake_family;

static DEFINE_SPINLOCK(daemon_lock);	/* everything below */
static struct sock *daemon_sk;		/* the socket that registered, held */
static u32 daemon_portid;		/* its portid, for lakectl and logs */
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

/* Did @skb come from the registered daemon's socket? */
static bool is_daemon(const struct sk_buff *skb)
{
	return NETLINK_CB(skb).sk && NETLINK_CB(skb).sk == READ_ONCE(daemon_sk);
}

/* The daemon's socket, held, or NULL when there is none or it is closing. */
static struct sock *daemon_sock_get(u64 *gen)
{
	struct sock *sk;

	spin_lock(&daemon_lock);
	sk = daemon_sk;
	if (sk && !sock_flag(sk, SOCK_DEAD))
		sock_hold(sk);
	else
		sk = NULL;
	if (gen)
		*gen = daemon_gen;
	spin_unlock(&daemon_lock);
	return sk;
}

/*
 * Queue @msg on the daemon's socket @sk, never on whatever holds its
 * portid: -ECONNREFUSED once it is closing, -EAGAIN when it is full.
 */
static int daemon_send(struct sock *sk, struct sk_buff *msg)
{
	int ret;

	if (sock_flag(sk, SOCK_DEAD)) {
		nlmsg_free(msg);
		return -ECONNREFUSED;
	}
	ret = sock_queue_rcv_skb(sk, msg);
	if (ret) {
		nlmsg_free(msg);
		return ret == -ENOMEM || ret == -ENOBUFS ? -EAGAIN : ret;
	}
	return 0;
}

/* Is the sender the registered daemon? Logs and counts when not. */
static bool from_daemon(struct sk_buff *skb, struct genl_info *info, const char *what)
{
	if (is_daemon(skb))
		return true;
	atomic64_inc(&lake_stats.forged_replies);
	pr_warn_ratelimited("%s from portid %u ignored: not the registered daemon\n",
			    what, info->snd_portid);
	return false;
}

/*
 * Unpin the daemon of socket @sk, or of generation @gen when @sk is NULL,
 * and start its teardown: false when it is not registered; else its
 * portid, pid and socket (whose reference the caller drops).
 */
static bool daemon_clear(struct sock *sk, u64 gen, u32 *portid, struct pid **pid,
			 struct sock **held)
{
	bool was;

	spin_lock(&daemon_lock);
	was = daemon_sk && (sk ? daemon_sk == sk : daemon_gen == gen);
	if (was) {
		*portid = daemon_portid;
		*held = daemon_sk;
		WRITE_ONCE(daemon_sk, NULL);
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

/*
 * Make a daemon that is going harmless: its mappings of the region revoked
 * (no CPU write lands after that), then a wait, bounded by timeout_ms, until
 * every thread of it has exited, its device files (the GPU context) closed.
 * A fenced laked is sent SIGKILL first (@kill); one that closed its socket
 * or unregistered still mapped (an exiting or a misbehaving laked) gets it
 * only if it is still running when the wait is up.
 */
static void daemon_stop(struct pid *pid, bool kill)
{
	unsigned long bound = msecs_to_jiffies(lake_timeout_ms), end = jiffies + bound;

	lake_shm_revoke_mappings();
	if (!pid)
		return;
	if (kill)
		kill_pid(pid, SIGKILL, 1);
	while (threads_left(pid) && time_before(jiffies, end))
		msleep(5);
	if (!threads_left(pid))
		return;
	if (kill) {
		pr_err("laked (pid %d) still running %u ms after SIGKILL; its device may still write\n",
		       pid_nr(pid), lake_timeout_ms);
		return;
	}
	pr_warn("laked (pid %d) still running %u ms after it left: killing it\n",
		pid_nr(pid), lake_timeout_ms);
	daemon_stop(pid, true);
}

/*
 * A daemon that closed its socket, or unregistered while it still maps the
 * region, is stopped here rather than where that happened: the first runs
 * in the exiting laked's own exit_files() (an atomic notifier), the second
 * in its sendmsg(), and either would wait for itself.
 */
static struct {
	u32 portid;
	struct pid *pid;
	struct sock *sk;
	const char *why;
} gone;	/* owned by whoever set tearing_down, until teardown ends */

static void gone_fn(struct work_struct *work)
{
	daemon_stop(gone.pid, false);
	daemon_teardown(gone.portid, gone.pid, gone.why);
	put_pid(gone.pid);
	sock_put(gone.sk);
}

static DECLARE_WORK(gone_work, gone_fn);

/*
 * The daemon of socket @sk is going. With @stop, it is stopped (daemon_stop)
 * by gone_work before its calls fail, so none returns while laked can still
 * write its caller's memory; without, it is torn down now.
 */
static void daemon_gone(struct sock *sk, bool stop, const char *why)
{
	struct sock *held = NULL;
	struct pid *pid = NULL;
	u32 portid = 0;

	if (!daemon_clear(sk, 0, &portid, &pid, &held))
		return;
	if (stop) {
		gone.portid = portid;
		gone.pid = pid;
		gone.sk = held;
		gone.why = why;
		queue_work(system_unbound_wq, &gone_work);
		return;
	}
	daemon_teardown(portid, pid, why);
	put_pid(pid);
	sock_put(held);
}

void lake_nl_fence(u64 gen)
{
	unsigned long bound = msecs_to_jiffies(lake_timeout_ms);
	struct sock *held = NULL;
	struct pid *pid = NULL;
	u32 portid = 0;

	if (!daemon_clear(NULL, gen, &portid, &pid, &held)) {
		/* Gone already, or being stopped or fenced: wait for that to end. */
		wait_event_timeout(teardown_wq, !READ_ONCE(tearing_down), bound);
		return;
	}
	atomic64_inc(&lake_stats.fences);
	if (pid)
		pr_warn("fencing laked (pid %d): revoking its mappings and killing it\n",
			pid_nr(pid));
	daemon_stop(pid, true);
	daemon_teardown(portid, pid, "fenced");
	put_pid(pid);
	sock_put(held);
}

static int lake_nl_register(struct sk_buff *skb, struct genl_info *info)
{
	const char *dev = info->attrs[LAKE_A_DEVICE] ?
		nla_data(info->attrs[LAKE_A_DEVICE]) : "unknown";
	struct pid *pid = get_task_pid(current, PIDTYPE_TGID);
	struct sock *sk = NETLINK_CB(skb).sk;
	int ret = 0;

	/* The previous daemon's teardown ends first. */
	wait_event_killable_timeout(teardown_wq, !READ_ONCE(tearing_down),
				    msecs_to_jiffies(lake_timeout_ms));
	spin_lock(&daemon_lock);
	if (tearing_down) {
		ret = -EAGAIN;
	} else if (daemon_sk && daemon_sk != sk) {
		ret = -EBUSY;
	} else {
		if (!daemon_sk) {
			daemon_gen = ++last_gen;
			swap(daemon_pid, pid);
			sock_hold(sk);
			WRITE_ONCE(daemon_sk, sk);
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

	if (!from_daemon(skb, info, "unregister"))
		return -EPERM;
	/*
	 * laked stops writing the region and unmaps it before it unregisters:
	 * the calls failed now must not be written after they return. One
	 * that still maps it is counted, and writes through it no more.
	 */
	lake_shm_get_stats(&st);
	if (st.mappings) {
		atomic64_inc(&lake_stats.unregistered_mapped);
		pr_warn("laked unregistered while it maps the region; stopping it\n");
	}
	daemon_gone(NETLINK_CB(skb).sk, st.mappings, "unregistered");
	return 0;
}

static int lake_nl_reply(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a = info->attrs[LAKE_A_RECORDS];
	struct lake_wire_iter it;
	struct lake_wire_rep rep;
	int ret;

	if (!from_daemon(skb, info, "reply"))
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

	if (!from_daemon(skb, info, "load report"))
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
	if (is_daemon(skb)) {
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
	struct sock *sk;
	long left;
	u64 t0;
	void *hdr;
	int ret;

	if (!lake_nl_daemon())
		return -ENOTCONN;
	ret = lake_mutex_lock_until(&ping_lock, &ping_wait, deadline);
	if (ret)
		return ret;
	sk = daemon_sock_get(NULL);
	ret = -ENOTCONN;
	if (!sk)
		goto out;
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
	ret = daemon_send(sk, msg);
	if (ret)
		goto out;
	left = wait_for_completion_killable_timeout(&ping_done, lake_jiffies_left(deadline));
	if (left > 0)
		*rtt_ns = ktime_get_ns() - t0;
	else
		ret = left ? -EINTR : -ETIMEDOUT;
out:
	WRITE_ONCE(ping_token, 0);
	if (sk)
		sock_put(sk);
	mutex_unlock(&ping_lock);
	wake_up(&ping_wait);
	return ret;
}
EXPORT_SYMBOL_GPL(lake_ping);

int lake_nl_send_call(const void *blob, u32 len, unsigned long deadline, u64 *gen)
{
	struct sk_buff *msg;
	struct sock *sk;
	void *hdr;
	u64 g;
	int ret;

	for (;;) {
		sk = daemon_sock_get(&g);
		if (!sk)
			return -ENOTCONN;
		if (atomic_dec_if_positive(&lake_fail_sends) >= 0) {
			sock_put(sk);
			ret = -EIO;	/* injected (debugfs lakelib_fail_sends) */
			break;
		}
		/* The ring, when this daemon set one up; else a message. */
		ret = lake_ring_send(g, blob, len, deadline);
		if (ret != -EAGAIN) {
			sock_put(sk);
			break;
		}
		msg = lake_alloc_fault() ? NULL : genlmsg_new(nla_total_size(len), GFP_KERNEL);
		if (!msg) {
			sock_put(sk);
			return -ENOMEM;
		}
		hdr = genlmsg_put(msg, 0, 0, &lake_family, 0, LAKE_CMD_CALL);
		if (!hdr || nla_put(msg, LAKE_A_RECORDS, len, blob)) {
			nlmsg_free(msg);
			sock_put(sk);
			return -EMSGSIZE;
		}
		genlmsg_end(msg, hdr);
		ret = daemon_send(sk, msg);
		sock_put(sk);
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
		atomic64_inc(&lake_stats.send_retries);
		usleep_range(100, 500);
	}
	/* -ECONNREFUSED: its socket is closing; the notifier tears it down. */
	if (ret)
		pr_warn_ratelimited("sending to laked failed: %d\n", ret);
	else
		*gen = g;
	return ret;
}

/*
 * laked asks for the command ring (ring.c). The answer carries its offset;
 * until laked reads it, laked's genl socket holds every call sent before
 * (rpc.c switches carriers under queue_lock), so laked serves them first.
 */
static int lake_nl_ring_setup(struct sk_buff *skb, struct genl_info *info)
{
	struct lake_genl_ring req;
	struct sk_buff *msg;
	void *hdr;
	u64 off;
	int ret;

	if (!from_daemon(skb, info, "ring setup"))
		return -EPERM;
	if (GENL_REQ_ATTR_CHECK(info, LAKE_A_RING))
		return -EINVAL;
	memcpy(&req, nla_data(info->attrs[LAKE_A_RING]), sizeof(req));
	msg = genlmsg_new(nla_total_size_64bit(sizeof(u64)), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &lake_family, 0, LAKE_CMD_RING_SETUP);
	ret = -EMSGSIZE;
	if (!hdr)
		goto err;
	ret = lake_rpc_ring_start(lake_nl_gen(), req.sq_fd, req.cq_fd, req.watch_fd, &off);
	if (ret) {
		pr_warn("ring setup refused: %d; calls stay on Generic Netlink\n", ret);
		GENL_SET_ERR_MSG(info, "no ring: bad eventfds, no region memory, or a ring exists");
		goto err;
	}
	if (nla_put_u64_64bit(msg, LAKE_A_VALUE, off, LAKE_A_PAD)) {
		ret = -EMSGSIZE;
		goto err_stop;
	}
	genlmsg_end(msg, hdr);
	ret = genlmsg_reply(msg, info);
	if (ret) {
		/* Calls put meanwhile go unanswered: they time out and fence laked. */
		pr_warn("ring setup: answer not delivered (%d); no ring\n", ret);
		lake_rpc_ring_stop();
		return ret;
	}
	pr_info("command ring at region offset %llu; calls go over it\n", off);
	return 0;
err_stop:
	lake_rpc_ring_stop();
err:
	nlmsg_free(msg);
	return ret;
}

/* POLICY_SET's attributes; the rest of lake_policy_attr is kernel -> user. */
static const struct nla_policy lake_policy_set_policy[LAKE_POLICY_A_MAX + 1] = {
	[LAKE_POLICY_A_NAME] = { .type = NLA_NUL_STRING, .len = LAKE_GENL_NAME_MAX - 1 },
	[LAKE_POLICY_A_MODE] = NLA_POLICY_MAX(NLA_U32, LAKE_GENL_MODE_GPU),
	[LAKE_POLICY_A_CROSSOVER] = { .type = NLA_U32 },
};

/*
 * One policy per command: each accepts exactly the attributes its request
 * takes (spec/lake.yaml), and every command is validated strictly (no
 * resv_start_op, so none is legacy): an attribute a command does not take
 * is -EINVAL. A command without a policy takes no attribute at all.
 */
static const struct nla_policy lake_register_policy[LAKE_A_DEVICE + 1] = {
	[LAKE_A_DEVICE] = { .type = NLA_NUL_STRING, .len = LAKE_GENL_DEVICE_MAX - 1 },
};

static const struct nla_policy lake_reply_policy[LAKE_A_RECORDS + 1] = {
	[LAKE_A_RECORDS] = { .type = NLA_BINARY, .len = LAKE_GENL_RECORDS_MAX },
};

static const struct nla_policy lake_load_policy[LAKE_A_LOAD + 1] = {
	[LAKE_A_LOAD] = NLA_POLICY_EXACT_LEN(sizeof(struct lake_genl_load)),
};

static const struct nla_policy lake_ring_policy[LAKE_A_RING + 1] = {
	[LAKE_A_RING] = NLA_POLICY_EXACT_LEN(sizeof(struct lake_genl_ring)),
};

static const struct nla_policy lake_ping_policy[LAKE_A_VALUE + 1] = {
	[LAKE_A_VALUE] = { .type = NLA_U64 },
};

static const struct nla_policy lake_policy_set_req_policy[LAKE_A_POLICY + 1] = {
	[LAKE_A_POLICY] = NLA_POLICY_NESTED(lake_policy_set_policy),
};

/*
 * Only REGISTER and POLICY_SET need CAP_NET_ADMIN. UNREGISTER, REPLY,
 * LOAD and RING_SETUP need none: only the registered socket may send them (from_daemon),
 * and laked has dropped every capability by then.
 */
static const struct genl_ops lake_ops[] = {
	{ .cmd = LAKE_CMD_REGISTER, .doit = lake_nl_register, .flags = GENL_ADMIN_PERM,
	  .policy = lake_register_policy, .maxattr = ARRAY_SIZE(lake_register_policy) - 1 },
	{ .cmd = LAKE_CMD_UNREGISTER, .doit = lake_nl_unregister },
	{ .cmd = LAKE_CMD_REPLY, .doit = lake_nl_reply,
	  .policy = lake_reply_policy, .maxattr = ARRAY_SIZE(lake_reply_policy) - 1 },
	{ .cmd = LAKE_CMD_LOAD, .doit = lake_nl_load_report,
	  .policy = lake_load_policy, .maxattr = ARRAY_SIZE(lake_load_policy) - 1 },
	{ .cmd = LAKE_CMD_RING_SETUP, .doit = lake_nl_ring_setup,
	  .policy = lake_ring_policy, .maxattr = ARRAY_SIZE(lake_ring_policy) - 1 },
	{ .cmd = LAKE_CMD_PING, .doit = lake_nl_ping,
	  .policy = lake_ping_policy, .maxattr = ARRAY_SIZE(lake_ping_policy) - 1 },
	/* lakectl (ctl.c) */
	{ .cmd = LAKE_CMD_STATUS_GET, .doit = lake_ctl_status },
	{ .cmd = LAKE_CMD_STATS_GET, .doit = lake_ctl_stats },
	{ .cmd = LAKE_CMD_POLICY_GET, .dumpit = lake_ctl_policy_dump },
	{ .cmd = LAKE_CMD_POLICY_SET, .doit = lake_ctl_policy_set, .flags = GENL_ADMIN_PERM,
	  .policy = lake_policy_set_req_policy,
	  .maxattr = ARRAY_SIZE(lake_policy_set_req_policy) - 1 },
	{ .cmd = LAKE_CMD_REGISTRY_GET, .dumpit = lake_ctl_registry_dump },
};

static struct genl_family lake_family __ro_after_init = {
	.name = LAKE_GENL_NAME,
	.version = LAKE_GENL_VERSION,
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
 * registered from init_net; only a release there can be laked's. The
 * notice names a portid only, and netlink frees it before notifying, so
 * another socket may hold it by now: laked's is gone once its socket is
 * dead (netlink_release() orphans it before the notifier runs).
 */
static int lake_nl_notify(struct notifier_block *nb, unsigned long state, void *ptr)
{
	struct netlink_notify *n = ptr;
	struct sock *sk;

	if (state != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC ||
	    !net_eq(n->net, &init_net) || n->portid != READ_ONCE(daemon_portid))
		return NOTIFY_DONE;
	sk = daemon_sock_get(NULL);
	if (sk) {
		sock_put(sk);	/* alive: another socket released laked's old portid */
		return NOTIFY_DONE;
	}
	lake_test_release_delay();
	daemon_gone(READ_ONCE(daemon_sk), true, "closed its socket");
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
	flush_work(&gone_work);
	daemon_gone(READ_ONCE(daemon_sk), false, "left: lakelib unloading");
}

bool lake_daemon_alive(void)
{
	return lake_nl_daemon() != 0;
}
EXPORT_SYMBOL_GPL(lake_daemon_alive);
