// SPDX-License-Identifier: GPL-2.0
/* LinnOS's offline evaluation (evaluate.h): trace reading and counting. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "evaluate.h"

static const char header[] =
	"ts_ns,dev,pending,lat_us,hist_lat0,hist_lat1,hist_lat2,hist_lat3,"
	"hist_pend0,hist_pend1,hist_pend2,hist_pend3";

#define ROW_FIELDS	12

/* The row's 12 unsigned fields; false unless there are exactly 12. */
static bool parse_row(const char *s, unsigned long long v[ROW_FIELDS])
{
	char *end;
	int i;

	for (i = 0; i < ROW_FIELDS; i++) {
		if (*s < '0' || *s > '9')
			return false;
		errno = 0;
		v[i] = strtoull(s, &end, 10);
		if (errno || (i > 0 && v[i] > UINT32_MAX))
			return false;
		s = end;
		if (i + 1 < ROW_FIELDS && *s++ != ',')
			return false;
	}
	return *s == '\0' || *s == '\n' || (s[0] == '\r' && s[1] == '\n');
}

int linnos_trace_load(FILE *f, struct linnos_trace *t, const char **why, size_t *line)
{
	char buf[512];
	size_t cap = 0;
	unsigned long long v[ROW_FIELDS];
	u32 k;

	t->r = NULL;
	t->n = 0;
	*line = 1;
	if (!fgets(buf, sizeof(buf), f) || strncmp(buf, header, sizeof(header) - 1) ||
	    (buf[sizeof(header) - 1] != '\n' && buf[sizeof(header) - 1] != '\0')) {
		*why = "header is not train.py's";
		return -EINVAL;
	}
	while (fgets(buf, sizeof(buf), f)) {
		struct linnos_trace_read *r;

		(*line)++;
		if (!parse_row(buf, v)) {
			*why = "not 12 unsigned integers";
			linnos_trace_free(t);
			return -EINVAL;
		}
		if (t->n == cap) {
			cap = cap ? 2 * cap : 4096;
			r = realloc(t->r, cap * sizeof(*r));
			if (!r) {
				*why = "out of memory";
				linnos_trace_free(t);
				return -ENOMEM;
			}
			t->r = r;
		}
		r = &t->r[t->n++];
		r->pending = v[2];
		r->lat_us = v[3];
		for (k = 0; k < LINNOS_HISTORY; k++) {
			r->h.latency_us[k] = v[4 + k];
			r->h.pending_at_issue[k] = v[8 + k];
		}
	}
	if (ferror(f)) {
		*why = "read error";
		linnos_trace_free(t);
		return -EIO;
	}
	return 0;
}

void linnos_trace_free(struct linnos_trace *t)
{
	free(t->r);
	t->r = NULL;
	t->n = 0;
}

void linnos_eval_add(struct linnos_eval *e, u32 threshold_us, u32 lat_us, bool pred_slow)
{
	bool slow = linnos_is_slow(lat_us, threshold_us);

	e->reads++;
	e->slow += slow;
	e->false_submit += slow && !pred_slow;
	e->false_revoke += !slow && pred_slow;
}

#define EVAL_CHUNK	1024

int linnos_eval_trace(const struct linnos_model *m, const struct linnos_trace *t,
		      struct linnos_eval *model, struct linnos_eval *base)
{
	u32 thr = linnos_model_threshold_us(m);
	u8 *in, out[EVAL_CHUNK];
	size_t at, i, n;

	in = malloc((size_t)EVAL_CHUNK * LINNOS_INPUTS);
	if (!in)
		return -ENOMEM;
	for (at = 0; at < t->n; at += n) {
		n = t->n - at < EVAL_CHUNK ? t->n - at : EVAL_CHUNK;
		for (i = 0; i < n; i++)
			linnos_encode(&t->r[at + i].h, t->r[at + i].pending,
				      in + i * LINNOS_INPUTS);
		linnos_infer_batch(m, in, n, out);
		for (i = 0; i < n; i++) {
			if (model)
				linnos_eval_add(model, thr, t->r[at + i].lat_us, out[i]);
			if (base)
				linnos_eval_add(base, thr, t->r[at + i].lat_us, false);
		}
	}
	free(in);
	return 0;
}

static double pct(u64 a, u64 b)
{
	return b ? 100.0 * a / b : 0;
}

void linnos_eval_print_head(FILE *f)
{
	fprintf(f, "%-16s %6s %8s %6s %9s %9s %9s %7s\n", "model", "thr_us", "reads", "slow",
		"accuracy", "f_submit", "f_revoke", "caught");
}

void linnos_eval_print(FILE *f, const char *name, u32 threshold_us, const struct linnos_eval *e)
{
	fprintf(f, "%-16s %6u %8" PRIu64 " %6" PRIu64 " %8.2f%% %8.3f%% %8.3f%% %6.1f%%\n",
		name, threshold_us, e->reads, e->slow,
		pct(e->reads - e->false_submit - e->false_revoke, e->reads),
		pct(e->false_submit, e->reads), pct(e->false_revoke, e->reads),
		pct(e->slow - e->false_submit, e->slow));
}
