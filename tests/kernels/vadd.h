/* SPDX-License-Identifier: GPL-2.0 */
/* vadd's signature, shared by vadd.cu and the modules that launch it. */
#ifndef LAKE_TEST_KERNELS_VADD_H
#define LAKE_TEST_KERNELS_VADD_H

#define VADD_PARAMS	(const float *, a), (const float *, b), (float *, c), (int, n)

#endif
