/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the tests that read a file the project ships (weights, a
 * reference, a recording): the whole file, NUL-terminated so that text can
 * be parsed in place; a file that cannot be read fails the test.
 */
#ifndef LAKE_TEST_FILE_UTIL_H
#define LAKE_TEST_FILE_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

static inline void *test_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		fail_msg("%s: cannot open", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc(n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

#endif
