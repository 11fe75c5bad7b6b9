/* SPDX-License-Identifier: GPL-2.0 */
/*
 * examples/sysmon's portable core: system calls to classes, counts to
 * features, the reference file's parser, and the CPU side's batch scoring.
 * Includes only lake/port.h (and knn.h), so the host unit test runs the
 * very code the module builds.
 */
#ifndef SYSMON_REF_H
#define SYSMON_REF_H

#include <lake/port.h>
#include "knn.h"

/* Reference files: at most this many windows (1 MiB of features). */
#define SYSMON_REF_MAX		8192
#define SYSMON_REF_HDR		32
#define SYSMON_REF_VERSION	1
/* The feature encoding a file was made for (below); a file of another is refused. */
#define SYSMON_FEATURES_ID	1
/*
 * A score is at most 2 * 4096 = 8192: a group's features have an L2 norm
 * of 4096 (or 0) and are never negative, so two windows' groups are at
 * most sqrt(2) x 4096 apart, both groups sqrt(4) x 4096. A threshold
 * above it (nothing could pass it) is refused.
 */
#define SYSMON_SCORE_MAX	(2 * SYSMON_FEAT_MAX)
/* System-call numbers the class table covers (x86_64's); others are class 0. */
#define SYSMON_NR_MAX		512

/*
 * The class of system call @nr (x86_64 numbering): 1..47 for the classes
 * ref.c lists, 0 for every other call, an unknown number included.
 */
u32 sysmon_class(long nr);
/* The bigram bucket (SYSMON_UNI..SYSMON_DIMS-1) of two successive classes. */
static inline u32 sysmon_bigram(u32 prev, u32 cur)
{
	return SYSMON_UNI + (((prev * SYSMON_UNI + cur) * 2654435761u) >> 28);
}

/*
 * Counts of one window to features: each group (the 48 classes, the 16
 * bigram buckets) separately, feature = isqrt((count << 24) / group total),
 * so the L2 distance of two windows is 4096 times the Hellinger distance
 * of their call mixes, summed over the groups (volume is not a feature: a
 * long run of a program looks like a short one). A group with no calls is
 * all zeros.
 */
void sysmon_features(const u32 counts[SYSMON_DIMS], u16 feat[SYSMON_DIMS]);

struct sysmon_ref {
	u32 count;		/* windows */
	u32 k;			/* neighbours scored */
	u32 threshold;		/* a score above it is an anomaly */
	u16 *rows;		/* count * SYSMON_DIMS features */
};

/*
 * Parse and check a reference file (format in ref.c). 0 and a new
 * reference, or -EINVAL (*why a static reason) or -ENOMEM.
 */
int sysmon_ref_parse(const void *buf, size_t len, struct sysmon_ref **out,
		     const char **why);
void sysmon_ref_free(struct sysmon_ref *ref);
/* The file bytes for a reference (what train.py writes); returns the length. */
size_t sysmon_ref_write(const struct sysmon_ref *ref, void *buf, size_t cap);

/* Score one window (SYSMON_DIMS features) on the CPU; d2 is scratch of ref->count u32. */
u32 sysmon_score_one(const struct sysmon_ref *ref, const u16 *feat, u32 *d2);
/* The same for nq windows (feat: nq * SYSMON_DIMS). */
void sysmon_score_batch(const struct sysmon_ref *ref, const u16 *feat, u32 nq,
			u32 *d2, u32 *score);

#endif /* SYSMON_REF_H */
