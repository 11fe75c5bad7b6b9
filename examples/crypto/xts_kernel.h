/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the module and its kernel (xts_aes.cu) share: the batch's records
 * and the kernel's signature, written once. Plain C types only, since the
 * kernel module, cc and nvcc all read this file.
 *
 * A batch is three arrays in one buffer: units (one per crypto API request,
 * each one XTS data unit), their data packed one after another at 16-byte
 * aligned offsets, and the keys the units name (a batch may mix tfms).
 */
#ifndef LAKE_EXAMPLE_XTS_KERNEL_H
#define LAKE_EXAMPLE_XTS_KERNEL_H

#define XTS_BLOCK		16
#define XTS_UNIT_MIN		XTS_BLOCK	/* the kernel's xts refuses less */

/* impl: which CPU code the host device runs (a GPU ignores it). */
#define XTS_IMPL_AUTO		0	/* AES-NI where cpuid says so, else table-free */
#define XTS_IMPL_TABLE_FREE	1	/* constant time, SSE2 only */
#define XTS_IMPL_AESNI		2	/* traps where the CPU has no AES-NI */

/* ran: what processed a unit, written by the kernel (0: nothing did). */
#define XTS_RAN_TABLE_FREE	1
#define XTS_RAN_AESNI		2
#define XTS_RAN_GPU		3

#define XTS_F_DECRYPT		1u

struct xts_unit {
	unsigned int offset;		/* of its data, in the data array */
	unsigned int len;		/* bytes, >= XTS_UNIT_MIN */
	unsigned int key;		/* index in the key array */
	unsigned int flags;		/* XTS_F_* */
	unsigned char iv[XTS_BLOCK];	/* the tweak's plaintext: the sector number */
	unsigned int ran;		/* XTS_RAN_*, set by the kernel */
	unsigned int pad[3];
};

struct xts_key {
	unsigned int len;		/* one half: 16, 24 or 32 bytes */
	unsigned int pad[3];
	unsigned char data_key[32];	/* K1 */
	unsigned char tweak_key[32];	/* K2 */
};

#define XTS_PARAMS	(struct xts_unit *, units), (const struct xts_key *, keys), \
			(unsigned char *, data), (int, count), (int, nkeys), \
			(unsigned int, data_len), (int, impl)

#endif
