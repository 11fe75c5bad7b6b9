/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arguments of a dm-linnos table line and of its messages (args.c).
 * Plain C on lake/port.h: the module and the host fuzzer build the same
 * file, since a table line is written by whoever runs dmsetup.
 */
#ifndef LINNOS_ARGS_H
#define LINNOS_ARGS_H

#include <lake/port.h>

#define LINNOS_MODEL_NAME_MAX	64
#define LINNOS_MAX_THRESHOLD_US	10000000

enum linnos_mode {
	LINNOS_MODE_AUTO,	/* batches on the worker, the policy picks the side */
	LINNOS_MODE_CPU,	/* predict inline, in the submitter */
	LINNOS_MODE_GPU,	/* batches on the worker, the policy forced to the GPU */
	LINNOS_MODE_OFF,	/* no prediction: every read to the primary */
	LINNOS_MODE_SHADOW,	/* predict inline, judge, act never: every read to the primary */
	LINNOS_NR_MODES
};

/* The options after the two devices; the caller sets the defaults. */
struct linnos_opts {
	int mode;
	u32 threshold_us;
	bool threshold_set;
	const char *model;	/* one of argv's strings; NULL: none given */
};

const char *linnos_mode_name(int mode);
/* A mode's index, or -EINVAL. */
int linnos_parse_mode(const char *s);
/* 1..LINNOS_MAX_THRESHOLD_US in decimal digits: 0, or -EINVAL. */
int linnos_parse_threshold(const char *s, u32 *us);
/* A firmware name: a relative path of [A-Za-z0-9._-/], no "..". */
bool linnos_model_name_ok(const char *s);
/* mode=M, threshold=US, model=FILE: 0, or -EINVAL with @error set. */
int linnos_parse_options(struct linnos_opts *o, unsigned int argc, char **argv,
			 const char **error);

#endif /* LINNOS_ARGS_H */
