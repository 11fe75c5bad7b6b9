// SPDX-License-Identifier: GPL-2.0
/* Seeds for fuzz_linnos_model: a valid file of each variant, and broken ones. */
#include <stdio.h>
#include "tests/unit/linnos_util.h"

static void put(const char *dir, const char *name, const u8 *f, size_t len)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "wb");
	if (!fp || fwrite(f, 1, len, fp) != len || fclose(fp)) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "nn", "nn1", "nn2" };
	struct lt_model *r;
	size_t len;
	u8 *f;
	int v;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (v = LINNOS_NN; v <= LINNOS_NN2; v++) {
		r = lt_model_random(v, 1.0, 1 + v);
		f = lt_model_file(r, 1000 + v, &len);
		put(argv[1], names[v], f, len);
		if (v == LINNOS_NN) {
			put(argv[1], "nn-header", f, 64);
			put(argv[1], "nn-cut", f, len / 2);
			f[100] ^= 1;
			put(argv[1], "nn-badcrc", f, len);
		}
		free(f);
		lt_model_free(r);
	}
	return 0;
}
