// SPDX-License-Identifier: GPL-2.0
/*
 * lake/cuda.h against NVIDIA's cuda.h: every constant lake/cuda.h defines has
 * NVIDIA's value, and the basic types have NVIDIA's sizes. This unit sees only
 * NVIDIA's header; cuda_h_lake.c evaluates the same names under lake's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ctype.h>
#include <cmocka.h>

#ifndef LAKE_NVIDIA_CUDA_H
#define LAKE_NVIDIA_CUDA_H "/usr/local/cuda/include/cuda.h"
#endif
#include LAKE_NVIDIA_CUDA_H

#include "cuda_h_lake.h"

#define LAKE_CUDA_H_SOURCE "include/lake/cuda.h"

#define CUDA_H_CONST(n)	{ #n, (unsigned long long)(uintptr_t)(n) },
#define CUDA_H_TYPE(t)
static const struct cuda_h_entry nv_consts[] = {
#include "cuda_h_names.h"
};
#undef CUDA_H_CONST
#undef CUDA_H_TYPE

#define CUDA_H_CONST(n)
#define CUDA_H_TYPE(t)	{ #t, sizeof(t) },
static const struct cuda_h_entry nv_types[] = {
#include "cuda_h_names.h"
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int compare(const struct cuda_h_entry *nv, size_t n_nv,
		   const struct cuda_h_entry *lake, size_t n_lake)
{
	int bad = 0;
	size_t i;

	assert_int_equal(n_nv, n_lake);
	for (i = 0; i < n_nv; i++) {
		assert_string_equal(nv[i].name, lake[i].name);
		if (nv[i].value != lake[i].value) {
			print_error("%s: lake %llu, NVIDIA %llu\n", nv[i].name,
				    lake[i].value, nv[i].value);
			bad++;
		}
	}
	return bad;
}

static void test_constants_match_nvidia(void **state)
{
	(void)state;
	assert_int_equal(compare(nv_consts, ARRAY_SIZE(nv_consts),
				 lake_cuda_h_consts, lake_cuda_h_nconsts), 0);
}

static void test_type_sizes_match_nvidia(void **state)
{
	(void)state;
	assert_int_equal(compare(nv_types, ARRAY_SIZE(nv_types),
				 lake_cuda_h_types, lake_cuda_h_ntypes), 0);
	assert_int_equal(lake_cuda_h_device_signed, (CUdevice)-1 < 0);
	assert_int_equal(lake_cuda_h_deviceptr_unsigned, (CUdeviceptr)-1 > 0);
}

static bool listed(const char *name)
{
	size_t i;

	for (i = 0; i < lake_cuda_h_nconsts; i++)
		if (!strcmp(lake_cuda_h_consts[i].name, name))
			return true;
	return false;
}

/*
 * The constant a line of lake/cuda.h defines, if any: an enumerator
 * "CU... =" or a "#define CU...". Copies it to @name.
 */
static bool defined_constant(const char *line, char *name, size_t len)
{
	const char *p = line;
	size_t n = 0;
	bool define = false;

	if (!strncmp(p, "#define", 7)) {
		define = true;
		p += 7;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "CU", 2))
		return false;
	while ((isalnum((unsigned char)p[n]) || p[n] == '_') && n + 1 < len) {
		name[n] = p[n];
		n++;
	}
	name[n] = '\0';
	p += n;
	if (define)
		return *p == ' ' || *p == '\t';
	while (*p == ' ' || *p == '\t')
		p++;
	return *p == '=';
}

/* A constant added to lake/cuda.h but not to cuda_h_names.h would go unchecked. */
static void test_every_constant_is_checked(void **state)
{
	char line[512], name[128];
	size_t seen = 0;
	FILE *f;

	(void)state;
	f = fopen(LAKE_CUDA_H_SOURCE, "r");
	if (!f)
		fail_msg("cannot open %s (run from the repository root)", LAKE_CUDA_H_SOURCE);
	while (fgets(line, sizeof(line), f)) {
		if (!defined_constant(line, name, sizeof(name)))
			continue;
		seen++;
		if (!listed(name))
			fail_msg("%s is defined in %s but not checked", name, LAKE_CUDA_H_SOURCE);
	}
	fclose(f);
	assert_int_equal(seen, lake_cuda_h_nconsts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constants_match_nvidia),
		cmocka_unit_test(test_type_sizes_match_nvidia),
		cmocka_unit_test(test_every_constant_is_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
