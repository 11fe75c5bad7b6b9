// SPDX-License-Identifier: GPL-2.0
/*
 * genl_fuzz: the "lake" genl family under hostile senders, in the guest.
 *   genl_fuzz fuzz SEED COUNT    COUNT random and mutated messages, half as
 *                                root, half as nobody (a forked child that
 *                                drops to uid 65534), while laked serves
 *   genl_fuzz daemon SEED COUNT  a fake laked: registers (laked not running)
 *                                and answers each call with hostile replies
 *                                (oversized tails, wrong ids, wrong APIs,
 *                                garbage) before a well-formed one, plus
 *                                random daemon commands; stops after COUNT
 *                                messages or at SIGTERM, then unregisters
 *   genl_fuzz perm               every command of genl.h as the current user,
 *                                each with an attribute the policy refuses:
 *                                admin commands (REGISTER, POLICY_SET) must be
 *                                EPERM as nobody (refused before parsing), the
 *                                rest EINVAL (each command's own policy); as
 *                                root but not the registered daemon, daemon
 *                                commands are refused by lakelib
 * Messages are built by hand on a raw NETLINK_GENERIC socket, so lengths and
 * framing can be wrong too. Answers are drained without waiting: genl runs
 * the handler inside sendmsg, so its ack is queued when send returns.
 * Prints the seed and per-kind counts; the same SEED replays the same run.
 */
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <lake/cuda.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <uapi/lake/genl.h>
#include <uapi/lake/shm.h>
#include <lake/ring.h>
#include <lake/wire.h>
#include "vmtest.h"

#define MSG_MAX		(LAKE_GENL_RECORDS_MAX + 512)
#define RX_MAX		(LAKE_GENL_RECORDS_MAX + 4096)

static int fam;
static uint64_t rng;
static uint32_t seq = 1;
static volatile sig_atomic_t stop;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static uint32_t below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

static void fill(void *p, size_t n)
{
	uint8_t *b = p;

	while (n--)
		*b++ = rnd();
}

/* What the kernel answered one message with. */
enum answer { A_OK, A_EPERM, A_EINVAL, A_EBUSY, A_EOPNOTSUPP, A_OTHER, A_SILENT, A_SENDERR,
	      A_COUNT };
static const char *const answer_name[A_COUNT] = {
	"ok", "EPERM", "EINVAL/ERANGE", "EBUSY", "EOPNOTSUPP", "other", "silent", "send_error",
};

enum kind { K_RANDOM, K_SHAPED, K_MUTATED, K_HOSTILE, K_FINAL, K_COUNT };
static const char *const kind_name[K_COUNT] = {
	"random", "shaped", "mutated", "hostile_reply", "final_reply",
};

struct tally {
	unsigned long sent[K_COUNT];
	unsigned long answer[A_COUNT];
	unsigned long by_cmd[LAKE_CMD_MAX + 2][A_COUNT];	/* last row: unknown cmd, bad header */
	unsigned long data_msgs;	/* replies and dump parts */
	unsigned long calls;		/* daemon mode: calls received */
	unsigned long own_codes;	/* daemon mode: sync calls answered with lakelib's wait codes */
	unsigned long ring_puts;	/* daemon-ring: blobs put in the completion ring */
	unsigned long ring_full;	/* ... or not: the ring stayed full */
};

static struct tally t;

struct msg {
	uint8_t b[MSG_MAX];
	uint32_t len;
	int cmd;
};

