// SPDX-License-Identifier: GPL-2.0
/*
 * laked's end of the "lake" Generic Netlink family (uapi/lake/genl.h), on libnl.
 *
 * The kernel originates the CALL messages, with sequence number 0, so
 * sequence checks and automatic acks are off; the one request whose answer
 * matters, REGISTER, asks for an ack and waits for it by sequence number.
 * Only messages whose source address is the kernel (portid 0) are served:
 * the source address is set by the kernel, unlike the header's nlmsg_pid.
 * A CALL's records are copied out of the message inside the callback, since
 * libnl frees it when nl_recvmsgs returns, and handed to the pool there
 * (laked_nl_serve); until the pool exists (registration comes before the
 * sandbox, and the pool's threads after it) they are kept and handed over
 * once it does. Replies go out as LAKE_CMD_REPLY messages through the reply
 * sink, from the workers' threads: sends are serialized by a mutex, the
 * receiving side stays on the main thread. A PING from the kernel is echoed
 * with its value.
 *
 * The kernel answers every message it refuses with an error, even without
 * NLM_F_ACK. EPERM (not the registered daemon any more) or ENOENT (no such
 * family: lakelib was reloaded) means the kernel no longer takes laked:
 * laked_nl_receive() then fails, and laked exits for its supervisor to
 * start a fresh one. The load reports, sent every period, make sure laked
 * learns it even when no call comes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include "daemon.h"
#include "log.h"

#define RCVBUF_BYTES	(4 << 20)	/* bursts of calls while a sync call runs */
#define SNDBUF_BYTES	(1 << 20)
#define MSG_BUF_BYTES	(64 << 10)	/* over any message: no MSG_PEEK round trip */
#define REGISTER_MS	5000
#define BATCH_RECV	64		/* datagrams per wakeup, so ticks and signals run */
#define EARLY_MAX	256		/* CALL messages kept before the pool exists */

struct early_call {
	struct early_call *next;
	u32 len;
	u8 data[] __attribute__((aligned(8)));
};

struct laked_nl {
	struct nl_sock *sk;
	int family;
	pthread_mutex_t send_lock;	/* nl_send_auto numbers and sends */
	struct laked_pool *pool;	/* NULL: keep calls in early */
	struct early_call *early, **early_tail;
	unsigned int nearly;
	struct laked_reply_sink sink;
	/* The request waiting for its ack: its sequence number, and the answer. */
	u32 wait_seq;
	bool waiting;
	int wait_err;
	int lost;	/* -EPERM or -ENOENT: the kernel no longer takes laked */
	bool ring_answered;	/* RING_SETUP's answer came: its offset */
	u64 ring_off;
	u8 rx[LAKE_GENL_RECORDS_MAX] __attribute__((aligned(8)));
};

static struct nla_policy policy[LAKE_A_MAX + 1] = {
	[LAKE_A_RECORDS] = { .type = NLA_UNSPEC, .minlen = 1, .maxlen = LAKE_GENL_RECORDS_MAX },
	[LAKE_A_VALUE] = { .type = NLA_U64 },
	[LAKE_A_RING] = { .type = NLA_UNSPEC, .minlen = sizeof(struct lake_genl_ring),
			  .maxlen = sizeof(struct lake_genl_ring) },
};

static int send_cmd(struct laked_nl *nl, u8 cmd, int attr, const void *data, u32 len,
		    int flags, u32 *seq)
{
	struct nl_msg *msg;
	int ret;

	msg = nlmsg_alloc_size(nlmsg_total_size(GENL_HDRLEN + nla_total_size(len)));
	if (!msg)
		return -ENOMEM;
	ret = -EMSGSIZE;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, flags, cmd,
			 LAKE_GENL_VERSION))
		goto out;
	if (attr && nla_put(msg, attr, (int)len, data) < 0)
		goto out;
	pthread_mutex_lock(&nl->send_lock);
	ret = nl->sk ? nl_send_auto(nl->sk, msg) : -NLE_BAD_SOCK;
	if (ret >= 0 && seq)
		*seq = nlmsg_hdr(msg)->nlmsg_seq;
	pthread_mutex_unlock(&nl->send_lock);
	if (ret < 0) {
		laked_log(LOG_ERR, "sending command %u: %s", cmd, nl_geterror(ret));
		ret = -EIO;
		goto out;
	}
	ret = 0;
out:
	nlmsg_free(msg);
	return ret;
}

