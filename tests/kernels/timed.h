/* SPDX-License-Identifier: GPL-2.0 */
/* Signatures of timed.cu's kernels, shared with the modules that launch them. */
#ifndef LAKE_TEST_KERNELS_TIMED_H
#define LAKE_TEST_KERNELS_TIMED_H

#define RUN_FOR_PARAMS	(unsigned long long, ns)

#endif