static void put_hdr(struct msg *m, int cmd, uint16_t flags)
{
	struct nlmsghdr *nh = (void *)m->b;
	struct genlmsghdr *gh = (void *)(m->b + NLMSG_HDRLEN);

	memset(m->b, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nh->nlmsg_type = fam;
	nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nh->nlmsg_seq = seq++;
	gh->cmd = cmd;
	gh->version = LAKE_GENL_VERSION;
	m->len = NLMSG_HDRLEN + GENL_HDRLEN;
	m->cmd = cmd;
}

/* Append an attribute; returns its start, or NULL when it does not fit. */
static struct nlattr *put_attr(struct msg *m, uint16_t type, const void *data, uint32_t len)
{
	struct nlattr *a = (void *)(m->b + m->len);

	if (m->len + NLA_HDRLEN + NLA_ALIGN(len) > sizeof(m->b) || NLA_HDRLEN + len > 0xffff)
		return NULL;
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (data)
		memcpy((uint8_t *)a + NLA_HDRLEN, data, len);
	else
		fill((uint8_t *)a + NLA_HDRLEN, len);
	memset((uint8_t *)a + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	m->len += NLA_HDRLEN + NLA_ALIGN(len);
	return a;
}

static void finish(struct msg *m)
{
	((struct nlmsghdr *)m->b)->nlmsg_len = m->len;
}

/* A random length, mostly small, sometimes at or past a bound. */
static uint32_t rnd_len(void)
{
	static const uint32_t edge[] = { 0, 1, 3, 4, 7, 8, 39, 40, 41, 127, 128, 129,
					 LAKE_GENL_RECORDS_MAX, LAKE_GENL_RECORDS_MAX + 1 };

	switch (below(4)) {
	case 0:
		return edge[below(sizeof(edge) / sizeof(edge[0]))];
	case 1:
		return below(4096);
	default:
		return below(64);
	}
}

/* Random requests and replies of the wire format, some valid, some not. */
static uint32_t put_records(uint8_t *out, uint32_t room, bool reply)
{
	uint32_t n = 1 + below(4), used = 0, i;

	for (i = 0; i < n; i++) {
		uint32_t hl = reply ? sizeof(struct lake_wire_rep_hdr) :
			sizeof(struct lake_wire_req_hdr);
		uint32_t body = below(3) ? below(64) & ~7u : rnd_len(), len = hl + body;
		uint8_t *r = out + used;

		if (used + len > room)
			break;
		fill(r, len);
		if (reply) {
			struct lake_wire_rep_hdr *h = (void *)r;

			h->api = below(LAKE_API_COUNT + 2);
			h->pad = below(8) ? 0 : h->pad;
			h->len = below(8) ? len : h->len;
			h->tail_len = below(2) ? 0 : below(body + 8);
			h->result = below(2) ? 0 : below(1000);
			h->req_id = below(2) ? below(64) : h->req_id;
		} else {
			struct lake_wire_req_hdr *h = (void *)r;

			h->api = below(LAKE_API_COUNT + 2);
			h->flags = below(3);
			h->pad = 0;
			h->len = below(8) ? len : h->len;
			h->tail_len = below(2) ? 0 : below(body + 8);
		}
		if (below(2))
			memset(r + hl, 0, body);
		used += len;
	}
	return used;
}

/* A message of the family's own shape for @cmd, with random contents. */
static void shaped(struct msg *m, int cmd)
{
	static uint8_t tmp[LAKE_GENL_RECORDS_MAX];
	struct lake_genl_load load;
	struct nlattr *nest;
	uint64_t v = rnd();
	uint32_t n, mode;
	char name[40];

	put_hdr(m, cmd, 0);
	switch (cmd) {
	case LAKE_CMD_REGISTER:
		n = below(2) ? 5 : rnd_len() % 200;
		memset(name, 'f', sizeof(name));
		if (n <= sizeof(name)) {
			name[n ? n - 1 : 0] = 0;
			put_attr(m, LAKE_A_DEVICE, name, n);
		} else {
			put_attr(m, LAKE_A_DEVICE, NULL, n);
		}
		break;
	case LAKE_CMD_CALL:
	case LAKE_CMD_REPLY:
		n = put_records(tmp, below(8) ? 1024 : sizeof(tmp), cmd == LAKE_CMD_REPLY);
		put_attr(m, LAKE_A_RECORDS, tmp, n ? n : rnd_len());
		break;
	case LAKE_CMD_LOAD:
		fill(&load, sizeof(load));
		if (below(2)) {
			load.flags &= LAKE_LOAD_F_ALL;
			load.util_pct %= 101;
			load.period_ms = 1 + below(1000);
			load.pad = 0;
		}
		put_attr(m, LAKE_A_LOAD, &load, below(6) ? sizeof(load) : rnd_len() % 64);
		break;
	case LAKE_CMD_PING:
		put_attr(m, LAKE_A_VALUE, &v, below(6) ? 8 : below(16));
		break;
	case LAKE_CMD_RING_SETUP:
		/* fds of this process, or none: never two eventfds */
		n = (uint32_t)v;
		put_attr(m, LAKE_A_RING, &(struct lake_genl_ring){ .sq_fd = (int32_t)(n % 8) - 1,
								    .cq_fd = (int32_t)(n >> 8),
								    .watch_fd = (int32_t)(n >> 16) },
			 below(6) ? sizeof(struct lake_genl_ring) : below(16));
		break;
	case LAKE_CMD_POLICY_GET:
	case LAKE_CMD_REGISTRY_GET:
		((struct nlmsghdr *)m->b)->nlmsg_flags |= below(6) ? NLM_F_DUMP : 0;
		break;
	case LAKE_CMD_POLICY_SET:
		nest = put_attr(m, LAKE_A_POLICY | (below(4) ? NLA_F_NESTED : 0), NULL, 0);
		snprintf(name, sizeof(name), "%s", below(4) ? "gfuzz_none" : "example_vadd");
		put_attr(m, LAKE_POLICY_A_NAME, name, below(6) ? strlen(name) + 1 : rnd_len() % 40);
		mode = below(5);
		if (below(2))
			put_attr(m, LAKE_POLICY_A_MODE, &mode, 4);
		if (below(2))
			put_attr(m, LAKE_POLICY_A_CROSSOVER, NULL, below(6) ? 4 : below(9));
		if (below(4))
			put_attr(m, below(LAKE_POLICY_A_MAX + 3), NULL, rnd_len() % 16);
		nest->nla_len = (uint8_t *)m->b + m->len - (uint8_t *)nest;
		break;
	}
	if (!below(6))
		put_attr(m, below(LAKE_A_MAX + 3), NULL, rnd_len() % 256);
	finish(m);
}

static void random_msg(struct msg *m)
{
	uint32_t i, n = below(7);

	put_hdr(m, below(LAKE_CMD_MAX + 4), below(4) ? 0 : NLM_F_DUMP);
	((struct genlmsghdr *)(m->b + NLMSG_HDRLEN))->version = below(3) ? 1 : rnd();
	for (i = 0; i < n; i++)
		put_attr(m, (below(4) ? 0 : NLA_F_NESTED) | below(LAKE_A_MAX + 4), NULL,
			 rnd_len());
	finish(m);
}

/* Damage a shaped message: bytes, lengths, truncation, extension. */
static void mutate(struct msg *m)
{
	static const uint8_t interesting[] = { 0, 1, 0x7f, 0x80, 0xff };
	uint32_t i, n = 1 + below(6), at;

	for (i = 0; i < n; i++) {
		at = NLMSG_HDRLEN + below(m->len - NLMSG_HDRLEN);
		switch (below(6)) {
		case 0:
			m->b[at] ^= 1 << below(8);
			break;
		case 1:
			m->b[at] = interesting[below(sizeof(interesting))];
			break;
		case 2:	/* a 16-bit length field, if that is one */
			if (at + 2 <= m->len)
				memcpy(m->b + at, &(uint16_t){ below(2) ? below(64) : rnd() }, 2);
			break;
		case 3:
			if (m->len > NLMSG_HDRLEN + 1)
				m->len -= 1 + below(m->len - NLMSG_HDRLEN - 1);
			break;
		case 4:
			at = below(64);
			if (m->len + at <= sizeof(m->b)) {
				fill(m->b + m->len, at);
				m->len += at;
			}
			break;
		default:
			m->b[NLMSG_HDRLEN + below(GENL_HDRLEN)] = rnd();
			break;
		}
	}
	finish(m);
	/*
	 * Framing the kernel drops unread. Never shorter than the message but
	 * past its header: the rest would be read as a message to whatever
	 * family its bytes name.
	 */
	if (!below(32))
		((struct nlmsghdr *)m->b)->nlmsg_len = below(2) ? below(NLMSG_HDRLEN) :
			m->len + 1 + below(64);
}

static enum answer errno_answer(int err)
{
	switch (err) {
	case 0: return A_OK;
	case EPERM: return A_EPERM;
	case EINVAL: case ERANGE: return A_EINVAL;
	case EBUSY: return A_EBUSY;
	case EOPNOTSUPP: return A_EOPNOTSUPP;
	default: return A_OTHER;
	}
}

static int daemon_fd;	/* daemon mode: calls arrive on the same socket */

/* daemon-ring mode: the command ring, as a compromised laked holds it. */
static struct {
	bool on, answered;
	int sq_fd, cq_fd, watch_fd;
	u64 off;
	struct lake_ring sq, cq;
} ring;

/* Calls received while sending, answered from the main loop (FIFO). */
struct pending {
	struct pending *next;
	uint32_t len;
	uint8_t blob[];
};
static struct pending *queue_head, **queue_tail = &queue_head;

static void queue_call(const void *blob, uint32_t len)
{
	struct pending *p = malloc(sizeof(*p) + len);

	if (!p) {
		perror("genl_fuzz: malloc");
		exit(2);
	}
	p->next = NULL;
	p->len = len;
	memcpy(p->blob, blob, len);
	*queue_tail = p;
	queue_tail = &p->next;
}

/* Read what is queued; the answer to @seq, or A_SILENT if none came. */
static enum answer drain(int fd, uint32_t want)
{
	static uint8_t rx[RX_MAX];
	enum answer ans = A_SILENT;
	struct nlmsghdr *nh;
	ssize_t n;
	int len;

	while ((n = recv(fd, rx, sizeof(rx), MSG_DONTWAIT)) > 0) {
		len = n;
		for (nh = (void *)rx; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_type == NLMSG_ERROR && nh->nlmsg_seq == want) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				ans = errno_answer(-e->error);
			} else if (nh->nlmsg_type == NLMSG_DONE && nh->nlmsg_seq == want) {
				ans = A_OK;
			} else if (nh->nlmsg_type == fam && !nh->nlmsg_seq && daemon_fd == fd) {
				struct genlmsghdr *gh = NLMSG_DATA(nh);
				struct nlattr *a = (void *)((uint8_t *)gh + GENL_HDRLEN);

				if (gh->cmd == LAKE_CMD_CALL && a->nla_type == LAKE_A_RECORDS)
					queue_call((uint8_t *)a + NLA_HDRLEN,
						   a->nla_len - NLA_HDRLEN);
			} else if (nh->nlmsg_type == fam && nh->nlmsg_seq == want && daemon_fd == fd &&
				   ((struct genlmsghdr *)NLMSG_DATA(nh))->cmd == LAKE_CMD_RING_SETUP) {
				struct nlattr *a = (void *)((uint8_t *)NLMSG_DATA(nh) + GENL_HDRLEN);

				if (a->nla_type == LAKE_A_VALUE && a->nla_len == NLA_HDRLEN + 8) {
					memcpy(&ring.off, (uint8_t *)a + NLA_HDRLEN, 8);
					ring.answered = true;
				}
			} else if (nh->nlmsg_type == fam) {
				t.data_msgs++;
			}
		}
	}
	return ans;
}

