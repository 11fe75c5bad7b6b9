/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The GPU kernel's parameters, shared by readahead.cu and the module
 * (lake/kernel.h explains the form): the model's payload as the file has
 * it (model.c), its hidden and class counts, n input vectors of RA_INPUTS
 * u16 each, and one class per vector out.
 */
#ifndef RA_KERNEL_H
#define RA_KERNEL_H

#define RA_KERNEL_PARAMS	(const int *, wb), (int, hidden), (int, classes), \
				(const unsigned short *, x), (unsigned char *, cls), (int, n)

#endif
