// SPDX-License-Identifier: GPL-2.0
/*
 * linnos_eval TRACE MODEL.lnw...: LinnOS's offline evaluation (evaluate.h)
 * of each weight file on a labelled trace, one row per model and the
 * always-fast baseline at each model's threshold (`make linnos-eval`).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "evaluate.h"

static int eval_file(const char *path, const struct linnos_trace *t, u32 *last_thr)
{
	struct linnos_eval model = { 0 }, base = { 0 };
	struct linnos_model *m;
	const char *why, *name;
	long len;
	void *buf;
	FILE *f;
	int ret;

	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "linnos_eval: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || len > LINNOS_MODEL_MAX_BYTES ||
	    fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "linnos_eval: %s: not a weight file (size)\n", path);
		fclose(f);
		return 1;
	}
	buf = malloc(len ? len : 1);
	if (!buf || fread(buf, 1, len, f) != (size_t)len) {
		fprintf(stderr, "linnos_eval: %s: cannot read\n", path);
		free(buf);
		fclose(f);
		return 1;
	}
	fclose(f);
	ret = linnos_model_parse(buf, len, &m, &why);
	free(buf);
	if (ret) {
		fprintf(stderr, "linnos_eval: %s: %s\n", path, why);
		return 1;
	}
	if (linnos_eval_trace(m, t, &model, &base)) {
		fprintf(stderr, "linnos_eval: out of memory\n");
		linnos_model_free(m);
		return 1;
	}
	if (linnos_model_threshold_us(m) != *last_thr) {
		*last_thr = linnos_model_threshold_us(m);
		linnos_eval_print(stdout, "always-fast", *last_thr, &base);
	}
	name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	linnos_eval_print(stdout, name, *last_thr, &model);
	linnos_model_free(m);
	return 0;
}

int main(int argc, char **argv)
{
	struct linnos_trace t;
	const char *why;
	u32 thr = 0;
	size_t line;
	int i, bad = 0;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: linnos_eval TRACE.csv MODEL.lnw...\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		fprintf(stderr, "linnos_eval: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (linnos_trace_load(f, &t, &why, &line)) {
		fprintf(stderr, "linnos_eval: %s:%zu: %s\n", argv[1], line, why);
		fclose(f);
		return 1;
	}
	fclose(f);
	printf("linnos_eval: %s: %zu reads; every prediction judged\n", argv[1], t.n);
	linnos_eval_print_head(stdout);
	for (i = 2; i < argc; i++)
		bad |= eval_file(argv[i], &t, &thr);
	linnos_trace_free(&t);
	return bad;
}
