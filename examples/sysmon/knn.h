/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kNN scoring core of examples/sysmon, written once for the three
 * places that run it: the module's CPU side (sysmon.c, through ref.c), the
 * GPU kernels (knn.cu, built by nvcc and by cc for laked's host device) and
 * the host unit test. Plain C types and integers only, so that every build
 * gives the same scores bit for bit.
 *
 * A window is SYSMON_DIMS features, each 0..SYSMON_FEAT_MAX (ref.h says
 * how counts become features). The distance between two windows is the
 * integer square root of the squared L2 distance of their features; the
 * score of a window is the mean (rounded down) of its distances to its k
 * nearest reference windows. The squared distance is at most
 * SYSMON_DIMS * SYSMON_FEAT_MAX^2 = 2^30, so it fits a u32.
 */
#ifndef SYSMON_KNN_H
#define SYSMON_KNN_H

#define SYSMON_DIMS		64	/* 48 system-call classes, 16 hashed bigrams */
#define SYSMON_UNI		48
#define SYSMON_BI		(SYSMON_DIMS - SYSMON_UNI)
#define SYSMON_FEAT_SHIFT	24	/* feature = isqrt(share << 24): 0..4096 */
#define SYSMON_FEAT_MAX		4096
#define SYSMON_K_MAX		16

#ifdef LAKE_DEVICE
#define SYSMON_FN	LAKE_DEVICE
#else
#define SYSMON_FN	static inline
#endif

/* floor(sqrt(x)), bit by bit: the same on every device. */
SYSMON_FN unsigned int sysmon_isqrt(unsigned long long x)
{
	unsigned long long r = 0, bit = 1ull << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return (unsigned int)r;
}

/* Squared L2 distance of two windows. */
SYSMON_FN unsigned int sysmon_dist2(const unsigned short *a, const unsigned short *b)
{
	unsigned int s = 0;
	int i;

	for (i = 0; i < SYSMON_DIMS; i++) {
		int d = (int)a[i] - (int)b[i];

		s += (unsigned int)(d * d);
	}
	return s;
}

/*
 * The score from one window's squared distances to all @count reference
 * windows (k <= SYSMON_K_MAX, k <= count): the k smallest, kept sorted by
 * insertion, then the mean of their square roots.
 */
SYSMON_FN unsigned int sysmon_score_row(const unsigned int *d2, unsigned int count,
					unsigned int k)
{
	unsigned int best[SYSMON_K_MAX];
	unsigned int n = 0, i, j, sum = 0;

	for (i = 0; i < count; i++) {
		unsigned int v = d2[i];

		if (n == k && v >= best[k - 1])
			continue;
		j = n < k ? n++ : k - 1;
		while (j > 0 && best[j - 1] > v) {
			best[j] = best[j - 1];
			j--;
		}
		best[j] = v;
	}
	for (i = 0; i < n; i++)
		sum += sysmon_isqrt(best[i]);
	return n ? sum / n : 0;
}

/* The kernels' parameters (knn.cu), declared once for the module too. */
#define SYSMON_DIST_PARAMS	(const unsigned short *, q), (const unsigned short *, refs), \
				(unsigned int *, d2), (int, nq), (int, count)
#define SYSMON_TOPK_PARAMS	(const unsigned int *, d2), (unsigned int *, score), \
				(int, nq), (int, count), (int, k)

#endif /* SYSMON_KNN_H */
