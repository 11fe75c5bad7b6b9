// SPDX-License-Identifier: GPL-2.0
/*
 * lakectl's netlink layer (ipc.h), over libnl-genl. Every request asks
 * for an ack, so a refusal (EPERM for a change by a non-root user, ENOENT
 * for an unknown policy) comes back as the kernel's errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include "ipc.h"

struct ctl {
	struct nl_sock *sk;
	int family;
};

static struct nla_policy top_policy[LAKE_A_MAX + 1] = {
	[LAKE_A_DEVICE] = { .type = NLA_STRING, .maxlen = LAKE_GENL_DEVICE_MAX },
	[LAKE_A_PORTID] = { .type = NLA_U32 },
	[LAKE_A_PID] = { .type = NLA_U32 },
	[LAKE_A_REGION_SIZE] = { .type = NLA_U64 },
	[LAKE_A_REGION_USED] = { .type = NLA_U64 },
	[LAKE_A_IN_FLIGHT] = { .type = NLA_U64 },
	[LAKE_A_TIMEOUT_MS] = { .type = NLA_U32 },
	[LAKE_A_TRANSPORT] = { .type = NLA_U32 },
	[LAKE_A_STAT] = { .type = NLA_NESTED },
	[LAKE_A_API_CALLS] = { .type = NLA_NESTED },
	[LAKE_A_POLICY] = { .type = NLA_NESTED },
	[LAKE_A_REGISTRY] = { .type = NLA_NESTED },
	[LAKE_A_API_ERRORS] = { .type = NLA_NESTED },
};

static struct nla_policy ctr_policy[LAKE_CTR_A_MAX + 1] = {
	[LAKE_CTR_A_NAME] = { .type = NLA_STRING, .maxlen = 64 },
	[LAKE_CTR_A_VALUE] = { .type = NLA_U64 },
};

static struct nla_policy policy_policy[LAKE_POLICY_A_MAX + 1] = {
	[LAKE_POLICY_A_NAME] = { .type = NLA_STRING, .maxlen = LAKE_GENL_NAME_MAX },
	[LAKE_POLICY_A_MODE] = { .type = NLA_U32 },
	[LAKE_POLICY_A_CROSSOVER] = { .type = NLA_U32 },
	[LAKE_POLICY_A_CROSSOVER_CALIBRATED] = { .type = NLA_U32 },
	[LAKE_POLICY_A_MAX_BATCH] = { .type = NLA_U32 },
	[LAKE_POLICY_A_LAST_REASON] = { .type = NLA_STRING, .maxlen = 64 },
	[LAKE_POLICY_A_DECISIONS_CPU] = { .type = NLA_U64 },
	[LAKE_POLICY_A_DECISIONS_GPU] = { .type = NLA_U64 },
	[LAKE_POLICY_A_TRIPS] = { .type = NLA_U64 },
	[LAKE_POLICY_A_GPU_ERRORS] = { .type = NLA_U64 },
	[LAKE_POLICY_A_REASON] = { .type = NLA_NESTED },
};

static struct nla_policy registry_policy[LAKE_REGISTRY_A_MAX + 1] = {
	[LAKE_REGISTRY_A_NAME] = { .type = NLA_STRING, .maxlen = LAKE_GENL_NAME_MAX },
	[LAKE_REGISTRY_A_CAPACITY] = { .type = NLA_U32 },
	[LAKE_REGISTRY_A_COUNT] = { .type = NLA_U32 },
	[LAKE_REGISTRY_A_OPEN] = { .type = NLA_U32 },
	[LAKE_REGISTRY_A_MAX_OPEN] = { .type = NLA_U32 },
	[LAKE_REGISTRY_A_VECTOR_BYTES] = { .type = NLA_U32 },
	[LAKE_REGISTRY_A_COMMITTED] = { .type = NLA_U64 },
	[LAKE_REGISTRY_A_DROPPED] = { .type = NLA_U64 },
	[LAKE_REGISTRY_A_TRUNCATED] = { .type = NLA_U64 },
	[LAKE_REGISTRY_A_ABORTED] = { .type = NLA_U64 },
	[LAKE_REGISTRY_A_BEGIN_FAILED] = { .type = NLA_U64 },
	[LAKE_REGISTRY_A_FEATURE] = { .type = NLA_NESTED },
};

static struct nla_policy feature_policy[LAKE_FEATURE_A_MAX + 1] = {
	[LAKE_FEATURE_A_NAME] = { .type = NLA_STRING, .maxlen = LAKE_GENL_NAME_MAX },
	[LAKE_FEATURE_A_SIZE] = { .type = NLA_U32 },
	[LAKE_FEATURE_A_ENTRIES] = { .type = NLA_U32 },
};

int ctl_open(struct ctl **out)
{
	struct ctl *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return -ENOMEM;
	c->sk = nl_socket_alloc();
	ret = -ENOMEM;
	if (!c->sk)
		goto err;
	ret = genl_connect(c->sk);
	if (ret < 0) {
		ret = -EIO;
		goto err;
	}
	c->family = genl_ctrl_resolve(c->sk, LAKE_GENL_NAME);
	if (c->family < 0) {
		ret = -ENOENT;
		goto err;
	}
	*out = c;
	return 0;
err:
	ctl_close(c);
	return ret;
}

void ctl_close(struct ctl *c)
{
	if (!c)
		return;
	nl_socket_free(c->sk);
	free(c);
}

struct rx {
	ctl_msg_fn fn;
	void *arg;
	int err;	/* the first error: the kernel's, or a parser's */
	bool done;	/* ack, end of dump, or error */
};

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[LAKE_A_MAX + 1];
	struct rx *rx = arg;
	int ret;

	if (rx->err)
		return NL_SKIP;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, LAKE_A_MAX, top_policy) < 0) {
		rx->err = -EBADMSG;
		return NL_SKIP;
	}
	if (rx->fn) {
		ret = rx->fn(tb, genlmsg_attrdata(nlmsg_data(nlmsg_hdr(msg)), 0),
			     genlmsg_attrlen(nlmsg_data(nlmsg_hdr(msg)), 0), rx->arg);
		if (ret)
			rx->err = ret;
	}
	return NL_OK;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct rx *rx = arg;

	(void)nla;
	if (!rx->err)
		rx->err = e->error;
	rx->done = true;
	return NL_STOP;
}

