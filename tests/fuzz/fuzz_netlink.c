// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for laked's end of the genl family (laked/netlink.c,
 * included here so that its static callbacks are reachable): the input's
 * first byte sets the sender's portid (the kernel's 0, or a process's) and
 * whether a REGISTER waits for its ack; the rest is one datagram, cut and
 * dispatched as libnl's receive loop does. The dispatcher is fuzz_dispatch's
 * business: here laked_pool_submit() is a probe that reads every byte it
 * is handed and checks that only a kernel CALL's LAKE_A_RECORDS gets there,
 * whole, within the policy's bounds. Sends go to an unconnected socket and
 * fail, as when the kernel is gone.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>

#include "laked/netlink.c"

#define FAMILY	0x1c
#define OTHER	4321	/* a process's portid */

static void check(int cond)
{
	if (!cond)
		abort();
}

static struct laked_nl *nl;
static const u8 *msg_start, *msg_end;	/* the message being served, in the input */
static u32 msg_pid;
static unsigned int dispatched;

int laked_pool_submit(struct laked_pool *p, const void *blob, u32 len)
{
	const struct nlmsghdr *h = (const void *)msg_start;
	const struct genlmsghdr *gh = (const void *)(msg_start + NLMSG_HDRLEN);
	volatile u8 sum = 0;
	u32 i;

	check(p == nl->pool && blob == nl->rx);
	check(!msg_pid && h->nlmsg_type == FAMILY && gh->cmd == LAKE_CMD_CALL);
	check(len >= 1 && len <= LAKE_GENL_RECORDS_MAX);
	/* The records, as they are in the message. */
	check(memmem(msg_start, (size_t)(msg_end - msg_start), blob, len) != NULL);
	for (i = 0; i < len; i++)
		sum += ((const u8 *)blob)[i];
	(void)sum;
	dispatched++;
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	laked_log_set_level(getenv("LAKE_VERBOSE") ? LOG_DEBUG : -1);
	nl = calloc(1, sizeof(*nl));
	check(nl != NULL);
	nl->sk = nl_socket_alloc();
	check(nl->sk != NULL);
	nl->family = FAMILY;
	pthread_mutex_init(&nl->send_lock, NULL);
	nl->early_tail = &nl->early;
	nl->pool = (struct laked_pool *)nl;	/* only compared */
	nl->sink.flush = send_replies;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_nl src = { .nl_family = AF_NETLINK };
	struct nlmsghdr *hdr;
	struct nl_msg *msg;
	int n;
	void *buf;

	if (!size)
		return -1;
	msg_pid = data[0] & 1 ? OTHER : 0;
	src.nl_pid = msg_pid;
	nl->waiting = data[0] & 2;
	nl->wait_seq = 7;
	nl->wait_err = 1;
	nl->lost = 0;
	n = (int)size - 1;
	buf = malloc(n ? (size_t)n : 1);
	check(buf != NULL);
	memcpy(buf, data + 1, (size_t)n);
	for (hdr = buf; nlmsg_ok(hdr, n); hdr = nlmsg_next(hdr, &n)) {
		msg_start = (const u8 *)hdr;
		msg_end = msg_start + hdr->nlmsg_len;
		if (hdr->nlmsg_type == NLMSG_ERROR &&
		    hdr->nlmsg_len < (u32)nlmsg_size(sizeof(struct nlmsgerr)))
			break;
		if (hdr->nlmsg_type < NLMSG_MIN_TYPE && hdr->nlmsg_type != NLMSG_ERROR)
			continue;
		msg = nlmsg_convert(hdr);
		check(msg != NULL);
		nlmsg_set_src(msg, &src);
		/* libnl: an error message with error 0 is an ack. */
		if (hdr->nlmsg_type != NLMSG_ERROR)
			on_valid(msg, nl);
		else if (((struct nlmsgerr *)nlmsg_data(hdr))->error)
			on_error(&src, nlmsg_data(hdr), nl);
		else
			on_ack(msg, nl);
		nlmsg_free(msg);
	}
	free(buf);
	/* The ack or error that ends a wait is the one for its sequence number. */
	check(nl->waiting || data[0] & 2 || nl->wait_err == 1);
	/* What laked_nl_register() returns: success or a -errno. */
	check(nl->wait_err == 1 || (nl->wait_err <= 0 && nl->wait_err >= -4095));
	check(!nl->lost || nl->lost == -EPERM || nl->lost == -ENOENT);
	return 0;
}
