/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's signature, written once: vadd.cu declares the kernel with it
 * (LAKE_KERNEL) and vadd.c the layout lakelib must see (LAKE_KERNEL_SIG).
 */
#ifndef LAKE_EXAMPLE_VADD_KERNEL_H
#define LAKE_EXAMPLE_VADD_KERNEL_H

#define VADD_PARAMS	(const unsigned int *, a), (const unsigned int *, b), \
			(unsigned int *, c), (int, n)

#endif
