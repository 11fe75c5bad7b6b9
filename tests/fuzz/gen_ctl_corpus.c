// SPDX-License-Identifier: GPL-2.0
/*
 * Seeds for fuzz_ctl: each command's answer as lakelib's ctl.c builds it
 * (one selector byte, then the datagram), written into the directory named
 * by argv[1].
 */
#include <stdio.h>
#include <stdlib.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <lake/port.h>
#include <uapi/lake/genl.h>

#define FAMILY	0x20

static struct nl_msg *start(u8 cmd, int flags)
{
	struct nl_msg *m = nlmsg_alloc();

	if (!m || !genlmsg_put(m, 0, 1, FAMILY, 0, flags, cmd, LAKE_GENL_VERSION))
		exit(1);
	return m;
}

static void ctr(struct nl_msg *m, int type, const char *name, u64 v)
{
	struct nlattr *n = nla_nest_start(m, type);

	nla_put_string(m, LAKE_CTR_A_NAME, name);
	nla_put_u64(m, LAKE_CTR_A_VALUE, v);
	nla_nest_end(m, n);
}

static void policy(struct nl_msg *m, const char *name, u32 mode)
{
	struct nlattr *n = nla_nest_start(m, LAKE_A_POLICY);

	nla_put_string(m, LAKE_POLICY_A_NAME, name);
	nla_put_u32(m, LAKE_POLICY_A_MODE, mode);
	nla_put_u32(m, LAKE_POLICY_A_CROSSOVER, 8);
	nla_put_u32(m, LAKE_POLICY_A_CROSSOVER_CALIBRATED, LAKE_GENL_CROSSOVER_NEVER);
	nla_put_u32(m, LAKE_POLICY_A_MAX_BATCH, 256);
	nla_put_string(m, LAKE_POLICY_A_LAST_REASON, "batch \"small\"\n\x1b[0m");
	nla_put_u64(m, LAKE_POLICY_A_DECISIONS_CPU, 10);
	nla_put_u64(m, LAKE_POLICY_A_DECISIONS_GPU, 3);
	nla_put_u64(m, LAKE_POLICY_A_TRIPS, 1);
	nla_put_u64(m, LAKE_POLICY_A_GPU_ERRORS, 0);
	ctr(m, LAKE_POLICY_A_REASON, "small", 10);
	ctr(m, LAKE_POLICY_A_REASON, "over", 3);
	nla_nest_end(m, n);
}

static void registry(struct nl_msg *m, const char *name)
{
	struct nlattr *n = nla_nest_start(m, LAKE_A_REGISTRY), *f;

	nla_put_string(m, LAKE_REGISTRY_A_NAME, name);
	nla_put_u32(m, LAKE_REGISTRY_A_CAPACITY, 1024);
	nla_put_u32(m, LAKE_REGISTRY_A_COUNT, 5);
	nla_put_u32(m, LAKE_REGISTRY_A_OPEN, 1);
	nla_put_u32(m, LAKE_REGISTRY_A_MAX_OPEN, 64);
	nla_put_u32(m, LAKE_REGISTRY_A_VECTOR_BYTES, 31);
	nla_put_u64(m, LAKE_REGISTRY_A_COMMITTED, 100);
	nla_put_u64(m, LAKE_REGISTRY_A_DROPPED, 2);
	nla_put_u64(m, LAKE_REGISTRY_A_TRUNCATED, 0);
	nla_put_u64(m, LAKE_REGISTRY_A_ABORTED, 1);
	nla_put_u64(m, LAKE_REGISTRY_A_BEGIN_FAILED, 0);
	f = nla_nest_start(m, LAKE_REGISTRY_A_FEATURE);
	nla_put_string(m, LAKE_FEATURE_A_NAME, "pending");
	nla_put_u32(m, LAKE_FEATURE_A_SIZE, 1);
	nla_put_u32(m, LAKE_FEATURE_A_ENTRIES, 3);
	nla_nest_end(m, f);
	nla_nest_end(m, n);
}

/* A datagram: the messages back to back, then NLMSG_DONE for dumps. */
static void write_seed(const char *dir, const char *name, u8 sel, struct nl_msg **msgs, int n,
		       int done)
{
	char path[512];
	struct nlmsghdr end = { .nlmsg_len = NLMSG_LENGTH(4), .nlmsg_type = NLMSG_DONE };
	u32 zero = 0;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(&sel, 1, 1, f) != 1)
		exit(1);
	for (i = 0; i < n; i++) {
		struct nlmsghdr *h = nlmsg_hdr(msgs[i]);

		if (fwrite(h, 1, NLMSG_ALIGN(h->nlmsg_len), f) != NLMSG_ALIGN(h->nlmsg_len))
			exit(1);
		nlmsg_free(msgs[i]);
	}
	if (done && (fwrite(&end, sizeof(end), 1, f) != 1 || fwrite(&zero, 4, 1, f) != 1))
		exit(1);
	if (fclose(f))
		exit(1);
}

int main(int argc, char **argv)
{
	struct nl_msg *m[2];
	u8 json;

	if (argc != 2)
		return 2;
	for (json = 0; json < 2; json++) {
		const char *sfx = json ? "-json" : "";
		char name[64];

		m[0] = start(LAKE_CMD_STATUS_GET, 0);
		nla_put_string(m[0], LAKE_A_DEVICE, "cuda:0 \"NVIDIA\"");
		nla_put_u32(m[0], LAKE_A_PORTID, 1234);
		nla_put_u32(m[0], LAKE_A_PID, 99);
		nla_put_u64(m[0], LAKE_A_REGION_SIZE, 64 << 20);
		nla_put_u64(m[0], LAKE_A_REGION_USED, 4096);
		nla_put_u64(m[0], LAKE_A_IN_FLIGHT, 2);
		nla_put_u32(m[0], LAKE_A_TIMEOUT_MS, 5000);
		snprintf(name, sizeof(name), "status%s", sfx);
		write_seed(argv[1], name, json << 7 | 0, m, 1, 0);

		m[0] = start(LAKE_CMD_STATS_GET, 0);
		ctr(m[0], LAKE_A_STAT, "calls", 12);
		ctr(m[0], LAKE_A_STAT, "bad_records", 0);
		ctr(m[0], LAKE_A_API_CALLS, "cuMemAlloc", 3);
		ctr(m[0], LAKE_A_API_ERRORS, "cuLaunchKernel", 1);
		snprintf(name, sizeof(name), "stats%s", sfx);
		write_seed(argv[1], name, json << 7 | 1, m, 1, 0);

		m[0] = start(LAKE_CMD_POLICY_GET, NLM_F_MULTI);
		policy(m[0], "linnos0", 0);
		m[1] = start(LAKE_CMD_POLICY_GET, NLM_F_MULTI);
		policy(m[1], "lake_test", 2);
		snprintf(name, sizeof(name), "policy%s", sfx);
		write_seed(argv[1], name, json << 7 | 2, m, 2, 1);

		m[0] = start(LAKE_CMD_REGISTRY_GET, NLM_F_MULTI);
		registry(m[0], "linnos0.p");
		m[1] = start(LAKE_CMD_REGISTRY_GET, NLM_F_MULTI);
		registry(m[1], "linnos0.r");
		snprintf(name, sizeof(name), "registry%s", sfx);
		write_seed(argv[1], name, json << 7 | 1 << 2 | 3, m, 2, 1);
	}
	return 0;
}
