// SPDX-License-Identifier: GPL-2.0
/*
 * laked's receive loop (laked_nl_receive, laked/netlink.c) against scripted
 * results of nl_recvmsgs: an ENOBUFS (NLE_NOMEM) is logged and reading goes
 * on; an empty socket (NLE_AGAIN: it is non-blocking) ends the batch, also
 * right after an ENOBUFS, which can come with nothing queued behind it (the
 * overrun case found laked exiting there); any other error stops laked.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#define nl_recvmsgs_default scripted_recvmsgs
#include "laked/netlink.c"
#undef nl_recvmsgs_default

static const int *script;
static int calls;

int scripted_recvmsgs(struct nl_sock *sk)
{
	(void)sk;
	return script[calls++];
}

int laked_pool_submit(struct laked_pool *p, const void *blob, u32 len)
{
	(void)p;
	(void)blob;
	(void)len;
	return 0;
}

static int receive(const int *s)
{
	static struct laked_nl nl;

	script = s;
	calls = 0;
	return laked_nl_receive(&nl);
}

static void test_one_message(void **state)
{
	static const int s[] = { 0 };

	(void)state;
	assert_int_equal(receive(s), 0);
	assert_int_equal(calls, 1);
}

static void test_enobufs_then_message(void **state)
{
	static const int s[] = { -NLE_NOMEM, 0 };

	(void)state;
	assert_int_equal(receive(s), 0);
	assert_int_equal(calls, 2);
}

static void test_enobufs_then_empty(void **state)
{
	static const int s[] = { -NLE_NOMEM, -NLE_AGAIN };

	(void)state;
	assert_int_equal(receive(s), 0);
	assert_int_equal(calls, 2);
}

static void test_empty(void **state)
{
	static const int s[] = { -NLE_AGAIN };

	(void)state;
	assert_int_equal(receive(s), 0);
}

static void test_other_error_stops(void **state)
{
	static const int s[] = { -NLE_NOMEM, -NLE_BAD_SOCK };

	(void)state;
	assert_int_equal(receive(s), -EIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_message),
		cmocka_unit_test(test_enobufs_then_message),
		cmocka_unit_test(test_enobufs_then_empty),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_other_error_stops),
	};

	laked_log_set_level(-1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
