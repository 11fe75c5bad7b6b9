// SPDX-License-Identifier: GPL-2.0
/*
 * portid_spin UID PORTID SECONDS: what any local user can try while laked
 * dies. As UID, in the initial namespace, bind a NETLINK_GENERIC socket to
 * laked's PORTID (shown by lakectl status to anyone) over and over until it
 * is free, then, from it: forge a REPLY (lakelib must refuse it: EPERM,
 * the socket is not laked's), and listen until SECONDS have passed since
 * the start, echoing any PING as laked would. Nothing may arrive: no CALL,
 * no PING. /tmp/spin.bound appears once bound, for the case to make calls
 * then. Exit 0 iff every check passed.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sched.h>
#include <time.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <uapi/lake/genl.h>
#include "vmtest.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int resolve(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	int fam;

	if (!sk || genl_connect(sk))
		return -1;
	fam = genl_ctrl_resolve(sk, LAKE_GENL_NAME);
	nl_socket_free(sk);
	return fam;
}

/* A lake command with one attribute; the kernel acks (or refuses) it by @seq. */
static int send_lake(int fd, int fam, int cmd, unsigned int seq, int attr, const void *data,
		     unsigned int len)
{
	char buf[256] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct genlmsghdr *gh = NLMSG_DATA(nlh);
	struct nlattr *a = (struct nlattr *)((char *)gh + GENL_HDRLEN);

	memset(buf, 0, sizeof(buf));
	a->nla_type = (unsigned short)attr;
	a->nla_len = (unsigned short)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	nlh->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + NLA_ALIGN(a->nla_len));
	nlh->nlmsg_type = (unsigned short)fam;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	gh->cmd = (unsigned char)cmd;
	gh->version = LAKE_GENL_VERSION;
	return send(fd, buf, nlh->nlmsg_len, 0) < 0 ? -errno : 0;
}

int main(int argc, char **argv)
{
	static const unsigned char garbage[32] = { 0xff, 0xff, 0x10 };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	unsigned long tries = 0, calls = 0, pings = 0, other = 0;
	int fam, fd = -1, uid, forged = 1, bound = 0;
	double start = now(), secs;
	char buf[65536] __attribute__((aligned(NLMSG_ALIGNTO)));

	if (argc != 4) {
		fprintf(stderr, "usage: portid_spin UID PORTID SECONDS\n");
		return 2;
	}
	uid = atoi(argv[1]);
	sa.nl_pid = (unsigned int)strtoul(argv[2], NULL, 10);
	secs = atof(argv[3]);
	fam = resolve();
	if (fam < 0 || setgid(uid) || setuid(uid)) {
		fprintf(stderr, "portid_spin: no lake family, or setuid failed\n");
		return 2;
	}
	printf("# portid_spin: spinning on portid %u as uid %d\n", sa.nl_pid, uid);
	fflush(stdout);
	while (!bound && now() - start < secs) {
		tries++;
		fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
		if (fd < 0)
			break;
		if (!bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			bound = 1;
			break;
		}
		close(fd);
		fd = -1;
		sched_yield();
	}
	CHECK(bound, "portid.bound", "portid %u never free in %.1f s (%lu tries)", sa.nl_pid,
	      secs, tries);
	if (bound) {
		close(open("/tmp/spin.bound", O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
		printf("# portid_spin: bound after %lu tries, %.3f s\n", tries, now() - start);
		forged = send_lake(fd, fam, LAKE_CMD_REPLY, 1, LAKE_A_RECORDS, garbage,
				   sizeof(garbage));
	}
	while (bound && now() - start < secs) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct nlmsghdr *nlh;
		ssize_t n;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0)
			continue;
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, (unsigned int)n);
		     nlh = NLMSG_NEXT(nlh, n)) {
			struct genlmsghdr *gh = NLMSG_DATA(nlh);

			if (nlh->nlmsg_type == NLMSG_ERROR && nlh->nlmsg_seq == 1) {
				forged = ((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
				continue;
			}
			if (nlh->nlmsg_type == NLMSG_ERROR && nlh->nlmsg_seq == 2)
				continue;	/* the kernel's answer to an echo */
			if (nlh->nlmsg_type != fam) {
				other++;
			} else if (gh->cmd == LAKE_CMD_CALL) {
				calls++;
			} else if (gh->cmd == LAKE_CMD_PING) {
				struct nlattr *a = (struct nlattr *)((char *)gh + GENL_HDRLEN);
				unsigned long long v = 0;

				pings++;
				if (nlh->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN + NLA_HDRLEN + 8))
					memcpy(&v, (char *)a + NLA_HDRLEN, sizeof(v));
				send_lake(fd, fam, LAKE_CMD_PING, 2, LAKE_A_VALUE, &v, sizeof(v));
			} else {
				other++;
			}
		}
	}
	if (bound) {
		CHECK(forged == -EPERM, "portid.forged_reply_refused",
		      "a REPLY from laked's old portid got %d, not -EPERM", forged);
		CHECK(!calls && !pings && !other, "portid.received_nothing",
		      "%lu calls, %lu pings, %lu other messages reached the socket", calls, pings,
		      other);
		printf("# portid_spin: %lu calls, %lu pings, %lu other messages\n", calls, pings,
		       other);
	}
	if (fd >= 0)
		close(fd);
	return vmt_end();
}