static enum answer send_msg(int fd, struct msg *m, enum kind k)
{
	static const struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	uint32_t want = ((struct nlmsghdr *)m->b)->nlmsg_seq;
	int row = LAKE_CMD_MAX + 1;
	enum answer a;

	/*
	 * Counted under the command it carries after mutation, if its genl
	 * header is whole and valid (reserved zero), as genl checks first.
	 */
	if (m->len >= NLMSG_HDRLEN + GENL_HDRLEN && m->b[NLMSG_HDRLEN] <= LAKE_CMD_MAX &&
	    !((struct genlmsghdr *)(m->b + NLMSG_HDRLEN))->reserved)
		row = m->b[NLMSG_HDRLEN];

	t.sent[k]++;
	if (sendto(fd, m->b, m->len, 0, (const void *)&kernel, sizeof(kernel)) < 0)
		a = A_SENDERR;
	else
		a = drain(fd, want);
	t.answer[a]++;
	t.by_cmd[row][a]++;
	return a;
}

static int open_sock(void)
{
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	int one = 1, big = 1 << 20;

	if (fd < 0 || bind(fd, (void *)&me, sizeof(me)))
		return -1;
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	return fd;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void report(const char *who, double secs)
{
	unsigned long sent = 0;
	int i, c;

	for (i = 0; i < K_COUNT; i++)
		sent += t.sent[i];
	printf("# gfuzz %s: %lu messages in %.1f s (", who, sent, secs);
	for (i = 0; i < K_COUNT; i++)
		if (t.sent[i])
			printf(" %s %lu", kind_name[i], t.sent[i]);
	printf(" ); answers:");
	for (i = 0; i < A_COUNT; i++)
		printf(" %s %lu", answer_name[i], t.answer[i]);
	printf("; data replies %lu", t.data_msgs);
	if (ring.on)
		printf("; ring puts %lu (full %lu)", t.ring_puts, t.ring_full);
	if (t.calls)
		printf("; calls answered %lu", t.calls);
	printf("\n");
	for (c = 0; c <= LAKE_CMD_MAX + 1; c++) {
		if (c <= LAKE_CMD_MAX)
			printf("# gfuzz %s: cmd %d:", who, c);
		else
			printf("# gfuzz %s: cmd >%d or bad genl header:", who, LAKE_CMD_MAX);
		for (i = 0; i < A_COUNT; i++)
			if (t.by_cmd[c][i])
				printf(" %s %lu", answer_name[i], t.by_cmd[c][i]);
		printf("\n");
	}
	fflush(stdout);
}

/* Commands that need CAP_NET_ADMIN (GENL_ADMIN_PERM). */
static bool admin_cmd(int cmd)
{
	return cmd == LAKE_CMD_REGISTER || cmd == LAKE_CMD_POLICY_SET;
}

/* Commands only laked may send: admin ones, and those of the registered socket only. */
static bool daemon_cmd(int cmd)
{
	return admin_cmd(cmd) || cmd == LAKE_CMD_UNREGISTER || cmd == LAKE_CMD_REPLY ||
	       cmd == LAKE_CMD_LOAD || cmd == LAKE_CMD_RING_SETUP;
}

static void fuzz_as(const char *who, int fd, unsigned long count)
{
	double t0 = now();
	struct msg m;
	unsigned long i;
	enum answer a;

	for (i = 0; i < count; i++) {
		enum kind k = below(3);

		if (k == K_RANDOM) {
			random_msg(&m);
		} else {
			shaped(&m, 1 + below(LAKE_CMD_MAX));
			if (k == K_MUTATED)
				mutate(&m);
		}
		a = send_msg(fd, &m, k);
		/* Never the daemon: a successful registration is a hole. */
		if (a == A_OK && m.len >= NLMSG_HDRLEN + GENL_HDRLEN &&
		    m.b[NLMSG_HDRLEN] == LAKE_CMD_REGISTER) {
			printf("# gfuzz %s: message %lu registered us as the daemon\n", who, i);
			shaped(&m, LAKE_CMD_UNREGISTER);
			send_msg(fd, &m, K_SHAPED);
		}
	}
	report(who, now() - t0);
}

static int fuzz(unsigned long count)
{
	unsigned long eperm_miss = 0;
	int fd, status, c;
	pid_t child;

	fflush(stdout);
	child = fork();
	if (child < 0)
		return 2;
	if (!child) {
		rng = rnd() ^ 0x9e3779b97f4a7c15ULL;
		if (setgid(65534) || setuid(65534)) {
			perror("genl_fuzz: setuid");
			_exit(2);
		}
		fd = open_sock();
		if (fd < 0)
			_exit(2);
		fuzz_as("nobody", fd, count / 2);
		/*
		 * Whatever its attributes, an admin command from nobody is EPERM;
		 * the registered socket's commands are EPERM or, malformed, EINVAL.
		 */
		for (c = 0; c <= LAKE_CMD_MAX; c++)
			if (daemon_cmd(c))
				eperm_miss += t.by_cmd[c][A_OK] + t.by_cmd[c][A_EBUSY] +
					(admin_cmd(c) ? t.by_cmd[c][A_EINVAL] : 0) +
					t.by_cmd[c][A_OTHER];
		CHECK(!eperm_miss, "gfuzz.nobody_daemon_cmds_eperm", "%lu answered otherwise",
		      eperm_miss);
		CHECK(!t.by_cmd[LAKE_CMD_REGISTER][A_OK], "gfuzz.nobody_never_registers", "");
		fflush(stdout);
		_exit(vmt_failed ? 1 : 0);
	}
	fd = open_sock();
	if (fd < 0)
		return 2;
	fuzz_as("root", fd, count - count / 2);
	CHECK(!t.by_cmd[LAKE_CMD_REGISTER][A_OK], "gfuzz.root_never_registers",
	      "%lu registrations taken", t.by_cmd[LAKE_CMD_REGISTER][A_OK]);
	/* Not the registered daemon: unregister, reply and load are refused. */
	CHECK(!t.by_cmd[LAKE_CMD_UNREGISTER][A_OK] && !t.by_cmd[LAKE_CMD_REPLY][A_OK] &&
	      !t.by_cmd[LAKE_CMD_LOAD][A_OK], "gfuzz.root_daemon_cmds_refused",
	      "unregister %lu reply %lu load %lu accepted", t.by_cmd[LAKE_CMD_UNREGISTER][A_OK],
	      t.by_cmd[LAKE_CMD_REPLY][A_OK], t.by_cmd[LAKE_CMD_LOAD][A_OK]);
	if (waitpid(child, &status, 0) != child)
		status = -1;
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "gfuzz.nobody_run", "status %#x",
	      status);
	return 0;
}

