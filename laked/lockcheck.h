/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lock assertions for laked: where a comment would say "X held", the code
 * says laked_assert_held(&X). Built with LAKED_LOCK_CHECKS (the unit tests
 * are), the mutexes are error-checking and the assertion asks the mutex
 * whether this thread owns it (a timed lock that fails with EDEADLK only
 * for its owner), aborting otherwise; in laked itself it costs nothing.
 */
#ifndef LAKED_LOCKCHECK_H
#define LAKED_LOCKCHECK_H

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline int laked_mutex_init(pthread_mutex_t *m)
{
#ifdef LAKED_LOCK_CHECKS
	pthread_mutexattr_t a;
	int ret;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	ret = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return ret;
#else
	return pthread_mutex_init(m, NULL);
#endif
}

#ifdef LAKED_LOCK_CHECKS
static inline void laked_assert_held_at(pthread_mutex_t *m, const char *what, const char *file,
					int line)
{
	static const struct timespec past;
	int ret = pthread_mutex_timedlock(m, &past);

	if (ret == EDEADLK)
		return;
	if (!ret)
		pthread_mutex_unlock(m);
	fprintf(stderr, "%s:%d: %s is not held by this thread\n", file, line, what);
	abort();
}
#define laked_assert_held(m)	laked_assert_held_at((m), #m, __FILE__, __LINE__)
#else
#define laked_assert_held(m)	((void)(m))
#endif

#endif /* LAKED_LOCKCHECK_H */
