// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for lakectl's decoding of the kernel's answers: the
 * input's first byte picks the command (status, stats, policy, registry),
 * text or --json, and a name filter; the rest is what the socket returns, a
 * run of netlink messages that are cut and dispatched as libnl's receive
 * loop does (error and done messages end the request). lakectl's own
 * callbacks (lakectl.c, ipc.c, included here so that their static functions
 * are reachable) parse and print each answer. An answer lakectl accepts
 * must print valid JSON with --json, since scripts feed it to jq: a small
 * JSON reader of its own checks the output as a stream of JSON values.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <lake/port.h>

#define main lakectl_main
#include "lakectl/lakectl.c"
#undef main
#include "lakectl/ipc.c"

static void check(int cond)
{
	if (!cond)
		abort();
}

/* --- a JSON reader: RFC 8259's grammar, no more ------------------------- */

static const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static const char *value(const char *p, int depth);

static const char *string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (; *p != '"'; p++) {
		unsigned char c = (unsigned char)*p;
		int i;

		if (c < 0x20)
			return NULL;
		if (c != '\\')
			continue;
		c = (unsigned char)*++p;
		if (c == 'u') {
			for (i = 0; i < 4; i++)
				if (!isxdigit((unsigned char)*++p))
					return NULL;
		} else if (!strchr("\"\\/bfnrt", c) || !c) {
			return NULL;
		}
	}
	return p + 1;
}

static const char *digits(const char *p)
{
	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p))
		p++;
	return p;
}

static const char *number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (!(p = digits(p)))
		return NULL;
	if (*p == '.' && !(p = digits(p + 1)))
		return NULL;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		p = digits(p);
	}
	return p;
}

static const char *members(const char *p, char close, int depth)
{
	p = ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (close == '}') {
			p = string(p);
			if (!p || *(p = ws(p)) != ':')
				return NULL;
			p++;
		}
		p = value(p, depth + 1);
		if (!p)
			return NULL;
		p = ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *value(const char *p, int depth)
{
	static const char *const words[] = { "true", "false", "null" };
	size_t i;

	if (depth > 32)
		return NULL;
	p = ws(p);
	if (*p == '{' || *p == '[')
		return members(p, *p == '{' ? '}' : ']', depth);
	if (*p == '"')
		return string(p);
	for (i = 0; i < 3; i++)
		if (!strncmp(p, words[i], strlen(words[i])))
			return p + strlen(words[i]);
	return number(p);
}

/* A stream of JSON values, as jq reads it. */
static bool json_ok(const char *p)
{
	for (p = ws(p); *p; p = ws(p)) {
		p = value(p, 0);
		if (!p)
			return false;
	}
	return true;
}

/* --- the receive loop ----------------------------------------------------- */

/* One datagram, cut and dispatched as libnl's recvmsgs() does. */
static void receive(struct rx *rx, const u8 *data, size_t size)
{
	struct nlmsghdr *hdr;
	struct nl_msg *msg;
	int n = (int)size;
	void *buf;

	buf = malloc(size ? size : 1);
	check(buf != NULL);
	memcpy(buf, data, size);
	hdr = buf;
	while (!rx->done && nlmsg_ok(hdr, n)) {
		if (hdr->nlmsg_type == NLMSG_DONE) {
			on_done(NULL, rx);
		} else if (hdr->nlmsg_type == NLMSG_ERROR) {
			if (hdr->nlmsg_len < (u32)nlmsg_size(sizeof(struct nlmsgerr)))
				break;
			on_error(NULL, nlmsg_data(hdr), rx);
		} else if (hdr->nlmsg_type >= NLMSG_MIN_TYPE) {
			msg = nlmsg_convert(hdr);
			check(msg != NULL);
			on_valid(msg, rx);
			nlmsg_free(msg);
		}
		hdr = nlmsg_next(hdr, &n);
	}
	free(buf);
}

static char *out;
static size_t out_len;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	stdout = open_memstream(&out, &out_len);
	check(stdout != NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const ctl_msg_fn fns[] = { show_status, show_stats, show_policy, show_registry };
	static const char *const names[] = { NULL, "linnos0", "lake_test" };
	struct listing l = { 0 };
	struct rx rx = { 0 };
	bool up = false, listed;
	u8 sel;

	if (!size)
		return -1;
	sel = data[0];
	json = sel & 0x80;
	rx.fn = fns[sel & 3];
	listed = (sel & 3) >= 2;
	l.name = names[((sel >> 2) & 3) % 3];
	rx.arg = (sel & 3) == 0 ? (void *)&up : (void *)&l;
	check(!fseek(stdout, 0, SEEK_SET));
	if (json && listed)
		printf("[");
	receive(&rx, data + 1, size - 1);
	if (json && listed)
		printf("]\n");
	check(putchar('\0') == 0 && !fflush(stdout));
	check(strlen(out) < out_len);
	/* lakectl prints a refused answer's partial output, but exits with an error. */
	if (json && !rx.err)
		check(json_ok(out));
	return 0;
}