static int send_replies(struct laked_reply_sink *sink, const void *blob, u32 len)
{
	struct laked_nl *nl = container_of(sink, struct laked_nl, sink);

	return send_cmd(nl, LAKE_CMD_REPLY, LAKE_A_RECORDS, blob, len, 0, NULL);
}

static void keep_early(struct laked_nl *nl, const void *blob, u32 len)
{
	struct early_call *e;

	e = nl->nearly < EARLY_MAX ? malloc(sizeof(*e) + len) : NULL;
	if (!e) {
		laked_log(LOG_ERR, "call before the workers started dropped: the kernel will time it out");
		return;
	}
	e->next = NULL;
	e->len = len;
	memcpy(e->data, blob, len);
	*nl->early_tail = e;
	nl->early_tail = &e->next;
	nl->nearly++;
}

/* The records are copied out: libnl frees the message when nl_recvmsgs returns. */
static void serve_call(struct laked_nl *nl, struct nlattr *records)
{
	u32 len;

	if (!records) {
		laked_log(LOG_WARNING, "call without records ignored");
		return;
	}
	len = (u32)nla_len(records);
	if (len > sizeof(nl->rx))
		return;
	memcpy(nl->rx, nla_data(records), len);
	if (nl->pool)
		laked_pool_submit(nl->pool, nl->rx, len);
	else
		keep_early(nl, nl->rx, len);
}

void laked_nl_serve(struct laked_nl *nl, struct laked_pool *pool)
{
	struct early_call *e;

	nl->pool = pool;
	while ((e = nl->early)) {
		nl->early = e->next;
		laked_pool_submit(pool, e->data, e->len);
		free(e);
	}
	nl->early_tail = &nl->early;
	nl->nearly = 0;
}

struct laked_reply_sink *laked_nl_sink(struct laked_nl *nl)
{
	return &nl->sink;
}

/* lakelib's lake_ping(): the same command and value back. */
static void echo_ping(struct laked_nl *nl, struct nlattr *value)
{
	u64 v = value ? nla_get_u64(value) : 0;

	send_cmd(nl, LAKE_CMD_PING, LAKE_A_VALUE, &v, sizeof(v), 0, NULL);
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct laked_nl *nl = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *attrs[LAKE_A_MAX + 1];
	struct genlmsghdr *gh;
	int ret;

	if (nlmsg_get_src(msg)->nl_pid) {
		laked_log(LOG_WARNING, "message from portid %u ignored: not the kernel",
			  nlmsg_get_src(msg)->nl_pid);
		return NL_SKIP;
	}
	if (nlh->nlmsg_type != nl->family)
		return NL_SKIP;
	ret = genlmsg_parse(nlh, 0, attrs, LAKE_A_MAX, policy);
	if (ret < 0) {
		laked_log(LOG_WARNING, "unparsable message from the kernel: %s", nl_geterror(ret));
		return NL_SKIP;
	}
	gh = nlmsg_data(nlh);
	switch (gh->cmd) {
	case LAKE_CMD_CALL:
		serve_call(nl, attrs[LAKE_A_RECORDS]);
		break;
	case LAKE_CMD_PING:
		echo_ping(nl, attrs[LAKE_A_VALUE]);
		break;
	case LAKE_CMD_RING_SETUP:
		if (nl->waiting && nlh->nlmsg_seq == nl->wait_seq && attrs[LAKE_A_VALUE]) {
			nl->ring_off = nla_get_u64(attrs[LAKE_A_VALUE]);
			nl->ring_answered = true;
		}
		break;
	default:
		laked_log(LOG_WARNING, "command %u from the kernel ignored", gh->cmd);
	}
	return NL_OK;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct laked_nl *nl = arg;

	if (nl->waiting && nlmsg_hdr(msg)->nlmsg_seq == nl->wait_seq) {
		nl->waiting = false;
		nl->wait_err = 0;
	}
	return NL_OK;
}

/*
 * The error in an error message: a -errno, or -EPROTO for anything else
 * (positive, or INT_MIN, whose negation is undefined), since callers log
 * and return it.
 */
static int msg_errno(const struct nlmsgerr *e)
{
	return e->error < 0 && e->error >= -4095 ? e->error : -EPROTO;
}