/* --- daemon mode: a compromised laked answering the consumer's calls --- */

static uint32_t put_raw_rep(uint8_t *out, uint16_t api, uint64_t id, uint32_t result,
			    uint32_t fixed, uint32_t tail)
{
	struct lake_wire_rep_hdr h = { .api = api, .tail_len = tail, .result = result,
				       .req_id = id };
	uint32_t len = (sizeof(h) + fixed + tail + 7) & ~7u;

	h.len = len;
	memset(out, 0, len);
	memcpy(out, &h, sizeof(h));
	memset(out + sizeof(h), 0, fixed);	/* zero pads: the iterator may pass it */
	memset(out + sizeof(h) + fixed, 'x', tail);
	if (tail)	/* and a C string tail stays one */
		out[sizeof(h) + fixed + tail - 1] = 0;
	return len;
}

static void ring_kick(void)
{
	uint64_t one = 1;

	if (write(ring.cq_fd, &one, sizeof(one)) != sizeof(one))
		perror("genl_fuzz: eventfd");
}

/* One blob in the completion ring, as laked's sink puts it: 0, or -1 if it stayed full. */
static int ring_send(const void *rec, uint32_t len)
{
	int i, ret;

	for (i = 0; i < 1000; i++) {
		ret = lake_ring_put(&ring.cq, rec, len);
		if (ret != -ENOSPC)
			break;
		ring_kick();	/* the kernel reaps in the write */
		usleep(100);
	}
	if (ret)
		return -1;
	t.ring_puts++;
	if (lake_ring_consumer_sleeps(&ring.cq))
		ring_kick();
	return 0;
}

