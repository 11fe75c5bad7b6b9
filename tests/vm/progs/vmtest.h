/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest test programs' shared bits: result lines in the form the host
 * counts ("ok - NAME" / "not ok - NAME: why"), the end line that says the
 * program got to its end (vmt_end; the case runs it with vmlib's prog), and
 * small I/O helpers.
 */
#ifndef LAKE_VMTEST_H
#define LAKE_VMTEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int vmt_checks, vmt_failed;

static inline void vmt_result(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	vmt_checks++;
	if (ok) {
		printf("ok - %s\n", name);
	} else {
		vmt_failed++;
		printf("not ok - %s: ", name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		putchar('\n');
	}
	fflush(stdout);
}

#define CHECK(cond, name, ...) vmt_result(!!(cond), name, __VA_ARGS__)

/* main's last word: the end line, and the exit status (1 if a check failed). */
static inline int vmt_end(void)
{
	printf("LAKE_PROG_END checks %d failed %d\n", vmt_checks, vmt_failed);
	fflush(stdout);
	return vmt_failed ? 1 : 0;
}

/* Read a whole small file into @buf (NUL-terminated); -errno on failure. */
static inline int vmt_read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* The integer a file holds (sysfs style), or -1. */
static inline long long vmt_file_int(const char *path)
{
	char buf[64];

	return vmt_read_file(path, buf, sizeof(buf)) ? -1 : atoll(buf);
}

/* The integer value of "KEY N" in a key/value file, or -1. */
static inline long long vmt_file_key(const char *path, const char *key)
{
	char buf[4096], *p;
	size_t klen = strlen(key);

	if (vmt_read_file(path, buf, sizeof(buf)))
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return atoll(p + klen + 1);
	return -1;
}

#endif
