/* SPDX-License-Identifier: GPL-2.0 */
/*
 * laked's log: one line per event, to stderr or to syslog. Levels are
 * syslog's (LOG_ERR ... LOG_DEBUG). Lines at LOG_WARNING and below are rate
 * limited, since the kernel decides how often they happen. The sink and the
 * level are set before laked starts threads; laked_log itself may be called
 * from any thread (workers, the host device's executors).
 */
#ifndef LAKED_LOG_H
#define LAKED_LOG_H

#include <stddef.h>
#include <syslog.h>
#include <lake/cuda.h>

/*
 * Send lines to the syslog socket from now on. The socket is opened and
 * connected here, so logging needs no new descriptor after the sandbox
 * closes that door. 0 or -errno (then stderr stays).
 */
int laked_log_to_syslog(void);
/* The syslog socket, for the sandbox's sendto rule; -1: logging to stderr. */
int laked_log_syslog_fd(void);
void laked_log_close(void);
/* Lines above @level (less severe) are dropped; LOG_INFO by default. */
void laked_log_set_level(int level);
void laked_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * @s made safe for a log line: bytes outside printable ASCII become '?', and
 * it is cut to fit @size. Returns @buf. For strings the kernel sent.
 */
const char *laked_log_str(char *buf, size_t size, const char *s);
/* "CUDA_ERROR_INVALID_VALUE", or "CUresult 1234" for a code lake does not name. */
const char *laked_cu_name(CUresult r);

#endif /* LAKED_LOG_H */
