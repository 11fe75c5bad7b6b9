// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for laked's configuration file (laked/service.c): each
 * input is the file, read by laked_config_parse() from memory. What it
 * makes of it is judged by a reference reading of the format as service.c's
 * header states it ("key = value" lines, "#" comments, the allowed keys,
 * booleans yes or no): the same arguments, in order, or a refusal naming
 * the file and leaving nothing behind.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "laked/daemon.h"

static void check(int cond)
{
	if (!cond)
		abort();
}

static const char path[] = "/etc/lake/laked.conf";
static char iobuf[8192];

static bool is_key(const char *k, size_t n, bool *boolean)
{
	static const char *const keys[] = { "device", "module-dir", "load-period-ms", "transport",
					    "ring-spin-us" };
	static const char *const bools[] = { "syslog", "verbose", "allow-no-landlock" };
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i]) == n && !memcmp(k, keys[i], n))
			return !(*boolean = false);
	for (i = 0; i < sizeof(bools) / sizeof(bools[0]); i++)
		if (strlen(bools[i]) == n && !memcmp(k, bools[i], n))
			return (*boolean = true);
	return false;
}

/* [s, e) without the spaces at either end. */
static void strip(const char **s, const char **e)
{
	while (*s < *e && isspace((unsigned char)**s))
		(*s)++;
	while (*e > *s && isspace((unsigned char)(*e)[-1]))
		(*e)--;
}

/*
 * The reference: the arguments @data makes, one after the other in @out
 * (NUL-separated), and their count; -1 when a line is wrong. A line ends at
 * its newline; a NUL ends what is read of it, as a C string.
 */
static int reference(const u8 *data, size_t size, char *out)
{
	size_t at = 0;
	int n = 0;

	while (at < size) {
		const char *line = (const char *)data + at, *nl = memchr(line, '\n', size - at);
		const char *end = nl ? nl : (const char *)data + size, *k, *ke, *v, *ve, *eq;
		bool boolean;

		at = (size_t)(end - (const char *)data) + 1;
		ve = memchr(line, '\0', (size_t)(end - line));
		end = ve ? ve : end;
		ve = memchr(line, '#', (size_t)(end - line));
		end = ve ? ve : end;
		k = line;
		strip(&k, &end);
		if (k == end)
			continue;
		eq = memchr(k, '=', (size_t)(end - k));
		if (!eq)
			return -1;
		ke = eq;
		v = eq + 1;
		ve = end;
		strip(&k, &ke);
		strip(&v, &ve);
		if (!is_key(k, (size_t)(ke - k), &boolean) || v == ve)
			return -1;
		if (boolean) {
			if (ve - v == 2 && !memcmp(v, "no", 2))
				continue;
			if (ve - v != 3 || memcmp(v, "yes", 3))
				return -1;
			out += sprintf(out, "--%.*s", (int)(ke - k), k) + 1;
		} else {
			out += sprintf(out, "--%.*s=%.*s", (int)(ke - k), k, (int)(ve - v), v) + 1;
		}
		n++;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct laked_config_args a;
	char err[256] = "", *want, *w;
	int ret, n, i;

	FILE *f;

	/* fmemopen() refuses an empty buffer; an empty file is a seed's business. */
	if (!size || size > 4096)
		return -1;
	f = fmemopen((void *)data, size, "r");
	/* A buffer of ours: stdio's own costs ASan a page fill each run. */
	check(f != NULL && !setvbuf(f, iobuf, _IOFBF, sizeof(iobuf)));
	want = malloc(2 * size + 16);
	check(want != NULL);
	n = reference(data, size, want);
	ret = laked_config_parse(f, path, &a, err, sizeof(err));
	fclose(f);
	if (n < 0) {
		check(ret == -EINVAL && !a.argc && !a.argv);
		check(!strncmp(err, path, strlen(path)) && strlen(err) > strlen(path));
	} else {
		check(!ret && a.argc == n);
		for (i = 0, w = want; i < n; i++, w += strlen(w) + 1)
			check(!strcmp(a.argv[i], w));
		laked_config_free(&a);
	}
	free(want);
	return 0;
}
