/* SPDX-License-Identifier: GPL-2.0 */
/* Signatures of selftest.cu's kernels, shared with the tests that launch them. */
#ifndef LAKE_TEST_KERNELS_SELFTEST_H
#define LAKE_TEST_KERNELS_SELFTEST_H

#define INDEX3D_PARAMS		(unsigned int *, out)
#define MIXED_PARAMS		(char, c), (double, d), (short, s), (long long *, out), \
				(float, f)
#define WAIT_FLAG_PARAMS	(const volatile int *, flag), (int *, out), \
				(unsigned long long, max_spins)

#endif