static int on_done(struct nl_msg *msg, void *arg)
{
	struct rx *rx = arg;

	(void)msg;
	rx->done = true;
	return NL_STOP;
}

int ctl_request(struct ctl *c, uint8_t cmd, bool dump, ctl_fill_fn fill, void *fill_arg,
		ctl_msg_fn fn, void *arg)
{
	struct rx rx = { .fn = fn, .arg = arg };
	struct nl_msg *msg;
	struct nl_cb *cb;
	int ret;

	msg = nlmsg_alloc();
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	ret = -ENOMEM;
	if (!msg || !cb)
		goto out;
	ret = -EMSGSIZE;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, c->family, 0,
			 NLM_F_ACK | (dump ? NLM_F_DUMP : 0), cmd, LAKE_GENL_VERSION))
		goto out;
	if (fill && fill(msg, fill_arg))
		goto out;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &rx);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_done, &rx);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_done, &rx);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &rx);
	ret = nl_send_auto(c->sk, msg);
	if (ret < 0) {
		ret = -EIO;
		goto out;
	}
	/* A doit ends with its ack, a dump with NLMSG_DONE; either may be an error. */
	while (!rx.done) {
		if (nl_recvmsgs(c->sk, cb) < 0 && !rx.done) {
			if (!rx.err)
				rx.err = -EIO;
			break;
		}
	}
	ret = rx.err;
out:
	nl_cb_put(cb);
	nlmsg_free(msg);
	return ret;
}

int ctl_parse_policy(struct nlattr *nest, struct nlattr **tb)
{
	return nla_parse_nested(tb, LAKE_POLICY_A_MAX, nest, policy_policy) < 0 ? -EINVAL : 0;
}

int ctl_parse_registry(struct nlattr *nest, struct nlattr **tb)
{
	return nla_parse_nested(tb, LAKE_REGISTRY_A_MAX, nest, registry_policy) < 0 ? -EINVAL : 0;
}

int ctl_parse_feature(struct nlattr *nest, struct nlattr **tb)
{
	return nla_parse_nested(tb, LAKE_FEATURE_A_MAX, nest, feature_policy) < 0 ? -EINVAL : 0;
}

int ctl_parse_ctr(struct nlattr *nest, const char **name, uint64_t *value)
{
	struct nlattr *tb[LAKE_CTR_A_MAX + 1];

	if (nla_parse_nested(tb, LAKE_CTR_A_MAX, nest, ctr_policy) < 0 ||
	    !tb[LAKE_CTR_A_NAME] || !tb[LAKE_CTR_A_VALUE])
		return -EINVAL;
	*name = nla_get_string(tb[LAKE_CTR_A_NAME]);
	*value = nla_get_u64(tb[LAKE_CTR_A_VALUE]);
	return 0;
}
