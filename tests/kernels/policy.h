/* SPDX-License-Identifier: GPL-2.0 */
/* Signatures of policy.cu's kernels, shared with the modules that launch them. */
#ifndef LAKE_TEST_KERNELS_POLICY_H
#define LAKE_TEST_KERNELS_POLICY_H

#define IADD_PARAMS	(const unsigned int *, a), (const unsigned int *, b), \
			(unsigned int *, c), (int, n)
#define HOLD_PARAMS	(const volatile int *, flag), (unsigned long long, max_spins)

#endif