static int on_error(struct sockaddr_nl *from, struct nlmsgerr *e, void *arg)
{
	struct laked_nl *nl = arg;
	int err = msg_errno(e);
	const char *name = strerrorname_np(-err);

	(void)from;
	if (nl->waiting && e->msg.nlmsg_seq == nl->wait_seq) {
		nl->waiting = false;
		nl->wait_err = err;
	} else if (err == -EPERM || err == -ENOENT) {
		nl->lost = err;
	} else {
		laked_log(LOG_WARNING, "the kernel refused a message (type %u): %s (%d)",
			  e->msg.nlmsg_type, name ? name : "unknown error", err);
	}
	return NL_SKIP;
}

/* Big buffers; beyond rmem_max only with CAP_NET_ADMIN (SO_RCVBUFFORCE). */
static void size_buffers(struct laked_nl *nl)
{
	int fd = nl_socket_get_fd(nl->sk), want = RCVBUF_BYTES;

	if (nl_socket_set_buffer_size(nl->sk, RCVBUF_BYTES, SNDBUF_BYTES) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want)))
		laked_log(LOG_WARNING, "receive buffer below %d bytes: calls may be lost in bursts",
			  RCVBUF_BYTES);
	nl_socket_set_msg_buf_size(nl->sk, MSG_BUF_BYTES);
}

int laked_nl_test_rcvbuf(struct laked_nl *nl, int bytes)
{
	int fd = nl_socket_get_fd(nl->sk);

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)))
		return -errno;
	laked_log(LOG_INFO, "--test-rcvbuf: receive buffer of %d bytes", bytes);
	return 0;
}

/* taskstats' uapi (linux/taskstats.h), by value: its header is not needed otherwise. */
#define TASKSTATS_FAMILY	"TASKSTATS"
#define TASKSTATS_CMD_GET	1
#define TASKSTATS_CMD_ATTR_PID	1

void laked_nl_test_foreign_admin(struct laked_nl *nl)
{
	struct pollfd pfd = { .fd = nl_socket_get_fd(nl->sk), .events = POLLIN };
	int own = nl->family, family, ret;
	u32 pid = 1;

	family = genl_ctrl_resolve(nl->sk, TASKSTATS_FAMILY);
	if (family < 0) {
		laked_log(LOG_ERR, "--test-foreign-admin: no %s family: %s", TASKSTATS_FAMILY,
			  nl_geterror(family));
		return;
	}
	nl->family = family;
	ret = send_cmd(nl, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_PID, &pid, sizeof(pid),
		       NLM_F_ACK, &nl->wait_seq);
	nl->family = own;
	if (ret)
		return;
	nl->waiting = true;
	while (nl->waiting && !ret)
		ret = poll(&pfd, 1, REGISTER_MS) > 0 ? laked_nl_receive(nl) : -ETIMEDOUT;
	if (nl->waiting)
		laked_log(LOG_ERR, "--test-foreign-admin: no answer: %s", strerrorname_np(-ret));
	else
		laked_log(LOG_INFO, "--test-foreign-admin: TASKSTATS_CMD_GET for pid 1 from the registered socket: %s",
			  nl->wait_err ? strerrorname_np(-nl->wait_err) : "answered");
	nl->waiting = false;
}

int laked_nl_open(struct laked_nl **out)
{
	struct laked_nl *nl;
	int ret;

	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	pthread_mutex_init(&nl->send_lock, NULL);
	nl->early_tail = &nl->early;
	nl->sink.flush = send_replies;
	ret = -ENOMEM;
	nl->sk = nl_socket_alloc();
	if (!nl->sk)
		goto err_free;
	nl_socket_disable_seq_check(nl->sk);
	nl_socket_disable_auto_ack(nl->sk);
	ret = genl_connect(nl->sk);
	if (ret < 0) {
		laked_log(LOG_ERR, "generic netlink socket: %s", nl_geterror(ret));
		ret = -EIO;
		goto err_sock;
	}
	nl->family = genl_ctrl_resolve(nl->sk, LAKE_GENL_NAME);
	if (nl->family < 0) {
		laked_log(LOG_ERR, "no \"%s\" generic netlink family (%s): is lakelib.ko loaded?",
			  LAKE_GENL_NAME, nl_geterror(nl->family));
		ret = -ENOENT;
		goto err_sock;
	}
	size_buffers(nl);
	nl_socket_modify_cb(nl->sk, NL_CB_VALID, NL_CB_CUSTOM, on_valid, nl);
	nl_socket_modify_cb(nl->sk, NL_CB_ACK, NL_CB_CUSTOM, on_ack, nl);
	nl_socket_modify_err_cb(nl->sk, NL_CB_CUSTOM, on_error, nl);
	ret = nl_socket_set_nonblocking(nl->sk);
	if (ret < 0) {
		ret = -EIO;
		goto err_sock;
	}
	*out = nl;
	return 0;

err_sock:
	nl_socket_free(nl->sk);
err_free:
	pthread_mutex_destroy(&nl->send_lock);
	free(nl);
	return ret;
}

