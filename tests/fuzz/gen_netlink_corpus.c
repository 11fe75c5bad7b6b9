// SPDX-License-Identifier: GPL-2.0
/*
 * Seeds for fuzz_netlink: what the kernel sends laked (a CALL, a PING, the
 * ack and the refusal of a REGISTER, an unknown command, malformed errors),
 * one selector byte then the datagram, written into the directory named by
 * argv[1].
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <lake/port.h>
#include <uapi/lake/genl.h>

#define FAMILY	0x1c	/* as in fuzz_netlink.c */

static struct nl_msg *start(u8 cmd)
{
	struct nl_msg *m = nlmsg_alloc();

	if (!m || !genlmsg_put(m, 0, 0, FAMILY, 0, 0, cmd, LAKE_GENL_VERSION))
		exit(1);
	return m;
}

static struct nl_msg *error(int err, u32 seq)
{
	struct nl_msg *m = nlmsg_alloc_simple(NLMSG_ERROR, 0);
	struct nlmsgerr e = { .error = err, .msg = { .nlmsg_len = NLMSG_HDRLEN, .nlmsg_seq = seq } };

	if (!m || nlmsg_append(m, &e, sizeof(e), NLMSG_ALIGNTO) < 0)
		exit(1);
	return m;
}

static void write_seed(const char *dir, const char *name, u8 sel, struct nl_msg *m)
{
	struct nlmsghdr *h = nlmsg_hdr(m);
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(&sel, 1, 1, f) != 1 || fwrite(h, 1, h->nlmsg_len, f) != h->nlmsg_len ||
	    fclose(f))
		exit(1);
	nlmsg_free(m);
}

int main(int argc, char **argv)
{
	u8 records[64] = { 64, 0, 0, 0, 1 };
	struct nl_msg *m;

	if (argc != 2)
		return 2;
	m = start(LAKE_CMD_CALL);
	nla_put(m, LAKE_A_RECORDS, sizeof(records), records);
	write_seed(argv[1], "call", 0, m);
	m = start(LAKE_CMD_CALL);
	nla_put(m, LAKE_A_RECORDS, sizeof(records), records);
	write_seed(argv[1], "call-from-process", 1, m);
	m = start(LAKE_CMD_PING);
	nla_put_u64(m, LAKE_A_VALUE, 0x1234);
	write_seed(argv[1], "ping", 0, m);
	m = start(LAKE_CMD_STATS_GET);
	write_seed(argv[1], "unknown-cmd", 0, m);
	write_seed(argv[1], "register-ack", 2, error(0, 7));
	write_seed(argv[1], "register-busy", 2, error(-EBUSY, 7));
	write_seed(argv[1], "lost", 0, error(-EPERM, 9));
	/* Not a -errno: laked once negated INT_MIN, and returned a positive one. */
	write_seed(argv[1], "refusal-int-min", 0, error(INT_MIN, 9));
	write_seed(argv[1], "register-positive", 2, error(5, 7));
	return 0;
}