static void send_records(const void *rec, uint32_t len, enum kind k)
{
	struct msg m;

	if (ring.on) {
		if (!len)
			return;	/* nothing encodable: 8 zero bytes would be a violation */
		t.sent[k]++;
		if (ring_send(rec, len))
			t.ring_full++;
		return;
	}

	put_hdr(&m, LAKE_CMD_REPLY, 0);
	put_attr(&m, LAKE_A_RECORDS, rec, len ? len : 8);
	finish(&m);
	send_msg(daemon_fd, &m, k);
}

static const uint32_t lakelib_codes[] = {
	CUDA_ERROR_TIMEOUT, CUDA_ERROR_OPERATING_SYSTEM, CUDA_ERROR_NO_DEVICE,
	CUDA_ERROR_DEVICE_UNAVAILABLE, CUDA_ERROR_UNKNOWN, CUDA_ERROR_INVALID_VALUE,
};

/* The reply laked could have sent: success with random values, or failure. */
static uint32_t final_rep(uint8_t *out, const struct lake_wire_req *req)
{
	const struct lake_wire_api_desc *d = lake_wire_api(req->api);
	struct lake_wire_buf buf = { .data = out, .size = LAKE_WIRE_RECORD_MAX };
	struct lake_wire_rep rep = { .api = req->api, .req_id = req->req_id };
	static char name[LAKE_WIRE_DEVICE_NAME_MAX];
	static uint8_t data[LAKE_WIRE_INLINE_MAX];
	const char *why;

	if (below(3)) {
		rep.res.handle.handle = 1 + below(1 << 20);
		if (req->api == LAKE_API_MEMCPY_DTOH || req->api == LAKE_API_MEMCPY_DTOH_ASYNC) {
			if (req->args.memcpy.where == LAKE_WIRE_INLINE) {
				fill(data, sizeof(data));
				rep.tail = data;
				rep.tail_len = req->args.memcpy.bytes;
			}
		} else if (d->rep_tail == LAKE_WIRE_TAIL_CSTRING) {
			memset(name, 'n', sizeof(name));
			rep.tail_len = 2 + below(sizeof(name) - 1);
			name[rep.tail_len - 1] = 0;
			rep.tail = name;
		}
		if (!lake_wire_put_rep(&buf, &rep, &why))
			return buf.len;
		buf.len = 0;
	}
	/* Often a code lakelib itself uses for a wait that got no reply. */
	rep.result = below(2) ? lakelib_codes[below(sizeof(lakelib_codes) /
						     sizeof(lakelib_codes[0]))] : 1 + below(999);
	rep.tail = NULL;
	rep.tail_len = 0;
	memset(&rep.res, 0, sizeof(rep.res));
	if (lake_wire_put_rep(&buf, &rep, &why))
		rep.result = CUDA_ERROR_UNKNOWN;
	return buf.len;
}

