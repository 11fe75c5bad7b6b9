// SPDX-License-Identifier: GPL-2.0
/*
 * Each header of include/uapi/lake/ compiles alone, as a user-space program
 * would include it: the compiler (run here, on a one-line file) finds only
 * the system's kernel UAPI headers and include/uapi/ (tests/unit/uapi.mk),
 * with -std=c11 -Wall -Wextra -Wpedantic -Werror. A UAPI header that
 * includes <lake/port.h> or a libc header, or writes u32 for __u32, fails.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>

static const char *const headers[] = { UAPI_HEADERS };

static void compiles_alone(void **state)
{
	const char *header = *state;
	FILE *cc;

	cc = popen("'" UAPI_CC "' -std=c11 -Wall -Wextra -Wpedantic -Werror -nostdinc"
		   " -isystem '" UAPI_SYS "' -I'" UAPI_ROOT "' -fsyntax-only -x c - 2>&1", "w");
	assert_non_null(cc);
	fprintf(cc, "#include <uapi/lake/%s>\n", header);
	assert_int_equal(pclose(cc), 0);
}

int main(void)
{
	struct CMUnitTest tests[sizeof(headers) / sizeof(headers[0])];
	size_t i;

	for (i = 0; i < sizeof(headers) / sizeof(headers[0]); i++)
		tests[i] = (struct CMUnitTest){
			.name = headers[i],
			.test_func = compiles_alone,
			.initial_state = (void *)headers[i],
		};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
