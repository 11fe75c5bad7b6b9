// SPDX-License-Identifier: GPL-2.0
/*
 * genl_probe: pokes the "lake" genl family the way a hostile or confused
 * process would, and checks the kernel's answer.
 *   genl_probe [--uid N] CMD EXPECT
 * CMD: register, forge (a REPLY from a socket that is not laked's), ping,
 *      bad_load (register, then a LOAD of the wrong size),
 *      bad_records (register, then a REPLY whose records are garbage),
 *      unknown_attr (register, then a REGISTER carrying an unknown attribute),
 *      register_records (a REGISTER carrying LAKE_A_RECORDS, which only REPLY
 *      takes: each command has its own policy),
 *      stats_flood (STATS_GET after STATS_GET, each answered, until killed),
 *      nested (lake_cuda_selftest's "lake_selftest" family, whose handler
 *      calls the CUDA API with genl_mutex held: OK iff that call succeeded).
 * EXPECT: OK, EPERM, EBUSY, EINVAL or ERANGE, or several joined by '|' (the
 * kernels differ: 6.12 answers a length outside an exact-length policy with
 * ERANGE, 6.1 with EINVAL). Exit 0 iff the answer matched one.
 */
#include <stdint.h>
#include <string.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <uapi/lake/genl.h>
#include "vmtest.h"

static int fam;

static int send_cmd(struct nl_sock *sk, int cmd, int attr, const void *data, int len)
{
	struct nl_msg *m = nlmsg_alloc();
	int err;

	if (!m || !genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, fam, 0, 0, cmd, LAKE_GENL_VERSION))
		return -NLE_NOMEM;
	if (attr && nla_put(m, attr, len, data) < 0)
		return -NLE_NOMEM;
	err = nl_send_auto(sk, m);
	nlmsg_free(m);
	if (err < 0)
		return err;
	return nl_wait_for_ack(sk);
}

static int do_register(struct nl_sock *sk)
{
	return send_cmd(sk, LAKE_CMD_REGISTER, LAKE_A_DEVICE, "probe", 6);
}

static int nested_result = -1;

static int on_nested_reply(struct nl_msg *msg, void *arg)
{
	struct nlattr *attrs[2];

	(void)arg;
	if (!genlmsg_parse(nlmsg_hdr(msg), 0, attrs, 1, NULL) && attrs[1])
		nested_result = (int)nla_get_u32(attrs[1]);
	return NL_OK;
}

/* The CUresult of a CUDA call made inside another family's handler; 0: success. */
static int nested(struct nl_sock *sk)
{
	int family = genl_ctrl_resolve(sk, "lake_selftest"), err;
	struct nl_msg *m;

	if (family < 0)
		return family;
	m = nlmsg_alloc();
	if (!m || !genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0, 1, 1))
		return -NLE_NOMEM;
	err = nl_send_auto(sk, m);
	nlmsg_free(m);
	if (err < 0)
		return err;
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_nested_reply, NULL);
	err = nl_recvmsgs_default(sk);
	if (err < 0)
		return err;
	printf("genl_probe: nested call returned CUresult %d\n", nested_result);
	return nested_result ? -NLE_FAILURE : 0;
}

static int run(struct nl_sock *sk, const char *cmd)
{
	static const uint8_t garbage[64] = { 0xff, 0xff, 0x10 };
	struct lake_genl_load load = { .period_ms = 10 };
	uint64_t v = 42;
	int err;

	if (!strcmp(cmd, "register"))
		return do_register(sk);
	if (!strcmp(cmd, "forge"))
		return send_cmd(sk, LAKE_CMD_REPLY, LAKE_A_RECORDS, garbage, sizeof(garbage));
	if (!strcmp(cmd, "stats_flood")) {
		int err;

		while (!(err = send_cmd(sk, LAKE_CMD_STATS_GET, 0, NULL, 0)))
			;
		return err;
	}
	if (!strcmp(cmd, "ping"))
		return send_cmd(sk, LAKE_CMD_PING, LAKE_A_VALUE, &v, sizeof(v));
	if (!strcmp(cmd, "nested"))
		return nested(sk);
	if (!strcmp(cmd, "register_records"))
		return send_cmd(sk, LAKE_CMD_REGISTER, LAKE_A_RECORDS, garbage, sizeof(garbage));
	err = do_register(sk);
	if (err)
		return err;
	if (!strcmp(cmd, "bad_load"))
		return send_cmd(sk, LAKE_CMD_LOAD, LAKE_A_LOAD, &load, sizeof(load) - 4);
	if (!strcmp(cmd, "bad_records"))
		return send_cmd(sk, LAKE_CMD_REPLY, LAKE_A_RECORDS, garbage, sizeof(garbage));
	if (!strcmp(cmd, "unknown_attr"))
		return send_cmd(sk, LAKE_CMD_REGISTER, LAKE_A_MAX + 1, &v, sizeof(v));
	fprintf(stderr, "genl_probe: unknown command %s\n", cmd);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct { const char *name; int err; } names[] = {
		{ "OK", 0 }, { "EPERM", -NLE_PERM }, { "EBUSY", -NLE_BUSY },
		{ "EINVAL", -NLE_INVAL }, { "ERANGE", -NLE_RANGE },
	};
	struct nl_sock *sk;
	unsigned int i;
	int err, match = 0;
	char *tok;

	if (argc == 5 && !strcmp(argv[1], "--uid")) {
		if (setgid(atoi(argv[2])) || setuid(atoi(argv[2]))) {
			perror("genl_probe: setuid");
			return 2;
		}
		argv += 2;
		argc -= 2;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: genl_probe [--uid N] CMD EXPECT\n");
		return 2;
	}
	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk)) {
		fprintf(stderr, "genl_probe: cannot open a genl socket\n");
		return 2;
	}
	fam = genl_ctrl_resolve(sk, LAKE_GENL_NAME);
	if (fam < 0) {
		fprintf(stderr, "genl_probe: family %s: %s\n", LAKE_GENL_NAME, nl_geterror(fam));
		return 2;
	}
	err = run(sk, argv[1]);
	printf("genl_probe: %s -> %s (%d)\n", argv[1], err ? nl_geterror(err) : "ok", err);
	nl_socket_free(sk);
	for (tok = strtok(argv[2], "|"); tok; tok = strtok(NULL, "|"))
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			match |= !strcmp(tok, names[i].name) && err == names[i].err;
	return match ? 0 : 1;
}