static long elapsed_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

/* Send @cmd with one attribute and wait for its ack: 0 or the kernel's -errno. */
static int request(struct laked_nl *nl, u8 cmd, int attr, const void *data, u32 len)
{
	struct pollfd pfd = { .fd = nl_socket_get_fd(nl->sk), .events = POLLIN };
	struct timespec start;
	long left;
	int ret;

	ret = send_cmd(nl, cmd, attr, data, len, NLM_F_ACK, &nl->wait_seq);
	if (ret)
		return ret;
	nl->waiting = true;
	clock_gettime(CLOCK_MONOTONIC, &start);
	/* Calls may arrive before the ack: they are served as they come. */
	while (nl->waiting) {
		left = REGISTER_MS - elapsed_ms(&start);
		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			return -errno;
		ret = laked_nl_receive(nl);
		if (ret)
			return ret;
	}
	return nl->wait_err;
}

int laked_nl_register(struct laked_nl *nl, const char *device)
{
	return request(nl, LAKE_CMD_REGISTER, LAKE_A_DEVICE, device, (u32)strlen(device) + 1);
}

int laked_nl_ring_setup(struct laked_nl *nl, int sq_fd, int cq_fd, int watch_fd, u64 *off)
{
	struct lake_genl_ring req = { .sq_fd = sq_fd, .cq_fd = cq_fd, .watch_fd = watch_fd };
	int ret;

	nl->ring_answered = false;
	ret = request(nl, LAKE_CMD_RING_SETUP, LAKE_A_RING, &req, sizeof(req));
	if (!ret && !nl->ring_answered)
		ret = -EPROTO;	/* acked without its offset */
	*off = nl->ring_off;
	return ret;
}

int laked_nl_fd(const struct laked_nl *nl)
{
	return nl_socket_get_fd(nl->sk);
}

int laked_nl_receive(struct laked_nl *nl)
{
	int i, ret;

	for (i = 0; i < BATCH_RECV; i++) {
		ret = nl_recvmsgs_default(nl->sk);
		if (nl->lost) {
			laked_log(LOG_ERR, "the kernel no longer takes laked as its daemon (%s): exiting",
				  strerrorname_np(-nl->lost));
			return -ENOTCONN;
		}
		/*
		 * AGAIN: drained. The socket is non-blocking, and an ENOBUFS
		 * can come with nothing queued behind it.
		 */
		if (ret == 0 || ret == -NLE_AGAIN)
			return 0;
		if (ret == -NLE_NOMEM) {
			/*
			 * ENOBUFS too: a kernel send found the socket full. lakelib
			 * retries it until its call's deadline; past that it fails.
			 */
			laked_log(LOG_ERR, "netlink receive: %s; lakelib retries until timeout_ms",
				  nl_geterror(ret));
			continue;
		}
		if (ret < 0) {
			laked_log(LOG_ERR, "netlink receive: %s", nl_geterror(ret));
			return -EIO;
		}
	}
	return 0;
}

int laked_nl_send_load(struct laked_nl *nl, const struct lake_genl_load *load)
{
	return send_cmd(nl, LAKE_CMD_LOAD, LAKE_A_LOAD, load, sizeof(*load), 0, NULL);
}

void laked_nl_test_drop(struct laked_nl *nl)
{
	pthread_mutex_lock(&nl->send_lock);
	nl_socket_free(nl->sk);
	nl->sk = NULL;
	pthread_mutex_unlock(&nl->send_lock);
}

void laked_nl_unregister(struct laked_nl *nl)
{
	send_cmd(nl, LAKE_CMD_UNREGISTER, 0, NULL, 0, 0, NULL);
}

void laked_nl_close(struct laked_nl *nl)
{
	struct early_call *e;

	if (!nl)
		return;
	while ((e = nl->early)) {
		nl->early = e->next;
		free(e);
	}
	if (nl->sk)
		nl_socket_free(nl->sk);
	pthread_mutex_destroy(&nl->send_lock);
	free(nl);
}
