/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the module and its GCM kernel (gcm_aes.cu) share: the batch's
 * records and the kernel's signature. Plain C types only, since the kernel
 * module, cc and nvcc all read this file.
 *
 * A batch is three arrays in one buffer: units (one per AEAD request), the
 * data (each unit's associated data, then its text at a 16-byte aligned
 * offset of its own), and the keys the units name.
 */
#ifndef LAKE_EXAMPLE_GCM_KERNEL_H
#define LAKE_EXAMPLE_GCM_KERNEL_H

#define GCM_BLOCK		16
#define GCM_IV_BYTES		12	/* the kernel's gcm(aes): 96-bit IVs only */

/* impl: which CPU code the host device runs (a GPU ignores it). */
#define GCM_IMPL_AUTO		0	/* AES-NI + PCLMULQDQ where cpuid says so, else table-free */
#define GCM_IMPL_TABLE_FREE	1	/* constant time, SSE2 only */
#define GCM_IMPL_CLMUL		2	/* traps where the CPU lacks AES-NI or PCLMULQDQ */

/* ran: what processed a unit (AES_RAN_* of aes_device.h; 0: nothing did). */
#define GCM_RAN_TABLE_FREE	1
#define GCM_RAN_CLMUL		2
#define GCM_RAN_GPU		3

#define GCM_F_DECRYPT		1u

struct gcm_unit {
	unsigned int offset;		/* of its associated data, in the data array */
	unsigned int assoclen;
	unsigned int text;		/* offset of its text: >= offset + assoclen */
	unsigned int len;		/* text bytes, the tag not counted */
	unsigned int key;		/* index in the key array */
	unsigned int flags;		/* GCM_F_* */
	unsigned int authsize;		/* tag bytes: 4, 8, 12..16 */
	unsigned int ran;		/* GCM_RAN_*, set by the kernel */
	unsigned int tag_ok;		/* decryption: 1 when the tag matched */
	unsigned int pad[3];
	unsigned char iv[16];		/* GCM_IV_BYTES used */
	unsigned char tag[16];		/* encryption: the tag made; decryption: the one received */
};

struct gcm_key {
	unsigned int len;		/* 16, 24 or 32 bytes */
	unsigned int pad[3];
	unsigned char key[32];
};

#define GCM_PARAMS	(struct gcm_unit *, units), (const struct gcm_key *, keys), \
			(unsigned char *, data), (int, count), (int, nkeys), \
			(unsigned int, data_len), (int, impl)

#endif
