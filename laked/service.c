// SPDX-License-Identifier: GPL-2.0
/*
 * laked as a service: its configuration file and systemd's readiness
 * protocol.
 *
 * The configuration file holds the long options, one "key = value" a line
 * ("#" starts a comment). It is turned into "--key=value" arguments placed
 * before the command line's, so one option parser checks both and the
 * command line wins. Only options that describe a service may appear there;
 * the debugging ones (no sandbox, ...) are for a command line one can see.
 *
 * Readiness: when systemd starts laked with Type=notify it names a datagram
 * socket in $NOTIFY_SOCKET; "READY=1" sent there says laked is registered
 * with the kernel and sandboxed. The socket is connected before the sandbox
 * (which forbids socket and connect); the messages are plain send()s, which
 * the allowlist has for syslog anyway. No $NOTIFY_SOCKET: every call is a
 * no-op, so laked needs no libsystemd.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "daemon.h"

/* Keys the file may set; the booleans take yes or no. */
static const struct {
	const char *key;
	bool boolean;
} config_keys[] = {
	{ "device", false },
	{ "module-dir", false },
	{ "load-period-ms", false },
	{ "syslog", true },
	{ "verbose", true },
	{ "allow-no-landlock", true },
	{ "transport", false },
	{ "ring-spin-us", false },
};

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static int add_arg(struct laked_config_args *a, char *arg)
{
	char **v;

	if (!arg)
		return -ENOMEM;
	v = realloc(a->argv, sizeof(*v) * (size_t)(a->argc + 1));
	if (!v) {
		free(arg);
		return -ENOMEM;
	}
	v[a->argc++] = arg;
	a->argv = v;
	return 0;
}

/* One line; 0, or -EINVAL with @err set. */
static int config_line(struct laked_config_args *a, char *line, char *err, size_t errlen)
{
	char *eq, *key, *val, *arg;
	size_t i;

	line[strcspn(line, "#")] = '\0';
	line = trim(line);
	if (!*line)
		return 0;
	eq = strchr(line, '=');
	if (!eq) {
		snprintf(err, errlen, "expected \"key = value\"");
		return -EINVAL;
	}
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	for (i = 0; i < sizeof(config_keys) / sizeof(config_keys[0]); i++)
		if (!strcmp(key, config_keys[i].key))
			break;
	if (i == sizeof(config_keys) / sizeof(config_keys[0])) {
		snprintf(err, errlen, "unknown key \"%.64s\"", key);
		return -EINVAL;
	}
	if (!*val) {
		snprintf(err, errlen, "%s: empty value", key);
		return -EINVAL;
	}
	if (config_keys[i].boolean) {
		if (!strcmp(val, "no"))
			return 0;
		if (strcmp(val, "yes")) {
			snprintf(err, errlen, "%s: expected yes or no", key);
			return -EINVAL;
		}
		arg = NULL;
		if (asprintf(&arg, "--%s", key) < 0)
			arg = NULL;
	} else if (asprintf(&arg, "--%s=%s", key, val) < 0) {
		arg = NULL;
	}
	return add_arg(a, arg);
}

int laked_config_parse(FILE *f, const char *name, struct laked_config_args *out, char *err,
		       size_t errlen)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned int n = 0;
	char why[128];
	int ret = 0;

	*out = (struct laked_config_args){};
	while (getline(&line, &cap, f) >= 0) {
		n++;
		ret = config_line(out, line, why, sizeof(why));
		if (ret) {
			if (ret == -ENOMEM)
				snprintf(why, sizeof(why), "out of memory");
			snprintf(err, errlen, "%s:%u: %s", name, n, why);
			break;
		}
	}
	if (!ret && ferror(f)) {
		ret = -EIO;
		snprintf(err, errlen, "%s: read error", name);
	}
	free(line);
	if (ret)
		laked_config_free(out);
	return ret;
}

int laked_config_read(const char *path, bool must_exist, struct laked_config_args *out,
		      char *err, size_t errlen)
{
	FILE *f;
	int ret;

	*out = (struct laked_config_args){};
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		if (ret == -ENOENT && !must_exist)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = laked_config_parse(f, path, out, err, errlen);
	fclose(f);
	return ret;
}

void laked_config_free(struct laked_config_args *a)
{
	int i;

	for (i = 0; i < a->argc; i++)
		free(a->argv[i]);
	free(a->argv);
	*a = (struct laked_config_args){};
}

int laked_notify_open(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	size_t n;
	int fd;

	if (!path || !*path)
		return -ENOENT;
	n = strlen(path);
	/* "@name" is an abstract socket: a leading NUL, no terminator. */
	if ((path[0] != '/' && path[0] != '@') || n >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, n);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (path[0] == '/'));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, len)) {
		n = (size_t)errno;
		close(fd);
		return -(int)n;
	}
	return fd;
}

int laked_notify(int fd, const char *state)
{
	size_t n = strlen(state);

	if (fd < 0)
		return 0;
	if (send(fd, state, n, MSG_NOSIGNAL) != (ssize_t)n)
		return -errno;
	return 0;
}
