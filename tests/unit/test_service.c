// SPDX-License-Identifier: GPL-2.0
/*
 * laked/service.c: the configuration file becomes "--key=value" arguments
 * (or a clear error naming the line), and READY=1 reaches $NOTIFY_SOCKET,
 * on a path or an abstract socket, and nowhere when it is unset.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>
#include "laked/daemon.h"

static char path[] = "/tmp/lake-conf-XXXXXX";

static void write_conf(const char *text)
{
	int fd = mkstemp(path);
	ssize_t n = (ssize_t)strlen(text);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, (size_t)n), n);
	close(fd);
}

static void drop_conf(void)
{
	unlink(path);
	strcpy(path + strlen(path) - 6, "XXXXXX");
}

static void config_options(void **state)
{
	struct laked_config_args a;
	char err[256] = "";

	(void)state;
	write_conf("# laked\n\n  device = host   # a comment\nmodule-dir=/srv/k\n"
		   "load-period-ms = 20\nsyslog = yes\nverbose = no\n");
	assert_int_equal(laked_config_read(path, true, &a, err, sizeof(err)), 0);
	assert_int_equal(a.argc, 4);
	assert_string_equal(a.argv[0], "--device=host");
	assert_string_equal(a.argv[1], "--module-dir=/srv/k");
	assert_string_equal(a.argv[2], "--load-period-ms=20");
	assert_string_equal(a.argv[3], "--syslog");
	laked_config_free(&a);
	assert_int_equal(a.argc, 0);
	drop_conf();
}

static void config_errors(void **state)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "device = host\nno-sandbox = yes\n", ":2: unknown key \"no-sandbox\"" },
		{ "device\n", ":1: expected \"key = value\"" },
		{ "syslog = maybe\n", ":1: syslog: expected yes or no" },
		{ "\n\ndevice =\n", ":3: device: empty value" },
	};
	struct laked_config_args a;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_conf(bad[i].text);
		err[0] = '\0';
		assert_int_equal(laked_config_read(path, false, &a, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, path));
		assert_non_null(strstr(err, bad[i].why));
		assert_int_equal(a.argc, 0);
		assert_null(a.argv);
		drop_conf();
	}
}

static void config_missing(void **state)
{
	struct laked_config_args a;
	char err[256] = "";

	(void)state;
	assert_int_equal(laked_config_read("/nonexistent/laked.conf", false, &a, err,
					   sizeof(err)), 0);
	assert_int_equal(a.argc, 0);
	assert_int_equal(laked_config_read("/nonexistent/laked.conf", true, &a, err,
					   sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/laked.conf"));
}

/* A datagram socket bound where NOTIFY_SOCKET says; returns its fd. */
static int listener(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(name);
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	assert_true(fd >= 0);
	memcpy(sa.sun_path, name, n);
	if (name[0] == '@')
		sa.sun_path[0] = '\0';
	assert_int_equal(bind(fd, (struct sockaddr *)&sa,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n)), 0);
	return fd;
}

static void notify_reaches(const char *name)
{
	char buf[64] = "";
	int l = listener(name), fd;

	setenv("NOTIFY_SOCKET", name, 1);
	fd = laked_notify_open();
	assert_true(fd >= 0);
	assert_int_equal(laked_notify(fd, "READY=1"), 0);
	assert_int_equal(recv(l, buf, sizeof(buf) - 1, MSG_DONTWAIT), 7);
	assert_string_equal(buf, "READY=1");
	close(fd);
	close(l);
}

static void notify_path_and_abstract(void **state)
{
	char name[64];

	(void)state;
	snprintf(name, sizeof(name), "/tmp/lake-notify-%d", getpid());
	unlink(name);
	notify_reaches(name);
	unlink(name);
	snprintf(name, sizeof(name), "@lake-notify-%d", getpid());
	notify_reaches(name);
}

static void notify_unset_or_bad(void **state)
{
	(void)state;
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(laked_notify_open(), -ENOENT);
	assert_int_equal(laked_notify(-ENOENT, "READY=1"), 0);
	setenv("NOTIFY_SOCKET", "relative/path", 1);
	assert_int_equal(laked_notify_open(), -EINVAL);
	setenv("NOTIFY_SOCKET", "/nonexistent/notify", 1);
	assert_int_equal(laked_notify_open(), -ENOENT);
	unsetenv("NOTIFY_SOCKET");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(config_options),
		cmocka_unit_test(config_errors),
		cmocka_unit_test(config_missing),
		cmocka_unit_test(notify_path_and_abstract),
		cmocka_unit_test(notify_unset_or_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
