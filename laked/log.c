// SPDX-License-Identifier: GPL-2.0
/*
 * Log lines to stderr or to syslog. Syslog is spoken directly on a datagram
 * socket connected to /dev/log at startup rather than through libc's
 * syslog(), which calls socket() again whenever it lost the connection: the
 * sandbox kills laked for that. When a send fails, the line goes to stderr.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <lake/port.h>
#include <lake/cu_errors.h>
#include "log.h"

#define SYSLOG_PATH	"/dev/log"
#define LINE_BYTES	1024
#define BURST		50		/* rate-limited lines per window */
#define WINDOW_NS	1000000000ULL

static int syslog_fd = -1;
static int max_level = LOG_INFO;
static int pid;
/* Workers log at once: the window is shared. */
static pthread_mutex_t window_lock = PTHREAD_MUTEX_INITIALIZER;
static u64 window_start;
static unsigned int in_window, suppressed;

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

int laked_log_to_syslog(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX, .sun_path = SYSLOG_PATH };
	int fd, ret;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		ret = -errno;
		close(fd);
		return ret;
	}
	pid = getpid();
	syslog_fd = fd;
	return 0;
}

int laked_log_syslog_fd(void)
{
	return syslog_fd;
}

void laked_log_close(void)
{
	if (syslog_fd >= 0)
		close(syslog_fd);
	syslog_fd = -1;
}

void laked_log_set_level(int level)
{
	max_level = level;
}

static const char *level_prefix(int level)
{
	switch (level) {
	case LOG_EMERG:
	case LOG_ALERT:
	case LOG_CRIT:
	case LOG_ERR:
		return "error: ";
	case LOG_WARNING:
		return "warning: ";
	default:
		return "";
	}
}

static void emit(int level, const char *msg)
{
	char line[LINE_BYTES + 64];
	int n;

	if (syslog_fd >= 0) {
		n = snprintf(line, sizeof(line), "<%d>laked[%d]: %s", LOG_DAEMON | level, pid, msg);
		if (send(syslog_fd, line, (size_t)n, MSG_NOSIGNAL) == n)
			return;
	}
	n = snprintf(line, sizeof(line), "laked: %s%s\n", level_prefix(level), msg);
	/* Nothing useful to do when stderr is gone. */
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

/* The kernel decides how often warnings happen: cap them per second. */
static bool rate_ok(int level)
{
	char msg[64];
	bool ok;
	u64 now;

	if (level < LOG_WARNING)
		return true;
	pthread_mutex_lock(&window_lock);
	now = now_ns();
	if (now - window_start >= WINDOW_NS) {
		if (suppressed) {
			snprintf(msg, sizeof(msg), "%u log lines suppressed", suppressed);
			emit(LOG_WARNING, msg);
		}
		window_start = now;
		in_window = 0;
		suppressed = 0;
	}
	ok = in_window < BURST;
	if (ok)
		in_window++;
	else
		suppressed++;
	pthread_mutex_unlock(&window_lock);
	return ok;
}

void laked_log(int level, const char *fmt, ...)
{
	char msg[LINE_BYTES];
	va_list ap;

	if (level > max_level || !rate_ok(level))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit(level, msg);
}

const char *laked_log_str(char *buf, size_t size, const char *s)
{
	size_t i;

	for (i = 0; i + 1 < size && s[i]; i++)
		buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	if (size)
		buf[i] = '\0';
	return buf;
}

const char *laked_cu_name(CUresult r)
{
	static __thread char unknown[32];
	const char *name = NULL;

	if (!lake_cu_error_str(r, &name, true) && name)
		return name;
	snprintf(unknown, sizeof(unknown), "CUresult %d", (int)r);
	return unknown;
}
