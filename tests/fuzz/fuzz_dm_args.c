// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for dm-linnos's table and message arguments
 * (examples/linnos/args.c, the file the module builds): the input is split
 * at NUL bytes into the arguments after the two devices, as the kernel
 * hands them over. Each verdict is checked against a reference reading of
 * the documented syntax (mode=auto|cpu|gpu|off|shadow, threshold=1..10000000 in
 * decimal, model=FILE of [A-Za-z0-9._-/] relative, no ".."), and each
 * argument is also tried as a message's mode, threshold and file name.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/linnos/args.h"

#define MAX_ARGS	16

static void check(int cond)
{
	if (!cond)
		abort();
}

static bool ref_mode(const char *s, int *mode)
{
	static const char *const names[] = { "auto", "cpu", "gpu", "off", "shadow" };
	int i;

	for (i = 0; i < 5; i++)
		if (!strcmp(s, names[i]))
			return (*mode = i), true;
	return false;
}

static bool ref_threshold(const char *s, u32 *us)
{
	unsigned long long v;
	size_t n = strlen(s);

	if (!n || strspn(s, "0123456789") != n)
		return false;
	while (n > 1 && *s == '0')
		s++, n--;
	if (n > 8)
		return false;
	v = strtoull(s, NULL, 10);
	if (v < 1 || v > 10000000)
		return false;
	*us = (u32)v;
	return true;
}

static bool ref_name(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= 63 && s[0] != '/' && !strstr(s, "..") &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/") == n;
}

static void one_arg(const char *s)
{
	int mode, want_mode;
	u32 us = 7, want_us;

	mode = linnos_parse_mode(s);
	check(ref_mode(s, &want_mode) ? mode == want_mode : mode == -EINVAL);
	if (mode >= 0)
		check(!strcmp(linnos_mode_name(mode), s));
	if (ref_threshold(s, &want_us))
		check(!linnos_parse_threshold(s, &us) && us == want_us);
	else
		check(linnos_parse_threshold(s, &us) == -EINVAL && us == 7);
	check(linnos_model_name_ok(s) == ref_name(s));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct linnos_opts o = { .mode = LINNOS_MODE_CPU, .threshold_us = 1000 }, want = o;
	char *buf, *argv[MAX_ARGS], *p, *end;
	const char *error = NULL;
	unsigned int argc = 0, i;
	bool ok = true;
	int ret;

	if (size > 1024)
		return -1;
	buf = malloc(size + 1);
	check(buf != NULL);
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (p = buf, end = buf + size; p < end && argc < MAX_ARGS; p += strlen(p) + 1)
		argv[argc++] = p;
	for (i = 0; i < argc; i++) {
		one_arg(argv[i]);
		if (!ok)
			continue;
		if (!strncmp(argv[i], "mode=", 5))
			ok = ref_mode(argv[i] + 5, &want.mode);
		else if (!strncmp(argv[i], "threshold=", 10))
			ok = ref_threshold(argv[i] + 10, &want.threshold_us) &&
			     (want.threshold_set = true);
		else if (!strncmp(argv[i], "model=", 6))
			want.model = argv[i] + 6;
		else
			ok = false;
	}
	ret = linnos_parse_options(&o, argc, argv, &error);
	if (ok) {
		check(!ret && !error);
		check(o.mode == want.mode && o.threshold_us == want.threshold_us &&
		      o.threshold_set == want.threshold_set && o.model == want.model);
		check(o.mode >= 0 && o.mode < LINNOS_NR_MODES);
	} else {
		check(ret == -EINVAL && error != NULL);
	}
	free(buf);
	return 0;
}