/* A failure reply with @code and nothing else. */
static uint32_t code_rep(uint8_t *out, const struct lake_wire_req *req, uint32_t code)
{
	struct lake_wire_rep rep = { .api = req->api, .req_id = req->req_id, .result = code };
	struct lake_wire_buf buf = { .data = out, .size = LAKE_WIRE_RECORD_MAX };
	const char *why;

	return lake_wire_put_rep(&buf, &rep, &why) ? 0 : buf.len;
}

static const uint32_t ring_cases[] = { 1, 2, 4 };

static void on_call(const void *blob, uint32_t len)
{
	static uint8_t rec[LAKE_GENL_RECORDS_MAX];
	struct lake_wire_iter it;
	struct lake_wire_req req, other;
	uint32_t n, i, hostile;

	lake_wire_iter_init(&it, blob, len);
	while (lake_wire_next_req(&it, &req) > 0) {
		const struct lake_wire_api_desc *d = lake_wire_api(req.api);

		t.calls++;
		hostile = below(4);
		for (i = 0; i < hostile; i++) {
			/*
			 * On the ring only what the codec accepts: a malformed
			 * record there (an over-long tail, random bytes) is a
			 * violation that fences laked at once (26-ring.sh).
			 */
			switch (ring.on ? ring_cases[below(3)] : below(5)) {
			case 0:	/* a parse-valid tail longer than the call asked for */
				n = put_raw_rep(rec, req.api, req.req_id, 0, d->rep_size,
						d->rep_tail_max ? d->rep_tail_max :
						LAKE_WIRE_INLINE_MAX);
				break;
			case 1:	/* another call's id */
				n = final_rep(rec, &req);
				((struct lake_wire_rep_hdr *)rec)->req_id += 1 + below(3);
				break;
			case 2:	/* another API's answer, a full inline copy or not */
				other = req;
				memset(&other.args, 0, sizeof(other.args));
				other.args.memcpy.where = LAKE_WIRE_INLINE;
				other.args.memcpy.bytes = LAKE_WIRE_INLINE_MAX;
				other.api = req.api % (LAKE_API_COUNT - 1) + 1 + below(2);
				if (other.api >= LAKE_API_COUNT || other.api == req.api)
					other.api = LAKE_API_MEMCPY_DTOH + (req.api ==
									    LAKE_API_MEMCPY_DTOH);
				n = final_rep(rec, &other);
				break;
			case 3:
				n = put_records(rec, sizeof(rec), true);
				break;
			default:	/* the truth twice: the second is stray */
				n = final_rep(rec, &req);
				break;
			}
			send_records(rec, n, K_HOSTILE);
		}
		if (req.flags & LAKE_WIRE_REQ_F_NOREPLY)
			continue;
		n = final_rep(rec, &req);
		/*
		 * Every fifth sync call answered with a code lakelib's own wait
		 * returns (timeout, caller killed): an answer all the same, never
		 * a reason to fence. Counted, so that it is known to happen.
		 */
		if (!(d->flags & LAKE_WIRE_ASYNC) && t.calls % 5 == 0)
			n = code_rep(rec, &req, lakelib_codes[t.own_codes++ % 2]);
		send_records(rec, n, K_FINAL);
	}
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * daemon-ring: map the region and ask for the ring, as laked does; calls
 * then come in the submission ring and every answer, hostile or not, goes
 * in the completion ring. 0, or 2 (said why).
 */
static int ring_setup(void)
{
	struct lake_genl_ring req;
	struct lake_shm_info info;
	struct msg m;
	void *map;
	int fd;

	fd = open("/dev/lake_shm", O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, LAKE_SHM_IOC_INFO, &info)) {
		perror("genl_fuzz: /dev/lake_shm");
		return 2;
	}
	map = mmap(NULL, info.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	ring.sq_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ring.cq_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ring.watch_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (map == MAP_FAILED || ring.sq_fd < 0 || ring.cq_fd < 0 || ring.watch_fd < 0) {
		perror("genl_fuzz: ring");
		return 2;
	}
	req = (struct lake_genl_ring){ .sq_fd = ring.sq_fd, .cq_fd = ring.cq_fd,
				       .watch_fd = ring.watch_fd };
	put_hdr(&m, LAKE_CMD_RING_SETUP, 0);
	put_attr(&m, LAKE_A_RING, &req, sizeof(req));
	finish(&m);
	CHECK(send_msg(daemon_fd, &m, K_SHAPED) == A_OK && ring.answered &&
	      ring.off + LAKE_RING_BYTES <= info.size, "gfuzz.daemon_ring_setup",
	      "offset %llu", (unsigned long long)ring.off);
	if (!ring.answered)
		return 2;
	lake_ring_init(&ring.sq, (uint8_t *)map + ring.off, true);
	lake_ring_init(&ring.cq, (uint8_t *)map + ring.off, false);
	ring.on = true;
	return 0;
}

/* Calls from the submission ring, queued as the socket's are; true if any. */
static bool ring_take(void)
{
	static uint8_t blob[LAKE_RING_DATA_MAX];
	uint64_t cnt;
	bool any = false;
	uint32_t len;

	if (read(ring.sq_fd, &cnt, sizeof(cnt)) < 0)
		cnt = 0;
	if (read(ring.watch_fd, &cnt, sizeof(cnt)) < 0)
		cnt = 0;
	while (lake_ring_take(&ring.sq, blob, sizeof(blob), &len) > 0) {
		queue_call(blob, len);
		any = true;
	}
	return any;
}

static int fake_daemon(unsigned long count, bool use_ring)
{
	struct lake_genl_load load = { .period_ms = 10 };
	struct pollfd p[3];
	double t0 = now();
	struct msg m;
	int n;

	signal(SIGTERM, on_term);
	daemon_fd = p[0].fd = open_sock();
	if (daemon_fd < 0)
		return 2;
	p[0].events = POLLIN;
	put_hdr(&m, LAKE_CMD_REGISTER, 0);
	put_attr(&m, LAKE_A_DEVICE, "gfuzz", 6);
	finish(&m);
	CHECK(send_msg(daemon_fd, &m, K_SHAPED) == A_OK, "gfuzz.daemon_registers", "");
	if (use_ring && ring_setup())
		return 2;
	p[1].fd = ring.on ? ring.sq_fd : -1;
	p[1].events = POLLIN;
	p[2].fd = ring.on ? ring.watch_fd : -1;
	p[2].events = POLLIN;
	printf("LAKE_GFUZZ_REGISTERED\n");
	fflush(stdout);
	while (!stop && t.sent[K_RANDOM] + t.sent[K_SHAPED] + t.sent[K_MUTATED] +
	       t.sent[K_HOSTILE] + t.sent[K_FINAL] < count) {
		if (queue_head) {
			struct pending *c = queue_head;

			queue_head = c->next;
			if (!queue_head)
				queue_tail = &queue_head;
			on_call(c->blob, c->len);
			free(c);
			continue;
		}
		if (ring.on && ring_take())
			continue;
		/* Asleep, on either eventfd: the watch hint is the daemon's to give. */
		if (ring.on)
			lake_ring_cons_flags(&ring.sq, LAKE_RING_SLEEPING |
						       (below(2) ? LAKE_RING_WATCHED : 0));
		if (ring.on && lake_ring_pending(&ring.sq)) {
			lake_ring_sleeping(&ring.sq, false);
			continue;
		}
		n = poll(p, ring.on ? 3 : 1, 20);
		if (ring.on)
			lake_ring_sleeping(&ring.sq, false);
		if (n > 0 && p[0].revents) {
			drain(daemon_fd, 0);
			continue;
		}
		if (n > 0)
			continue;
		/* Idle: other daemon commands, damaged or not. */
		switch (below(4)) {
		case 0:
			shaped(&m, LAKE_CMD_LOAD);
			break;
		case 1:
			shaped(&m, LAKE_CMD_PING);
			break;
		case 2:
			shaped(&m, LAKE_CMD_REPLY);
			break;
		default:
			shaped(&m, LAKE_CMD_REPLY);
			mutate(&m);
			break;
		}
		send_msg(daemon_fd, &m, K_MUTATED);
	}
	put_hdr(&m, LAKE_CMD_LOAD, 0);
	put_attr(&m, LAKE_A_LOAD, &load, sizeof(load));
	finish(&m);
	CHECK(send_msg(daemon_fd, &m, K_SHAPED) == A_OK, "gfuzz.daemon_still_registered", "");
	printf("# fake daemon: %lu sync calls answered with lakelib's own wait codes\n",
	       t.own_codes);
	CHECK(t.own_codes > 0, "gfuzz.daemon_answered_wait_codes", "%lu", t.own_codes);
	report("daemon", now() - t0);
	put_hdr(&m, LAKE_CMD_UNREGISTER, 0);
	finish(&m);
	CHECK(send_msg(daemon_fd, &m, K_SHAPED) == A_OK, "gfuzz.daemon_unregisters", "");
	return 0;
}

/* --- perm: each command of genl.h, with an attribute its policy refuses --- */

_Static_assert(LAKE_CMD_MAX == LAKE_CMD_RING_SETUP,
	       "a new command: classify it in perm() below");

static int perm(void)
{
	bool root = !getuid();
	int cmd;

	for (cmd = 1; cmd <= LAKE_CMD_MAX; cmd++) {
		bool dump = cmd == LAKE_CMD_POLICY_GET || cmd == LAKE_CMD_REGISTRY_GET;
		enum answer want, got;
		char name[64];
		struct msg m;

		/* LAKE_A_LOAD one byte short: refused by the policy if parsed. */
		put_hdr(&m, cmd, dump ? NLM_F_DUMP : 0);
		put_attr(&m, LAKE_A_LOAD, NULL, sizeof(struct lake_genl_load) - 1);
		finish(&m);
		got = send_msg(daemon_fd, &m, K_SHAPED);
		if (cmd == LAKE_CMD_CALL)
			want = A_EOPNOTSUPP;	/* kernel -> daemon only */
		else if (admin_cmd(cmd) && !root)
			want = A_EPERM;		/* GENL_ADMIN_PERM, before any parsing */
		else
			want = A_EINVAL;
		snprintf(name, sizeof(name), "gfuzz.perm_%s_cmd%d", root ? "root" : "nobody", cmd);
		CHECK(got == want, name, "answered %s, want %s", answer_name[got],
		      answer_name[want]);
		if (!root || !daemon_cmd(cmd) || cmd == LAKE_CMD_POLICY_SET)
			continue;
		/* Well formed, from root, not the registered daemon: refused. */
		shaped(&m, cmd);
		m.len = NLMSG_HDRLEN + GENL_HDRLEN;
		if (cmd == LAKE_CMD_REGISTER)
			put_attr(&m, LAKE_A_DEVICE, "gfuzz", 6);
		else if (cmd == LAKE_CMD_LOAD)
			put_attr(&m, LAKE_A_LOAD, &(struct lake_genl_load){ .period_ms = 10 },
				 sizeof(struct lake_genl_load));
		else if (cmd == LAKE_CMD_REPLY)
			put_attr(&m, LAKE_A_RECORDS, NULL, 8);
		else if (cmd == LAKE_CMD_RING_SETUP)
			put_attr(&m, LAKE_A_RING, &(struct lake_genl_ring){ .sq_fd = -1, .cq_fd = -1 },
				 sizeof(struct lake_genl_ring));
		finish(&m);
		got = send_msg(daemon_fd, &m, K_SHAPED);
		want = cmd == LAKE_CMD_REGISTER ? A_EBUSY : A_EPERM;
		snprintf(name, sizeof(name), "gfuzz.perm_root_not_daemon_cmd%d", cmd);
		CHECK(got == want, name, "answered %s, want %s", answer_name[got],
		      answer_name[want]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long count = argc > 3 ? strtoul(argv[3], NULL, 0) : 0;
	struct nl_sock *sk;
	int ret;

	if (argc < 2 || (strcmp(argv[1], "perm") && argc != 4)) {
		fprintf(stderr, "usage: genl_fuzz fuzz|daemon|daemon-ring SEED COUNT | genl_fuzz perm\n");
		return 2;
	}
	rng = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	printf("# gfuzz: %s seed %llu count %lu\n", argv[1], (unsigned long long)rng, count);
	rng = rng * 0x9e3779b97f4a7c15ULL + 1;	/* never 0 */
	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk) || (fam = genl_ctrl_resolve(sk, LAKE_GENL_NAME)) < 0) {
		fprintf(stderr, "genl_fuzz: no genl family %s\n", LAKE_GENL_NAME);
		return 2;
	}
	nl_socket_free(sk);
	if (!strcmp(argv[1], "fuzz")) {
		ret = fuzz(count);
	} else if (!strcmp(argv[1], "daemon") || !strcmp(argv[1], "daemon-ring")) {
		ret = fake_daemon(count, !strcmp(argv[1], "daemon-ring"));
	} else if (!strcmp(argv[1], "perm")) {
		daemon_fd = open_sock();
		ret = daemon_fd < 0 ? 2 : perm();
	} else {
		fprintf(stderr, "genl_fuzz: unknown mode %s\n", argv[1]);
		return 2;
	}
	return ret ? ret : vmt_end();
}
